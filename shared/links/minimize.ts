/**
 * Delta debugging (Zeller and Hildebrandt's ddmin) over a list of removable items, for repro
 * bundles (SPEC §12): the smallest subset that still satisfies an oracle ("every named finding
 * code and reduction is still reproduced"). Pure: the oracle is the only outside call, and it may
 * be asynchronous (the bundle's oracle loads files).
 *
 * Invariants (shared/links/minimize.test.ts checks them with fast-check):
 * - the result is a subset of the input, in input order, and the oracle accepted it (or it is the
 *   whole input, which the caller has checked);
 * - the oracle is called at most `maxCalls` times (a set already answered is not asked again);
 * - the same oracle gives the same result (no randomness, no clocks);
 * - when the run ends below the cap, removing any one item of the result fails the oracle
 *   (1-minimal), unless the result is empty;
 * - a stop asked for (`shouldStop`: a cancel, a time limit) ends the run before its next oracle
 *   call, with the smallest set accepted so far (the best so far is never lost);
 * - `onProgress` hears every oracle call, the calls counting up and the kept set only shrinking.
 */

/** Most oracle calls one minimization may make (bundle.json reports it). */
export const MINIMIZE_MAX_CALLS = 2000;
/** Most removable items a minimization takes: a larger input is kept whole (bundle.json says so). */
export const MINIMIZE_MAX_ITEMS = 20_000;

/** Why a search ended before it was 1-minimal, besides the call cap: a cancel or a time limit (the caller's). */
export type StopAsked = 'cancelled' | 'time_limit';

/** What the minimizer reports after each oracle call. */
export interface MinimizeProgress {
  /** Oracle calls made so far (this one included). */
  calls: number;
  /** The smallest kept set the oracle accepted so far (the whole input at first). */
  kept: readonly number[];
  /** `prefix`: the view-prefix search; `ddmin`: delta debugging over the records. */
  stage: 'prefix' | 'ddmin';
}

export interface MinimizeOptions {
  maxCalls?: number;
  maxItems?: number;
  /** Asked before each oracle call: a reason ends the run with the best set so far. */
  shouldStop?: () => StopAsked | undefined;
  onProgress?: (progress: MinimizeProgress) => void;
}

export interface MinimizeResult {
  /** Indices (into the input, ascending) of the items kept. */
  kept: number[];
  /** Oracle calls made. */
  calls: number;
  /** Kept sets the oracle accepted, in order: each a strict subset of the one before. */
  steps: number;
  /** Why the search ended: `minimal` (1-minimal), `call_cap`, `too_large` (nothing removed), or a stop asked for. */
  stop: 'minimal' | 'call_cap' | 'too_large' | StopAsked;
}

export type Oracle = (kept: readonly number[]) => boolean | Promise<boolean>;

/** `items` split into `n` chunks of near-equal length (the first ones one longer), in order. */
function split(items: readonly number[], n: number): number[][] {
  const chunks: number[][] = [];
  let start = 0;
  for (let k = 0; k < n; k++) {
    const len = Math.floor(items.length / n) + (k < items.length % n ? 1 : 0);
    chunks.push(items.slice(start, start + len));
    start += len;
  }
  return chunks.filter((c) => c.length > 0);
}

/**
 * ddmin over items `0..count-1`. The caller guarantees the oracle accepts the whole input.
 * Tries each chunk alone, then each chunk's complement, at granularity 2, 4, ... up to one item
 * per chunk; after a success it continues at the same (or, for a complement, one coarser)
 * granularity, as in the original algorithm.
 */
