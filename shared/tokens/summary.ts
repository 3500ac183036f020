/**
 * What `check` reports of a session's recorded usage (SPEC §15, docs/tokens.md): the summary's
 * `tokens` and `cache_breaks`, and the `--max-context` gate. Pure: it reads the calls, their
 * recorded usage and their inputs (shared/calls/calls.ts), never the files.
 */
import type { CallTimeline, ModelCall } from '../calls/calls';
import { logChanges, prefixList } from '../calls/calls';
import { addressedRange } from '../resolver/original';
import type { Finding, MessageList, Reduction } from '../format/types';
import { formatLink } from '../links/link';
import type { CallTokens } from './usage';
import { isCacheBreak } from './usage';

/** One compaction event (one `group` of `summarized` reductions, or one such reduction alone). */
export interface CompactionTokens {
  /** The first call whose input the compaction applies to; null when no call came after it. */
  call: number | null;
  /** The reductions' `tokens_before` / `tokens_after`; null where nothing is recorded. */
  before: number | null;
  after: number | null;
}

export interface TokensSummary {
  /** Calls whose usage the file records. */
  calls_recorded: number;
  /** The largest recorded context of any call; null when none is recorded. */
  max_context: number | null;
  /** The window of the last call whose window is known; null when none is. */
  window: number | null;
  compactions: CompactionTokens[];
}

export interface CacheBreak {
  /** The call whose cache reads fell against the call before. */
  call: number;
  /** How far they fell: tokens the provider had cached and processed again. */
  tokens_rewritten: number;
  /** The first message that changed between the two inputs (and the reduction that changed it); null when none did (the cache expired). */
  cause: { reduction?: string; message_index: number } | null;
}

/** What the summary reads of a session. */
export interface UsageSource {
  readonly callTimeline: CallTimeline;
  /** The view the calls' inputs are prefixes of. */
  readonly minted: MessageList;
  callTokens(call: number | null): CallTokens | undefined;
}

/** The first call whose line is at or after `line` (where a reduction logged there is first live). */
function firstCallFrom(calls: readonly ModelCall[], line: number): number | null {
  // Calls are in line order: the first at or after `line`, by bisection.
  let lo = 0;
  let hi = calls.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((calls[mid] as ModelCall).line < line) lo = mid + 1;
    else hi = mid;
  }
  return lo < calls.length ? (calls[lo] as ModelCall).call : null;
}

/** `check`'s `tokens` (SPEC §15): recorded calls, the largest context, the window, each compaction's before and after. */
export function tokensSummary(session: UsageSource): TokensSummary {
  const { calls, spans } = session.callTimeline;
  let recorded = 0;
  let max: number | null = null;
  let window: number | null = null;
  for (const c of calls) {
    const t = session.callTokens(c.call);
    if (!t) continue;
    recorded++;
    if (max === null || t.context > max) max = t.context;
    if (t.window !== undefined) window = t.window;
  }
  const events = new Map<string, { reduction: Reduction; from: number }>();
  for (const s of spans) {
    const r = s.reduction;
    if (r.kind !== 'summarized') continue;
    const key = r.group ?? r.id;
    if (!events.has(key)) events.set(key, { reduction: r, from: s.from });
  }
  const compactions = [...events.values()].map(({ reduction, from }) => ({
    call: Number.isFinite(from) ? firstCallFrom(calls, from) : null,
    before: reduction.tokens_before ?? null,
    after: reduction.tokens_after ?? null,
  }));
  return { calls_recorded: recorded, max_context: max, window, compactions };
}

/**
 * The first message index that changed between the inputs of calls `a` and `b`, and the reduction
 * that changed it when one did, without making their diff (diffOfCalls): the first index a
 * reduction in one log and not the other addresses (those `b` reduced first, then those it
 * restored), else the first message of `a`'s input that `b`'s does not hold. The diff also
 * measures every message `b` adds and every reduction's hidden bytes, which a cause does not use:
 * the breaks of the bench's 537 MB session took 185 ms of `check` with it, 92 ms without
 * (docs/tokens.md "Cache breaks").
 */
