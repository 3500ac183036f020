import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ContextMapInfo } from '../../../shared/contract';
import { bucketize, callAtX, liveReductions, mapSummary } from './contextMapModel';

function mapOf(given: number[], hidden: number[], marks: Partial<Pick<ContextMapInfo, 'rewinds' | 'model_switches' | 'minted_after_last' | 'unplaced' | 'ended'>> = {}): ContextMapInfo {
  return { calls: given.length, index: given.map((_, k) => k + 1), given, hidden, minted: given.map(() => 1), rewinds: [], model_switches: [], minted_after_last: 0, unplaced: 0, ended: 0, ...marks };
}

describe('bucketize', () => {
  it('puts each call in exactly one bucket, in order, at most maxBuckets, keeping each bucket’s peaks and every mark', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(1e6), { minLength: 1, maxLength: 3000 }), fc.integer({ min: 1, max: 700 }), (given, max) => {
        const hidden = given.map((g) => g % 977);
        const n = given.length;
        const map = mapOf(given, hidden, { rewinds: [{ call: n, to: 0 }], model_switches: [{ call: 1, from: 'a', to: 'b' }] });
        const buckets = bucketize(map, max);
        expect(buckets.length).toBe(Math.min(n, max));
        let next = 1;
        for (const b of buckets) {
          expect(b.first).toBe(next);
          expect(b.last).toBeGreaterThanOrEqual(b.first);
          expect(b.given).toBe(Math.max(...given.slice(b.first - 1, b.last)));
          expect(b.hidden).toBe(Math.max(...hidden.slice(b.first - 1, b.last)));
          expect(b.minted).toBe(b.last - b.first + 1);
          next = b.last + 1;
        }
        expect(next).toBe(n + 1);
        expect(buckets.flatMap((b) => b.rewinds.map((r) => [r.call, b.first <= r.call && r.call <= b.last]))).toEqual([[n, true]]);
        expect(buckets.flatMap((b) => b.switches.map((s) => [s.call, b.first <= s.call && s.call <= b.last]))).toEqual([[1, true]]);
      }),
    );
  });

  it('100,000 calls become at most 600 buckets', () => {
    const n = 100_000;
    const map = mapOf(Array.from({ length: n }, (_, k) => k), Array.from({ length: n }, () => 0));
    expect(bucketize(map, 600)).toHaveLength(600);
  });
});

describe('callAtX', () => {
  it('maps the chart’s width onto calls 1…C, the edges included', () => {
    expect([callAtX(0, 600, 40), callAtX(599.9, 600, 40), callAtX(600, 600, 40), callAtX(-5, 600, 40)]).toEqual([1, 40, 40, 1]);
    expect(callAtX(300, 600, 40)).toBe(21);
  });
});

describe('mapSummary', () => {
  it('states the calls, the last call’s figures, the peaks and the marks', () => {
    const text = mapSummary(mapOf([10, 30, 20], [0, 5, 7], { rewinds: [{ call: 2, to: 1 }] }), (n) => `${n} B`);
    expect(text).toBe('Context map of 3 model calls: the last call was given 20 B with 7 B hidden; at most 30 B given and 7 B hidden at one call; 3 reductions minted before a call, 1 rewind, 0 model switches.');
  });

  it('says how the reductions minted before a call become the latest view`s live ones (the status bar`s count) when they differ', () => {
    // A SWE-agent trajectory's shape: 7 reductions in the calls' inputs, an 8th derived from the input after the last call.
    const after = mapOf([10, 20, 30, 40, 50, 60, 70], [0, 1, 2, 3, 4, 5, 6], { minted_after_last: 1 });
    expect(liveReductions(after)).toBe(8);
    expect(mapSummary(after, (n) => `${n} B`)).toMatch(/; 7 reductions minted before a call, 0 rewinds, 0 model switches\. The latest view holds 8 reductions: 1 reduction minted after the last call\.$/);
    // Two compactions, the first superseded by the second: one fewer is live than were minted.
    const superseded = mapOf([10, 20], [0, 5], { ended: 1 });
    expect(liveReductions(superseded)).toBe(1);
    expect(mapSummary(superseded, (n) => `${n} B`)).toMatch(/The latest view holds 1 reduction: 1 reduction since taken out \(rewound, inverted or superseded\)\.$/);
    // The same reductions: nothing more is said.
    expect(mapSummary(mapOf([10], [0]), (n) => `${n} B`)).toMatch(/1 reduction minted before a call, 0 rewinds, 0 model switches\.$/);
  });
});
