/**
 * A record's string value left in its file once the record is parsed (docs/streaming-import.md): an
 * importer that parsed a line keeps, in place of a long message text, where the value's JSON text
 * lies in the file, and reads it back (through a cache budgeted in bytes) when a view, an expand, a
 * search or a hash asks for it. The value's JSON text is found in the line as JSON.stringify writes
 * it, so the bytes read back are those exact bytes and decode to the same string whatever surrounds
 * them; a value written otherwise (other escapes) is not found and stays in memory.
 */
import type { ByteSource } from '../../../shared/index';
import { ContentUnavailableError } from '../../../shared/index';
import { isWellFormed } from '../../../shared/format/utf8';
import { findAllOf } from './findBytes';
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { ReadSync } from '../common/lines';
import { MessageCache } from '../native/messageCache';
import type { CachePolicy } from '../native/messageCache';
import type { LargeText } from './largeStrings';
import { headChars, sourceText } from './largeStrings';
import { JsonStringError, JsonStringWalk, stringValueBytes, stringValueInto } from './jsonString';

/** What the kept strings of one file share: the file, whether it is still open, and the cache of values read back. */
export interface KeptStrings {
  fd: number;
  read: ReadSync;
  isOpen: () => boolean;
  /** Decoded values (UTF-8) by their offset in the file. */
  cache: MessageCache<Buffer>;
}

/** The kept strings of the file open as `fd`: read back through a cache of at most `cacheBytes` decoded bytes. */
export function keptStrings(fd: number, read: ReadSync, isOpen: () => boolean, cacheBytes: number, cachePolicy?: CachePolicy): KeptStrings {
  return { fd, read, isOpen, cache: new MessageCache<Buffer>(cacheBytes, cachePolicy) };
}

/** A message text this long or longer (UTF-16 units) is left in the file once its line is parsed, read back when asked for (the Codex source). */
export const KEPT_STRING_CHARS = 4096;
/**
 * As KEPT_STRING_CHARS, for a Claude Code transcript: since texts are read back through kept
 * windows, `check` of the bench's 537 MB session peaks some 30 MB lower with texts kept from 512
 * characters than from 4,096, for about 4 % more time (docs/streaming-import.md).
 */
export const CLAUDE_KEPT_STRING_CHARS = 512;
/** The default budget of the texts read back, when the context gives none. */
export const KEPT_CACHE_BYTES = 32 * 1024 * 1024;

/**
 * One value: its JSON text `[start, start + rawLength)` in the file (quotes included), `length`
 * bytes of UTF-8 decoded. A value written without escapes (`rawLength === length + 2`, "plain") is
 * its own bytes between the quotes: any range of it is read from the file as is. Another keeps its
 * first characters (`head`) and is read back and decoded whole for the rest.
 */
class KeptString implements ByteSource {
  private hash: string | undefined;

  constructor(
    private readonly kept: KeptStrings,
    private readonly start: number,
    private readonly rawLength: number,
    readonly length: number,
    private readonly head: Buffer | undefined,
  ) {}

  get sha256(): string {
    this.hash ??= createHash('sha256').update(this.passingWhole()).digest('hex');
    return this.hash;
  }

  private get plain(): boolean {
    return this.rawLength === this.length + 2;
  }

  read(start: number, end: number): Uint8Array {
    const from = Math.max(0, Math.min(start, this.length));
    const to = Math.max(from, Math.min(end, this.length));
    if (this.head && to <= this.head.length) return this.head.subarray(from, to);
    if (this.plain && to - from < this.length) {
      const cached = this.kept.cache.get(this.start);
      return cached ? cached.subarray(from, to) : this.readFile(this.start + 1 + from, to - from);
    }
    return this.wholeValue().subarray(from, to);
  }

  /** ByteSource.findAll through windows read as `read` reads them, through the cache (findBytes.ts). */
  findAll(needle: Uint8Array, start: number, end: number, onMatch: (offset: () => number) => boolean): void {
    if (this.rawHoldsNoneOf(needle)) return;
    findAllOf((from, to, target, at) => target.set(this.read(from, to), at), this.length)(needle, start, end, onMatch);
  }

  /**
   * True when the value is not in the cache, has escapes, and its JSON text does not hold `needle`,
   * a needle of ASCII from the space on but the quote and the backslash: the JSON text is
   * JSON.stringify's (lineKeeper), which writes each such byte as itself, and none of its escapes
   * decodes to one, so an occurrence in the value is one in its JSON text.
   * A search then reads the JSON text once and neither decodes nor caches a value it cannot find
   * anything in (docs/streaming-import.md "Texts searched before they are decoded").
   */
  private rawHoldsNoneOf(needle: Uint8Array): boolean {
    if (this.plain || needle.length === 0 || this.rawLength > READ_BACK_WINDOW_BYTES || this.kept.cache.get(this.start) !== undefined) return false;
    for (const b of needle) if (b < 0x20 || b > 0x7f || b === 0x22 || b === 0x5c) return false;
    readBackRaw = windowOf(readBackRaw, this.rawLength);
    const raw = this.readFile(this.start, this.rawLength, readBackRaw);
    // Not a JSON string there any more (the file changed): the decoding way says so.
    if (raw[0] !== 0x22 || raw[raw.length - 1] !== 0x22) return false;
    return raw.indexOf(needle) === -1;
  }

