/** Properties (fast-check) of the repro bundle minimizer (shared/links/minimize.ts, ddmin). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../format/hash';
import type { Oracle, RecordShape } from './minimize';
import { ddmin, minimizeRecords } from './minimize';
import { utf8Encode } from '../format/utf8';

/** A monotone oracle: the kept set holds every needed item. */
function needs(needed: ReadonlySet<number>): Oracle {
  return (kept) => [...needed].every((k) => kept.includes(k));
}

/**
 * A non-monotone oracle, a fixed pseudo-random function of the kept set (its hash), that accepts
 * the whole input: like a real session, where removing records can make a finding come and go.
 */
function arbitrary(count: number, salt: number): Oracle {
  return (kept) => kept.length === count || sha256Hex([utf8Encode(`${salt}:${kept.join(',')}`)]).charCodeAt(0) % 3 === 0;
}

/** An oracle that records what it was asked, to count calls and recheck answers. */
function recording(oracle: Oracle): { oracle: Oracle; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    oracle: async (kept) => {
      asked.push(kept.join(','));
      return oracle(kept);
    },
  };
}

const neededArb = fc.integer({ min: 0, max: 60 }).chain((count) => fc.tuple(fc.constant(count), fc.uniqueArray(fc.nat({ max: Math.max(count - 1, 0) }), { maxLength: Math.min(count, 6) })));

describe('ddmin', () => {
  it('with a monotone oracle keeps exactly the needed items, and is 1-minimal', async () => {
    await fc.assert(
      fc.asyncProperty(neededArb, async ([count, needed]) => {
        const set = new Set(needed.filter((k) => k < count));
        const result = await ddmin(count, needs(set));
        expect(result.stop).toBe('minimal');
        expect(result.kept).toEqual([...set].sort((a, b) => a - b));
      }),
      { numRuns: 200 },
    );
  });

  it('the result satisfies the oracle, is an ordered subset never larger than the input, calls stay under the cap, and a rerun gives the same result', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 80 }), fc.nat(), fc.integer({ min: 1, max: 300 }), async (count, salt, cap) => {
        const oracle = arbitrary(count, salt);
        const first = recording(oracle);
        const result = await ddmin(count, first.oracle, { maxCalls: cap });
        expect(result.kept.length).toBeLessThanOrEqual(count);
        expect([...result.kept].sort((a, b) => a - b)).toEqual(result.kept);
        expect(new Set(result.kept).size).toBe(result.kept.length);
        for (const k of result.kept) expect(k >= 0 && k < count).toBe(true);
        expect(await oracle(result.kept)).toBe(true);
        expect(result.calls).toBe(first.asked.length);
        expect(result.calls).toBeLessThanOrEqual(cap);
        // No set is asked twice.
        expect(new Set(first.asked).size).toBe(first.asked.length);
        if (result.stop === 'minimal' && result.kept.length > 0) {
          for (const drop of result.kept) expect(await oracle(result.kept.filter((k) => k !== drop))).toBe(false);
        }
        if (result.stop === 'call_cap') expect(result.calls).toBe(cap);
        const again = recording(oracle);
        expect(await ddmin(count, again.oracle, { maxCalls: cap })).toEqual(result);
        expect(again.asked).toEqual(first.asked);
      }),
      { numRuns: 150 },
    );
  });

  it('keeps an input past the item cap whole without asking the oracle', async () => {
    const asked = recording(() => true);
    const result = await ddmin(11, asked.oracle, { maxItems: 10 });
    expect(result).toEqual({ kept: [...Array(11).keys()], calls: 0, steps: 0, stop: 'too_large' });
    expect(asked.asked).toEqual([]);
  });

  it('reaches the empty set when the oracle accepts it', async () => {
    const result = await ddmin(7, () => true);
    expect(result.kept).toEqual([]);
    expect(result.stop).toBe('minimal');
  });
});

const shapeArb: fc.Arbitrary<RecordShape> = fc.oneof(
  fc.record({ message: fc.nat({ max: 30 }) }),
  fc.record({ needs: fc.nat({ max: 40 }) }),
  fc.constant({}),
);

describe('minimizeRecords (view prefix, then ddmin)', () => {
  it('the result satisfies the oracle, is an ordered subset, calls stay under the cap, and a rerun gives the same result', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(shapeArb, { maxLength: 60 }), fc.nat(), fc.integer({ min: 1, max: 200 }), async (shapes, salt, cap) => {
        const oracle = arbitrary(shapes.length, salt);
        const first = recording(oracle);
        const result = await minimizeRecords(shapes, first.oracle, { maxCalls: cap });
        expect(result.kept.length).toBeLessThanOrEqual(shapes.length);
        expect([...new Set(result.kept)].sort((a, b) => a - b)).toEqual(result.kept);
        expect(await oracle(result.kept)).toBe(true);
        expect(result.calls).toBe(first.asked.length);
        expect(result.calls).toBeLessThanOrEqual(cap);
        const again = recording(oracle);
        expect(await minimizeRecords(shapes, again.oracle, { maxCalls: cap })).toEqual(result);
        expect(again.asked).toEqual(first.asked);
      }),
      { numRuns: 150 },
    );
  });

  it('with a monotone oracle keeps the messages of the shortest passing prefix and exactly the needed other records', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(shapeArb, { maxLength: 60 }), fc.nat(), async (shapes, pick) => {
        const others = shapes.map((s, k) => (s.message === undefined ? k : -1)).filter((k) => k >= 0);
        const needed = new Set(others.filter((_, j) => (pick >> j % 30) & 1));
        const result = await minimizeRecords(shapes, needs(needed));
        expect(result.stop).toBe('minimal');
        for (const k of needed) expect(result.kept).toContain(k);
        for (const k of result.kept) if (shapes[k]?.message === undefined) expect(needed.has(k)).toBe(true);
        // No message past the prefix the first stage kept.
        for (const k of result.kept) if (shapes[k]?.message !== undefined) expect(shapes[k].message).toBeLessThan(result.view ?? 0);
      }),
      { numRuns: 150 },
    );
  });
});
