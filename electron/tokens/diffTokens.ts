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
import { rowBytes } from '../../shared/calls/callsDiff';
import type { ContextFigure, DiffTokens } from '../../shared/tokens/diffTokens';
import type { TokenEstimate } from '../../shared/tokens/estimate';
import { sumEstimates, tokenEstimate } from '../../shared/tokens/estimate';
import type { LoadedSession } from '../loader/session';
import type { GivenView } from './sessionEstimates';
import { sessionEstimates } from './sessionEstimates';
import type { TextCounter } from './textCounter';

/** One end of a diff: its input and its view's entries, with the bytes it was given where asked (givenBytes's count, from the same rows). */
export interface DiffSide extends GivenView {
  bytes?: number;
}

/**
 * Both ends of a diff of calls `from` and `to` (null: the latest view), each projected once;
 * undefined when either is no call of `session`. With `withBytes`, each end's given bytes are
 * counted from the rows its entries are made from: `diff` hands them to `callsDiff` (its `given`)
 * and the sides to `diffEntries` (docs/worker.md §7). Without, no row's bytes are counted (the
 * worker's diff has the context map's).
 */
export function diffSides(session: LoadedSession, from: number | null, to: number | null, withBytes = false): { from: DiffSide; to: DiffSide } | undefined {
  const sideOf = (call: number | null): DiffSide | undefined => {
    const input = session.callInput(call);
    if (!input) return undefined;
    if (!withBytes) return { input, entries: viewEntries(input) };
    let bytes = 0;
    const entries = viewEntries(input, 0, (row) => {
      bytes += rowBytes(row, input.minted) ?? 0;
    });
    return { input, entries, bytes };
  };
  const a = sideOf(from);
  const b = a && sideOf(to);
  return a && b ? { from: a, to: b } : undefined;
}

const byIndex = (entries: readonly ViewEntry[]): Map<number, ViewEntry> => new Map(entries.map((e) => [e.index, e]));

/** Per message of a diff: the estimate of each added and dropped message, and of each changed run at each end. */
export interface DiffTokenDetail {
  tokens: DiffTokens;
  added: number[];
  dropped: number[];
  changed: { from: number; to: number }[];
}

/**
 * What a diff counts: each end's input, its added and dropped entries, and each changed run's
 * entries at each end. Made once where a diff is counted ahead and then counted (`diff`: both
 * ends' views are projected to make it; docs/worker.md §7).
 */
export interface DiffEntries {
  from: DiffSide;
  to: DiffSide;
  added: (ViewEntry | undefined)[];
  dropped: (ViewEntry | undefined)[];
  runsFrom: ViewEntry[][];
  runsTo: ViewEntry[][];
}

/**
 * What `diff` counts, or undefined when either end is no call of `session`. `sides`: both ends as
 * `diffSides(session, diff.from, diff.to)` gives them, where the caller has made them.
 */
export function diffEntries(session: LoadedSession, diff: CallsDiff, sides = diffSides(session, diff.from, diff.to)): DiffEntries | undefined {
  if (!sides) return undefined;
  const { from, to } = sides;
  const fromAt = byIndex(from.entries);
  const toAt = byIndex(to.entries);
  // Runs are in view order, as are entries: one walk per side.
  const inRuns = (side: DiffSide): ViewEntry[][] => {
    const out: ViewEntry[][] = [];
    let k = 0;
    for (const run of diff.changed) {
      while (k < side.entries.length && (side.entries[k] as ViewEntry).index < run.index) k++;
      const picked: ViewEntry[] = [];
      for (let j = k; j < side.entries.length && (side.entries[j] as ViewEntry).index < run.end; j++) picked.push(side.entries[j] as ViewEntry);
      out.push(picked);
    }
    return out;
  };
  return {
    from,
    to,
    added: diff.added.map((m) => toAt.get(m.index)),
    dropped: diff.dropped.map((m) => fromAt.get(m.index)),
    runsFrom: inRuns(from),
    runsTo: inRuns(to),
  };
}

/** The context the file records for a call, where it records one (else the diff estimates the call's input). */
const recordedContext = (session: LoadedSession, call: number | null): number | undefined => (call === null ? undefined : session.callTokens(call)?.context);

/**
 * Counts ahead, on this thread and `counter`'s, what `diffTokens(session, diff, d)` will count
 * (SessionEstimates.countAhead: docs/token-estimates.md "Counting on two threads"); `d` is
 * `diffEntries(session, diff)`.
 */