  /** As `read`, into `target`; the whole value as `passingWhole` reads it. */
  readInto(start: number, end: number, target: Uint8Array, at: number): void {
    const from = Math.max(0, Math.min(start, this.length));
    const to = Math.max(from, Math.min(end, this.length));
    if (to === from) return;
    if (this.head && to <= this.head.length) target.set(this.head.subarray(from, to), at);
    else if (to - from === this.length) target.set(this.passingWhole(), at);
    else {
      const cached = this.kept.cache.get(this.start);
      if (cached) target.set(cached.subarray(from, to), at);
      else if (this.plain) this.readFile(this.start + 1 + from, to - from, Buffer.from(target.buffer, target.byteOffset + at, to - from));
      else target.set(this.wholeValue().subarray(from, to), at);
    }
  }

  /**
   * The value's UTF-8 for one use (a view the next such read may overwrite): from the cache, else
   * read back and decoded through windows kept for the purpose and not cached, where `wholeValue`
   * makes arrays of its own and caches them. A hash walks each value once: the integrity check of a
   * long session hashes tens of thousands, and their arrays were garbage outside the JS heap
   * (docs/streaming-import.md). A value longer than the windows goes through `wholeValue`.
   */
  private passingWhole(): Buffer {
    const cached = this.kept.cache.get(this.start);
    if (cached !== undefined) return cached;
    if (this.rawLength > READ_BACK_WINDOW_BYTES) return this.wholeValue();
    readBackRaw = windowOf(readBackRaw, this.rawLength);
    const raw = this.readFile(this.start, this.rawLength, readBackRaw);
    let bytes: Buffer | undefined;
    if (this.plain) bytes = plainValue(raw);
    else {
      readBackDecoded = windowOf(readBackDecoded, this.rawLength);
      const n = stringValueInto(raw, readBackDecoded);
      bytes = n === undefined ? undefined : readBackDecoded.subarray(0, n);
    }
    if (bytes?.length !== this.length) throw new ContentUnavailableError('the content changed since it was indexed');
    return bytes;
  }

  /** `n` bytes of the file from `at`, into `into` when given (room for them) else a new array. */
  private readFile(at: number, n: number, into?: Buffer): Buffer {
    const { fd, read, isOpen } = this.kept;
    if (!isOpen()) throw new ContentUnavailableError('the session is closed');
    const raw = into ? into.subarray(0, n) : Buffer.allocUnsafe(n);
    let filled = 0;
    while (filled < n) {
      const got = read(fd, raw, filled, n - filled, at + filled);
      if (got <= 0) throw new ContentUnavailableError('the file is shorter than when it was indexed');
      filled += got;
    }
    return raw;
  }

  /**
   * The value's UTF-8, from the cache or read (and, where escaped, decoded) now. Not named `bytes`:
   * a source with a `bytes` member is taken for one held in memory (`isMemorySource`).
   */
  private wholeValue(): Buffer {
    const { cache } = this.kept;
    const cached = cache.get(this.start);
    if (cached !== undefined) return cached;
    const raw = this.readFile(this.start, this.rawLength);
    const bytes = this.plain ? plainValue(raw) : stringValueBytes(raw);
    if (bytes?.length !== this.length) throw new ContentUnavailableError('the content changed since it was indexed');
    cache.set(this.start, bytes, bytes.length);
    return bytes;
  }
}

/** A value whose JSON text is longer is read back into arrays of its own by `readInto`, not through the windows kept. */
const READ_BACK_WINDOW_BYTES = 4 * 1024 * 1024;
/** The windows `readInto` reads a value's JSON text into and decodes it into (grown to the longest read, at most READ_BACK_WINDOW_BYTES). */
let readBackRaw: Buffer = Buffer.alloc(0);
let readBackDecoded: Buffer = Buffer.alloc(0);

/** The window a value `lineKeeper` compares is encoded into. */
let keptValueWindow: Buffer = Buffer.alloc(0);

/** True when the JSON string literal `raw` decodes to `bytes` (decoded in the window `readInto` decodes in, when it fits). */
function decodedEquals(raw: Buffer, bytes: Buffer): boolean {
  if (raw.length > READ_BACK_WINDOW_BYTES) return stringValueBytes(raw)?.equals(bytes) === true;
  readBackDecoded = windowOf(readBackDecoded, raw.length);
  const n = stringValueInto(raw, readBackDecoded);
  return n !== undefined && readBackDecoded.subarray(0, n).equals(bytes);
}

