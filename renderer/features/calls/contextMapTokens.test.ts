import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ContextMapInfo } from '../../../shared/contract';
import { sessionInfo } from '../../store/testing/fakeHost';
import { contextPart, statusParts } from '../frame/statusParts';
import type { TokenCall, TokenMapInfo } from './contextMapTokens';
import type { CacheBreakInfo } from './contextMapTokens';
import { BREAKS_NAMED, breakCauseText, breakMarks, breaksText, bucketBreaksText, calibrationText, callSegments, largestBreaks, notInFileText, contextStatusText, estimatingText, tokenBuckets, tokenCalls, tokenSummary } from './contextMapTokens';

/** A map of `n` calls; `recorded[k]` null where call k+1 records no usage. */
function mapOf(recorded: (number | null)[] | null, extra: Partial<ContextMapInfo> = {}): ContextMapInfo {
  const n = recorded?.length ?? extra.calls ?? 0;
  const zeros = Array.from({ length: n }, () => 0);
  return {
    calls: n,
    index: zeros.map((_, k) => k + 1),
    given: zeros,
    hidden: zeros,
    minted: zeros,
    rewinds: [],
    model_switches: [],
    minted_after_last: 0,
    unplaced: 0,
    ended: 0,
    ...(recorded
      ? {
          recorded: {
            context: recorded,
            cache_read: recorded.map((r) => (r === null ? null : Math.floor(r / 2))),
            cache_write: recorded.map(() => 0),
            output: recorded.map(() => 1),
            window: recorded.map((r) => (r === null ? null : 200_000)),
          },
        }
      : {}),
    ...extra,
  };
}

function tokenMapOf(estimated: number[], extra: Partial<TokenMapInfo> = {}): TokenMapInfo {
  return { pass: 1, estimated, hidden: estimated.map((e) => e % 7), window: estimated.map(() => 128_000), calibration: null, approximate: false, sampled: false, partial: false, progress: null, ...extra };
}

const tokenCall = fc.record({
  context: fc.option(fc.nat(5_000_000), { nil: null }),
  source: fc.constantFrom<TokenCall['source']>('recorded', 'estimated', null),
  cached: fc.nat(5_000_000),
  hidden: fc.option(fc.nat(1_000_000), { nil: null }),
  window: fc.option(fc.integer({ min: 1, max: 2_000_000 }), { nil: null }),
});

describe('tokenCalls', () => {
  it('a call’s recorded context wins over its estimate; an estimate stands where none is recorded; the window is the file’s, else the table’s', () => {
    const calls = tokenCalls(mapOf([100_000, null, 120_000]), tokenMapOf([90_000, 95_000, 99_000]));
    expect(calls.map((c) => [c.context, c.source, c.window])).toEqual([
      [100_000, 'recorded', 200_000],
      [95_000, 'estimated', 128_000],
      [120_000, 'recorded', 200_000],
    ]);
    expect(calls.map((c) => c.cached)).toEqual([50_000, 0, 60_000]);
  });

  it('before the estimates arrive, a file of no usage has no context at any call (nothing is invented)', () => {
    const calls = tokenCalls(mapOf(null, { calls: 3 }), null);
    expect(calls.every((c) => c.context === null && c.source === null && c.hidden === null)).toBe(true);
  });
});