export async function countDiffAhead(session: LoadedSession, diff: CallsDiff, d: DiffEntries, counter: TextCounter): Promise<void> {
  const defined = (list: readonly (ViewEntry | undefined)[]): ViewEntry[] => list.filter((e): e is ViewEntry => e !== undefined);
  const side = (s: DiffSide, call: number | null, own: readonly (ViewEntry | undefined)[], runs: readonly ViewEntry[][]) => ({
    entries: recordedContext(session, call) === undefined ? s.entries : [...defined(own), ...runs.flat()],
    view: s.input.minted,
  });
  await sessionEstimates(session).countAhead([side(d.to, diff.to, d.added, d.runsTo), side(d.from, diff.from, d.dropped, d.runsFrom)], counter);
}

/**
 * The two ends' contexts, where the file records one end's and not the other's: the other is the
 * recorded one and the estimated change between them (added − dropped + each changed run's `to −
 * from`), marked estimated with `from_recorded` (docs/diff.md "Tokens"). Left as they are when both
 * or neither record theirs, or when only some changed runs are counted (`runs_listed`).
 */
function anchoredEnds(from: ContextFigure, to: ContextFigure, diff: CallsDiff, added: readonly TokenEstimate[], dropped: readonly TokenEstimate[], changed: readonly { from: TokenEstimate; to: TokenEstimate }[], approximate: boolean): { from: ContextFigure; to: ContextFigure } {
  if (diff.changed_count > diff.changed.length || (from.source === 'recorded') === (to.source === 'recorded')) return { from, to };
  const total = (list: readonly TokenEstimate[]): number => list.reduce((n, e) => n + e.tokens, 0);
  const change = total(added) - total(dropped) + changed.reduce((n, c) => n + c.to.tokens - c.from.tokens, 0);
  const marks = sumEstimates([...added, ...dropped, ...changed.flatMap((c) => [c.from, c.to])], { approximate });
  const anchored = (tokens: number, call: number, recorded: number): ContextFigure => ({ ...tokenEstimate(Math.max(0, tokens), { approximate: marks.approximate === true, sampled: marks.sampled === true }), from_recorded: { call, tokens: recorded } });
  // A recorded end is a call (the latest view records nothing).
  if (from.source === 'recorded' && diff.from !== null) return { from, to: anchored(from.tokens + change, diff.from, from.tokens) };
  if (to.source === 'recorded' && diff.to !== null) return { from: anchored(to.tokens - change, diff.to, to.tokens), to };
  return { from, to };
}

/**
 * The tokens of `diff` (from `session.callsDiff`), each way and per entry. Reads the messages it
 * counts. `made`: `diffEntries(session, diff)` where the caller has made it.
 */
export function diffTokens(session: LoadedSession, diff: CallsDiff, made?: DiffEntries): DiffTokenDetail | undefined {
  const estimates = sessionEstimates(session);
  const d = made ?? diffEntries(session, diff);
  if (!d) return undefined;
  const { from, to } = d;
  const approximate = estimates.approximate;
  const one = (side: DiffSide, entry: ViewEntry | undefined): TokenEstimate => estimates.entriesEstimate(entry ? [entry] : [], side.input.minted).total;
  const context = (call: number | null, side: DiffSide): ContextFigure => {
    const recorded = recordedContext(session, call);
    return recorded !== undefined ? { tokens: recorded, source: 'recorded' } : estimates.entriesEstimate(side.entries, side.input.minted).total;
  };
  const added = d.added.map((e) => one(to, e));
  const dropped = d.dropped.map((e) => one(from, e));
  const runsFrom = d.runsFrom.map((picked) => estimates.entriesEstimate(picked, from.input.minted).total);
  const runsTo = d.runsTo.map((picked) => estimates.entriesEstimate(picked, to.input.minted).total);
  const changed = diff.changed.map((_c, k) => ({ from: runsFrom[k] as TokenEstimate, to: runsTo[k] as TokenEstimate }));
  const sum = (list: readonly TokenEstimate[]): TokenEstimate => sumEstimates(list, { approximate });
  const runs = (which: 'reduced' | 'restored') => {
    const picked = changed.filter((_r, k) => (diff.changed[k] as CallsDiff['changed'][number])[which].length > 0);
    return { from: sum(picked.map((r) => r.from)), to: sum(picked.map((r) => r.to)) };
  };
  const ends = anchoredEnds(context(diff.from, from), context(diff.to, to), diff, added, dropped, changed, approximate);
  const tokens: DiffTokens = {
    from: ends.from,
    to: ends.to,
    added: sum(added),
    dropped: sum(dropped),
    reduced: runs('reduced'),
    restored: runs('restored'),
    ...(diff.changed_count > diff.changed.length ? { runs_listed: diff.changed.length } : {}),
  };
  return { tokens, added: added.map((e) => e.tokens), dropped: dropped.map((e) => e.tokens), changed: changed.map((c) => ({ from: c.from.tokens, to: c.to.tokens })) };
}
