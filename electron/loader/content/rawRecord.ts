/**
 * A message record read without decoding its content: the bytes of `msg.content` are located in the
 * file and walked (length, escapes, checkpoints), the rest of the record — the line with the
 * content's body cut out, a few hundred bytes — is parsed and validated as usual. Large tool outputs
 * are then read back by byte range straight from the file (fileContent.ts).
 */
import { createHash } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import type { ReadSync } from '../common/lines';
import { readExactly } from '../common/lines';
import { ScratchBuffers } from './scratch';
import { JsonStringError, JsonStringWalk, unescapeInto } from './jsonString';

/** Where a message's content lies in the file and what it decodes to. */
export interface RawContent {
  /** File offset of the body's first byte (just after the opening quote). */
  start: number;
  /** Raw length of the body, in file bytes. */
  rawLength: number;
  /** Decoded length: the content bytes. */
  length: number;
  /** Every escape is one JSON.stringify writes (the body can be searched as raw bytes). */
  canonical: boolean;
  /** Flat (raw offset, decoded offset) pairs, raw offsets relative to `start`. */
  checkpoints: number[];
  /** SHA-256 hex of the content bytes, when hashed while indexing. */
  sha256?: string;
  /** False when the content holds bytes that are not valid UTF-8 (known when hashed while indexing). */
  validUtf8?: boolean;
  /**
   * True once the body was read and found valid UTF-8 with no escape of a surrogate (policy replay,
   * SidecarReader.messageInFile): what it decodes to is, text for text, what JSON.parse gives.
   */
  plain?: boolean;
}

export type RawScan = { ok: true; rest: string; content: RawContent } | { ok: false; reason: string };

/** Reads file bytes window by window, or serves them from a line already in memory. */
export class Window {
  buf: Buffer = Buffer.alloc(0);
  base = 0;
  private readonly inMemory: boolean;

  constructor(
    private readonly fd: number,
    private readonly read: ReadSync,
    private readonly end: number,
    private readonly windowBytes: number,
    line?: { bytes: Buffer; offset: number },
  ) {
    this.inMemory = line !== undefined;
    if (line) {
      this.buf = line.bytes;
      this.base = line.offset;
    }
  }

  /** Makes the window hold `pos` (and up to windowBytes after it); false past the end. */
  cover(pos: number): boolean {
    if (pos >= this.end) return false;
    if (pos >= this.base && pos < this.base + this.buf.length) return true;
    if (this.inMemory) return false;
    this.load(pos);
    return true;
  }

  /** Reads the window that starts at `pos`. */
  load(pos: number): void {
    const length = Math.min(this.windowBytes, this.end - pos);
    // One buffer for every window: a 300 MB record is read through 1 MiB, not 300 of them.
    if (!this.storage || this.storage.length < length) this.storage = Buffer.allocUnsafe(this.windowBytes);
    let filled = 0;
    while (filled < length) {
      const n = this.read(this.fd, this.storage, filled, length - filled, pos + filled);
      if (n <= 0) throw new JsonStringError('the file shrank while it was being read');
      filled += n;
    }
    this.buf = this.storage.subarray(0, length);
    this.base = pos;
  }

  private storage: Buffer | undefined;