export async function ddmin(count: number, oracle: Oracle, options: MinimizeOptions & { callsBefore?: number } = {}): Promise<MinimizeResult> {
  const maxCalls = options.maxCalls ?? MINIMIZE_MAX_CALLS;
  const maxItems = options.maxItems ?? MINIMIZE_MAX_ITEMS;
  const all = Array.from({ length: count }, (_, k) => k);
  if (count > maxItems) return { kept: all, calls: 0, steps: 0, stop: 'too_large' };

  const answered = new Map<string, boolean>();
  let calls = 0;
  let steps = 0;
  let stop: MinimizeResult['stop'] = 'call_cap';
  let current = all;
  /** The oracle's answer, or undefined when the cap or a stop asked for forbids asking. */
  const ask = async (kept: readonly number[]): Promise<boolean | undefined> => {
    const key = kept.join(',');
    const known = answered.get(key);
    if (known !== undefined) return known;
    if (calls >= maxCalls) return undefined;
    const asked = options.shouldStop?.();
    if (asked !== undefined) {
      stop = asked;
      return undefined;
    }
    calls++;
    const ok = await oracle(kept);
    answered.set(key, ok);
    if (ok) steps++;
    options.onProgress?.({ calls: (options.callsBefore ?? 0) + calls, kept: ok ? kept : current, stage: 'ddmin' });
    return ok;
  };

  let n = 2;
  while (current.length >= 2) {
    const chunks = split(current, Math.min(n, current.length));
    let next: { kept: number[]; n: number } | undefined;
    // Subsets first (a big jump down), then complements; at n = 2 a subset is a complement.
    for (const chunk of chunks) {
      const ok = await ask(chunk);
      if (ok === undefined) return { kept: current, calls, steps, stop };
      if (ok) {
        next = { kept: chunk, n: 2 };
        break;
      }
    }
    if (!next && chunks.length > 2) {
      for (let k = 0; k < chunks.length; k++) {
        const complement = chunks.filter((_, j) => j !== k).flat();
        const ok = await ask(complement);
        if (ok === undefined) return { kept: current, calls, steps, stop };
        if (ok) {
          next = { kept: complement, n: Math.max(chunks.length - 1, 2) };
          break;
        }
      }
    }
    if (next) {
      current = next.kept;
      n = next.n;
      continue;
    }
    if (chunks.length >= current.length) break; // one item per chunk, none removable: 1-minimal
    n = Math.min(current.length, chunks.length * 2);
  }
  if (current.length === 1) {
    const ok = await ask([]);
    if (ok === undefined) return { kept: current, calls, steps, stop };
    if (ok) current = [];
  }
  return { kept: current, calls, steps, stop: 'minimal' };
}

/**
 * What the minimizer knows of one record of a session (SPEC §3): a `message` record (or a
 * snapshot's message) holds view index `message`; another record may address view indices up to
 * `needs` (a reduction's `ptr.index`, `canonical.index`, `end - 1`; a switch's or rewind's position).
 * A record with neither is known to address nothing.
 */
export interface RecordShape {
  message?: number;
  needs?: number;
}

export interface RecordsResult extends MinimizeResult {
  /** The view length kept by the first stage (null: the records hold no message). */
  view: number | null;
}

/**
 * Two stages over a session's records. Removing a message from the middle of the view moves every
 * later index, so ddmin alone spends its calls on removals that cannot pass. First, a binary
 * search for the shortest view prefix [0, L) that still passes (dropping the messages at L and
 * beyond and the records that address only that tail; records addressing past the whole view are
 * kept: they may be the defect). Then ddmin over the records that are not messages, the messages
 * of the prefix held fixed. Both stages share one cap on oracle calls.
 */
export async function minimizeRecords(shapes: readonly RecordShape[], oracle: Oracle, options: MinimizeOptions = {}): Promise<RecordsResult> {
  const maxCalls = options.maxCalls ?? MINIMIZE_MAX_CALLS;
  const maxItems = options.maxItems ?? MINIMIZE_MAX_ITEMS;
  const all = shapes.map((_, k) => k);
  if (shapes.length > maxItems) return { kept: all, calls: 0, steps: 0, stop: 'too_large', view: null };

  let end = 0;
  for (const s of shapes) if (s.message !== undefined) end = Math.max(end, s.message + 1);
  const prefix = (length: number) =>
    all.filter((k) => {
      const s = shapes[k] as RecordShape;
      if (s.message !== undefined) return s.message < length;
      return s.needs === undefined || s.needs < length || s.needs >= end;
    });

  let calls = 0;
  let steps = 0;
  let view: number | null = null;
  let kept = all;
  if (end > 0) {
    let lo = 0;
    let hi = end; // prefix(end) is the whole input, which passes
    let asked: StopAsked | undefined;
    while (lo < hi && calls < maxCalls && (asked = options.shouldStop?.()) === undefined) {
      const mid = Math.floor((lo + hi) / 2);
      calls++;
      if (await oracle(prefix(mid))) {
        hi = mid;
        steps++;
      } else lo = mid + 1;
      options.onProgress?.({ calls, kept: prefix(hi), stage: 'prefix' });
    }
    view = hi;
    kept = prefix(hi);
    if (lo < hi) return { kept, calls, steps, stop: asked ?? 'call_cap', view };
  }

  const fixed = kept.filter((k) => shapes[k]?.message !== undefined);
  const free = kept.filter((k) => shapes[k]?.message === undefined);
  const join = (sub: readonly number[]) => [...fixed, ...sub.map((j) => free[j] as number)].sort((a, b) => a - b);
  const onProgress = options.onProgress;
  const second = await ddmin(free.length, (sub) => oracle(join(sub)), {
    maxCalls: maxCalls - calls,
    maxItems,
    callsBefore: calls,
    ...(options.shouldStop ? { shouldStop: options.shouldStop } : {}),
    ...(onProgress ? { onProgress: (p: MinimizeProgress) => onProgress({ ...p, kept: join(p.kept) }) } : {}),
  });
  return { kept: join(second.kept), calls: calls + second.calls, steps: steps + second.steps, stop: second.stop, view };
}
