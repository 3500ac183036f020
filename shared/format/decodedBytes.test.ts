import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DecodedBytes, utf8Decode, utf8Encode, utf8SequenceAt, utf8StreamDecoder } from './utf8';

/**
 * Bytes as a saved command output may hold them: text (a byte order mark among it), and bytes that
 * are not UTF-8 (a stray continuation, a lead cut short, an overlong form, a surrogate, a byte never
 * used), in any order.
 */
const piece = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 4 }).map((s) => [...utf8Encode(s)]),
  fc.constantFrom([0xef, 0xbb, 0xbf], [0xff], [0xfe], [0x80], [0xbf, 0x80], [0xc3], [0xc0, 0xaf], [0xe2, 0x82], [0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xf0, 0x90, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xf5]),
  fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 4 }),
);
const anyBytes = fc.array(piece, { maxLength: 12 }).map((parts) => new Uint8Array(parts.flat()));

/**
 * The reference decoder: a U+FEFF at the start is a character like any other (TextDecoder drops it
 * by default, as a byte order mark, so a text opening with EF BB BF decoded to nothing).
 */
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** The text's characters each with the bytes it was read from, by decoding the bytes one sequence at a time. */
function sequences(bytes: Uint8Array): { text: string; from: number; to: number }[] {
  const out: { text: string; from: number; to: number }[] = [];
  for (let p = 0; p < bytes.length; ) {
    const d = utf8SequenceAt(bytes, p, bytes.length);
    const n = d < 0 ? -d : d % 8;
    out.push({ text: decoder.decode(bytes.subarray(p, p + n)), from: p, to: p + n });
    p += n;
  }
  return out;
}

describe('utf8SequenceAt: the sequences a decoder reads', () => {
  it('decoded one at a time, they are the decoding of the whole (each a character or one U+FFFD)', () => {
    fc.assert(
      fc.property(anyBytes, (bytes) => {
        const seqs = sequences(bytes);
        expect(seqs.map((s) => s.text).join('')).toBe(decoder.decode(bytes));
        for (const s of seqs) expect([...s.text]).toHaveLength(1);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads a byte order mark as the character it is, at the start as anywhere', () => {
    for (const bytes of [[0xef, 0xbb, 0xbf], [0xef, 0xbb, 0xbf, 0x41], [0x41, 0xef, 0xbb, 0xbf]].map((b) => new Uint8Array(b))) {
      expect(sequences(bytes).map((s) => s.text)).toEqual([...decoder.decode(bytes)]);
      expect(sequences(bytes).some((s) => s.text === '\ufeff')).toBe(true);
      expect(utf8Decode(bytes)).toBe(decoder.decode(bytes));
      const pieces = utf8StreamDecoder();
      expect([...bytes].map((b) => pieces.decode(new Uint8Array([b]), { stream: true })).join('') + pieces.decode()).toBe(decoder.decode(bytes));
    }
  });

  it('reads the maximal subpart: a lead and the continuations that could still follow it', () => {
    expect(utf8SequenceAt(new Uint8Array([0xe2, 0x82, 0x41]), 0, 3)).toBe(-2);
    expect(utf8SequenceAt(new Uint8Array([0xf0, 0x90, 0x80, 0x41]), 0, 4)).toBe(-3);
    // E0 takes A0–BF next: 80 ends the subpart at the lead.
    expect(utf8SequenceAt(new Uint8Array([0xe0, 0x80, 0x80]), 0, 3)).toBe(-1);
    // A well-formed character: its code point and its length.
    expect(utf8SequenceAt(new Uint8Array([0xf0, 0x9f, 0x98, 0x80]), 0, 4)).toBe(0x1f600 * 8 + 4);
  });
});

describe('DecodedBytes: byte offsets of a decoded text', () => {
  it('each character is at the offset of the bytes it was read from, both ways, from any start', () => {
    fc.assert(
      fc.property(anyBytes, fc.nat(1000), (bytes, start) => {
        const decoded = new DecodedBytes(bytes, start);
        expect(decoded.text).toBe(decoder.decode(bytes));
        let index = 0;
        for (const s of sequences(bytes)) {
          expect(decoded.byteOffsetOf(index)).toBe(start + s.from);
          expect(decoded.indexOfByte(start + s.from)).toBe(index);
          expect(decoded.charEndOf(index)).toBe(start + s.to);
          index += s.text.length;
        }
        expect(index).toBe(decoded.text.length);
        expect(decoded.byteOffsetOf(index)).toBe(start + bytes.length);
        expect(decoded.indexOfByte(start + bytes.length)).toBe(index);
      }),
      { numRuns: 2000 },
    );
  });

  it('answers offsets asked in any order', () => {
    const decoded = new DecodedBytes(utf8Encode('aé😀b'), 10);
    expect([4, 0, 5, 1, 2].map((i) => decoded.byteOffsetOf(i))).toEqual([17, 10, 18, 11, 13]);
  });

  it('a stray byte is one byte, not the three of the U+FFFD that stands for it', () => {
    // "ab", 0xFF, " cd ", a written U+FFFD, " ab", 0xC3 (a lead with no continuation), "ab".
    const bytes = new Uint8Array([...utf8Encode('ab'), 0xff, ...utf8Encode(' cd \uFFFD ab'), 0xc3, ...utf8Encode('ab')]);
    const decoded = new DecodedBytes(bytes);
    const found: number[] = [];
    for (const m of decoded.text.matchAll(/ab/g)) found.push(decoded.byteOffsetOf(m.index));
    expect(found).toEqual([0, 11, 14]);
    expect(decoded.byteOffsetOf(decoded.text.indexOf('\uFFFD', 3))).toBe(7);
  });
});
