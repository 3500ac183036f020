import { closeSync, openSync, readSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../tools/testing/files';
import { JsonStringError, JsonStringWalk, canonicalBody, hasControlByte, isEscapeBoundary, stringValueBytes, unescapeInto } from './jsonString';
import { createHash } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { Utf8Check, hashBody, scanMessageRecord } from './rawRecord';
import type { WasmWalker } from './jsonStringWasm';
import { wasmWalker } from './jsonStringWasm';
import type { ReadSync } from '../common/lines';

/** Content strings with what makes bodies hard: escapes, control characters, astral and lone surrogates. */
const contentArb = fc.string({ unit: fc.oneof(fc.constantFrom('"', '\\', '\n', '\t', '\u0001', '\u001b', 'é', '😀', '\ud800', '\udc00', '/', 'u'), fc.string({ unit: 'grapheme', maxLength: 3 })), maxLength: 60 });

/** A body with some characters escaped the way other writers do (\u00e9, \/, upper-case hex, pairs). */
function looseBody(text: string, pick: (n: number) => number): string {
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    const choice = pick(4);
    if (ch === '"' || ch === '\\' || cp < 0x20 || (cp >= 0xd800 && cp <= 0xdfff) || choice === 0) {
      const units = ch.length === 2 ? [ch.charCodeAt(0), ch.charCodeAt(1)] : [ch.charCodeAt(0)];
      for (const u of units) out += `\\u${u.toString(16).padStart(4, '0')}`;
      if (choice === 1) out = out.toUpperCase().replace(/\\U/g, '\\u');
    } else if (ch === '/' && choice === 2) out += '\\/';
    else out += ch;
  }
  return out;
}

/** Decodes `body` in windows of `window` bytes, resuming at escapes cut by a window's end. */
function decodeInWindows(body: Buffer, window: number): Buffer {
  const out = Buffer.alloc(body.length);
  let written = 0;
  let pos = 0;
  while (pos < body.length) {
    const end = Math.min(body.length, pos + window);
    const piece = Buffer.from(body.subarray(pos, end));
    const r = unescapeInto(piece, 0, piece.length, out, written, end === body.length);
    written += r.written;
    if (r.consumed === 0) throw new Error('no progress');
    pos += r.consumed;
  }
  return out.subarray(0, written);
}

function walkInWindows(body: Buffer, window: number): JsonStringWalk & { close: number } {
  const walk = new JsonStringWalk();
  const quoted = Buffer.concat([body, Buffer.from('"')]);
  let pos = 0;
  for (;;) {
    const end = Math.min(quoted.length, pos + window);
    const r = walk.feed(quoted, pos, end, pos, end === quoted.length);
    if ('close' in r) return Object.assign(walk, { close: r.close });
    if (r.resume === pos && end !== quoted.length) {
      // Too small a window for the escape: widen it.
      window *= 2;
      continue;
    }
    pos = r.resume;
  }
}

