/** What a large text kept out of memory answers a window at a time, against the same string in memory (docs/large-lines.md). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memorySource, utf8Encode } from '../../../shared/index';
import { isLargeText, messageText, textIncludes } from './largeStrings';

/** Strings of ASCII, multi-byte characters and pairs (no lone surrogate: a value read from UTF-8 holds none). */
const chars = fc.constantFrom('a', 'b', 'ab', 'é', '😀', '✓', '\n', '"');
const str = fc.array(chars, { maxLength: 30 }).map((a) => a.join(''));
const large = (s: string) => {
  const t = messageText({ role: 'tool', content: '', large: memorySource(utf8Encode(s)) });
  if (!isLargeText(t)) throw new Error('not large');
  return t;
};

describe('a large text read a window at a time', () => {
  it('includes a needle exactly when the string does, wherever the windows cut it', () => {
    fc.assert(
      fc.property(str, str, fc.nat(), fc.nat(), fc.integer({ min: 1, max: 9 }), (s, other, from, len, window) => {
        // A needle taken from the text (across window edges) or made apart.
        const cps = Array.from(s);
        const start = cps.length === 0 ? 0 : from % cps.length;
        const inside = cps.slice(start, start + (len % 8) + 1).join('');
        for (const needle of [inside, other, '']) expect(textIncludes(large(s), needle, window)).toBe(s.includes(needle));
      }),
      { numRuns: 500 },
    );
  });

  it('a needle with a lone surrogate is in no text read from UTF-8', () => {
    expect(textIncludes(large('a\uFFFDb'), '\uD800')).toBe(false);
  });

  it('its pieces join to the string, wherever the windows cut its characters', () => {
    fc.assert(
      fc.property(str, fc.integer({ min: 1, max: 9 }), (s, window) => {
        expect([...large(s).pieces(window)].join('')).toBe(s);
      }),
      { numRuns: 300 },
    );
  });
});
