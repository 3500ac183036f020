/**
 * JSON string bodies read as bytes, never as one JS string: a walk that finds where a string ends,
 * how many content bytes it decodes to and whether its escapes are the ones JSON.stringify writes,
 * and a decoder that turns any piece of a body into its UTF-8 content bytes. Both work window by
 * window, so a 200 MB tool output is indexed, hashed, sliced and searched without a 200 MB string.
 *
 * Decoding matches `utf8Encode(JSON.parse('"' + body + '"'))` byte for byte: a lone surrogate escape
 * decodes to U+FFFD (EF BF BD), as the UTF-8 encoding of a lone surrogate does.
 */

import { isUtf8 } from 'node:buffer';
import type { WasmWalker } from './jsonStringWasm';
import { STOP_CUT, STOP_QUOTE, STOP_SOFT, wasmWalker } from './jsonStringWasm';

const BACKSLASH = 0x5c;
const QUOTE = 0x22;

/** A malformed escape (or an unterminated string): the record is not valid JSON. */
export class JsonStringError extends Error {}

/**
 * Raw bytes between two checkpoints: a body longer than this keeps (raw, decoded) offset pairs.
 * A search's first match in a body walks escapes from the checkpoint before it to the match (its
 * decoded offset and snippet; later searches start from the anchors it leaves): 16 KiB on average
 * at this spacing, where 256 KiB cost the bench's first search 11–14 ms of walking for 229 matches
 * (profiled). Two numbers per 32 KiB of body: some 26,000 pairs for the 837 MB of hidden bodies
 * in the 1 GiB bench sidecar.
 */
export const CHECKPOINT_RAW_BYTES = 32 * 1024;

const SHORT_ESCAPES: Record<number, number> = {
  0x22: 0x22, // \"
  0x5c: 0x5c, // \\
  0x2f: 0x2f, // \/
  0x62: 0x08, // \b
  0x66: 0x0c, // \f
  0x6e: 0x0a, // \n
  0x72: 0x0d, // \r
  0x74: 0x09, // \t
};

/**
 * SHORT_ESCAPES as a table over the byte after the backslash: the decoded byte, or -1. The walk and
 * the decoder handle these inline (tool output holds one escape every ~20 bytes: `\n`, `\"`), and
 * only `\u` escapes go through readEscape.
 */
const SHORT_TABLE = new Int16Array(256).fill(-1);
for (const [c, v] of Object.entries(SHORT_ESCAPES)) SHORT_TABLE[Number(c)] = v;

function hexValue(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x61 && b <= 0x66) return b - 0x57;
  if (b >= 0x41 && b <= 0x46) return b - 0x37;
  return -1;
}

function hex4(buf: Uint8Array, at: number): number {
  let v = 0;
  for (let k = 0; k < 4; k++) {
    const h = hexValue(buf[at + k] as number);
    if (h < 0) return -1;
    v = (v << 4) | h;
  }
  return v;
}

function isLowerHex4(buf: Uint8Array, at: number): boolean {
  for (let k = 0; k < 4; k++) {
    const b = buf[at + k] as number;
    if (b >= 0x41 && b <= 0x46) return false;
  }
  return true;
}

/** One escape at `at` (buf[at] is a backslash): its raw length, decoded code point (or -1 for U+FFFD) and canonical form. */
interface Escape {
  raw: number;
  /** The code point it stands for; a lone surrogate stands for U+FFFD. */
  cp: number;
  /** Written exactly as JSON.stringify writes it. */
  canonical: boolean;
}

/**
 * Reads the escape at `at`; undefined when the buffer ends inside it (or, without `final`, when a
 * high surrogate escape may still be followed by its low half beyond `end`). Throws on a bad escape.
 */
