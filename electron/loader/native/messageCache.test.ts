import { describe, expect, it } from 'vitest';
import { MessageCache } from './messageCache';

describe('MessageCache', () => {
  it('evicts the least recently used entries until the new one fits the byte budget', () => {
    const cache = new MessageCache<string>(10);
    cache.set('a', 'A', 4);
    cache.set('b', 'B', 4);
    expect(cache.get('a')).toBe('A'); // a is now the most recent
    cache.set('c', 'C', 4);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe('A');
    expect(cache.get('c')).toBe('C');
    expect(cache.usedBytes).toBe(8);
  });

  it('never stores an entry larger than the whole budget, and keeps the others', () => {
    const cache = new MessageCache<string>(10);
    cache.set('a', 'A', 4);
    expect(cache.set('huge', 'H', 11)).toBe(false);
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.get('a')).toBe('A');
  });

  it('replaces an entry under the same key and charges empty values one byte', () => {
    const cache = new MessageCache<string>(10);
    cache.set('a', 'A', 6);
    cache.set('a', 'A2', 2);
    cache.set('e', '', 0);
    expect(cache.get('a')).toBe('A2');
    expect(cache.usedBytes).toBe(3);
    expect(cache.size).toBe(2);
    cache.clear();
    expect(cache.size).toBe(0);
    expect(cache.usedBytes).toBe(0);
  });

  it('evicts in batches down to 90% of the budget, keeping the most recent entries', () => {
    const cache = new MessageCache<number>(1000);
    for (let i = 0; i < 20_000; i++) {
      cache.set(`k${i}`, i, 1);
      expect(cache.usedBytes).toBeLessThanOrEqual(1000);
    }
    // Right after a batch the newest 900 remain; at most 1000 are kept at any time.
    expect(cache.size).toBeGreaterThanOrEqual(900);
    for (let i = 20_000 - 900; i < 20_000; i++) expect(cache.get(`k${i}`)).toBe(i);
    expect(cache.get('k0')).toBeUndefined();
  });
});