describe('JSON string bodies as bytes', () => {
  it('decodes any canonical body to the UTF-8 of JSON.parse, in any windows', () => {
    fc.assert(
      fc.property(contentArb, fc.integer({ min: 1, max: 40 }), (text, window) => {
        const body = canonicalBody(text);
        const expected = Buffer.from(JSON.parse(`"${body.toString('utf8')}"`) as string, 'utf8');
        expect(decodeInWindows(body, Math.max(window, 12))).toEqual(expected);
        const walk = walkInWindows(body, Math.max(window, 12));
        expect(walk.close).toBe(body.length);
        expect(walk.decoded).toBe(expected.length);
        expect(walk.canonical).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('decodes bodies other writers escape differently, and says they are not canonical', () => {
    fc.assert(
      fc.property(contentArb, fc.array(fc.nat(), { minLength: 1, maxLength: 80 }), (text, choices) => {
        let k = 0;
        const body = Buffer.from(looseBody(text, (n) => (choices[k++ % choices.length] as number) % n), 'utf8');
        const expected = Buffer.from(JSON.parse(`"${body.toString('utf8')}"`) as string, 'utf8');
        expect(decodeInWindows(body, 16)).toEqual(expected);
        const walk = walkInWindows(body, 16);
        expect(walk.decoded).toBe(expected.length);
        if (walk.canonical) expect(body).toEqual(canonicalBody(JSON.parse(`"${body.toString('utf8')}"`) as string));
      }),
      { numRuns: 400 },
    );
  });

  it('rejects malformed escapes', () => {
    for (const bad of ['\\x', '\\u12', '\\u12g4', 'abc\\']) {
      expect(() => decodeInWindows(Buffer.from(bad), 64), bad).toThrow(JsonStringError);
    }
  });

  it('keeps checkpoints outside escapes, each decoding to the same bytes as from the start', () => {
    const text = Array.from({ length: 40000 }, (_, i) => `line ${i}\t"é"\\ \u001b[31m😀\n`).join('');
    const body = canonicalBody(text);
    const walk = walkInWindows(body, 100_000);
    const all = Buffer.from(text, 'utf8');
    expect(walk.checkpoints.length).toBeGreaterThan(4);
    for (let k = 0; k < walk.checkpoints.length; k += 2) {
      const raw = walk.checkpoints[k] as number;
      const decoded = walk.checkpoints[k + 1] as number;
      expect(isEscapeBoundary(raw, (i) => body[i] as number)).toBe(true);
      const tail = decodeInWindows(body.subarray(raw), 4096);
      expect(tail.equals(all.subarray(decoded))).toBe(true);
    }
  });

  it('tells escape boundaries from positions inside an escape', () => {
    const body = Buffer.from(String.raw`a\\n\n\u001bz\\\"q`);
    const byteAt = (i: number) => body[i] as number;
    const inside = new Set([2, 5, 7, 8, 9, 10, 11, 14, 16]);
    for (let p = 0; p <= body.length; p++) expect(isEscapeBoundary(p, byteAt), `offset ${p}`).toBe(!inside.has(p));
  });
});

/** What a walk told, piece by piece: the answer of each feed, and its state at the end (or its error). */
function walkStory(body: Buffer, windows: readonly number[], options: { walker: WasmWalker | null; checkpointBytes: number; sink?: (piece: Buffer) => void }) {
  const walk = new JsonStringWalk(options);
  const answers: ({ close: number } | { resume: number })[] = [];
  let pos = 0;
  let k = 0;
  try {
    for (;;) {
      let window = windows[k++ % windows.length] as number;
      let end = Math.min(body.length, pos + window);
      // A window must hold an escape whole (as the file readers' do): widen one that cannot.
      while (end < body.length && end - pos < 12) end = Math.min(body.length, pos + (window *= 2));
      // Each piece in a buffer of its own, at an offset: the walk reads only [from, end).
      const buf = Buffer.concat([Buffer.from('xx'), body.subarray(pos, end), Buffer.from('"')]);
      const r = walk.feed(buf, 2, 2 + end - pos, pos, end === body.length);
      answers.push('close' in r ? { close: r.close - 2 + pos } : { resume: r.resume - 2 + pos });
      if ('close' in r) break;
      if (r.resume - 2 + pos === body.length) break;
      pos = r.resume - 2 + pos;
    }
  } catch (e) {
    return { error: e instanceof JsonStringError ? e.message : String(e) };
  }
  return { answers, decoded: walk.decoded, canonical: walk.canonical, checkpoints: walk.checkpoints, decoding: walk.decoding };
}

describe('the WebAssembly walker', () => {
  const bodyArb = fc.tuple(contentArb, fc.array(fc.nat(), { minLength: 1, maxLength: 40 }), fc.constantFrom('canonical', 'loose', 'damaged')).map(([text, choices, kind]) => {
    let k = 0;
    const pick = (n: number) => (choices[k++ % choices.length] as number) % n;
    if (kind === 'canonical') return canonicalBody(text);
    const loose = looseBody(text, pick);
    if (kind === 'loose') return Buffer.from(loose, 'utf8');
    // A bad escape, a cut \u, a stray quote or a trailing backslash somewhere.
    const at = pick(loose.length + 1);
    const bad = ['\\x', '\\u12g4', '"', '\\u00', '\\ud83d\\u0041'][pick(5)] as string;
    return Buffer.from(loose.slice(0, at) + bad + loose.slice(at), 'utf8');
  });

  it.each([
    ['sixteen bytes a step (SIMD)', true],
    ['eight bytes a step', false],
  ])('walks every body as the JavaScript walk does, %s: answers, decoded length, canonical, checkpoints, errors', (_name, simd) => {
    fc.assert(
      fc.property(bodyArb, fc.array(fc.integer({ min: 1, max: 70 }), { minLength: 1, maxLength: 6 }), fc.integer({ min: 16, max: 48 }), fc.integer({ min: 1, max: 40 }), (body, windows, walkerWindow, checkpointBytes) => {
        const walker = wasmWalker(walkerWindow, simd) as WasmWalker;
        const wasm = walkStory(body, windows, { walker, checkpointBytes });
        const js = walkStory(body, windows, { walker: null, checkpointBytes });
        expect({ ...wasm, decoding: undefined }).toEqual({ ...js, decoding: undefined });
      }),
      { numRuns: 500 },
    );
  });

  it('hands a sink the decoded bytes of JSON.parse, in order, when it walks a body whole', () => {
    fc.assert(
      fc.property(bodyArb, fc.array(fc.integer({ min: 1, max: 70 }), { minLength: 1, maxLength: 6 }), fc.integer({ min: 16, max: 48 }), fc.boolean(), (body, windows, walkerWindow, simd) => {
        const pieces: Buffer[] = [];
        const story = walkStory(body, windows, { walker: wasmWalker(walkerWindow, simd) as WasmWalker, checkpointBytes: 64, sink: (piece) => pieces.push(Buffer.from(piece)) });
        let parsed: string | undefined;
        try {
          parsed = JSON.parse(`"${body.toString('utf8')}"`) as string;
        } catch {
          parsed = undefined;
        }
        if ('error' in story || parsed === undefined) return;
        expect(story.decoding).toBe(true);
        expect(Buffer.concat(pieces)).toEqual(Buffer.from(parsed, 'utf8'));
      }),
      { numRuns: 400 },
    );
  });

  it('leaves the decoding to its caller when it walks in JavaScript', () => {
    const story = walkStory(canonicalBody('a\nb'), [64], { walker: null, checkpointBytes: 64, sink: () => undefined });
    expect(story).toMatchObject({ decoding: false, decoded: 3 });
  });
});

describe('stringValueBytes', () => {
  /** What it must equal: JSON.parse of the decoded text, as UTF-8 when it is a string. */
  const reference = (raw: Buffer): Buffer | undefined => {
    try {
      const v: unknown = JSON.parse(raw.toString('utf8'));
      return typeof v === 'string' ? Buffer.from(v, 'utf8') : undefined;
    } catch {
      return undefined;
    }
  };
  /** Literals as JSON.stringify writes them, as other writers do, damaged, or bytes around a quote. */
  const literalArb = fc.oneof(
    contentArb.map((t) => Buffer.from(JSON.stringify(t), 'utf8')),
    fc.tuple(contentArb, fc.array(fc.nat(), { minLength: 1, maxLength: 20 })).map(([t, choices]) => {
      let k = 0;
      return Buffer.from(`"${looseBody(t, (n) => (choices[k++ % choices.length] as number) % n)}"`, 'utf8');
    }),
    fc.tuple(contentArb, fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 3 })).map(([t, at, bytes]) => {
      const lit = Buffer.from(JSON.stringify(t), 'utf8');
      const k = at % lit.length;
      return Buffer.concat([lit.subarray(0, k), Buffer.from(bytes), lit.subarray(k)]);
    }),
    fc.array(fc.constantFrom(0x22, 0x5c, 0x75, 0x30, 0x64, 0x38, 0x6e, 0x09, 0x0a, 0x01, 0x20, 0x41, 0xc3, 0xa9, 0xff, 0xf0, 0x9f), { maxLength: 40 }).map((b) => Buffer.from([0x22, ...b, 0x22])),
    fc.uint8Array({ maxLength: 12 }).map((b) => Buffer.from(b)),
  );

  it.each([
    ['the WebAssembly walker', undefined],
    ['the JavaScript walk', null],
  ] as const)('reads any bytes as JSON.parse reads them, at any alignment, through %s', (_name, walker) => {
    fc.assert(
      fc.property(literalArb, fc.integer({ min: 0, max: 7 }), (raw, shift) => {
        // At every byte offset in a larger buffer: the control-byte test reads four bytes at a time.
        const placed = Buffer.alloc(raw.length + shift + 3, 0x01).subarray(shift, shift + raw.length);
        raw.copy(placed);
        expect(stringValueBytes(placed, walker)).toEqual(reference(raw));
      }),
      { numRuns: 2000 },
    );
  });

  it('reads a long literal whole, past the walker\'s first pieces and a raw control byte anywhere', () => {
    const text = 'line\ttab "quoted" é 😀 \u001b[0m\n'.repeat(5000);
    const raw = Buffer.from(JSON.stringify(text), 'utf8');
    expect(stringValueBytes(raw)).toEqual(Buffer.from(text, 'utf8'));
    for (const at of [1, 2, 3, 4, 5, raw.length >> 1, raw.length - 5, raw.length - 2]) {
      const bad = Buffer.from(raw);
      bad[at] = 0x09;
      expect(stringValueBytes(bad)).toBeUndefined();
    }
  });
});

describe('Utf8Check', () => {
  it('says what isUtf8 says of the whole, however the bytes are cut', () => {
    const byteArb = fc.oneof(fc.integer({ min: 0, max: 255 }), fc.constantFrom(0x80, 0xbf, 0xc2, 0xe0, 0xed, 0xf0, 0xf4, 0xa0));
    const textArb = fc.string({ unit: fc.constantFrom('a', 'é', '€', '😀', '\u0000'), maxLength: 12 }).map((t) => Buffer.from(t, 'utf8'));
    fc.assert(
      fc.property(fc.oneof(textArb, fc.array(byteArb, { maxLength: 16 }).map((b) => Buffer.from(b)), fc.tuple(textArb, fc.array(byteArb, { maxLength: 2 }), textArb).map(([a, b, c]) => Buffer.concat([a, Buffer.from(b), c]))), fc.array(fc.nat(), { maxLength: 8 }), (bytes, cuts) => {
        const check = new Utf8Check();
        const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        let from = 0;
        for (const c of [...at, bytes.length]) {
          check.push(bytes.subarray(from, c));
          from = c;
        }
        expect(check.finish()).toBe(isUtf8(bytes));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('hashBody', () => {
  const dir = tempDir();
  afterAll(() => dir.cleanup());
  const path = dir.path('body.bin');

  it('hashes the bytes the plain decoder gives, in any windows (escapes, surrogates, invalid UTF-8, raw control bytes)', () => {
    // Pieces inserted at escape boundaries, and a 0xff byte or a raw control byte at the end.
    const extra = fc.constantFrom(' ', '  ', 'a b', '\\u001b[0m ', '\\ud83d\\ude00 ', '\\ud800 ', '\\/ ', '\\n ');
    fc.assert(
      fc.property(contentArb, fc.array(fc.tuple(fc.nat(), extra), { maxLength: 6 }), fc.constantFrom('', 'bad-utf8', 'control'), fc.integer({ min: 16, max: 48 }), (text, inserts, raw, windowBytes) => {
        let body = canonicalBody(text).toString('latin1');
        for (const [at, piece] of inserts) {
          // Inserted at an escape boundary (the raw offset of a character of the canonical body).
          const cut = Math.min(at % (body.length + 1), body.length);
          if (!isEscapeBoundary(cut, (i) => body.charCodeAt(i))) continue;
          body = body.slice(0, cut) + Buffer.from(piece, 'utf8').toString('latin1') + body.slice(cut);
        }
        const bytes = Buffer.concat([Buffer.from(body, 'latin1'), Buffer.from(raw === 'bad-utf8' ? [0xff, 0x20] : raw === 'control' ? [0x01, 0x20] : [])]);
        writeFileSync(path, bytes);
        const fd = openSync(path, 'r');
        try {
          const expected = decodeInWindows(bytes, 64);
          const hashed = hashBody(fd, readSync, 0, bytes.length, windowBytes);
          expect(hashed.length).toBe(expected.length);
          expect(hashed.sha256).toBe(createHash('sha256').update(expected).digest('hex'));
          expect(hashed.validUtf8).toBe(isUtf8(expected));
        } finally {
          closeSync(fd);
        }
      }),
      { numRuns: 400 },
    );
  });
});

describe('scanMessageRecord', () => {
  const dir = tempDir('raw-record-');
  afterAll(() => dir.cleanup());

  const msgArb = fc.record({
    role: fc.constantFrom('user', 'assistant', 'tool'),
    content: contentArb,
    tool_call_id: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
    tool_calls: fc.option(fc.array(fc.record({ id: fc.string({ maxLength: 4 }), name: fc.constant('sh'), arguments: contentArb }), { maxLength: 2 }), { nil: undefined }),
    metadata: fc.option(fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof(fc.integer(), contentArb, fc.array(fc.boolean()))), { nil: undefined }),
  });

  it('finds msg.content in any key order, from memory or through tiny windows, and leaves a parseable rest', () => {
    let n = 0;
    fc.assert(
      fc.property(msgArb, fc.boolean(), fc.boolean(), fc.integer({ min: 16, max: 64 }), (msg, contentFirst, inMemory, windowBytes) => {
        const clean = Object.fromEntries(Object.entries(msg).filter(([, v]) => v !== undefined));
        const { content, ...others } = clean as { content: string };
        const ordered = contentFirst ? { content, ...others } : { ...others, content };
        const record = { t: 'message', i: 3, msg: ordered, cap: { kept_bytes: 1, notice: '[n]' } };
        const line = JSON.stringify(record);
        const path = dir.path(`r${n++}.jsonl`);
        writeFileSync(path, `${line}\n`);
        const fd = openSync(path, 'r');
        try {
          const bytes = Buffer.from(line, 'utf8');
          const scan = scanMessageRecord({ fd, read: readSync, offset: 0, length: bytes.length, ...(inMemory ? { bytes } : {}), hash: true, maxRestBytes: 1 << 20, windowBytes });
          if (!scan.ok) throw new Error(scan.reason);
          expect(JSON.parse(scan.rest)).toEqual({ ...record, msg: { ...ordered, content: '' } });
          const expected = Buffer.from(content, 'utf8');
          expect(scan.content.length).toBe(expected.length);
          expect(bytes.subarray(scan.content.start, scan.content.start + scan.content.rawLength)).toEqual(canonicalBody(content));
          expect(scan.content.validUtf8).toBe(true);
          // Hashed in the walk: the SHA-256 of the content bytes.
          expect(scan.content.sha256).toBe(createHash('sha256').update(expected).digest('hex'));
        } finally {
          closeSync(fd);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('reads a hashed content once: it is hashed as it is walked', () => {
    const text = Array.from({ length: 30000 }, (_, i) => `line ${i}\t"é" \u001b[31m😀\n`).join('');
    const line = JSON.stringify({ t: 'message', i: 3, msg: { role: 'tool', tool_call_id: 'c', content: text } });
    const path = dir.path('once.jsonl');
    writeFileSync(path, `${line}\n`);
    const fd = openSync(path, 'r');
    let bytesRead = 0;
    const counting: ReadSync = (f, buffer, offset, length, position) => {
      const n = readSync(f, buffer, offset, length, position);
      bytesRead += n;
      return n;
    };
    try {
      const length = Buffer.byteLength(line);
      const scan = scanMessageRecord({ fd, read: counting, offset: 0, length, hash: true, maxRestBytes: 1 << 20, windowBytes: 64 * 1024 });
      if (!scan.ok) throw new Error(scan.reason);
      expect(scan.content.sha256).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
      // The body is read once (windows, the rest's head and tail), not a second time to hash it.
      expect(bytesRead).toBeLessThan(length * 1.1);
    } finally {
      closeSync(fd);
    }
  });

  it('answers not ok for records it cannot read this way', () => {
    const path = dir.path('bad.jsonl');
    for (const line of ['{"t":"message","i":0,"msg":{"role":"user","content":null}}', '{"t":"message","i":0,"msg":{"role":"user","content":"abc', '[1,2]', '{"t":"message","msg":{"role":"user","content":"a\\qb"}}']) {
      writeFileSync(path, line);
      const fd = openSync(path, 'r');
      try {
        const bytes = Buffer.from(line);
        expect(scanMessageRecord({ fd, read: readSync, offset: 0, length: bytes.length, bytes, hash: false, maxRestBytes: 1 << 20 }).ok, line).toBe(false);
      } finally {
        closeSync(fd);
      }
    }
  });
});

describe('hasControlByte', () => {
  it('finds a byte below 0x20 wherever it lies, at any alignment and length, as a byte-by-byte look does', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 80 }), fc.integer({ min: 0, max: 7 }), fc.integer({ min: 0x20, max: 0xff }), (raw, shift, fill) => {
        // Mostly bytes at or above 0x20, with the drawn ones kept where they fall below it: any position, any alignment.
        const bytes = raw.map((b) => (b < 0x18 ? b : Math.max(b, fill)));
        const buffer = new Uint8Array(bytes.length + shift);
        buffer.set(bytes, shift);
        const view = buffer.subarray(shift);
        expect(hasControlByte(view)).toBe(view.some((b) => b < 0x20));
      }),
      { numRuns: 2000 },
    );
  });
});