/** `window` when it has room for `n` bytes, else a new one that has. */
function windowOf(window: Buffer, n: number): Buffer {
  return window.length >= n ? window : Buffer.allocUnsafe(Math.max(n, Math.min(READ_BACK_WINDOW_BYTES, window.length * 2)));
}

/** A JSON string without escapes: its bytes between the quotes, when they are still one (quoted, no quote or backslash inside, UTF-8). */
function plainValue(raw: Buffer): Buffer | undefined {
  const last = raw.length - 1;
  if (raw[0] !== 0x22 || raw[last] !== 0x22 || raw.indexOf(0x22, 1) !== last || raw.indexOf(0x5c) >= 0) return undefined;
  const body = raw.subarray(1, last);
  return isUtf8(body) ? body : undefined;
}

/**
 * What keeps the strings of one line (bytes `line`, at file offset `lineOffset`) in the file: for
 * each `value` (a string of the record parsed from that line), its text kept at the first string
 * literal of the line (in the order written, keys among them) that is the value as JSON.stringify
 * writes it; undefined when it is shorter than `minChars`, not well-formed, or not so written. The
 * line's long literals are found once, at the first value asked, and those of the value's UTF-8
 * length and canonical escapes are compared byte for byte, where a JSON.stringify of each value
 * and a search for it in the line's text took most of the time texts were kept in
 * (docs/streaming-import.md).
 */
export function lineKeeper(kept: KeptStrings, minChars: number, line: Buffer, lineOffset: number): (value: string) => LargeText | undefined {
  let literals: Literal[] | undefined;
  return (value) => {
    if (value.length < minChars || !isWellFormed(value)) return undefined;
    literals ??= longLiterals(line, minChars + 2);
    if (literals.length === 0) return undefined;
    // Encoded and compared in windows kept for the purpose (a value of up to READ_BACK_WINDOW_BYTES):
    // arrays of their own were 200 MB of garbage outside the JS heap on the bench's session.
    let bytes: Buffer;
    if (3 * value.length <= READ_BACK_WINDOW_BYTES) {
      keptValueWindow = windowOf(keptValueWindow, 3 * value.length);
      bytes = keptValueWindow.subarray(0, keptValueWindow.write(value, 0, 'utf8'));
    } else bytes = Buffer.from(value, 'utf8');
    for (const lit of literals) {
      if (lit.decoded !== bytes.length || !lit.canonical) continue;
      const raw = line.subarray(lit.start, lit.start + lit.raw);
      const plain = lit.raw === bytes.length + 2;
      if (!(plain ? bytes.equals(raw.subarray(1, -1)) : decodedEquals(raw, bytes))) continue;
      return sourceText(new KeptString(kept, lineOffset + lit.start, lit.raw, bytes.length, plain ? undefined : Buffer.from(headChars(value), 'utf8')));
    }
    return undefined;
  };
}

/** A string literal of a line: its opening quote's index, its length with both quotes, its content's UTF-8 length, and whether it is written as JSON.stringify writes it. */
interface Literal {
  start: number;
  raw: number;
  decoded: number;
  canonical: boolean;
}

/**
 * The string literals of `line` (a JSON record's bytes) of at least `minRaw` bytes with their
 * quotes, in order. A literal without a backslash ends at the next quote; one with escapes is
 * walked to its end (the WebAssembly walker: jsonString.ts). A line that is no JSON gives the
 * literals found before where it stops being read.
 */
function longLiterals(line: Buffer, minRaw: number): Literal[] {
  const literals: Literal[] = [];
  let pos = 0;
  let backslash = -1;
  for (;;) {
    const open = line.indexOf(0x22, pos);
    if (open < 0) break;
    const close = line.indexOf(0x22, open + 1);
    if (close < 0) break;
    if (backslash < open) backslash = line.indexOf(0x5c, open + 1);
    if (backslash < 0 || backslash > close) {
      if (close + 1 - open >= minRaw) literals.push({ start: open, raw: close + 1 - open, decoded: close - open - 1, canonical: true });
      pos = close + 1;
      continue;
    }
    const walk = new JsonStringWalk();
    let end: { close: number } | { resume: number };
    try {
      end = walk.feed(line, open + 1, line.length, 0, true);
    } catch (e) {
      if (e instanceof JsonStringError) break;
      throw e;
    }
    if (!('close' in end)) break;
    if (end.close + 1 - open >= minRaw) literals.push({ start: open, raw: end.close + 1 - open, decoded: walk.decoded, canonical: walk.canonical });
    pos = end.close + 1;
  }
  return literals;
}
