/**
 * The context map in tokens (SPEC §15 "The app", docs/tokens.md "In the app"): each call's
 * context — recorded where the file records it, else the worker's estimate, never mixed without
 * saying which — its cache reads, the tokens hidden from it and its window; buckets of them for
 * the chart; the chart's text alternative; and the status bar's `<tokens> / <window> (<pct>)`.
 * Pure, so every figure is tested without a DOM.
 */
import type { ContextMapInfo, TokenMapFigures } from '../../../shared/contract';
import { countOf, formatCount } from '../../text/format';
import { nameText } from '../../text/nameText';

export type MapUnit = 'tokens' | 'bytes';
/** Every call's estimates known so far, merged from the worker's `tokenMap` replies (shared/tokenMapContract.ts mergeTokenMap). */
export type TokenMapInfo = TokenMapFigures;
export type CacheBreakInfo = NonNullable<ContextMapInfo['cache_breaks']>[number];
export type CompactionTokens = NonNullable<ContextMapInfo['compaction_tokens']>[number];

/** One call in tokens. */
export interface TokenCall {
  /** The context: recorded, else estimated; null while nothing is known (estimates on their way, or past a partial estimate). */
  context: number | null;
  source: 'recorded' | 'estimated' | null;
  /** Recorded cache reads (a part of the context); 0 where none are recorded. */
  cached: number;
  /** Estimated tokens the live reductions kept out; null where unknown. */
  hidden: number | null;
  /** The model's window: the file's, else the shipped table's; null when unknown. */
  window: number | null;
}

/** Every call in tokens (call N at `[N - 1]`), from the `calls` reply and, once here, the `tokenMap` reply. */
export function tokenCalls(map: ContextMapInfo, tokens: TokenMapInfo | null): TokenCall[] {
  const out: TokenCall[] = [];
  for (let k = 0; k < map.calls; k++) {
    const recorded = map.recorded?.context[k] ?? null;
    const estimated = tokens?.estimated[k] ?? null;
    const context = recorded ?? estimated;
    out.push({
      context,
      source: recorded !== null ? 'recorded' : estimated !== null ? 'estimated' : null,
      cached: recorded !== null ? Math.min(recorded, map.recorded?.cache_read[k] ?? 0) : 0,
      hidden: tokens?.hidden[k] ?? null,
      window: map.recorded?.window[k] ?? tokens?.window[k] ?? null,
    });
  }
  return out;
}

/** The parts a call's bar is drawn from: `cached + fresh` is its context (0 for none), `hidden` above it. */
export function callSegments(c: TokenCall): { cached: number; fresh: number; hidden: number } {
  const context = c.context ?? 0;
  const cached = Math.min(context, c.cached);
  return { cached, fresh: context - cached, hidden: c.hidden ?? 0 };
}

/** One bucket of consecutive calls `[first, last]`, drawn as its peak call (the largest context: a peak is never averaged away). */
export interface TokenBucket {
  first: number;
  last: number;
  /** The call of the largest context in the bucket (its first when none is known). */
  peak: number;
  context: number;
  source: TokenCall['source'];
  cached: number;
  fresh: number;
  /** The largest hidden tokens of a call in the bucket; null when no call's is known. */
  hidden: number | null;
  /** The largest window of a call in the bucket; null when none is known. */
  window: number | null;
  breaks: CacheBreakInfo[];
  compactions: CompactionTokens[];
}

/** At most `maxBuckets` buckets over the calls, in order; each call in exactly one; every cache break and compaction in its call's. */
export function tokenBuckets(calls: readonly TokenCall[], map: Pick<ContextMapInfo, 'cache_breaks' | 'compaction_tokens'>, maxBuckets: number): TokenBucket[] {
  const n = calls.length;
  if (n === 0) return [];
  const count = Math.max(1, Math.min(n, Math.floor(maxBuckets)));
  const buckets: TokenBucket[] = [];
  for (let b = 0; b < count; b++) {
    const first = Math.floor((b * n) / count) + 1;
    const last = Math.floor(((b + 1) * n) / count);
    let peak = first;
    let hidden: number | null = null;
    let window: number | null = null;
    for (let call = first; call <= last; call++) {
      const c = calls[call - 1] as TokenCall;
      if ((c.context ?? -1) > (calls[peak - 1]?.context ?? -1)) peak = call;
      if (c.hidden !== null) hidden = Math.max(hidden ?? 0, c.hidden);
      if (c.window !== null) window = Math.max(window ?? 0, c.window);
    }
    const p = calls[peak - 1] as TokenCall;
    const { cached, fresh } = callSegments(p);
    buckets.push({ first, last, peak, context: p.context ?? 0, source: p.source, cached, fresh, hidden, window, breaks: [], compactions: [] });
  }
  const bucketOf = (call: number): TokenBucket | undefined => buckets[Math.min(count - 1, Math.floor(((call - 1) * count) / n))];
  for (const br of map.cache_breaks ?? []) bucketOf(br.call)?.breaks.push(br);
  for (const c of map.compaction_tokens ?? []) if (c.call !== null) bucketOf(c.call)?.compactions.push(c);
  return buckets;
}

