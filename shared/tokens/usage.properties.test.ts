/**
 * The normalisation of recorded usage (SPEC §15, shared/tokens/usage.ts): whatever the counts a
 * file states, every CallTokens has input ≥ cache_read + cache_write and context = input; an
 * Anthropic count adds its cache fields once, an OpenAI count never adds its cached tokens; and
 * the cache-break threshold is 1,024 tokens and 10 %.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { additiveTokens, anthropicTokens, compactionTokens, isCacheBreak, openAiTokens } from './usage';
import type { CallTokens } from './usage';

const count = fc.nat({ max: 5_000_000 });
/** A value a damaged file may hold where a count should be. */
const anyValue = fc.oneof(count, fc.constant(undefined), fc.constant(null), fc.constant(-1), fc.constant(1.5), fc.string(), fc.constant(Number.MAX_SAFE_INTEGER));

function holds(t: CallTokens | undefined): void {
  if (!t) return;
  expect(t.input).toBeGreaterThanOrEqual(t.cache_read + t.cache_write);
  expect(t.context).toBe(t.input);
  expect(t.source).toBe('recorded');
  for (const v of [t.input, t.cache_read, t.cache_write, t.output, t.reasoning ?? 0]) expect(Number.isSafeInteger(v) && v >= 0).toBe(true);
}

describe('recorded usage normalisation', () => {
  it('Anthropic: input = input_tokens + cache reads + cache writes, each counted once', () => {
    fc.assert(
      fc.property(count, count, count, count, (fresh, read, write, output) => {
        const t = anthropicTokens({ input_tokens: fresh, cache_read_input_tokens: read, cache_creation_input_tokens: write, output_tokens: output });
        holds(t);
        expect(t).toMatchObject({ input: fresh + read + write, cache_read: read, cache_write: write, output, context: fresh + read + write });
      }),
    );
  });

  it('OpenAI: input is input_tokens, the cached tokens a part of it, never added', () => {
    fc.assert(
      fc.property(count, count, count, count, (input, cachedRaw, output, reasoning) => {
        const cached = Math.min(cachedRaw, input);
        const t = openAiTokens({ input, cached, output, reasoning });
        holds(t);
        expect(t).toMatchObject({ input, cache_read: cached, cache_write: 0, output, reasoning, context: input });
      }),
    );
  });

  it('whatever a damaged file states, the invariants hold (or nothing is recorded)', () => {
    fc.assert(
      fc.property(anyValue, anyValue, anyValue, anyValue, anyValue, (a, b, c, d, e) => {
        holds(anthropicTokens({ input_tokens: a, cache_read_input_tokens: b, cache_creation_input_tokens: c, output_tokens: d }));
        holds(openAiTokens({ input: a, cached: b, cacheWrite: c, output: d, reasoning: e }));
        holds(additiveTokens({ fresh: a, read: b, write: c, output: d, reasoning: e }));
        if (typeof a !== 'number' || !Number.isSafeInteger(a) || a < 0) {
          expect(anthropicTokens({ input_tokens: a })).toBeUndefined();
          expect(openAiTokens({ input: a })).toBeUndefined();
        }
      }),
    );
  });

  it('a cache break is a fall of at least 1,024 tokens and 10 % of the reads before', () => {
    fc.assert(
      fc.property(count, count, (prev, cur) => {
        const fall = prev - cur;
        expect(isCacheBreak(prev, cur)).toBe(fall >= 1024 && fall * 10 >= prev);
      }),
    );
    expect(isCacheBreak(10_000, 8_976)).toBe(true);
    expect(isCacheBreak(10_000, 8_977)).toBe(false);
    expect(isCacheBreak(100_000, 91_000)).toBe(false);
  });

  it('a compaction: the file’s figures win; else the contexts of the calls either side of its line', () => {
    const usage = new Map([10, 20, 30].map((line) => [line, openAiTokens({ input: line * 100 }) as CallTokens]));
    expect(compactionTokens(25, usage)).toEqual({ tokens_before: 2000, tokens_after: 3000 });
    expect(compactionTokens(25, usage, { before: 7 })).toEqual({ tokens_before: 7, tokens_after: 3000 });
    expect(compactionTokens(5, usage)).toEqual({ tokens_after: 1000 });
    expect(compactionTokens(35, undefined)).toEqual({});
  });
});