describe('callSegments and tokenBuckets', () => {
  it('a bar’s cache read and the rest sum to its call’s context, the cache read never above it', () => {
    fc.assert(
      fc.property(tokenCall, (c) => {
        const s = callSegments(c);
        expect(s.cached + s.fresh).toBe(c.context ?? 0);
        expect(s.cached).toBeLessThanOrEqual(c.context ?? 0);
        expect(s.cached).toBeGreaterThanOrEqual(0);
      }),
    );
  });

  it('each call is in exactly one bucket; a bucket draws its largest context whole, its segments summing to it; every cache break and compaction lands in its call’s bucket', () => {
    fc.assert(
      fc.property(fc.array(tokenCall, { minLength: 1, maxLength: 800 }), fc.integer({ min: 1, max: 700 }), (calls, max) => {
        const n = calls.length;
        const breaks = [{ call: n, tokens_rewritten: 5000, cause: null }];
        const compactions = [{ call: 1, before: 10, after: 2 }];
        const buckets = tokenBuckets(calls, { cache_breaks: breaks, compaction_tokens: compactions }, max);
        expect(buckets.length).toBe(Math.min(n, max));
        let next = 1;
        for (const b of buckets) {
          expect(b.first).toBe(next);
          const own = calls.slice(b.first - 1, b.last);
          expect(b.context).toBe(Math.max(0, ...own.map((c) => c.context ?? 0)));
          expect(b.cached + b.fresh).toBe(b.context);
          expect(b.peak).toBeGreaterThanOrEqual(b.first);
          expect(b.peak).toBeLessThanOrEqual(b.last);
          next = b.last + 1;
        }
        expect(next).toBe(n + 1);
        expect(buckets.flatMap((b) => b.breaks.map((br) => b.first <= br.call && br.call <= b.last))).toEqual([true]);
        expect(buckets.flatMap((b) => b.compactions.map((c) => b.first <= (c.call ?? 0) && (c.call ?? 0) <= b.last))).toEqual([true]);
      }),
    );
  });
});

describe('contextStatusText', () => {
  it('is `<tokens> / <window> (<pct>)` with pct = tokens / window to one decimal, `est.` before an estimate', () => {
    fc.assert(
      fc.property(fc.nat(3_000_000), fc.integer({ min: 1, max: 2_000_000 }), fc.constantFrom<'recorded' | 'estimated'>('recorded', 'estimated'), (tokens, window, source) => {
        const text = contextStatusText({ context: tokens, source, cached: 0, hidden: null, window });
        const m = /^(est\. )?([\d,]+) tokens? \/ ([\d,]+) \(([\d.]+) %\)$/.exec(text);
        expect(m).not.toBeNull();
        expect(m?.[1] !== undefined).toBe(source === 'estimated');
        expect(Number(m?.[2]?.replace(/,/g, ''))).toBe(tokens);
        expect(Number(m?.[3]?.replace(/,/g, ''))).toBe(window);
        expect(Math.abs(Number(m?.[4]) - (tokens / window) * 100)).toBeLessThanOrEqual(0.05 + 1e-9);
      }),
    );
  });

  it('says the tokens alone when the window is unknown, and nothing when the context is', () => {
    expect(contextStatusText({ context: 1234, source: 'estimated', cached: 0, hidden: null, window: null })).toBe('est. 1,234 tokens');
    expect(contextStatusText({ context: null, source: null, cached: 0, hidden: null, window: 1000 })).toBe('');
  });
});

describe('the status bar in tokens', () => {
  const session = sessionInfo({ messages: 4, rows: 4 });

  it('at a call shows its recorded context against its window; in the latest view the last call’s', () => {
    const map = mapOf([50_000, 150_000]);
    expect(statusParts({ session, shownCall: 1, contextMap: map, rowCount: 2, checkStatus: 'done', findings: 0 })).toContain('50,000 tokens / 200,000 (25 %)');
    expect(statusParts({ session, shownCall: null, contextMap: map, rowCount: 4, checkStatus: 'done', findings: 0 })).toContain('last call 150,000 tokens / 200,000 (75 %)');
  });

  it('an estimate says est.; before the estimates arrive nothing is said of tokens', () => {
    const map = mapOf(null, { calls: 2 });
    expect(contextPart(2, map, null)).toBe('');
    expect(contextPart(2, map, tokenMapOf([10, 64_000]))).toBe('est. 64,000 tokens / 128,000 (50 %)');
  });
});

