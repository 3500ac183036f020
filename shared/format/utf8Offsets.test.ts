import { describe, expect, it } from 'vitest';
import { utf8Encode } from './utf8';
import fc from 'fast-check';
import { byteCursor, byteOffsetToIndex, byteRangeToIndices, indexToByteOffset } from './utf8Offsets';

describe('byte ↔ string offsets', () => {
  const text = 'a—b😀c金'; // 1 + 3 + 1 + 4 + 1 + 3 bytes; 😀 is two UTF-16 units

  it('maps every character boundary both ways', () => {
    let bytes = 0;
    for (let i = 0; i <= text.length; ) {
      expect(byteOffsetToIndex(text, bytes)).toBe(i);
      expect(indexToByteOffset(text, i)).toBe(bytes);
      if (i === text.length) break;
      const cp = text.codePointAt(i) ?? 0;
      const units = cp > 0xffff ? 2 : 1;
      bytes += utf8Encode(String.fromCodePoint(cp)).length;
      i += units;
    }
    expect(bytes).toBe(13);
  });

  it('floors an offset inside a character to its start, and clamps', () => {
    expect(byteOffsetToIndex(text, 2)).toBe(1); // inside —
    expect(byteOffsetToIndex(text, 7)).toBe(3); // inside 😀
    expect(byteOffsetToIndex(text, -5)).toBe(0);
    expect(byteOffsetToIndex(text, 1000)).toBe(text.length);
    expect(indexToByteOffset(text, 4)).toBe(5); // between the surrogates: floors to 😀's start
  });

  it('converts a snippet_match byte range to string indices', () => {
    // SPEC §9: the snippet "FAIL b.test.ts — expected 3, got 4\n…" with the match at [0, 4).
    const snippet = 'FAIL b.test.ts — expected 3, got 4\nPASS c.test.ts\n';
    expect(byteRangeToIndices(snippet, [0, 4])).toEqual([0, 4]);
    // "expected" starts at byte 19 (after the 3-byte em dash), index 17.
    const [s, e] = byteRangeToIndices(snippet, [19, 27]);
    expect(snippet.slice(s, e)).toBe('expected');
    expect(byteRangeToIndices('😀x😀', [4, 5])).toEqual([2, 3]);
    expect(byteRangeToIndices('abc', [3, 3])).toEqual([3, 3]);
    expect(byteRangeToIndices('abc', [1, 99])).toEqual([1, 3]);
  });

  it('counts a lone surrogate as 3 bytes, like TextEncoder', () => {
    const lone = 'a\ud800b';
    expect(indexToByteOffset(lone, 3)).toBe(utf8Encode(lone).length);
    expect(byteOffsetToIndex(lone, 4)).toBe(2);
  });
});

describe('byteCursor', () => {
  it('answers byteOffsetToIndex for every offset, asked in any order', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 30 }), fc.array(fc.nat(140), { maxLength: 20 }), (text, offsets) => {
        const cursor = byteCursor(text);
        for (const b of [...offsets.slice(0, 10).sort((x, y) => x - y), ...offsets.slice(10)]) expect(cursor.indexOf(b)).toBe(byteOffsetToIndex(text, b));
      }),
    );
  });
});
