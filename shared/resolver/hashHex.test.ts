import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashHex } from './original';

/** The pointer-hash grammar as a regex: the reference the loop in hashHex must agree with. */
function reference(ptrHash: string | null): string | undefined {
  if (ptrHash === null) return undefined;
  return /^sha256:([0-9a-fA-F]{64})$/.exec(ptrHash)?.[1]?.toLowerCase();
}

describe('hashHex (a loop, asked for every reduction of every search)', () => {
  it('reads exactly the sha256:<64 hex> pointers, lowercased, as the grammar does', () => {
    const hexChar = fc.constantFrom(...'0123456789abcdefABCDEFgG:z '.split(''));
    const near = fc
      .tuple(fc.constantFrom('sha256:', 'SHA256:', 'sha256', 'sha25:', ''), fc.array(hexChar, { minLength: 62, maxLength: 66 }))
      .map(([prefix, chars]) => prefix + chars.join(''));
    const valid = fc.array(fc.constantFrom(...'0123456789abcdefABCDEF'.split('')), { minLength: 64, maxLength: 64 }).map((chars) => `sha256:${chars.join('')}`);
    fc.assert(
      fc.property(fc.oneof(valid, near, fc.string(), fc.constant(null)), (ptrHash) => {
        expect(hashHex(ptrHash)).toBe(reference(ptrHash));
      }),
      { numRuns: 2000 },
    );
    expect(hashHex(`sha256:${'aB'.repeat(32)}`)).toBe('ab'.repeat(32));
  });
});