describe('tokenSummary', () => {
  it('names tokens and the window, the peak, cache reads, the cache breaks with their tokens, compactions before → after and switches', () => {
    const map = mapOf([50_000, 150_000, 40_000], {
      cache_breaks: [{ call: 3, tokens_rewritten: 75_000, cause: { reduction: 'r1', message_index: 2 } }],
      compaction_tokens: [{ call: 3, before: 150_000, after: 40_000 }],
    });
    const text = tokenSummary(map, tokenCalls(map, null), null, false);
    expect(text).toBe(
      "Context map in tokens of 3 model calls: the last call's context was 40,000 tokens (recorded) of a 200,000-token window (20 %); at most 150,000 tokens at call 2; every call recorded by the file; the last call read 20,000 tokens from the cache; 1 cache break (call 3, 75,000 tokens rewritten); compaction before call 3: 150,000 → 40,000 tokens; no model switches.",
    );
  });

  it('for a file of no usage says the figures are estimates, how they were calibrated, and that the window is unknown where it is', () => {
    const map = mapOf(null, { calls: 2 });
    const tokens = tokenMapOf([1000, 2000], { window: [null, null], calibration: { factor: 1.3, error: 0.105, calls: 325, source: 'default' }, approximate: true });
    const text = tokenSummary(map, tokenCalls(map, tokens), tokens, false);
    expect(text).toMatch(/^Context map in tokens of 2 model calls: the last call's context was est\. 2,000 tokens; the window is unknown; at most est\. 2,000 tokens at call 2; 0 calls recorded, 2 calls estimated; estimates calibrated ×1\.30 \(±10\.5 %, the default for Claude models\); estimates approximate/);
  });

  it('says a refused fit with its figures, beside the default it used or no factor at all', () => {
    const refused = { factor: 51.26, error: 0.745, calls: 69 };
    expect(calibrationText({ factor: 1.3, error: 0.105, calls: 325, source: 'default', refused })).toBe(
      "estimates calibrated ×1.30 (±10.5 %, the default for Claude models); this file's own fit (×51.26, ±74.5 % over 69 steps) was refused: its recorded usage does not follow its messages",
    );
    expect(calibrationText({ factor: 1, error: 0.98, calls: 69, source: 'none', refused })).toBe(
      "estimates not calibrated; this file's own fit (×51.26, ±74.5 % over 69 steps) was refused: its recorded usage does not follow its messages",
    );
    expect(calibrationText({ factor: 1.29, error: 0.092, calls: 135, source: 'file' })).toBe('estimates calibrated ×1.29 (±9.2 %, fitted on this file)');
    // The map's text alternative carries it.
    const map = mapOf(null, { calls: 2 });
    const tokens = tokenMapOf([1000, 2000], { calibration: { factor: 1.3, error: 0.105, calls: 325, source: 'default', refused } });
    expect(tokenSummary(map, tokenCalls(map, tokens), tokens, false)).toContain('the default for Claude models); this file\'s own fit (×51.26');
  });

  it('words what the file does not hold, and estimates that exceed the recorded context', () => {
    expect(notInFileText(12_345)).toBe('not in the file (sent, not recorded) 12,345');
    expect(notInFileText(0)).toBe('not in the file (sent, not recorded) 0');
    expect(notInFileText(-4_538_489)).toBe('the estimates exceed the recorded context by 4,538,489');
  });

  it('words a cache break’s cause', () => {
    expect(breakCauseText({ call: 2, tokens_rewritten: 2000, cause: null })).toBe('no earlier message changed (the cache expired)');
    expect(breakCauseText({ call: 2, tokens_rewritten: 2000, cause: { reduction: 'cc-persisted-x', message_index: 7 } })).toBe('reduction cc-persisted-x rewrote message 7');
  });
});

describe('many cache breaks', () => {
  /** Breaks at distinct calls of 1..calls, in call order, with any tokens rewritten (ties included). */
  const breaksArb = (calls: number) =>
    fc
      .uniqueArray(fc.record({ call: fc.integer({ min: 1, max: calls }), tokens_rewritten: fc.integer({ min: 1, max: 40 }).map((n) => n * 1024) }), { selector: (b) => b.call, maxLength: 300 })
      .map((bs) => bs.sort((a, b) => a.call - b.call).map((b): CacheBreakInfo => ({ ...b, cause: null })));

  it('the largest are those no other break exceeds, the earlier among equals, in call order', () => {
    fc.assert(
      fc.property(breaksArb(2000), fc.integer({ min: 1, max: 8 }), (breaks, named) => {
        const top = largestBreaks(breaks, named);
        expect(top).toHaveLength(Math.min(named, breaks.length));
        expect(top.map((b) => b.call)).toEqual([...top.map((b) => b.call)].sort((a, b) => a - b));
        const left = breaks.filter((b) => !top.includes(b));
        for (const t of top) for (const o of left) expect(o.tokens_rewritten < t.tokens_rewritten || (o.tokens_rewritten === t.tokens_rewritten && o.call > t.call)).toBe(true);
      }),
    );
  });

  it('the text alternative names every break when few, else counts them and names the largest; a figures row likewise', () => {
    fc.assert(
      fc.property(breaksArb(2000), (breaks) => {
        const text = breaksText(breaks);
        const named = text.match(/call [\d,]+, [\d,]+ tokens? rewritten/g) ?? [];
        expect(named).toHaveLength(Math.min(BREAKS_NAMED, breaks.length));
        expect(text.startsWith(breaks.length === 0 ? 'no cache breaks' : `${breaks.length.toLocaleString('en-US')} cache break`)).toBe(true);
        for (const b of largestBreaks(breaks)) expect(text).toContain(`call ${b.call.toLocaleString('en-US')}, ${b.tokens_rewritten.toLocaleString('en-US')} tokens rewritten`);
        const row = bucketBreaksText(breaks);
        expect(row).toHaveLength(breaks.length <= BREAKS_NAMED ? breaks.length : 1);
      }),
    );
    const many = Array.from({ length: 13_231 }, (_, k): CacheBreakInfo => ({ call: k + 2, tokens_rewritten: k === 7000 ? 90_000 : 2048, cause: null }));
    expect(breaksText(many)).toBe('13,231 cache breaks (the 5 largest: call 2, 2,048 tokens rewritten; call 3, 2,048 tokens rewritten; call 4, 2,048 tokens rewritten; call 5, 2,048 tokens rewritten; call 7,002, 90,000 tokens rewritten)');
    expect(bucketBreaksText(many)).toEqual(['13,231 cache breaks, the largest at call 7,002: 90,000 tokens rewritten']);
  });

  it('the chart marks each bucket holding breaks once, at its first break, with how many it stands for; at most one mark per bucket', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3000 }).chain((calls) => fc.tuple(fc.constant(calls), breaksArb(calls))), fc.integer({ min: 1, max: 600 }), ([calls, breaks], maxBuckets) => {
        const buckets = tokenBuckets(tokenCalls(mapOf(Array.from({ length: calls }, () => 1000)), null), { cache_breaks: breaks }, maxBuckets);
        const marks = breakMarks(buckets);
        expect(marks.length).toBeLessThanOrEqual(buckets.length);
        expect(marks.reduce((n, m) => n + m.count, 0)).toBe(breaks.length);
        for (const m of marks) expect(breaks.some((b) => b.call === m.call)).toBe(true);
        // One break per bucket (as many buckets as calls): a mark per break, at its call.
        if (buckets.length === calls) expect(marks.map((m) => m.call)).toEqual(breaks.map((b) => b.call));
      }),
      { numRuns: 200 },
    );
  });
});

describe('estimatingText', () => {
  it('says how far the pass has got: nothing yet, the calibration’s walk, then N of M calls', () => {
    expect(estimatingText(null)).toBe('estimating…');
    expect(estimatingText(tokenMapOf([], { progress: { stage: 'calibrating', done: 40, calls: 1200 } }))).toBe('estimating… calibrating on the recorded usage, 40 of 1,200 calls');
    expect(estimatingText(tokenMapOf([1, 2, 3], { progress: { stage: 'estimating', done: 3, calls: 1200 } }))).toBe('estimating… 3 of 1,200 calls');
  });
});