/** `n tokens`, with `est.` before an estimate (SPEC §16.1). */
export function tokensText(n: number, source: TokenCall['source']): string {
  return `${source === 'estimated' ? 'est. ' : ''}${countOf(n, 'token')}`;
}

/** The share of the window, in percent with one decimal. */
export function windowShare(tokens: number, window: number): number {
  return Math.round((tokens / window) * 1000) / 10;
}

/** The status bar's `<tokens> / <window> (<pct>)` of one call (`est.` for an estimate; no window: the tokens alone); '' when nothing is known. */
export function contextStatusText(c: TokenCall | undefined): string {
  if (!c || c.context === null) return '';
  const tokens = tokensText(c.context, c.source);
  return c.window === null || c.window <= 0 ? tokens : `${tokens} / ${formatCount(c.window)} (${windowShare(c.context, c.window)} %)`;
}

/**
 * How far the worker's pass has got while it runs (docs/tokens.md "How the pass runs"):
 * `estimating… N of M calls`, naming the calibration's walk over the recorded calls while that
 * comes first; `estimating…` alone before the first slice answers.
 */
export function estimatingText(tokens: TokenMapInfo | null): string {
  const progress = tokens?.progress;
  if (!progress) return 'estimating…';
  const of = `${formatCount(progress.done)} of ${countOf(progress.calls, 'call')}`;
  return progress.stage === 'calibrating' ? `estimating… calibrating on the recorded usage, ${of}` : `estimating… ${of}`;
}

/** What a cache break's cause says, in words. */
export function breakCauseText(b: CacheBreakInfo): string {
  if (b.cause === null) return 'no earlier message changed (the cache expired)';
  return b.cause.reduction !== undefined ? `reduction ${nameText(b.cause.reduction)} rewrote message ${formatCount(b.cause.message_index)}` : `message ${formatCount(b.cause.message_index)} changed`;
}

/**
 * How many cache breaks a text names one by one: the text alternative and a figures row name at
 * most this many (the largest), and count the rest. A long session whose cache expired at every
 * pause holds thousands, and a sentence listing each is read by no one (docs/tokens.md "In the app").
 */
export const BREAKS_NAMED = 5;

/** How many cache breaks the map's list shows at first, and adds at each `Show … more`. */
export const BREAK_ROWS = 100;

/** The breaks' `BREAKS_NAMED` largest by tokens rewritten (the earlier first among equal ones), in call order. */
export function largestBreaks(breaks: readonly CacheBreakInfo[], named: number = BREAKS_NAMED): CacheBreakInfo[] {
  if (breaks.length <= named) return [...breaks];
  // One pass keeping the largest so far (the map redraws as each estimate comes: no sort of thousands each time).
  const top: number[] = [];
  const rewritten = (k: number): number => (breaks[k] as CacheBreakInfo).tokens_rewritten;
  for (let k = 0; k < breaks.length; k++) {
    // After every kept one as large (the earlier first among equals).
    let at = top.length;
    while (at > 0 && rewritten(top[at - 1] as number) < rewritten(k)) at--;
    if (at >= named) continue;
    top.splice(at, 0, k);
    if (top.length > named) top.pop();
  }
  return top.sort((a, b) => a - b).map((k) => breaks[k] as CacheBreakInfo);
}

/** One break in a sentence: `call 3, 75,000 tokens rewritten`. */
function breakText(b: CacheBreakInfo): string {
  return `call ${formatCount(b.call)}, ${countOf(b.tokens_rewritten, 'token')} rewritten`;
}

/** The text alternative's cache breaks: each one when few, else the count and the largest. */
export function breaksText(breaks: readonly CacheBreakInfo[]): string {
  if (breaks.length === 0) return 'no cache breaks';
  const named = largestBreaks(breaks).map(breakText).join('; ');
  return breaks.length <= BREAKS_NAMED ? `${countOf(breaks.length, 'cache break')} (${named})` : `${countOf(breaks.length, 'cache break')} (the ${BREAKS_NAMED} largest: ${named})`;
}

/** A figures row's cache breaks (the calls of one bucket): each one when few, else the count and the largest. */
export function bucketBreaksText(breaks: readonly CacheBreakInfo[]): string[] {
  if (breaks.length <= BREAKS_NAMED) return breaks.map((br) => `cache break at call ${formatCount(br.call)}: ${countOf(br.tokens_rewritten, 'token')} rewritten`);
  const [top] = largestBreaks(breaks, 1);
  return [`${countOf(breaks.length, 'cache break')}, the largest at call ${formatCount(top?.call ?? 0)}: ${countOf(top?.tokens_rewritten ?? 0, 'token')} rewritten`];
}

/** The chart's cache-break marks: one per bucket holding any, at its first break's call, with how many it stands for. */
export function breakMarks(buckets: readonly Pick<TokenBucket, 'breaks'>[]): { call: number; count: number }[] {
  const out: { call: number; count: number }[] = [];
  for (const b of buckets) {
    const first = b.breaks[0];
    if (first) out.push({ call: first.call, count: b.breaks.length });
  }
  return out;
}

