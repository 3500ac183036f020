/**
 * Policy replay and the what-if view over an open session's files. The pure passes
 * are shared/calls/replay.ts and shared/calls/whatIf.ts; this feeds them the sidecar's records, in file order,
 * from the open session's index (the records its load folded in, up to the size the file had when
 * it was opened: an appended tail is not part of the session), with each message's content read
 * back once, and checks that the file did not change around the read (docs/policy-replay.md).
 *
 * Replay needs the sidecar: the `message` and `reduction` records in the order the agent wrote
 * them. A snapshot alone, a foreign format, or a header without a policy cannot be replayed: that
 * is a note, not a finding (nothing is wrong with such a session).
 */
import type { CheckReport, LocatedRecord, PolicyReplayResult, ReductionPolicy, WhatIf } from '../../shared/index';
import { byLineThenIndex, divergenceFinding, replayPolicy, whatIf } from '../../shared/index';
import type { LoadedSession } from './session';
import { FileChangedError, MAX_RECORD_BYTES, nodeSha256 } from './session';

/** What `check --replay` adds to a check: whether it ran, and why not. */
export interface ReplaySummary {
  replayed: boolean;
  /** Why replay is not possible (absent when it ran). */
  note?: string;
  policy: ReductionPolicy | null;
  passes: number;
  divergences: number;
}

type Replayable = { ok: true; records: () => Iterable<LocatedRecord>; policy: ReductionPolicy } | { ok: false; note: string; reason: 'no_sidecar' | 'stopped' | 'no_policy'; records?: () => Iterable<LocatedRecord> };

const NO_RECORD_ORDER = 'replay is not possible: a session snapshot alone holds no policy and no record order; open its sidecar';

/** The sidecar's records and the policy a replay reads, or why there is none. */
export function replayable(session: LoadedSession): Replayable {
  const sidecar = session.files.find((f) => f.format === 'supercode-sidecar');
  if (!sidecar) {
    const format = session.files[0]?.format;
    return {
      ok: false,
      reason: 'no_sidecar',
      note: format && format !== 'supercode-snapshot' ? `replay is not possible: a ${format} file names no reduction policy (only a supercode sidecar's header does)` : NO_RECORD_ORDER,
    };
  }
  if (session.stopped) return { ok: false, reason: 'stopped', note: 'replay is not possible: the sidecar has a format version newer than supported' };
  const replayRecords = session.replayRecords;
  if (!replayRecords) return { ok: false, reason: 'no_sidecar', note: NO_RECORD_ORDER };
  const records = () => replayRecords(MAX_RECORD_BYTES);
  const policy = session.header?.policy ?? null;
  if (!policy) return { ok: false, reason: 'no_policy', records, note: 'replay is not possible: the sidecar header names no policy (policy: null)' };
  return { ok: true, records, policy };
}

/** Runs `read` between two looks at the files: a result over bytes read around a change would be wrong. */
function guarded<T>(session: LoadedSession, read: () => T): T {
  const before = session.fileChange();
  if (before) throw new FileChangedError(before);
  const value = read();
  const after = session.fileChange();
  if (after) throw new FileChangedError(after);
  return value;
}

/** The replay of the session's own policy, or why there is none. Throws FileChangedError. */
export function replaySession(session: LoadedSession): { summary: ReplaySummary; result?: PolicyReplayResult } {
  const source = replayable(session);
  if (!source.ok) return { summary: { replayed: false, note: source.note, policy: null, passes: 0, divergences: 0 } };
  const result = guarded(session, () => replayPolicy(source.records(), source.policy, { sha256: nodeSha256 }));
  return { summary: { replayed: true, policy: source.policy, passes: result.passes, divergences: result.divergences.length }, result };
}

/** `check` with the replay's divergences among its findings (sorted by line then index, counted in the summary). */
export function checkWithReplay(session: LoadedSession): CheckReport & { replay: ReplaySummary } {
  const report = session.check();
  const { summary, result } = replaySession(session);
  const divergences = (result?.divergences ?? []).map(divergenceFinding);
  if (divergences.length === 0) return { ...report, replay: summary };
  return {
    ...report,
    findings: [...report.findings, ...divergences].sort(byLineThenIndex),
    summary: { ...report.summary, warnings: report.summary.warnings + divergences.length },
    replay: summary,
  };
}

/** The what-if view of `policy` over the session, or why there is none. Throws FileChangedError. */
export function whatIfSession(session: LoadedSession, policy: ReductionPolicy): { ok: true; value: WhatIf } | { ok: false; note: string } {
  const source = replayable(session);
  // A what-if brings its own policy: only the sidecar's records are needed.
  if (!source.records) return { ok: false, note: (source as { note: string }).note };
  const records = source.records;
  return { ok: true, value: guarded(session, () => whatIf(records(), policy, { sha256: nodeSha256 })) };
}