function readEscape(buf: Uint8Array, at: number, end: number, final: boolean): Escape | undefined {
  if (at + 1 >= end) {
    if (final) throw new JsonStringError('a string ends inside an escape');
    return undefined;
  }
  const c = buf[at + 1] as number;
  if (c !== 0x75 /* u */) {
    const cp = SHORT_ESCAPES[c];
    if (cp === undefined) throw new JsonStringError(`invalid escape \\${String.fromCharCode(c)}`);
    return { raw: 2, cp, canonical: c !== 0x2f };
  }
  if (at + 6 > end) {
    if (final) throw new JsonStringError('a string ends inside a \\u escape');
    return undefined;
  }
  const cu = hex4(buf, at + 2);
  if (cu < 0) throw new JsonStringError('invalid \\u escape');
  if (cu >= 0xd800 && cu <= 0xdbff) {
    if (at + 12 > end && !final) return undefined;
    if (at + 12 <= end && buf[at + 6] === BACKSLASH && buf[at + 7] === 0x75) {
      const lo = hex4(buf, at + 8);
      if (lo >= 0xdc00 && lo <= 0xdfff) return { raw: 12, cp: 0x10000 + ((cu - 0xd800) << 10) + (lo - 0xdc00), canonical: false };
    }
    return { raw: 6, cp: -1, canonical: isLowerHex4(buf, at + 2) };
  }
  if (cu >= 0xdc00 && cu <= 0xdfff) return { raw: 6, cp: -1, canonical: isLowerHex4(buf, at + 2) };
  // JSON.stringify writes \b \t \n \f \r short, other control characters as \u00xx, nothing else.
  const shortForm = cu === 0x08 || cu === 0x09 || cu === 0x0a || cu === 0x0c || cu === 0x0d;
  return { raw: 6, cp: cu, canonical: cu < 0x20 && !shortForm && isLowerHex4(buf, at + 2) };
}

function utf8Bytes(cp: number): number {
  if (cp < 0) return 3;
  if (cp < 0x80) return 1;
  if (cp < 0x800) return 2;
  if (cp < 0x10000) return 3;
  return 4;
}

function writeCodePoint(out: Uint8Array, w: number, cp: number): number {
  if (cp < 0) {
    out[w] = 0xef;
    out[w + 1] = 0xbf;
    out[w + 2] = 0xbd;
    return 3;
  }
  if (cp < 0x80) {
    out[w] = cp;
    return 1;
  }
  if (cp < 0x800) {
    out[w] = 0xc0 | (cp >> 6);
    out[w + 1] = 0x80 | (cp & 0x3f);
    return 2;
  }
  if (cp < 0x10000) {
    out[w] = 0xe0 | (cp >> 12);
    out[w + 1] = 0x80 | ((cp >> 6) & 0x3f);
    out[w + 2] = 0x80 | (cp & 0x3f);
    return 3;
  }
  out[w] = 0xf0 | (cp >> 18);
  out[w + 1] = 0x80 | ((cp >> 12) & 0x3f);
  out[w + 2] = 0x80 | ((cp >> 6) & 0x3f);
  out[w + 3] = 0x80 | (cp & 0x3f);
  return 4;
}

/** What a walk is told when it is made. */
export interface WalkOptions {
  /**
   * Hears the decoded bytes, in order, piece by piece (each a view valid only during the call):
   * the walk decodes what it walks, so a content is hashed in the pass that indexes it. Only the
   * WebAssembly walker decodes: without it `decoding` turns false and the caller decodes itself.
   */
  sink?: (piece: Buffer) => void;
  /** The WebAssembly walker to use: the thread's by default; null walks in JavaScript (short keys, tests). */
  walker?: WasmWalker | null;
  /** Raw bytes between checkpoints (tests shrink it). */
  checkpointBytes?: number;
}

/** The first piece a walk hands the WebAssembly walker; each next one is four times larger, up to its window. */
const FIRST_PIECE_BYTES = 256;

/**
 * Walks a string body fed window by window, from just after its opening quote: finds the closing
 * quote, counts the decoded bytes, tells whether every escape is canonical, and keeps a
 * (raw, decoded) checkpoint every CHECKPOINT_RAW_BYTES so a later read can start near any offset.
 * Raw offsets are relative to the body's first byte.
 *
 * Two walkers with one answer: a WebAssembly loop (jsonStringWasm.ts; eight bytes at a time, the
 * rare escapes it leaves are read here) and the JavaScript one below (`Buffer.indexOf` from escape
 * to escape), used for short keys and where WebAssembly is missing. Either way a checkpoint lands
 * at the first token boundary at or after its raw offset.
 */
