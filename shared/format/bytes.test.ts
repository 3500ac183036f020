import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { concatSources, isMemorySource, memorySource, textSource } from './bytes';
import { utf8Encode } from './utf8';

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
        source.writeInto?.(target, 2);
        expect([...target]).toEqual([7, 7, ...bytes, 7, 7]);
      }),
      { numRuns: 500 },
    );
  });
});