  byte(pos: number): number {
    if (!this.cover(pos)) return -1;
    return this.buf[pos - this.base] as number;
  }
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * Walks a string whose opening quote is at `quote`; returns the offset of its closing quote. The
 * walk keeps what it learnt about the body.
 */
export function walkString(win: Window, quote: number, end: number, walk: JsonStringWalk): number {
  let pos = quote + 1;
  const bodyStart = pos;
  for (;;) {
    if (!win.cover(pos)) throw new JsonStringError('a string is not terminated');
    const from = pos - win.base;
    const stop = Math.min(win.buf.length, end - win.base);
    const r = walk.feed(win.buf, from, stop, pos - bodyStart, win.base + stop >= end);
    if ('close' in r) return win.base + r.close;
    const next = win.base + r.resume;
    if (next < win.base + stop) {
      // The escape was cut by the window's end: read again from its backslash.
      if (next === win.base) throw new JsonStringError('an escape is longer than a read window');
      win.load(next);
    }
    pos = next;
  }
}

/** A short string's value (keys), decoded through JSON.parse. */
export function readShortString(win: Window, quote: number, end: number): { value: string; close: number } {
  const close = walkString(win, quote, end, new JsonStringWalk({ walker: null }));
  const raw = Buffer.alloc(close - quote + 1);
  for (let p = quote; p <= close; p++) raw[p - quote] = win.byte(p);
  return { value: JSON.parse(raw.toString('utf8')) as string, close };
}

/**
 * Finds the body of `msg.content` in the record at `[offset, offset + length)`: a structural scan
 * that skips every other string and value. Undefined when the record has no string `msg.content`
 * (the caller then reads it the usual way).
 */
function locateContent(win: Window, offset: number, length: number, sink?: (piece: Buffer) => void): { quote: number; walk: JsonStringWalk; close: number } | undefined {
  const end = offset + length;
  let pos = offset;
  const skipWs = () => {
    while (pos < end && WS.has(win.byte(pos))) pos++;
  };
  skipWs();
  // A UTF-8 byte order mark before the first record.
  if (win.byte(pos) === 0xef && win.byte(pos + 1) === 0xbb && win.byte(pos + 2) === 0xbf) pos += 3;
  skipWs();
  if (win.byte(pos) !== 0x7b /* { */) return undefined;
  pos++;
  /** Per open container: whether it is an object, and the key whose value is being read. */
  const stack: { object: boolean; key?: string }[] = [{ object: true }];
  /** 'first': just inside a container; 'next': after a comma; 'after': after a value. */
  let state: 'first' | 'next' | 'after' = 'first';
  for (;;) {
    skipWs();
    if (pos >= end) return undefined;
    const top = stack[stack.length - 1];
    if (!top) return undefined;
    const c = win.byte(pos);
    if (state === 'after') {
      if (c === 0x2c /* , */) {
        pos++;
        state = 'next';
      } else if ((c === 0x7d && top.object) || (c === 0x5d /* ] */ && !top.object)) {
        stack.pop();
        pos++;
        if (stack.length === 0) return undefined;
      } else {
        return undefined;
      }
      continue;
    }
    if (state === 'first' && ((c === 0x7d && top.object) || (c === 0x5d && !top.object))) {
      stack.pop();
      pos++;
      state = 'after';
      if (stack.length === 0) return undefined;
      continue;
    }
    let v = c;
    if (top.object) {
      if (c !== 0x22) return undefined;
      const key = readShortString(win, pos, end);
      top.key = key.value;
      pos = key.close + 1;
      skipWs();
      if (win.byte(pos) !== 0x3a /* : */) return undefined;
      pos++;
      skipWs();
      v = win.byte(pos);
      if (v === 0x22 && stack.length === 2 && stack[0]?.key === 'msg' && top.key === 'content') {
        const walk = new JsonStringWalk(sink ? { sink } : {});
        const close = walkString(win, pos, end, walk);
        return { quote: pos, walk, close };
      }
    }
    if (v === 0x7b || v === 0x5b) {
      stack.push({ object: v === 0x7b });
      pos++;
      state = 'first';
      continue;
    }
    if (v === 0x22) {
      pos = walkString(win, pos, end, new JsonStringWalk()) + 1;
    } else {
      // A number, true, false or null (validated later by the rest's parse).
      while (pos < end) {
        const d = win.byte(pos);
        if (d === 0x2c || d === 0x7d || d === 0x5d || WS.has(d)) break;
        pos++;
      }
    }
    state = 'after';
  }
}

export interface ScanOptions {
  fd: number;
  read: ReadSync;
  offset: number;
  length: number;
  /** The line's bytes when the splitter kept them. */
  bytes?: Buffer;
  /** Decode and hash the content while indexing (large contents). */
  hash: boolean;
  /** A rest longer than this is not read this way. */
  maxRestBytes: number;
  windowBytes?: number;
  /** The buffers a content hashed with the general decoder is read into (default: its own). */
  scratch?: ScratchBuffers;
}

/** The length of the longest prefix of `buf[0, n)` that does not end inside a UTF-8 character. */
export function wholeCharacters(buf: Uint8Array, n: number): number {
  let lead = n - 1;
  while (lead > 0 && n - lead < 4 && ((buf[lead] as number) & 0xc0) === 0x80) lead--;
  const b = buf[lead] as number;
  const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
  return lead + need > n && lead > 0 ? lead : n;
}

/**
 * Whether bytes fed piece by piece, cut anywhere, are valid UTF-8 together: each piece is checked
 * up to its last whole character, the cut character is completed from the next piece — the answer
 * of `isUtf8` over the whole.
 */
export class Utf8Check {
  private valid = true;
  /** The start of a character the last piece cut (at most 3 bytes). */
  private carry: number[] = [];

  push(piece: Uint8Array): void {
    if (!this.valid || piece.length === 0) return;
    let start = 0;
    if (this.carry.length > 0) {
      const lead = this.carry[0] as number;
      const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
      while (this.carry.length < need && start < piece.length && ((piece[start] as number) & 0xc0) === 0x80) this.carry.push(piece[start++] as number);
      if (this.carry.length < need) {
        // A character cut again (the piece ended), or broken by a byte that does not continue it.
        if (start < piece.length) this.valid = false;
        return;
      }
      if (!isUtf8(Uint8Array.from(this.carry))) this.valid = false;
      this.carry = [];
    }
    const cut = wholeCharacterEnd(piece, start);
    if (!isUtf8(piece.subarray(start, cut))) this.valid = false;
    for (let k = cut; k < piece.length; k++) this.carry.push(piece[k] as number);
  }

