import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitScan } from './scanSplit';

/** Every occurrence of `needle` in `hay` starting in [from, to) and ending by `readEnd`, as flat [position, length] pairs. */
function occurrences(hay: Uint8Array, needle: Uint8Array, from: number, to: number, readEnd: number): number[] {
  const out: number[] = [];
  for (let i = from; i < to && i + needle.length <= readEnd; i++) {
    let j = 0;
    while (j < needle.length && hay[i + j] === needle[j]) j++;
    if (j === needle.length) out.push(i, needle.length);
  }
  return out;
}

describe('splitScan (a raw scan over both cores)', () => {
  it('parts scanned on their own, by any threads, and their lists joined in part order give every occurrence once, in order', () => {
    const bytes = fc.array(fc.constantFrom(0x61, 0x62, 0x0a), { maxLength: 400 }).map((a) => Uint8Array.from(a));
    fc.assert(
      fc.property(bytes, fc.array(fc.constantFrom(0x61, 0x62, 0x0a), { minLength: 1, maxLength: 5 }), fc.nat(400), fc.nat(400), fc.integer({ min: 1, max: 9 }), (hay, n, x, y, parts) => {
        const needle = Uint8Array.from(n);
        const [start, end] = [Math.min(x, y, hay.length), Math.min(Math.max(x, y), hay.length)];
        const split = splitScan(start, end, parts, needle.length - 1, hay.length);
        // The own ranges tile [start, end) in order.
        expect(split[0]?.start).toBe(start);
        expect(split[split.length - 1]?.end).toBe(end);
        split.forEach((p, i) => i > 0 && expect(p.start).toBe(split[i - 1]?.end));
        // Each part's own list, as the pool keeps it per piece whichever thread scanned it.
        expect(split.flatMap((p) => occurrences(hay, needle, p.start, p.end, p.readEnd))).toEqual(occurrences(hay, needle, start, end, hay.length));
      }),
      { numRuns: 500 },
    );
  });

  it('makes no more parts than bytes, and one for an empty range', () => {
    expect(splitScan(5, 5, 4, 3)).toEqual([{ start: 5, end: 5, readEnd: 5 }]);
    expect(splitScan(0, 2, 4, 0)).toHaveLength(2);
    expect(splitScan(0, 100, 2, 9, 104)).toEqual([
      { start: 0, end: 50, readEnd: 59 },
      { start: 50, end: 100, readEnd: 104 },
    ]);
  });
});