export class JsonStringWalk {
  decoded = 0;
  canonical = true;
  /** A surrogate's escape was met (`\uD800`–`\uDFFF`, a pair's or a lone one). */
  surrogates = false;
  /** Flat pairs: raw offset, decoded offset; both at a position outside any escape. */
  readonly checkpoints: number[] = [];
  /** With a sink: true while every byte decoded so far went to it. */
  decoding: boolean;
  private readonly checkpointBytes: number;
  private nextCheckpoint: number;
  private readonly walker: WasmWalker | undefined;
  private readonly sink: ((piece: Buffer) => void) | undefined;
  private piece = FIRST_PIECE_BYTES;

  constructor(options: WalkOptions = {}) {
    this.checkpointBytes = options.checkpointBytes ?? CHECKPOINT_RAW_BYTES;
    this.nextCheckpoint = this.checkpointBytes;
    this.walker = options.walker === null ? undefined : (options.walker ?? threadWalker());
    this.sink = options.sink;
    this.decoding = options.sink !== undefined && this.walker !== undefined;
  }

  /**
   * Feeds `buf[from, end)`, which lies at raw offset `base + (i - from)`. Returns the index in `buf`
   * of the closing quote when it is there; otherwise the index where the next window must start
   * (`end`, or the backslash of an escape cut by the window's end). `final` says the body cannot
   * continue past `end`.
   */
  feed(buf: Buffer, from: number, end: number, base: number, final = false): { close: number } | { resume: number } {
    if (this.walker) return this.feedWasm(this.walker, buf, from, end, base, final);
    return this.feedJs(buf, from, end, base, final);
  }

  private feedWasm(walker: WasmWalker, buf: Buffer, from: number, end: number, base: number, final: boolean): { close: number } | { resume: number } {
    const write = this.sink !== undefined;
    const { raw, out } = walker;
    /** Buffer index of the piece in the walker's window; raw offset of buffer index i: base + (i - from). */
    let pos = from;
    let written = 0;
    const flush = () => {
      if (written > 0 && this.sink) this.sink(out.subarray(0, written));
      written = 0;
    };
    for (;;) {
      const n = Math.min(end - pos, this.piece, walker.window);
      if (n <= 0) {
        // At the end, outside any escape: a checkpoint due here lands here.
        this.checkpointAt(base + (end - from));
        return { resume: end };
      }
      if (this.piece < walker.window) this.piece *= 4;
      raw.set(buf.subarray(pos, pos + n), 0);
      const rawAt = base + (pos - from);
      let s = 0;
      for (;;) {
        const soft = Math.max(s, Math.min(n, this.nextCheckpoint - rawAt));
        const why = walker.run(write, s, soft, n, write ? written : 0);
        const stop = walker.src();
        if (write) {
          this.decoded += walker.dst() - written;
          written = walker.dst();
        } else {
          this.decoded += walker.dst();
        }
        if (walker.takeNoncanonical()) this.canonical = false;
        if (why === STOP_SOFT) {
          this.checkpointAt(rawAt + stop);
          if (stop < n) {
            s = stop;
            continue;
          }
          pos += stop;
          break;
        }
        if (why === STOP_QUOTE) {
          flush();
          return { close: pos + stop };
        }
        const at = pos + stop;
        if (why === STOP_CUT && pos + n < end) {
          // Cut by the piece, not by the window: the next piece starts at its backslash.
          pos = at;
          break;
        }
        const esc = readEscape(buf, at, end, final);
        if (!esc) {
          flush();
          return { resume: at };
        }
        if (!esc.canonical) this.canonical = false;
        if (esc.raw === 12 || esc.cp === -1) this.surrogates = true;
        this.decoded += utf8Bytes(esc.cp);
        if (write) written += writeCodePoint(out, written, esc.cp);
        if (stop + esc.raw < n) {
          s = stop + esc.raw;
          continue;
        }
        pos = at + esc.raw;
        break;
      }
      flush();
    }
  }

  /** Records the checkpoint due at raw offset `raw` (a token boundary), if one is. */
  private checkpointAt(raw: number): void {
    if (this.nextCheckpoint > raw) return;
    this.checkpoints.push(raw, this.decoded);
    this.nextCheckpoint = raw + this.checkpointBytes;
  }

