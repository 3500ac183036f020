import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { concatSources, memorySource } from './bytes';

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