/** A compaction's before → after in tokens. */
export function compactionText(c: CompactionTokens): string {
  const side = (n: number | null): string => (n === null ? '?' : formatCount(n));
  return `compaction before call ${c.call === null ? '?' : formatCount(c.call)}: ${side(c.before)} → ${side(c.after)} tokens`;
}

/** A model switch with the context before and after it: the call before's and its call's. */
export function switchText(s: { call: number; from: string; to: string }, calls: readonly TokenCall[]): string {
  const before = calls[s.call - 2]?.context;
  const after = calls[s.call - 1]?.context;
  const tokens = before != null && after != null ? `, ${formatCount(before)} → ${formatCount(after)} tokens` : '';
  return `model switch ${nameText(s.from)} → ${nameText(s.to)} before call ${formatCount(s.call)}${tokens}`;
}

/**
 * The text alternative of the chart in tokens: the last call's context and window, the peak,
 * cache reads, hidden tokens, cache breaks, compactions and model switches. It names tokens and
 * the window (SPEC §15), and says which figures are estimates and how they were calibrated.
 */
export function tokenSummary(map: ContextMapInfo, calls: readonly TokenCall[], tokens: TokenMapInfo | null, pending: boolean): string {
  if (map.calls === 0) return 'Context map in tokens: this session has no model calls.';
  const last = calls[calls.length - 1] as TokenCall;
  const parts: string[] = [];
  const lastContext = last.context === null ? (pending ? 'not yet estimated' : 'not known') : `${tokensText(last.context, last.source)}${last.source === 'recorded' ? ' (recorded)' : ''}`;
  parts.push(
    `Context map in tokens of ${countOf(map.calls, 'model call')}: the last call's context was ${lastContext}` +
      (last.window === null ? '; the window is unknown' : ` of a ${formatCount(last.window)}-token window${last.context === null ? '' : ` (${windowShare(last.context, last.window)} %)`}`),
  );
  let peak: number | null = null;
  for (let k = 0; k < calls.length; k++) if ((calls[k]?.context ?? -1) > (peak === null ? -1 : (calls[peak]?.context ?? -1))) peak = k;
  const p = peak === null ? undefined : calls[peak];
  if (p && p.context !== null && peak !== null) parts.push(`at most ${tokensText(p.context, p.source)} at call ${formatCount(peak + 1)}`);
  const recorded = calls.filter((c) => c.source === 'recorded').length;
  const estimated = calls.filter((c) => c.source === 'estimated').length;
  parts.push(recorded === map.calls ? 'every call recorded by the file' : `${countOf(recorded, 'call')} recorded, ${countOf(estimated, 'call')} estimated${pending ? ' (estimating…)' : ''}`);
  if (tokens?.calibration) parts.push(calibrationText(tokens.calibration));
  if (tokens?.approximate) parts.push('estimates approximate (no offline tokenizer exists for Claude models)');
  const cached = last.cached;
  if (last.source === 'recorded') parts.push(`the last call read ${countOf(cached, 'token')} from the cache`);
  if (last.hidden !== null) parts.push(`est. ${countOf(last.hidden, 'token')} hidden at the last call`);
  const breaks = map.cache_breaks ?? [];
  parts.push(breaksText(breaks));
  const compactions = map.compaction_tokens ?? [];
  if (compactions.length > 0) parts.push(compactions.map(compactionText).join('; '));
  parts.push(map.model_switches.length === 0 ? 'no model switches' : map.model_switches.map((s) => switchText(s, calls)).join('; '));
  if (tokens?.partial) parts.push('the session is too large to estimate every call: the later calls have no estimate');
  return `${parts.join('; ')}.`;
}

export type CalibrationFigures = NonNullable<TokenMapInfo['calibration']>;

function percent(error: number): string {
  return `±${Math.round(error * 1000) / 10} %`;
}

/**
 * How the estimates were scaled (docs/token-estimates.md "Calibration"), and a refused fit with
 * its figures, so a user sees why a file's own usage was not used.
 */
export function calibrationText(c: CalibrationFigures): string {
  const refused = c.refused
    ? `; this file's own fit (×${c.refused.factor.toFixed(2)}, ${percent(c.refused.error)} over ${countOf(c.refused.calls, 'step')}) was refused: its recorded usage does not follow its messages`
    : '';
  if (c.source === 'none') return `estimates not calibrated${refused}`;
  return `estimates calibrated ×${c.factor.toFixed(2)} (${percent(c.error)}, ${c.source === 'file' ? 'fitted on this file' : 'the default for Claude models'})${refused}`;
}

/**
 * The recorded context less the estimate of what the file holds: what the agent sent and did not
 * record, or, where the estimates overshoot (`not_in_file` below 0), by how much they exceed it.
 */
export function notInFileText(notInFile: number): string {
  return notInFile >= 0 ? `not in the file (sent, not recorded) ${formatCount(notInFile)}` : `the estimates exceed the recorded context by ${formatCount(-notInFile)}`;
}