  private feedJs(buf: Buffer, from: number, end: number, base: number, final: boolean): { close: number } | { resume: number } {
    // A sink hears nothing from this walker: the caller decodes.
    this.decoding = false;
    let pos = from;
    let cu = 0;
    // Searches stop at `end`: a scratch buffer holds stale bytes past it, and a search running on
    // through them cost up to the whole buffer per call (a snippet's 300 bytes scanned 1 MiB).
    buf = within(buf, end);
    let quote = buf.indexOf(QUOTE, pos);
    if (quote >= end) quote = -1;
    for (;;) {
      let bs = buf.indexOf(BACKSLASH, pos);
      if (bs >= end) bs = -1;
      const runEnd = quote !== -1 && (bs === -1 || quote < bs) ? quote : bs === -1 ? end : bs;
      if (this.nextCheckpoint <= base + (runEnd - from)) this.run(pos, runEnd, from, base);
      else this.decoded += runEnd - pos;
      if (runEnd === quote) return { close: quote };
      if (bs === -1) return { resume: end };
      const c = bs + 1 < end ? (buf[bs + 1] as number) : -1;
      if (c !== -1 && SHORT_TABLE[c] !== -1) {
        // A two-byte escape, one decoded byte; only `\/` is not written by JSON.stringify.
        if (c === 0x2f) this.canonical = false;
        this.decoded += 1;
        pos = bs + 2;
      } else if (c === 0x75 && bs + 6 <= end && (cu = hex4(buf, bs + 2)) >= 0 && (cu < 0xd800 || cu > 0xdfff)) {
        // A `\uXXXX` outside the surrogates (terminal colours: `\u001b`): as readEscape reads it.
        if (!(cu < 0x20 && cu !== 0x08 && cu !== 0x09 && cu !== 0x0a && cu !== 0x0c && cu !== 0x0d && isLowerHex4(buf, bs + 2))) this.canonical = false;
        this.decoded += utf8Bytes(cu);
        pos = bs + 6;
      } else {
        const esc = readEscape(buf, bs, end, final);
        if (!esc) return { resume: bs };
        if (!esc.canonical) this.canonical = false;
        if (esc.raw === 12 || esc.cp === -1) this.surrogates = true;
        this.decoded += utf8Bytes(esc.cp);
        pos = bs + esc.raw;
      }
      if (quote !== -1 && quote < pos) {
        quote = buf.indexOf(QUOTE, pos);
        if (quote >= end) quote = -1;
      }
    }
  }

  /** A run of literal bytes `[start, end)` (buffer indices). */
  private run(start: number, end: number, from: number, base: number): void {
    const rawStart = base + (start - from);
    const rawEnd = base + (end - from);
    while (this.nextCheckpoint <= rawEnd) {
      // A checkpoint passed inside an escape lands at the start of the next run.
      const at = Math.max(this.nextCheckpoint, rawStart);
      this.checkpoints.push(at, this.decoded + (at - rawStart));
      this.nextCheckpoint = at + this.checkpointBytes;
    }
    this.decoded += end - start;
  }
}

/** `buf` cut at `end`, so that `indexOf` stops there rather than at the buffer's end. */
function within(buf: Buffer, end: number): Buffer {
  return end >= buf.length ? buf : buf.subarray(0, end);
}

/** This thread's WebAssembly walker, made on first use (null: WebAssembly is missing). */
let walkerOfThread: WasmWalker | null | undefined;

function threadWalker(): WasmWalker | undefined {
  if (walkerOfThread === undefined) walkerOfThread = wasmWalker(WALKER_WINDOW_BYTES) ?? null;
  return walkerOfThread ?? undefined;
}

/** Raw bytes the thread's walker takes at a time: its memory (raw and decoded windows) stays about half a MiB per thread. */
const WALKER_WINDOW_BYTES = 256 * 1024;

/**
 * Decodes `buf[from, end)` (a piece of a body starting outside any escape) into `out` at `outPos`.
 * Returns how many raw bytes were consumed (less than the piece when it ends inside an escape,
 * unless `final`) and how many bytes were written; `out` needs room for `end - from` bytes.
 */