export function firstChangeOfCalls(timeline: CallTimeline, minted: MessageList, a: ModelCall, b: ModelCall): CacheBreak['cause'] {
  const { reduced, restored } = logChanges(timeline, a, b);
  let best: CacheBreak['cause'] = null;
  for (const r of [...reduced, ...restored]) {
    const index = addressedRange(r)[0];
    if (best === null || index < best.message_index) best = { reduction: r.id, message_index: index };
  }
  // The messages past `b`'s input that `a`'s held: the first of them, unless a reduction came first.
  const dropped = prefixList(minted, b.index).length;
  if (dropped < prefixList(minted, a.index).length && (best === null || dropped < best.message_index)) best = { message_index: dropped };
  return best;
}

/**
 * §15 cache breaks: every call whose cache reads fell against the call before (both recorded) by
 * at least 1,024 tokens and 10 %, with the first message that changed between the two inputs.
 */
export function cacheBreaks(session: UsageSource): CacheBreak[] {
  const out: CacheBreak[] = [];
  const { calls } = session.callTimeline;
  for (let k = 1; k < calls.length; k++) {
    const n = (calls[k] as ModelCall).call;
    const prev = session.callTokens(n - 1);
    const cur = session.callTokens(n);
    if (!prev || !cur || !isCacheBreak(prev.cache_read, cur.cache_read)) continue;
    const cause = firstChangeOfCalls(session.callTimeline, session.minted, calls[k - 1] as ModelCall, calls[k] as ModelCall);
    out.push({ call: n, tokens_rewritten: prev.cache_read - cur.cache_read, cause });
  }
  return out;
}

/** How a number of tokens reads in a sentence. */
const count = (n: number): string => n.toLocaleString('en-US');

/**
 * The `--max-context PCT` gate (SPEC §15): an error finding `context_over_limit` for every call
 * whose recorded context exceeds PCT % of its window, with the call and a link to it. A call of
 * no recorded context or no known window is not judged.
 */
export function contextOverLimit(session: UsageSource, pct: number): Finding[] {
  const out: Finding[] = [];
  for (const c of session.callTimeline.calls) {
    const t = session.callTokens(c.call);
    if (!t || t.window === undefined || t.window <= 0) continue;
    if (t.context * 100 <= pct * t.window) continue;
    const share = Math.round((t.context / t.window) * 1000) / 10;
    out.push({
      code: 'context_over_limit',
      severity: 'error',
      message: `call ${c.call} was given ${count(t.context)} tokens of context, ${share} % of its ${count(t.window)}-token window: over the ${pct} % limit`,
      call: c.call,
      link: formatLink({ call: c.call }),
      index: c.index,
    });
  }
  return out;
}

/** The recorded usage of every call, columnar like the context map (call N at `[N - 1]`, null where nothing is recorded). */
export interface RecordedColumns {
  context: (number | null)[];
  cache_read: (number | null)[];
  cache_write: (number | null)[];
  output: (number | null)[];
  window: (number | null)[];
}

/** Every call's recorded usage as columns, or undefined when the file records none. */
export function recordedColumns(session: UsageSource): RecordedColumns | undefined {
  const cols: RecordedColumns = { context: [], cache_read: [], cache_write: [], output: [], window: [] };
  let any = false;
  for (const c of session.callTimeline.calls) {
    const t = session.callTokens(c.call);
    any ||= t !== undefined;
    cols.context.push(t?.context ?? null);
    cols.cache_read.push(t?.cache_read ?? null);
    cols.cache_write.push(t?.cache_write ?? null);
    cols.output.push(t?.output ?? null);
    cols.window.push(t?.window ?? null);
  }
  return any ? cols : undefined;
}
