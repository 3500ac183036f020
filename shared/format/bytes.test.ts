import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ByteSource } from './types';
import { SOURCE_CHUNK_BYTES, concatSources, isMemorySource, memorySource, sourceWindows, textSource } from './bytes';
import { bytesEqual, utf8Encode } from './utf8';

/** A walk's windows, each copied as it comes (a window is reused for the next): their bytes joined, how many windows and how many distinct buffers; none longer than `size`. */
function walkWindows(walk: Iterable<Uint8Array>, size: number): { walked: Uint8Array; windows: number; buffers: number } {
  const copies: Uint8Array[] = [];
  const buffers = new Set<ArrayBufferLike>();
  for (const w of walk) {
    expect(w.length).toBeLessThanOrEqual(size);
    buffers.add(w.buffer);
    copies.push(w.slice());
  }
  const walked = new Uint8Array(copies.reduce((n, c) => n + c.length, 0));
  copies.reduce((at, c) => (walked.set(c, at), at + c.length), 0);
  return { walked, windows: copies.length, buffers: buffers.size };
}

describe('concatSources', () => {
  it('reads any range of the parts one after another as the bytes joined, empty parts among them', () => {
    const partsArb = fc.array(fc.uint8Array({ maxLength: 9 }), { maxLength: 12 });
    fc.assert(
      fc.property(partsArb, fc.nat(), fc.nat(), (parts, a, b) => {
        const joined = Uint8Array.from(parts.flatMap((p) => [...p]));
        const source = concatSources(parts.map((p) => memorySource(p)));
        expect(source.length).toBe(joined.length);
        const start = a % (joined.length + 1);
        const end = start + (b % (joined.length - start + 1));
        expect([...source.read(start, end)]).toEqual([...joined.subarray(start, end)]);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('concatSources: finding a literal', () => {
  it('finds what a search of the joined texts decoded finds: the leftmost occurrences that do not overlap, in the span, across parts and windows, until told to stop', () => {
    const unit = fc.constantFrom('a', 'b', 'é', '😀', '\ud800', '\n');
    const textArb = fc.string({ unit, maxLength: 12 });
    // Two letters often, so that occurrences overlap and cross the parts' ends.
    const needleArb = fc.oneof(fc.string({ unit: fc.constantFrom('a', 'b'), minLength: 1, maxLength: 3 }), fc.string({ unit, minLength: 1, maxLength: 3 }));
    fc.assert(
      fc.property(fc.array(textArb, { maxLength: 8 }), needleArb, fc.integer({ min: 1, max: 16 }), fc.nat(), fc.nat(), fc.nat(4), (texts, query, windowBytes, a, b, stopAfter) => {
        const source = concatSources(texts.map((t, k) => (k % 2 === 0 ? textSource(t) : memorySource(utf8Encode(t)))), windowBytes);
        const joined = source.read(0, source.length);
        const start = a % (joined.length + 1);
        const end = start + (b % (joined.length - start + 1));
        // The decoded text's own occurrences, at their UTF-8 offsets, kept when inside [start, end).
        // A query as search takes it: its lone surrogates read as U+FFFD, as its UTF-8 does.
        const text = new TextDecoder().decode(joined);
        const needle = utf8Encode(query);
        const wanted = new TextDecoder().decode(needle);
        const expected: number[] = [];
        for (let i = text.indexOf(wanted); i !== -1; i = text.indexOf(wanted, i + 1)) {
          const at = utf8Encode(text.slice(0, i)).length;
          if (at < start || at + needle.length > end || (expected.length > 0 && at < expected[expected.length - 1]! + needle.length)) continue;
          expected.push(at);
        }
        const found: number[] = [];
        source.findAll?.(needle, start, end, (at) => {
          found.push(at());
          return found.length <= stopAfter;
        });
        expect(found).toEqual(expected.slice(0, stopAfter + 1));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('concatSources over texts', () => {
  it('reads any range of texts and bytes one after another as their UTF-8 joined, a text read whole written in place', () => {
    const unit = fc.constantFrom('a', 'é', '€', '😀', '\ud800', '\udc00', '\n');
    const partArb = fc.oneof(
      fc.string({ unit, maxLength: 6 }).map((text) => ({ bytes: utf8Encode(text), source: textSource(text) })),
      fc.uint8Array({ maxLength: 6 }).map((bytes) => ({ bytes, source: memorySource(bytes) })),
    );
    fc.assert(
      fc.property(fc.array(partArb, { maxLength: 10 }), fc.nat(), fc.nat(), (parts, a, b) => {
        const joined = Uint8Array.from(parts.flatMap((p) => [...p.bytes]));
        const source = concatSources(parts.map((p) => p.source));
        expect(source.length).toBe(joined.length);
        const start = a % (joined.length + 1);
        const end = start + (b % (joined.length - start + 1));
        expect([...source.read(start, end)]).toEqual([...joined.subarray(start, end)]);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('textSource', () => {
  it('reads any range of a text as its UTF-8, and is not taken for bytes held in memory', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'é', '€', '😀', '\ud800', '\n') }), fc.nat(), fc.nat(), (text, a, b) => {
        const bytes = utf8Encode(text);
        const source = textSource(text);
        expect(source.length).toBe(bytes.length);
        const start = a % (bytes.length + 1);
        const end = start + (b % (bytes.length - start + 1));
        expect([...source.read(start, end)]).toEqual([...bytes.subarray(start, end)]);
        expect(isMemorySource(source)).toBe(false);
        // Written in place: its bytes from `at`, the bytes around them untouched.
        const target = new Uint8Array(bytes.length + 4).fill(7);
        source.readInto?.(0, bytes.length, target, 2);
        expect([...target]).toEqual([7, 7, ...bytes, 7, 7]);
      }),
      { numRuns: 500 },
    );
  });
});

/** A source of `bytes` that only writes into arrays (`readInto`): a `read` would throw. */
function writingSource(bytes: Uint8Array): ByteSource {
  return {
    length: bytes.length,
    read: () => {
      throw new Error('read where readInto was asked');
    },
    readInto: (start, end, target, at) => target.set(bytes.subarray(start, end), at),
  };
}

describe('reading into an array (readInto)', () => {
  it('writes any range of texts, bytes and writing parts joined into an array at an offset, leaving the bytes around it, and reads them through readInto', () => {
    const unit = fc.constantFrom('a', 'é', '€', '😀', '\ud800', '\n');
    const partArb = fc.oneof(
      fc.string({ unit, maxLength: 6 }).map((text) => ({ bytes: utf8Encode(text), source: textSource(text) })),
      fc.uint8Array({ maxLength: 6 }).map((bytes) => ({ bytes, source: memorySource(bytes) })),
      fc.uint8Array({ maxLength: 6 }).map((bytes) => ({ bytes, source: writingSource(bytes) })),
    );
    fc.assert(
      fc.property(fc.array(partArb, { maxLength: 10 }), fc.nat(), fc.nat(), fc.nat(5), (parts, a, b, at) => {
        const joined = Uint8Array.from(parts.flatMap((p) => [...p.bytes]));
        const source = concatSources(parts.map((p) => p.source));
        const start = a % (joined.length + 1);
        const end = start + (b % (joined.length - start + 1));
        const target = new Uint8Array(end - start + 2 * at).fill(7);
        source.readInto?.(start, end, target, at);
        expect([...target]).toEqual([...new Array<number>(at).fill(7), ...joined.subarray(start, end), ...new Array<number>(at).fill(7)]);
        expect([...source.read(start, end)]).toEqual([...joined.subarray(start, end)]);
      }),
      { numRuns: 1000 },
    );
  });

  it('walks a source a window at a time through one reused window, the same bytes as its reads, a memory source in views of its own bytes', () => {
    const size = 2 * SOURCE_CHUNK_BYTES + 12345;
    const bytes = new Uint8Array(size);
    for (let i = 0; i < size; i++) bytes[i] = (i * 31 + (i >> 11)) & 0xff;
    for (const [start, end] of [
      [0, size],
      [5, size - 7],
      [SOURCE_CHUNK_BYTES - 1, SOURCE_CHUNK_BYTES + 2],
      [9, 9],
    ] as const) {
      const { walked, buffers, windows } = walkWindows(sourceWindows(concatSources([writingSource(bytes.subarray(0, 1000)), writingSource(bytes.subarray(1000))]), start, end), SOURCE_CHUNK_BYTES);
      expect(bytesEqual(walked, bytes.subarray(start, end))).toBe(true);
      expect(buffers).toBe(Math.min(1, windows));
      // A source in memory: views of its bytes, no window.
      for (const w of sourceWindows(memorySource(bytes), start, end)) expect(w.buffer).toBe(bytes.buffer);
    }
    // A walk inside another takes a window of its own.
    const outer = sourceWindows(writingSource(bytes));
    const first = outer.next().value as Uint8Array;
    const kept = [...first.subarray(0, 64)];
    for (const inner of sourceWindows(writingSource(new Uint8Array(SOURCE_CHUNK_BYTES).fill(1)))) expect(inner.buffer).not.toBe(first.buffer);
    expect([...first.subarray(0, 64)]).toEqual(kept);
    outer.return(undefined);
  });

  it('walks a source in windows of any size through one window of that size, the same bytes as its reads', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.nat(), fc.nat(), fc.integer({ min: 1, max: 40 }), (bytes, a, b, size) => {
        const [start, end] = [a % (bytes.length + 1), b % (bytes.length + 1)].sort((x, y) => x - y) as [number, number];
        for (const source of [writingSource(bytes), memorySource(bytes)]) {
          const { walked, buffers, windows } = walkWindows(sourceWindows(source, start, end, size), size);
          expect(bytesEqual(walked, bytes.subarray(start, end))).toBe(true);
          expect(buffers).toBe(Math.min(1, windows));
        }
      }),
    );
  });
});