  /** The answer, once every piece was pushed: a character still cut is not valid. */
  finish(): boolean {
    return this.valid && this.carry.length === 0;
  }
}

/**
 * The end of the last whole character of `piece[start, end)`: before the last lead byte when its
 * character does not fit, else the end (stray continuation bytes are left to isUtf8 to refuse).
 */
function wholeCharacterEnd(piece: Uint8Array, start: number): number {
  const end = piece.length;
  let i = end - 1;
  while (i >= start && end - i <= 3 && ((piece[i] as number) & 0xc0) === 0x80) i--;
  if (i < start) return end;
  const b = piece[i] as number;
  const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
  return i + need > end ? i : end;
}

/** Decodes the whole body window by window into the hash, through `scratch`'s buffers; checks UTF-8 per window. */
export function hashBody(fd: number, read: ReadSync, start: number, rawLength: number, windowBytes: number, scratch = new ScratchBuffers()): { sha256: string; validUtf8: boolean; length: number } {
  const h = createHash('sha256');
  const raw = scratch.get('hash-raw', windowBytes);
  const out = scratch.get('hash-out', windowBytes);
  let pos = 0;
  let length = 0;
  let valid = true;
  while (pos < rawLength) {
    let want = Math.min(windowBytes, rawLength - pos);
    // The scratch buffers may be longer than the window: decode no more than asked.
    const n = read(fd, raw, 0, want, start + pos);
    if (n <= 0) throw new JsonStringError('the file shrank while it was being read');
    want = n;
    const final = pos + want >= rawLength;
    // Cut at a character boundary so each decoded piece is whole UTF-8.
    const cut = final ? want : wholeCharacters(raw, want);
    const r = unescapeInto(raw, 0, cut, out, 0, final);
    if (r.consumed === 0) throw new JsonStringError('an escape is longer than a read window');
    const piece = out.subarray(0, r.written);
    if (valid && !isUtf8(piece)) valid = false;
    h.update(piece);
    length += r.written;
    pos += r.consumed;
  }
  return { sha256: h.digest('hex'), validUtf8: valid, length };
}

/**
 * Scans one message record. Returns the rest (the record's JSON text with `msg.content` empty) and
 * the content's place, or why it could not (the caller falls back to parsing the line whole).
 */
export function scanMessageRecord(options: ScanOptions): RawScan {
  const windowBytes = options.windowBytes ?? 1024 * 1024;
  const end = options.offset + options.length;
  const win = new Window(options.fd, options.read, end, windowBytes, options.bytes ? { bytes: options.bytes, offset: options.offset } : undefined);
  // A content to hash is hashed as it is walked (one read, one pass), when the walker decodes.
  const hash = options.hash ? createHash('sha256') : undefined;
  const utf8 = options.hash ? new Utf8Check() : undefined;
  const sink = hash && utf8 ? (piece: Buffer) => {
    hash.update(piece);
    utf8.push(piece);
  } : undefined;
  let found;
  try {
    found = locateContent(win, options.offset, options.length, sink);
  } catch (e) {
    if (e instanceof JsonStringError || e instanceof SyntaxError) return { ok: false, reason: e.message };
    throw e;
  }
  if (!found) return { ok: false, reason: 'no string msg.content found' };
  const bodyStart = found.quote + 1;
  const restLength = options.length - (found.close - bodyStart);
  if (restLength > options.maxRestBytes) return { ok: false, reason: `the record without its content is ${restLength} bytes` };
  let rest: Buffer;
  if (options.bytes) {
    rest = Buffer.concat([options.bytes.subarray(0, bodyStart - options.offset), options.bytes.subarray(found.close - options.offset)]);
  } else {
    const head = readExactly(options.fd, options.offset, bodyStart - options.offset, options.read);
    const tail = readExactly(options.fd, found.close, end - found.close, options.read);
    if (!head || !tail) return { ok: false, reason: 'the file shrank while it was being read' };
    rest = Buffer.concat([head, tail]);
  }
  const content: RawContent = {
    start: bodyStart,
    rawLength: found.close - bodyStart,
    length: found.walk.decoded,
    canonical: found.walk.canonical,
    checkpoints: found.walk.checkpoints,
  };
  if (hash && utf8 && found.walk.decoding) {
    content.sha256 = hash.digest('hex');
    content.validUtf8 = utf8.finish();
  } else if (options.hash) {
    try {
      const hashed = hashBody(options.fd, options.read, content.start, content.rawLength, windowBytes, options.scratch);
      content.sha256 = hashed.sha256;
      content.validUtf8 = hashed.validUtf8;
    } catch (e) {
      if (e instanceof JsonStringError) return { ok: false, reason: e.message };
      throw e;
    }
  }
  return { ok: true, rest: rest.toString('utf8'), content };
}
