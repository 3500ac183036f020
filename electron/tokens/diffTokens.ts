/**
 * SPEC §16 `diff --from N --to M`: tokens each way beside bytes (docs/diff.md "Tokens"). The
 * context of each end is the file's recorded context of that call (SPEC §15) where it has one,
 * else the estimate of the call's input; what was added, dropped, reduced and restored is always
 * estimated (per message, with the session's estimates: calibrated to the file where it records
 * usage, approximate for a Claude model). The CLI and the worker count with this one function.
 */
import type { ViewEntry } from '../../shared/calls/calls';
import { viewEntries } from '../../shared/calls/calls';
import type { CallsDiff } from '../../shared/calls/callsDiff';
import type { ContextFigure, DiffTokens } from '../../shared/tokens/diffTokens';
import type { TokenEstimate } from '../../shared/tokens/estimate';
import { sumEstimates } from '../../shared/tokens/estimate';
import type { LoadedSession } from '../loader/session';
import { SessionEstimates, recordedContextOf } from './sessionEstimates';

/** One estimator per open session: its per-message cache and calibration serve every diff of it. */
const estimators = new WeakMap<LoadedSession, SessionEstimates>();

export function sessionEstimates(session: LoadedSession): SessionEstimates {
  let e = estimators.get(session);
  if (!e) estimators.set(session, (e = new SessionEstimates(session, recordedContextOf(session))));
  return e;
}

interface Side {
  input: NonNullable<ReturnType<LoadedSession['callInput']>>;
  entries: ViewEntry[];
}

const byIndex = (entries: readonly ViewEntry[]): Map<number, ViewEntry> => new Map(entries.map((e) => [e.index, e]));

/** Per message of a diff: the estimate of each added and dropped message, and of each changed run at each end. */
export interface DiffTokenDetail {
  tokens: DiffTokens;
  added: number[];
  dropped: number[];
  changed: { from: number; to: number }[];
}

/** The tokens of `diff` (from `session.callsDiff`), each way and per entry. Reads the messages it counts. */
export function diffTokens(session: LoadedSession, diff: CallsDiff): DiffTokenDetail | undefined {
  const estimates = sessionEstimates(session);
  const sideOf = (call: number | null): Side | undefined => {
    const input = session.callInput(call);
    return input ? { input, entries: viewEntries(input) } : undefined;
  };
  const from = sideOf(diff.from);
  const to = sideOf(diff.to);
  if (!from || !to) return undefined;
  const approximate = estimates.approximate;
  const one = (side: Side, entry: ViewEntry | undefined): TokenEstimate => estimates.entriesEstimate(entry ? [entry] : [], side.input.minted).total;
  const context = (call: number | null, side: Side): ContextFigure => {
    const recorded = call === null ? undefined : session.callTokens(call)?.context;
    return recorded !== undefined ? { tokens: recorded, source: 'recorded' } : estimates.entriesEstimate(side.entries, side.input.minted).total;
  };
  const fromAt = byIndex(from.entries);
  const toAt = byIndex(to.entries);
  const added = diff.added.map((m) => one(to, toAt.get(m.index)));
  const dropped = diff.dropped.map((m) => one(from, fromAt.get(m.index)));
  // Runs are in view order, as are entries: one walk per side.
  const inRuns = (side: Side): TokenEstimate[] => {
    const out: TokenEstimate[] = [];
    let k = 0;
    for (const run of diff.changed) {
      while (k < side.entries.length && (side.entries[k] as ViewEntry).index < run.index) k++;
      const picked: ViewEntry[] = [];
      for (let j = k; j < side.entries.length && (side.entries[j] as ViewEntry).index < run.end; j++) picked.push(side.entries[j] as ViewEntry);
      out.push(estimates.entriesEstimate(picked, side.input.minted).total);
    }
    return out;
  };
  const runsFrom = inRuns(from);
  const runsTo = inRuns(to);
  const changed = diff.changed.map((_c, k) => ({ from: runsFrom[k] as TokenEstimate, to: runsTo[k] as TokenEstimate }));
  const sum = (list: readonly TokenEstimate[]): TokenEstimate => sumEstimates(list, { approximate });
  const runs = (which: 'reduced' | 'restored') => {
    const picked = changed.filter((_r, k) => (diff.changed[k] as CallsDiff['changed'][number])[which].length > 0);
    return { from: sum(picked.map((r) => r.from)), to: sum(picked.map((r) => r.to)) };
  };
  const tokens: DiffTokens = {
    from: context(diff.from, from),
    to: context(diff.to, to),
    added: sum(added),
    dropped: sum(dropped),
    reduced: runs('reduced'),
    restored: runs('restored'),
    ...(diff.changed_count > diff.changed.length ? { runs_listed: diff.changed.length } : {}),
  };
  return { tokens, added: added.map((e) => e.tokens), dropped: dropped.map((e) => e.tokens), changed: changed.map((c) => ({ from: c.from.tokens, to: c.to.tokens })) };
}
