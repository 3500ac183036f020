/**
 * fdWriter: the command line's output written through the descriptor, whole and in order whatever
 * the descriptor accepts per call; a gone reader (EPIPE) ends it silently; EAGAIN is waited on;
 * any other failure hands exactly the bytes left to the stream.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { WriteSyncFs } from './output';
import { memorySource } from '../../shared/format/bytes';
import { RawJson, Utf8Text, fdWriter, json, writeJson } from './output';

const errno = (code: string): NodeJS.ErrnoException => Object.assign(new Error(code), { code });

/** A descriptor that takes at most the next of `sizes` bytes per call (1 when they run out), failing as `failures` says. */
function fakeFs(sizes: number[], failures: Map<number, string> = new Map()): WriteSyncFs & { written: number[]; calls: number } {
  const written: number[] = [];
  const fs = {
    written,
    calls: 0,
    writeSync(fd: number, buffer: Uint8Array, offset: number, length: number): number {
      const call = fs.calls++;
      expect(fd).toBe(1);
      const failure = failures.get(call);
      if (failure !== undefined) throw errno(failure);
      const n = Math.min(length, Math.max(1, sizes.shift() ?? 1));
      written.push(...buffer.subarray(offset, offset + n));
      return n;
    },
  };
  return fs;
}

const text = fc.string({ unit: fc.oneof(fc.constantFrom('é', '😀', '—', '\n'), fc.string({ minLength: 1, maxLength: 1 })), maxLength: 40 });

describe('fdWriter', () => {
  it('writes every text whole and in order, however few bytes each call takes (characters split across calls included)', () => {
    fc.assert(
      fc.property(fc.array(text, { maxLength: 6 }), fc.array(fc.integer({ min: 1, max: 7 }), { maxLength: 60 }), (texts, sizes) => {
        const fs = fakeFs(sizes);
        const fallback: Uint8Array[] = [];
        const write = fdWriter(1, (rest) => fallback.push(rest), fs);
        for (const t of texts) write(t);
        expect(Buffer.from(fs.written).toString('utf8')).toBe(texts.join(''));
        expect(fallback).toEqual([]);
      }),
    );
  });

  it('waits on EAGAIN and goes on where it was', () => {
    const fs = fakeFs([3, 100], new Map([[1, 'EAGAIN'], [2, 'EAGAIN']]));
    fdWriter(1, () => expect.unreachable(), fs)('abcdefgh');
    expect(Buffer.from(fs.written).toString()).toBe('abcdefgh');
    expect(fs.calls).toBe(4);
  });

  it('a gone reader (EPIPE) ends the writing: nothing thrown, nothing more written or handed on', () => {
    const fs = fakeFs([2], new Map([[1, 'EPIPE']]));
    const fallback: Uint8Array[] = [];
    const write = fdWriter(1, (rest) => fallback.push(rest), fs);
    write('abcdef');
    write('more');
    expect(Buffer.from(fs.written).toString()).toBe('ab');
    expect(fs.calls).toBe(2);
    expect(fallback).toEqual([]);
  });

  it('any other failure hands the stream exactly the bytes not written, a split character whole', () => {
    const fs = fakeFs([2], new Map([[1, 'EBADF']]));
    const fallback: Uint8Array[] = [];
    // 'é' is two bytes: the first call writes 'a' and the first byte of 'é'.
    fdWriter(1, (rest) => fallback.push(rest), fs)('aé😀');
    expect(Buffer.concat([Buffer.from(fs.written), ...fallback]).toString('utf8')).toBe('aé😀');
    expect(fallback).toHaveLength(1);
  });
});

