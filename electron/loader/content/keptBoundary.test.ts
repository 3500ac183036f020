import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { floorSourceBoundary, memorySource } from '../../../shared/index';
import type { ReadSync } from '../common/lines';
import { locateKept } from './keptBoundary';

/** A file held in memory, read through a ReadSync that never returns more than `most` bytes at once. */
function memoryFile(bytes: Buffer, most: number): ReadSync {
  return (_fd, buffer, offset, length, position) => {
    const n = Math.max(0, Math.min(length, most, bytes.length - position));
    bytes.copy(buffer, offset, position, position + n);
    return n;
  };
}

/** Contents with what makes a kept prefix hard: escapes, control characters, multi-byte and astral characters, lone surrogates. */
const contentArb = fc.string({ unit: fc.constantFrom('a', '"', '\\', '\n', '\t', '\u0001', '\u001b', '\u007f', 'é', '€', '😀', '\ud800', '/', 'u', '0'), minLength: 2, maxLength: 80 });

/** Some ASCII escaped as other writers do (\u00XX, \/), and now and then a non-ASCII character as \uXXXX. */
function looseBody(text: string, pick: (n: number) => number): string {
  let out = '';
  for (const ch of JSON.stringify(text).slice(1, -1).match(/\\u[0-9a-f]{4}|\\.|[^]/gu) ?? []) {
    const choice = pick(5);
    const code = ch.codePointAt(0) as number;
    if (ch.length === 1 && code < 0x80 && choice === 0) out += `\\u${code.toString(16).padStart(4, '0').toUpperCase()}`;
    else if (ch === '/' && choice === 1) out += '\\/';
    else if (code >= 0x80 && code <= 0xffff && choice === 2) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return out;
}

/** The content bytes a body decodes to (JSON.parse, then UTF-8 with U+FFFD for a lone surrogate: the sidecar's decoding). */
function decode(body: Buffer): Buffer {
  return Buffer.from(JSON.parse(`"${body.toString('utf8')}"`) as string, 'utf8');
}

describe('locateKept (the hidden-span start found off the search thread)', () => {
  it("answers FileContent's floor of kept_bytes and the raw offset where it begins, in pieces of any size, or nothing", () => {
    fc.assert(
      fc.property(contentArb, fc.nat(), fc.boolean(), fc.integer({ min: 1, max: 7 }), fc.integer({ min: 8, max: 64 }), fc.array(fc.nat(4), { minLength: 1 }), (text, k, loose, most, bufBytes, picks) => {
        let p = 0;
        const body = Buffer.from(loose ? looseBody(text, (n) => (picks[p++ % picks.length] as number) % n) : JSON.stringify(text).slice(1, -1), 'utf8');
        const bytes = decode(body);
        fc.pre(bytes.length >= 2);
        const kept = 1 + (k % (bytes.length - 1));
        const found = locateKept(0, memoryFile(body, most), 0, body.length, kept, Buffer.alloc(bufBytes));
        // A body JSON.stringify wrote, with no lone surrogate, has only the escapes it knows.
        if (!loose && !/[\ud800-\udfff]/u.test(text.replace(/[\ud800-\udbff][\udc00-\udfff]/gu, ''))) expect(found).toBeDefined();
        if (found === undefined) return;
        const [floored, raw] = found;
        expect(floored).toBe(floorSourceBoundary(memorySource(bytes), kept));
        expect(decode(body.subarray(0, raw)).equals(bytes.subarray(0, floored))).toBe(true);
      }),
      { numRuns: 1500 },
    );
  });

  it('gives up on a body that ends early (the file shrank)', () => {
    const body = Buffer.from(JSON.stringify('abc\ndef').slice(1, -1));
    expect(locateKept(0, memoryFile(body.subarray(0, 4), 64), 0, body.length, 6, Buffer.alloc(16))).toBeUndefined();
    expect(locateKept(0, memoryFile(body, 64), 0, body.length, 6, Buffer.alloc(16))).toEqual([6, 7]);
  });
});
