import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ReadSync } from '../common/lines';
import type { EscapeDecoder } from './contentHash';
import { decoderModules, hashContentBody, jsEscapeDecoder, wasmEscapeDecoder } from './contentHash';
import { walkerModuleBytes } from './jsonStringWasm';
import { hashBody } from './rawRecord';

/** A file held in memory, read through a ReadSync that never returns more than `most` bytes at once. */
function memoryFile(bytes: Buffer, most = Infinity): ReadSync {
  return (_fd, buffer, offset, length, position) => {
    const n = Math.max(0, Math.min(length, most, bytes.length - position));
    bytes.copy(buffer, offset, position, position + n);
    return n;
  };
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** Content strings with what makes bodies hard: escapes, control characters, astral and lone surrogates. */
const contentArb = fc.string({ unit: fc.oneof(fc.constantFrom('"', '\\', '\n', '\t', '\r', '\b', '\f', '\u0001', '\u001b', '\u007f', 'é', '😀', '\ud800', '\udc00', '/', 'u', 'x'), fc.string({ unit: 'grapheme', maxLength: 3 })), maxLength: 120 });

/** Some characters escaped the way other writers do: \u00XX for ASCII (upper- or lower-case hex), \/. */
function looseBody(text: string, pick: (n: number) => number): string {
  let out = '';
  for (const ch of JSON.stringify(text).slice(1, -1).match(/\\u[0-9a-f]{4}|\\.|[^]/gu) ?? []) {
    const choice = pick(4);
    if (ch.length === 1 && ch.charCodeAt(0) < 0x80 && choice === 0) out += `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
    else if (ch.length === 1 && ch.charCodeAt(0) < 0x80 && choice === 1) out += `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`;
    else if (ch === '/' && choice === 2) out += '\\/';
    else out += ch;
  }
  return out;
}

/** The decoder under test: the WebAssembly one, and the JavaScript one it stands in for. */
const DECODERS: [string, (window: number) => EscapeDecoder][] = [
  ['WebAssembly (SIMD)', (window) => wasmEscapeDecoder(decoderModules(), window) as EscapeDecoder],
  ['WebAssembly (8 bytes a step)', (window) => wasmEscapeDecoder([walkerModuleBytes(false)], window) as EscapeDecoder],
  ['JavaScript', jsEscapeDecoder],
];

it('the WebAssembly decoder is available here, and none is made from a module that does not compile', () => {
  expect(wasmEscapeDecoder(decoderModules(), 64)).toBeDefined();
  expect(wasmEscapeDecoder([new Uint8Array([0, 1, 2])], 64)).toBeUndefined();
});

describe.each(DECODERS)('hashContentBody with the %s decoder', (_name, decoder) => {
  it('hashes every body exactly as the general decoder does, or leaves it to it', () => {
    fc.assert(
      fc.property(contentArb, fc.integer({ min: 16, max: 64 }), fc.integer({ min: 1, max: 7 }), fc.array(fc.nat(3), { minLength: 1, maxLength: 40 }), fc.nat(8), (text, window, most, picks, lead) => {
        let k = 0;
        const body = Buffer.from(looseBody(text, () => picks[k++ % picks.length] as number), 'utf8');
        // The body at an offset in a file, as records hold it, read in windows of `window` bytes.
        const file = Buffer.concat([Buffer.alloc(lead, 0x41), body, Buffer.from('"}\n')]);
        const read = memoryFile(file, most);
        const fast = hashContentBody(0, read, createHash, lead, body.length, decoder(window));
        const general = hashBody(0, memoryFile(file), lead, body.length, 64);
        const content = Buffer.from(text, 'utf8');
        expect(general).toMatchObject({ sha256: sha256(content), length: content.length });
        if (fast !== undefined) expect(fast).toEqual({ sha256: general.sha256, length: general.length });
        // The fast loop leaves only escapes outside ASCII (lone surrogates, astral pairs) to the general decoder.
        if (!/\\u(?!00[0-7])/i.test(body.toString('utf8'))) expect(fast).toBeDefined();
      }),
      { numRuns: 400 },
    );
  });

  it('hashes a body without escapes as the raw bytes it read, and an ANSI-heavy tool output in windows', () => {
    const plain = Buffer.from('plain text é 😀 '.repeat(50), 'utf8');
    expect(hashContentBody(0, memoryFile(plain), createHash, 0, plain.length, decoder(64))).toEqual({ sha256: sha256(plain), length: plain.length });
    const text = Array.from({ length: 200 }, (_, i) => `\u001b[31merror\u001b[0m TS${1000 + i}: "x"\tline ${i}\\`).join('\n');
    const body = Buffer.from(JSON.stringify(text).slice(1, -1), 'utf8');
    const bytes = Buffer.from(text, 'utf8');
    expect(hashContentBody(0, memoryFile(body), createHash, 0, body.length, decoder(100))).toEqual({ sha256: sha256(bytes), length: bytes.length });
  });

  it('decodes a window that begins with a run of escapes, cutting only an escape its end may split', () => {
    // Found by the property above (seed -2118398234): cut before the whole run, the first window was empty and the body left to the general decoder.
    for (const text of ['\\\\"\u0800\u{10000}\u{10000}', '\\\\\\"'.repeat(3) + 'x'.repeat(9) + '\n', 'a'.repeat(13) + '\n\\u']) {
      const body = Buffer.from(JSON.stringify(text).slice(1, -1), 'utf8');
      const content = Buffer.from(text, 'utf8');
      for (const window of [16, 17, 18, 19, 20]) expect(hashContentBody(0, memoryFile(body), createHash, 0, body.length, decoder(window)), `${JSON.stringify(text)} in windows of ${window}`).toEqual({ sha256: sha256(content), length: content.length });
    }
  });

  it('gives a malformed or shortened body to the general decoder, which says what is wrong', () => {
    const bad = Buffer.from('abc\\qdef', 'utf8');
    expect(hashContentBody(0, memoryFile(bad), createHash, 0, bad.length, decoder(16))).toBeUndefined();
    expect(() => hashBody(0, memoryFile(bad), 0, bad.length, 16)).toThrow(/invalid escape/);
    const endsInEscape = Buffer.from('abc\\', 'utf8');
    expect(hashContentBody(0, memoryFile(endsInEscape), createHash, 0, endsInEscape.length, decoder(16))).toBeUndefined();
    const short = Buffer.from('abc', 'utf8');
    expect(hashContentBody(0, memoryFile(short), createHash, 0, 10, decoder(16))).toBeUndefined();
  });
});
