import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MessageCache } from './messageCache';

describe('MessageCache', () => {
  it('evicts the least recently used entries until the new one fits the byte budget', () => {
    const cache = new MessageCache<string>(10);
    cache.set(1, 'A', 4);
    cache.set(2, 'B', 4);
    expect(cache.get(1)).toBe('A'); // a is now the most recent
    cache.set(3, 'C', 4);
    expect(cache.get(2)).toBeUndefined();
    expect(cache.get(1)).toBe('A');
    expect(cache.get(3)).toBe('C');
    expect(cache.usedBytes).toBe(8);
  });

  it('never stores an entry larger than the whole budget, and keeps the others', () => {
    const cache = new MessageCache<string>(10);
    cache.set(1, 'A', 4);
    expect(cache.set(99, 'H', 11)).toBe(false);
    expect(cache.get(99)).toBeUndefined();
    expect(cache.get(1)).toBe('A');
  });

  it('replaces an entry under the same key and charges empty values one byte', () => {
    const cache = new MessageCache<string>(10);
    cache.set(1, 'A', 6);
    cache.set(1, 'A2', 2);
    cache.set(5, '', 0);
    expect(cache.get(1)).toBe('A2');
    expect(cache.usedBytes).toBe(3);
    expect(cache.size).toBe(2);
    cache.clear();
    expect(cache.size).toBe(0);
    expect(cache.usedBytes).toBe(0);
  });

  it('evicts in batches down to 90% of the budget, keeping the most recent entries', () => {
    const cache = new MessageCache<number>(1000);
    for (let i = 0; i < 20_000; i++) {
      cache.set(i, i, 1);
      expect(cache.usedBytes).toBeLessThanOrEqual(1000);
    }
    // Right after a batch the newest 900 remain; at most 1000 are kept at any time.
    expect(cache.size).toBeGreaterThanOrEqual(900);
    for (let i = 20_000 - 900; i < 20_000; i++) expect(cache.get(i)).toBe(i);
    expect(cache.get(0)).toBeUndefined();
  });

  it('first-kept: keeps what it took while there was room, evicts nothing, and takes nothing once full', () => {
    const cache = new MessageCache<string>(10, 'first-kept');
    cache.set(1, 'A', 4);
    cache.set(2, 'B', 4);
    expect(cache.get(1)).toBe('A');
    expect(cache.set(3, 'C', 4)).toBe(false);
    expect(cache.get(3)).toBeUndefined();
    expect(cache.set(4, 'D', 2)).toBe(true);
    expect([cache.get(1), cache.get(2), cache.get(4)]).toEqual(['A', 'B', 'D']);
    expect(cache.usedBytes).toBe(10);
    // An entry replaced under its key is charged anew.
    expect(cache.set(2, 'B2', 1)).toBe(true);
    expect(cache.usedBytes).toBe(7);
  });

  it('first-kept: walks in order find exactly the entries the first walk left room for, within the budget', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 200 }), fc.integer({ min: 1, max: 400 }), fc.integer({ min: 2, max: 4 }), (sizes, budget, walks) => {
        const cache = new MessageCache<number>(budget, 'first-kept');
        // What the first walk leaves room for: each entry in order while it still fits.
        const expected = new Set<number>();
        let used = 0;
        sizes.forEach((size, k) => {
          const cost = Math.max(1, size);
          if (used + cost <= budget) {
            expected.add(k);
            used += cost;
          }
        });
        for (let w = 0; w < walks; w++) {
          const hits = new Set<number>();
          sizes.forEach((size, k) => {
            if (cache.get(k) === k) hits.add(k);
            else cache.set(k, k, size);
            expect(cache.usedBytes).toBeLessThanOrEqual(budget);
          });
          expect([...hits]).toEqual(w === 0 ? [] : [...expected]);
        }
      }),
      { numRuns: 300 },
    );
  });
});
