/** Snippets around a match and the UTF-16 → UTF-8 cursor they are placed with (SPEC §5.3). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Utf16ToUtf8Cursor, isWellFormed, utf8Encode } from '../format/utf8';
import { snippetOf } from './snippets';

const utf8 = (text: string): number => utf8Encode(text).length;

describe('snippetOf', () => {
  it('shares the context evenly, the odd byte after the match, whatever the parity of what is left', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 2, max: 300 }), fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 400 }), (matchBytes, max, before, after) => {
        fc.pre(matchBytes < max);
        const text = `${'b'.repeat(before)}${'m'.repeat(matchBytes)}${'a'.repeat(after)}`;
        const { snippet, match } = snippetOf(text, before, before + matchBytes, matchBytes, max);
        const budget = max - matchBytes;
        // Enough text on both sides: ⌊budget / 2⌋ before, the rest after.
        const left = Math.min(before, after >= budget - Math.floor(budget / 2) ? Math.floor(budget / 2) : budget - after);
        expect(match).toEqual([left, left + matchBytes]);
        expect(snippet.slice(match[0], match[1])).toBe('m'.repeat(matchBytes));
        expect(snippet.length).toBe(Math.min(max, text.length));
      }),
      { numRuns: 500 },
    );
  });

  it('holds the match, on character boundaries, within max bytes, for any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }), fc.string({ unit: 'grapheme', maxLength: 60 }), fc.integer({ min: 1, max: 200 }), (pre, hit, post, extra) => {
        const text = pre + hit + post;
        const max = utf8(hit) + extra;
        const { snippet, match } = snippetOf(text, pre.length, pre.length + hit.length, utf8(hit), max);
        expect(utf8(snippet)).toBeLessThanOrEqual(max);
        expect(text.includes(snippet)).toBe(true);
        // The match's bytes inside the snippet's UTF-8 are the hit's.
        expect([...utf8Encode(snippet).subarray(match[0], match[1])]).toEqual([...utf8Encode(hit)]);
        expect(isWellFormed(snippet)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('Utf16ToUtf8Cursor', () => {
  it('counts the bytes from the text start, and offsets from any start, for non-decreasing indexes', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), fc.oneof(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 2 ** 31, max: 2 ** 45 })), fc.array(fc.nat(), { maxLength: 10 }), (text, start, picks) => {
        // Character starts (never between a surrogate pair), and the end.
        const starts: number[] = [];
        for (let i = 0; i < text.length; i += (text.codePointAt(i) ?? 0) > 0xffff ? 2 : 1) starts.push(i);
        starts.push(text.length);
        const indexes = picks.map((p) => starts[p % starts.length] as number).sort((a, b) => a - b);
        const cursor = new Utf16ToUtf8Cursor(text, start);
        const counting = new Utf16ToUtf8Cursor(text, start);
        for (const i of indexes) {
          const bytes = utf8(text.slice(0, i));
          expect(counting.bytesTo(i)).toBe(bytes);
          expect(cursor.byteOffsetOf(i)).toBe(start + bytes);
        }
      }),
      { numRuns: 300 },
    );
  });
});
