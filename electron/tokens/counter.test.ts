/** The o200k_base estimator (docs/token-estimates.md): properties over any text, and sampling's error on generated text. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { samplePlan } from '../../shared/tokens/estimate';
import { countText, estimateSource, estimateText } from './counter';
import { agentText } from './testing/agentText';

/** Text with the characters that stress a BPE counter: merges across a join, contractions, CJK, emoji, lone surrogates. */
const stress = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\n', "'", 's', 'é', '漢', '1', '.', '\ud800', '\udc00', '😀', '\t', '<|endoftext|>'), maxLength: 120 });
const anyText = fc.oneof(stress, fc.string({ unit: 'binary', maxLength: 200 }), fc.string({ unit: 'grapheme', maxLength: 200 }));

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLowSurrogate = (c: number) => c >= 0xdc00 && c <= 0xdfff;

const sourceOf = (bytes: Uint8Array) => ({ length: bytes.length, read: (s: number, e: number) => bytes.subarray(s, e) });

describe('countText (o200k_base)', () => {
  it('never throws on any string, lone surrogates and special-token text included, and gives a whole number ≥ 0 (0 only for "")', () => {
    fc.assert(
      fc.property(anyText, (t) => {
        const n = countText(t);
        expect(Number.isInteger(n) && n >= 0).toBe(true);
        expect(n === 0).toBe(t.length === 0);
      }),
      { numRuns: 2000 },
    );
  });

  it('is the tokenizer’s own count for ordinary text (nothing cut below the piece and run limits)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (t) => {
        expect(countText(t)).toBe(countTokens(t, { disallowedSpecial: new Set() }));
      }),
      { numRuns: 300 },
    );
  });

  it('additive within 2 tokens per join: a concatenation of messages counts their sum, give or take the merges at each join', () => {
    fc.assert(
      fc.property(fc.array(anyText, { minLength: 1, maxLength: 8 }), (messages) => {
        // A join of a lone high surrogate and a lone low one is no join of two texts: it makes a new character (["\ud800", "\udc00a"] count 1 + 1, "𐀀a" 5).
        fc.pre(messages.every((m, k) => k === 0 || !(isHighSurrogate(messages[k - 1]!.charCodeAt(messages[k - 1]!.length - 1)) && isLowSurrogate(m.charCodeAt(0)))));
        const sum = messages.reduce((n, m) => n + countText(m), 0);
        expect(Math.abs(countText(messages.join('')) - sum)).toBeLessThanOrEqual(2 * (messages.length - 1));
      }),
      { numRuns: 1000 },
    );
  });

  it('monotonic in appended text: appending never lowers the count by more than the one token a join can merge', () => {
    fc.assert(
      fc.property(anyText, anyText, (a, b) => {
        expect(countText(a + b)).toBeGreaterThanOrEqual(countText(a) - 1);
        expect(countText(a + b)).toBeGreaterThanOrEqual(countText(b) - 1);
      }),
      { numRuns: 2000 },
    );
  });

  it('a long run without spaces (a blob, CJK) is counted in bounded pieces: within 1 % of the tokenizer on a run it can take whole', () => {
    const run = 'a1B2'.repeat(1024);
    const whole = countTokens(run, { disallowedSpecial: new Set() });
    expect(Math.abs(countText(run) - whole) / whole).toBeLessThanOrEqual(0.01);
    // 64 Ki CJK characters in one run: whole, the tokenizer takes some 19 s here; cut, it is counted (1 token per character or fewer).
    const cjk = '漢字'.repeat(32 * 1024);
    const n = countText(cjk);
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThanOrEqual(cjk.length);
  });
});

describe('estimateSource: streamed, and sampled above the threshold', () => {
  it('below the threshold: the exact count of the decoded bytes, read in blocks (a character across a block boundary is decoded whole)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 2000 }), (t) => {
        const bytes = new TextEncoder().encode(t);
        expect(estimateSource(sourceOf(bytes))).toEqual({ tokens: countText(t), source: 'estimated' });
      }),
      { numRuns: 200 },
    );
  });

  it('sampled (64 chunks of 4 KiB from 1–3 MB of generated agent output): within 5 % of the exact count, and said so', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 }), fc.integer({ min: 1_000_000, max: 3_000_000 }), (seed, size) => {
        const text = agentText(size, seed);
        const bytes = new TextEncoder().encode(text);
        const plan = samplePlan(bytes.length, { above: 256 * 1024, chunkBytes: 4096, chunks: 64 });
        expect(plan.sampled).toBe(true);
        const sampled = estimateSource(sourceOf(bytes), {}, plan);
        const exact = countText(text);
        expect(sampled.sampled).toBe(true);
        expect(Math.abs(sampled.tokens - exact) / exact).toBeLessThanOrEqual(0.05);
      }),
      { numRuns: 4 },
    );
  });

  it('reads only the sampled chunks of a large source (bounded time and memory whatever its size)', () => {
    const length = 100 * 1000 * 1000;
    const line = new TextEncoder().encode('error: the value of path is not a string\n');
    let read = 0;
    const source = {
      length,
      read(s: number, e: number) {
        read += e - s;
        const out = new Uint8Array(e - s);
        for (let k = 0; k < out.length; k++) out[k] = line[(s + k) % line.length] as number;
        return out;
      },
    };
    const est = estimateSource(source, { approximate: true });
    expect(est.sampled).toBe(true);
    expect(est.approximate).toBe(true);
    const plan = samplePlan(length);
    const counted = plan.ranges.reduce((n, [s, e]) => n + e - s, 0);
    // The chunks, and at most 4 bytes more per chunk to find a character boundary.
    expect(read).toBeLessThanOrEqual(counted + 4 * plan.ranges.length);
    const exactPerLine = countText(new TextDecoder().decode(line));
    expect(Math.abs(est.tokens - (exactPerLine * length) / line.length) / est.tokens).toBeLessThan(0.02);
  });

  it('estimateText of a string above the threshold samples its UTF-8 bytes', () => {
    const big = agentText(9 * 1024 * 1024, 7);
    const est = estimateText(big);
    expect(est.sampled).toBe(true);
    expect(Math.abs(est.tokens - countText(big)) / est.tokens).toBeLessThan(0.05);
  });
});