describe('writeJson', () => {
  const valueArb = fc.oneof(
    fc.jsonValue(),
    fc.dictionary(fc.string(), fc.oneof(fc.jsonValue(), fc.constant(undefined), fc.array(fc.oneof(fc.jsonValue(), fc.constant(undefined))))),
  );

  it('writes exactly json(value), for any value (fast-check)', () => {
    fc.assert(
      fc.property(valueArb, (value) => {
        const pieces: string[] = [];
        writeJson(value, (text) => pieces.push(text));
        expect(pieces.join('')).toBe(json(value));
      }),
      { numRuns: 500 },
    );
  });

  it('writes exactly json(value) where long strings make it walk some objects and write others whole (fast-check)', () => {
    // Over writeJson's JSON_WHOLE_UNITS (128 Ki): an object holding one is walked, its siblings written whole.
    const long = fc.tuple(fc.constantFrom('x', 'é', '"', '\\n', '😀'), fc.integer({ min: 0, max: 9 })).map(([c, n]) => `${c.repeat(140_000)}${n}`);
    const leaf = fc.oneof({ weight: 4, arbitrary: fc.jsonValue({ maxDepth: 2 }) }, { weight: 1, arbitrary: long }, { weight: 1, arbitrary: fc.constant(undefined) });
    const { tree } = fc.letrec<{ tree: unknown }>((tie) => ({
      tree: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.array(tie('tree'), { maxLength: 4 }), fc.dictionary(fc.string({ maxLength: 4 }), tie('tree'), { maxKeys: 4 })),
    }));
    fc.assert(
      // What the commands print is an object (or a list): never undefined at the top.
      fc.property(fc.oneof(fc.array(tree, { maxLength: 4 }), fc.dictionary(fc.string({ maxLength: 4 }), tree, { maxKeys: 4 })), (value) => {
        const pieces: string[] = [];
        writeJson(value, (text) => pieces.push(text));
        expect(pieces.join('')).toBe(json(value));
      }),
      { numRuns: 200 },
    );
  });

  it('a view of tens of MB is written in pieces of about a MiB, never as one string', () => {
    const messages = Array.from({ length: 40 }, (_, index) => ({ index, role: 'tool', content: `${'é'.repeat(500_000)}${index}`, reductions: [] }));
    const value = { format: 'supercode', call: null, calls: 40, messages, policy: { dedupe: true }, diff: { counts: {} } };
    const pieces: string[] = [];
    writeJson(value, (text) => pieces.push(text));
    expect(pieces.join('')).toBe(json(value));
    expect(pieces.length).toBeGreaterThan(10);
    // A piece is at most a MiB plus the one element that crossed it.
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan((1 << 20) + 600_000);
  });

  it('a RawJson goes to the byte writer as it is, in its place among the text, and writes what json writes of the value it stands for (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string({ unit: 'grapheme' }), fc.boolean()), { maxLength: 6 }), (contents) => {
        const plain = { messages: contents.map(([content], index) => ({ index, content })) };
        const raw = { messages: contents.map(([content, asRaw], index) => ({ index, content: asRaw ? new RawJson(Buffer.from(JSON.stringify(content))) : content })) };
        const out: Buffer[] = [];
        const bytes: Uint8Array[] = [];
        writeJson(raw, (text) => out.push(Buffer.from(text)), (b) => {
          bytes.push(b);
          out.push(Buffer.from(b));
        });
        expect(Buffer.concat(out).toString('utf8')).toBe(json(plain));
        expect(bytes).toHaveLength(contents.filter(([, asRaw]) => asRaw).length);
        // Without a byte writer, as text; and JSON.stringify writes the value.
        const pieces: string[] = [];
        writeJson(raw, (text) => pieces.push(text));
        expect(pieces.join('')).toBe(json(plain));
        expect(json(raw)).toBe(json(plain));
      }),
      { numRuns: 200 },
    );
  });

  it('one element of many MB is written in slices of its own text, none cutting a surrogate pair', () => {
    const content = `x${'😀"\n\u0001é'.repeat(500_000)}`;
    const value = { format: 'supercode', messages: [{ index: 0, content }, { index: 1, content: 'ok' }] };
    const pieces: string[] = [];
    writeJson(value, (text) => pieces.push(text));
    expect(pieces.join('')).toBe(json(value));
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThanOrEqual(2 << 20);
    // Each piece is well-formed text: its UTF-8 reads back as itself.
    for (const p of pieces) expect(Buffer.from(p, 'utf8').toString('utf8')).toBe(p);
  });

  it('a Utf8Text is written as the JSON of its bytes decoded whole, for any bytes (invalid UTF-8 included) and any window (fast-check)', () => {
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 200 }),
      fc.array(fc.oneof(fc.string({ unit: 'binary', maxLength: 8 }).map((t) => Buffer.from(t, 'utf8')), fc.constantFrom(...[[0xe2, 0x82], [0xf0, 0x80, 0x80], [0x80, 0x80, 0x80, 0x80, 0x80], [0xc3], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80]].map((b) => Uint8Array.from(b)))), { maxLength: 20 }).map((parts) => Uint8Array.from(Buffer.concat(parts))),
    );
    fc.assert(
      fc.property(bytes, fc.integer({ min: 4, max: 64 }), (b, window) => {
        const text = new Utf8Text(memorySource(b), window);
        const whole = Buffer.from(b).toString('utf8');
        expect([...text.windows()].join('')).toBe(whole);
        const value = { reduction_id: 'r1', content: text, range: [0, b.length] };
        let written = '';
        writeJson(value, (t) => (written += t));
        expect(written).toBe(json({ reduction_id: 'r1', content: whole, range: [0, b.length] }));
        expect(written).toBe(json(value));
      }),
      { numRuns: 500 },
    );
  });

  it('a Utf8Text of many MB is decoded and written a window at a time, never as one string', () => {
    const bytes = Buffer.from(`${'😀 résumé\n'.repeat(600_000)}end`, 'utf8');
    const source = memorySource(bytes);
    let read = 0;
    let largest = 0;
    // Reads of four bytes are the windows' ends looked at; the rest are the windows.
    const counted = { length: source.length, read: (from: number, to: number) => (to - from > 4 && ((read += to - from), (largest = Math.max(largest, to - from))), source.read(from, to)) };
    const pieces: string[] = [];
    writeJson({ content: new Utf8Text(counted) }, (t) => pieces.push(t));
    expect(read).toBe(bytes.length);
    expect(largest).toBeLessThanOrEqual(1 << 20);
    expect(pieces.length).toBeGreaterThanOrEqual(5);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThanOrEqual(3 << 20);
    expect(JSON.parse(pieces.join(''))).toEqual({ content: bytes.toString('utf8') });
  });
});
