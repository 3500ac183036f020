/**
 * Policy replay and the what-if view over an open session's files. The pure passes
 * are shared/replay.ts and shared/whatIf.ts; this reads the sidecar's records back, in file order,
 * up to the size it had when the session was opened (an appended tail is not part of the session),
 * and checks that the file did not change around the read.
 *
 * Replay needs the sidecar: the `message` and `reduction` records in the order the agent wrote
 * them. A snapshot alone, a foreign format, or a header without a policy cannot be replayed: that
 * is a note, not a finding (nothing is wrong with such a session).
 */
import { closeSync } from 'node:fs';
import type { CheckReport, LocatedRecord, PolicyReplayResult, ReductionPolicy, WhatIf } from '../../shared/index';
import { byLineThenIndex, divergenceFinding, parseSidecarLine, replayPolicy, whatIf } from '../../shared/index';
import { splitLines } from './lines';
import { openWithin } from './safeRead';
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

type Replayable = { ok: true; path: string; bytes: number; policy: ReductionPolicy } | { ok: false; note: string; reason: 'no_sidecar' | 'stopped' | 'no_policy'; sidecar?: { path: string; bytes: number } };

/** The sidecar and policy a replay reads, or why there is none. */
export function replayable(session: LoadedSession): Replayable {
  const sidecar = session.files.find((f) => f.format === 'supercode-sidecar');
  if (!sidecar) {
    const format = session.files[0]?.format;
    return {
      ok: false,
      reason: 'no_sidecar',
      note: format && format !== 'supercode-snapshot' ? `replay is not possible: a ${format} file names no reduction policy (only a supercode sidecar's header does)` : 'replay is not possible: a session snapshot alone holds no policy and no record order; open its sidecar',
    };
  }
  if (session.stopped) return { ok: false, reason: 'stopped', note: 'replay is not possible: the sidecar has a format version newer than supported' };
  const policy = session.header?.policy ?? null;
  if (!policy) return { ok: false, reason: 'no_policy', sidecar: { path: sidecar.path, bytes: sidecar.bytes }, note: 'replay is not possible: the sidecar header names no policy (policy: null)' };
  return { ok: true, path: sidecar.path, bytes: sidecar.bytes, policy };
}

/** The sidecar's readable records in file order, header left out; unreadable lines are skipped (check reports them). */
function* sidecarRecords(path: string, bytes: number): Generator<LocatedRecord> {
  // Non-blocking and checked on the descriptor (safeRead.ts): a FIFO or device swapped in is a change, never waited on.
  const opened = openWithin(path, undefined, { followLast: true });
  if ('refused' in opened) throw new FileChangedError({ path, message: `${path} can no longer be read: ${opened.refused}` });
  const fd = opened.fd;
  try {
    for (const line of splitLines(fd, { end: bytes, maxLineBytes: MAX_RECORD_BYTES })) {
      if (!line.bytes) continue;
      const parsed = parseSidecarLine(line.bytes.toString('utf8'), line.number, line.terminated);
      if (parsed.ok && parsed.record.t !== 'header') yield { record: parsed.record, line: line.number };
    }
  } finally {
    closeSync(fd);
  }
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
  const result = guarded(session, () => replayPolicy(sidecarRecords(source.path, source.bytes), source.policy, { sha256: nodeSha256 }));
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
  // A what-if brings its own policy: only the sidecar is needed.
  const sidecar = source.ok ? source : source.sidecar;
  if (!sidecar) return { ok: false, note: (source as { note: string }).note };
  return { ok: true, value: guarded(session, () => whatIf(sidecarRecords(sidecar.path, sidecar.bytes), policy, { sha256: nodeSha256 })) };
}