export function unescapeInto(buf: Buffer, from: number, end: number, out: Buffer, outPos: number, final: boolean): { consumed: number; written: number } {
  buf = within(buf, end);
  let pos = from;
  let w = outPos;
  for (;;) {
    let bs = buf.indexOf(BACKSLASH, pos);
    if (bs >= end) bs = -1;
    const runEnd = bs === -1 ? end : bs;
    // Log lines are short: between two escapes a loop copies faster than a call into Buffer.copy.
    if (runEnd - pos < 64) for (let i = pos; i < runEnd; i++) out[w++] = buf[i] as number;
    else w += buf.copy(out, w, pos, runEnd);
    if (bs === -1) return { consumed: end - from, written: w - outPos };
    const short = bs + 1 < end ? (SHORT_TABLE[buf[bs + 1] as number] as number) : -1;
    if (short !== -1) {
      out[w++] = short;
      pos = bs + 2;
      continue;
    }
    const cu = buf[bs + 1] === 0x75 && bs + 6 <= end ? hex4(buf, bs + 2) : -1;
    if (cu >= 0 && (cu < 0xd800 || cu > 0xdfff)) {
      w += writeCodePoint(out, w, cu);
      pos = bs + 6;
      continue;
    }
    const esc = readEscape(buf, bs, end, final);
    if (!esc) return { consumed: bs - from, written: w - outPos };
    w += writeCodePoint(out, w, esc.cp);
    pos = bs + esc.raw;
  }
}

/**
 * The body JSON.stringify would write for content bytes `text` (UTF-8), or undefined when `text` is
 * not valid UTF-8: in a body whose escapes are all canonical, the content holds `text` at a
 * position exactly where the body holds this at an escape boundary.
 */
export function canonicalBody(text: string): Buffer {
  return Buffer.from(JSON.stringify(text).slice(1, -1), 'utf8');
}

/**
 * True when raw offset `pos` of a body is outside every escape (a token boundary). `byteAt(i)`
 * reads the body's byte at raw offset i (i ≥ 0).
 */
export function isEscapeBoundary(pos: number, byteAt: (i: number) => number): boolean {
  const backslashesBefore = (p: number): number => {
    let n = 0;
    while (p - 1 - n >= 0 && byteAt(p - 1 - n) === BACKSLASH) n++;
    return n;
  };
  if (backslashesBefore(pos) % 2 === 1) return false;
  // Inside the four hex digits of a \u escape?
  for (let k = 1; k <= 4; k++) {
    const u = pos - k;
    if (u < 1) break;
    if (byteAt(u) === 0x75 && byteAt(u - 1) === BACKSLASH && backslashesBefore(u) % 2 === 1) {
      // byteAt(u-1) is the backslash of an escape when the run of backslashes ending there is odd.
      return false;
    }
  }
  return true;
}

/**
 * Walks `buf[from, end)` (a piece of a body starting outside any escape, at decoded offset
 * `decoded`) until decoded offset `target`: returns its index in `buf`, or where to resume and the
 * decoded offset there when the piece ends first. A target inside an escape's bytes (not a
 * character boundary) resolves to the escape's start.
 */
export function locateDecoded(buf: Buffer, from: number, end: number, decoded: number, target: number, final: boolean): { at: number } | { resume: number; decoded: number } {
  buf = within(buf, end);
  let pos = from;
  let d = decoded;
  for (;;) {
    let bs = buf.indexOf(BACKSLASH, pos);
    if (bs >= end) bs = -1;
    const runEnd = bs === -1 ? end : bs;
    if (target - d <= runEnd - pos) return { at: pos + (target - d) };
    d += runEnd - pos;
    if (bs === -1) return { resume: end, decoded: d };
    const esc = readEscape(buf, bs, end, final);
    if (!esc) return { resume: bs, decoded: d };
    const n = utf8Bytes(esc.cp);
    if (target < d + n) return { at: bs };
    d += n;
    pos = bs + esc.raw;
  }
}

/** The decoded length of `buf[from, end)`, a piece that starts and ends outside any escape. */
export function decodedLength(buf: Buffer, from: number, end: number): number {
  const walk = new JsonStringWalk();
  const r = walk.feed(buf, from, end, 0, true);
  if ('close' in r) throw new JsonStringError('an unescaped quote inside a string');
  return walk.decoded;
}

/**
 * True when `bytes` hold a byte below 0x20 (a raw control character, which a JSON string may not
 * hold): four bytes at a time where they are aligned.
 */
