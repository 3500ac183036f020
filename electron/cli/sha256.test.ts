/** The command line's createHash (sha256.ts) gives node:crypto's digests, wherever its JavaScript budget runs out. */
import * as nodeCrypto from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coldCreateHash, createHash } from './sha256';

const update = fc.oneof(
  fc.record({ text: fc.string({ unit: 'binary', maxLength: 40 }), encoding: fc.constantFrom(undefined, 'utf8', 'latin1', 'hex', 'base64') }),
  fc.record({ bytes: fc.uint8Array({ maxLength: 90 }), offset: fc.nat({ max: 8 }) }),
);

describe('createHash (the command line)', () => {
  it('SHA-256 equals node:crypto over any updates, any budget, with buffers reused after each update', () => {
    fc.assert(
      fc.property(fc.array(fc.array(update, { maxLength: 6 }), { minLength: 1, maxLength: 4 }), fc.nat({ max: 400 }), fc.boolean(), (hashes, startBudget, hex) => {
        const withBudget = coldCreateHash(startBudget);
        for (const updates of hashes) {
          const ours = withBudget('sha256');
          const theirs = nodeCrypto.createHash('sha256');
          for (const u of updates) {
            if ('text' in u) {
              // Text node:crypto refuses (odd-length hex) is refused alike.
              const outcome = (f: () => unknown) => {
                try {
                  f();
                  return 'ok';
                } catch (e) {
                  return (e as NodeJS.ErrnoException).code;
                }
              };
              expect(outcome(() => ours.update(u.text, u.encoding as nodeCrypto.Encoding | undefined))).toBe(outcome(() => theirs.update(u.text, u.encoding as nodeCrypto.Encoding)));
            } else {
              // A view into a larger buffer, overwritten once handed over (as contentHash.ts reuses its read buffer).
              const buffer = new Uint8Array(u.bytes.length + u.offset);
              buffer.set(u.bytes, u.offset);
              const view = buffer.subarray(u.offset);
              ours.update(view);
              theirs.update(view);
              buffer.fill(0xa5);
            }
          }
          if (hex) expect(ours.digest('hex')).toBe(theirs.digest('hex'));
          else expect(ours.digest()).toEqual(theirs.digest());
        }
      }),
      { numRuns: 400 },
    );
  });

  it('every length across the padding edges (0 to 300 bytes, and 20 KB) in JavaScript alone equals node:crypto', () => {
    const bytes = Uint8Array.from({ length: 20_000 }, (_, k) => (k * 131 + 7) & 0xff);
    for (const n of [...Array.from({ length: 301 }, (_, k) => k), 20_000]) {
      expect(coldCreateHash(1 << 30)('sha256').update(bytes.subarray(0, n)).digest('hex'), `${n} bytes`).toBe(nodeCrypto.createHash('sha256').update(bytes.subarray(0, n)).digest('hex'));
    }
  });

  it('hashes in JavaScript until the budget is spent, then node:crypto takes over mid-hash', () => {
    const h = coldCreateHash(10)('sha256').update('0123456789').update('abc');
    expect(h.digest('hex')).toBe(nodeCrypto.createHash('sha256').update('0123456789abc').digest('hex'));
  });

  it('a copy digests what was taken before it, and each goes on apart, in JavaScript or past the budget', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.uint8Array({ maxLength: 200 }), fc.uint8Array({ maxLength: 200 }), fc.nat({ max: 500 }), (a, b, c, budget) => {
        const ours = coldCreateHash(budget)('sha256').update(a);
        const copy = ours.copy();
        ours.update(b);
        copy.update(c);
        const node = (...parts: Uint8Array[]) => parts.reduce((h, p) => h.update(p), nodeCrypto.createHash('sha256')).digest('hex');
        expect(copy.digest('hex')).toBe(node(a, c));
        expect(ours.digest('hex')).toBe(node(a, b));
      }),
      { numRuns: 300 },
    );
  });

  it('once one of its hashes has gone to node:crypto, the hashes made after it are node:crypto’s own, with the same digests', () => {
    const make = coldCreateHash(100);
    const small = make('sha256').update('abc');
    expect(small).not.toBeInstanceOf(nodeCrypto.Hash);
    const large = make('sha256').update('x'.repeat(500));
    const after = make('sha256');
    expect(after).toBeInstanceOf(nodeCrypto.Hash);
    expect(after.update('abc').digest('hex')).toBe(small.digest('hex'));
    expect(large.digest('hex')).toBe(nodeCrypto.createHash('sha256').update('x'.repeat(500)).digest('hex'));
    // A budget spent in JavaScript alone does not load node:crypto for the next hash: it goes there on its first bytes.
    const spent = coldCreateHash(3);
    spent('sha256').update('abc').digest();
    expect(spent('sha256')).not.toBeInstanceOf(nodeCrypto.Hash);
  });

  it('any other algorithm, or options, is node:crypto itself', () => {
    expect(createHash('sha1')).toBeInstanceOf(nodeCrypto.Hash);
    expect(createHash('sha256', {})).toBeInstanceOf(nodeCrypto.Hash);
    expect((createHash('md5') as nodeCrypto.Hash).update('x').digest('hex')).toBe(nodeCrypto.createHash('md5').update('x').digest('hex'));
  });
});