export function hasControlByte(bytes: Uint8Array): boolean {
  const n = bytes.length;
  let i = 0;
  const head = Math.min(n, (4 - ((bytes.byteOffset + i) & 3)) & 3);
  for (; i < head; i++) if ((bytes[i] as number) < 0x20) return true;
  const words = (n - i) >>> 2;
  if (words > 0) {
    if (hasControlWord(new Uint32Array(bytes.buffer, bytes.byteOffset + i, words))) return true;
    i += words * 4;
  }
  for (; i < n; i++) if ((bytes[i] as number) < 0x20) return true;
  return false;
}

/**
 * True when some byte of the words is below 0x20. The long loop in a function of its own: compiled
 * by V8 while it ran (on-stack replacement) inside hasControlByte, the code held the loop over the
 * last bytes too, was entered again at each later call and thrown away there whenever its first
 * inputs had not reached that loop: 1,362 times in one open and first search (docs/search.md "Loops
 * compiled while they run").
 */
function hasControlWord(w: Uint32Array): boolean {
  for (let k = 0; k < w.length; k++) {
    const x = w[k] as number;
    // Some byte of x is below 0x20 exactly when this is not 0 (the "has less than" bit trick).
    if (((x - 0x20202020) & ~x & 0x80808080) !== 0) return true;
  }
  return false;
}

/** `JSON.parse` of the text `raw` decodes to, as UTF-8 when it is a string; undefined otherwise. */
function parsedStringBytes(raw: Buffer): Buffer | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
  return typeof value === 'string' ? Buffer.from(value, 'utf8') : undefined;
}

/**
 * The UTF-8 of the JSON string literal `raw` (its quotes included) — what `JSON.parse` reads it as,
 * encoded — or undefined when `raw` is not one string. A literal of valid UTF-8 without raw control
 * bytes is decoded as bytes by the string walk (the WebAssembly walker where there is one), without
 * the UTF-16 string `JSON.parse` makes and the encoding back: about five times faster on tool
 * outputs (docs/streaming-import.md). Anything else goes through `JSON.parse`. `walker` as in
 * `WalkOptions` (tests walk in JavaScript with null).
 */
export function stringValueBytes(raw: Buffer, walker?: WasmWalker | null): Buffer | undefined {
  if (!walkable(raw)) return parsedStringBytes(raw);
  const out = Buffer.allocUnsafe(raw.length - 2);
  const n = walkStringInto(raw, out, walker);
  return n === undefined ? undefined : out.subarray(0, n);
}

/**
 * `stringValueBytes` written into `out` (room for `raw.length - 2` bytes or more) instead of a new
 * array: how many bytes, or undefined when `raw` is not one string or (decoded by `JSON.parse`)
 * its bytes do not fit.
 */
export function stringValueInto(raw: Buffer, out: Buffer, walker?: WasmWalker | null): number | undefined {
  if (walkable(raw)) return walkStringInto(raw, out, walker);
  const parsed = parsedStringBytes(raw);
  return parsed === undefined || parsed.length > out.length ? undefined : parsed.copy(out, 0);
}

/** A literal the string walk decodes: quoted, valid UTF-8, no raw control byte (else `JSON.parse` reads it). */
function walkable(raw: Buffer): boolean {
  const last = raw.length - 1;
  return last >= 1 && raw[0] === QUOTE && raw[last] === QUOTE && isUtf8(raw) && !hasControlByte(raw);
}

/** The walk of a `walkable` literal into `out` (room for its body): the bytes written, or undefined when it is not one string. */
function walkStringInto(raw: Buffer, out: Buffer, walker: WasmWalker | null | undefined): number | undefined {
  const last = raw.length - 1;
  let written = 0;
  const walk = new JsonStringWalk({ sink: (piece) => void (written += piece.copy(out, written)), ...(walker !== undefined ? { walker } : {}) });
  let closed: { close: number } | { resume: number };
  try {
    closed = walk.feed(raw, 1, raw.length, 0, true);
  } catch (e) {
    if (e instanceof JsonStringError) return undefined;
    throw e;
  }
  if (!('close' in closed) || closed.close !== last) return undefined;
  if (walk.decoding) return written;
  return unescapeInto(raw, 1, last, out, 0, true).written;
}
