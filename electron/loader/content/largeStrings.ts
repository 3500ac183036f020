/**
 * Long lines of an imported JSONL file (a Claude Code transcript, a Codex rollout) read without
 * their large string values: a structural scan of the line's bytes finds every string value whose body is at least a
 * threshold long, walks it (length, escapes, checkpoints, as the native reader walks a content) and
 * cuts it out of the line; the rest — the record with a short token where each was — is parsed as
 * usual, and each token becomes a `LargeText` that reads its content back from the file by range
 * (fileContent.ts). docs/large-lines.md.
 */
import { isUtf8 } from 'node:buffer';
import type { Hash } from 'node:crypto';
import { createHash, randomUUID } from 'node:crypto';
import type { ByteSource, ChatMessage } from '../../../shared/index';
import { ContentUnavailableError, concatSources, floorSourceBoundary, memorySource, utf8Encode } from '../../../shared/index';
import type { HashOnRead } from '../../../shared/format/types';
import { HASH_ON_READ } from '../../../shared/format/types';
import { sourceWindows } from '../../../shared/format/bytes';
import { utf8EncodeInto, utf8StreamDecoder } from '../../../shared/format/utf8';
import { ptrHash } from '../../../shared/format/hash';
import { transcriptHeader } from '../../../shared/resolver/original';
import type { ContentServices } from './contentServices';
import { FileContent } from './fileContent';
import type { ReadSync } from '../common/lines';
import { readExactly } from '../common/lines';
import type { TakenLine } from '../common/takenLine';
import type { RawContent } from './rawRecord';
import { Utf8Check, Window, readShortString, walkString } from './rawRecord';
import { JsonStringError, JsonStringWalk, hasControlByte } from './jsonString';

/**
 * A line at least this long is scanned for its long string values first, and a value at least this
 * many raw bytes long is kept in the file (default; sources take an option). 4 KiB, not the preview's
 * 64 KiB: a tool output of a few KiB was decoded, parsed and then found again in its line's bytes to
 * be left in the file; scanned, it is walked once. `check` of the bench's 537 MB session took 7–10%
 * less, the same output byte for byte (docs/streaming-import.md "Lines of 4 KiB or more").
 */
export const LARGE_STRING_BYTES = 4 * 1024;
/** A limit (of `LARGE_STRING_BYTES`' kind, or a kept text's characters) that keeps every string in memory (DetectContext.inMemoryUpToBytes). */
export const IN_MEMORY_LIMIT = Number.MAX_SAFE_INTEGER;

/**
 * Whether a line format's source leaves strings in its file, to read back after its pass: unless
 * both its limits keep them in memory. Such a file is watched from before its pass, as a sidecar
 * is (SessionSource.readsAfterIndexing, fileGuard.ts), so a text read back from a file changed
 * since the open is `file_changed` (SPEC §13), not the new bytes served silently.
 */
export function leavesStringsInFile(largeStringBytes: number, keptChars: number): boolean {
  return largeStringBytes < IN_MEMORY_LIMIT || keptChars < IN_MEMORY_LIMIT;
}

/** Bytes of a large content decoded for `content` (the display's first bytes), as the native reader's preview. */
export const LARGE_PREVIEW_BYTES = 64 * 1024;
/**
 * A large string value that must be read whole (one outside a message's text: a tool call's input,
 * thinking, an image's data) longer than this many bytes is not: it is cut to its first
 * LARGE_PREVIEW_BYTES and said (docs/large-lines.md).
 */
export const MAX_WHOLE_VALUE_BYTES = 16 * 1024 * 1024;

/** A value cut by `LargeStrings.materialize`: where it is in its record and its length in UTF-8 bytes. */
export interface CutValue {
  path: string;
  bytes: number;
}

/** What a record's reader says of a value it cut (docs/large-lines.md). */
export function cutValueMessage(line: number, cut: CutValue): string {
  return `line ${line}: the value at ${cut.path} is ${cut.bytes} bytes, too long to read whole; it is shown cut at its first ${LARGE_PREVIEW_BYTES / 1024} KiB (the file holds it whole)`;
}

/**
 * What a token's string starts with: a NUL and a random id of this process, so no string of a
 * file can be taken for a token (it would have to hold this run's id).
 */
let token: { prefix: string; json: Buffer } | undefined;
/** The token's prefix as a string and as its JSON body, made at first use (node:crypto is not loaded by a cold `check` that needs none). */
function tokenOf(): { prefix: string; json: Buffer } {
  if (token === undefined) {
    const prefix = `\u0000large-string:${randomUUID()}:`;
    token = { prefix, json: Buffer.from(JSON.stringify(prefix).slice(1, -1), 'utf8') };
  }
  return token;
}

/**
 * The JSON body of this process's token (what `scanLine` writes where a large value was): a scan
 * made on another thread (scanAhead.ts) is given it, so the rest it hands back reads as one made here.
 */
export function largeStringTokenJson(): Buffer {
  return tokenOf().json;
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

export interface LineScan {
  /** The record's JSON text with each large string's body replaced by its token. */
  rest: string;
  /** Where each large string's body lies in the file, by token number. */
  large: RawContent[];
  /** The rest's bytes are valid UTF-8 (the large bodies are). */
  utf8: boolean;
  /** Per large string, its first characters (bodyHead) when the line's bytes were in memory. */
  heads?: (string | undefined)[];
}

export interface LineScanOptions {
  fd: number;
  read: ReadSync;
  /** The line: file offset and length in bytes (without its newline). */
  offset: number;
  length: number;
  /** The line's bytes when they are in memory already. */
  bytes?: Buffer;
  /** A string value whose raw body is at least this long is cut out. */
  minRawBytes: number;
  windowBytes?: number;
  /** The token's JSON body to write (largeStringTokenJson of the thread that parses the rest); this thread's by default. */
  tokenJson?: Buffer;
}

/**
 * Scans the record on one line. Undefined when it holds no string value that long, or when it is
 * not a well-formed JSON object (or a long body holds a raw control character or bytes that are
 * not UTF-8): the caller then reads the line the usual way, whose error is the one to report.
 */
export function scanLine(options: LineScanOptions): LineScan | undefined {
  const windowBytes = options.windowBytes ?? 1024 * 1024;
  const end = options.offset + options.length;
  const win = new Window(options.fd, options.read, end, windowBytes, options.bytes ? { bytes: options.bytes, offset: options.offset } : undefined);
  const found: { bodyStart: number; close: number; walk: JsonStringWalk }[] = [];
  try {
    if (!walkRecord(win, options.offset, end, options.minRawBytes, found)) return undefined;
  } catch (e) {
    if (e instanceof JsonStringError) return undefined;
    throw e;
  }
  if (found.length === 0) return undefined;
  // A surrogate's escape (met by the walk): JSON.parse keeps a lone one as a lone surrogate, which a
  // value read from the file's UTF-8 cannot hold, so such a body is read whole.
  for (const f of found) if (f.walk.surrogates || !plainBody(options, f.bodyStart, f.close, windowBytes)) return undefined;
  const pieces: Buffer[] = [];
  let at = options.offset;
  const piece = (from: number, to: number): boolean => {
    if (to <= from) return true;
    const bytes = options.bytes ? options.bytes.subarray(from - options.offset, to - options.offset) : readExactly(options.fd, from, to - from, options.read);
    if (!bytes) return false;
    pieces.push(bytes);
    return true;
  };
  const large: RawContent[] = [];
  for (const f of found) {
    if (!piece(at, f.bodyStart)) return undefined;
    pieces.push(options.tokenJson ?? tokenOf().json, Buffer.from(String(large.length), 'ascii'));
    large.push({ start: f.bodyStart, rawLength: f.close - f.bodyStart, length: f.walk.decoded, canonical: f.walk.canonical, checkpoints: f.walk.checkpoints });
    at = f.close;
  }
  if (!piece(at, end)) return undefined;
  const rest = Buffer.concat(pieces);
  const inMemory = options.bytes;
  const heads = inMemory ? found.map((f) => bodyHead(inMemory.subarray(f.bodyStart - options.offset, f.close - options.offset))) : undefined;
  return { rest: rest.toString('utf8'), large, utf8: isUtf8(rest), ...(heads ? { heads } : {}) };
}

/**
 * The UTF-16 units of a long value's start held in memory (a kept text's with escapes, keptString.ts;
 * a large value scanned in memory, `bodyHead`): what an importer asks of most texts is whether they
 * begin with a tag (`<persisted-output>`), answered without reading the value back
 * (docs/streaming-import.md).
 */
export const KEPT_HEAD_CHARS = 32;
/** Raw bytes of a body decoded for its head: enough for KEPT_HEAD_CHARS characters unless they are mostly escapes. */
const HEAD_RAW_BYTES = 128;

/** The first KEPT_HEAD_CHARS UTF-16 units of `value`, not cutting a surrogate pair. */
export function headChars(value: string): string {
  const cut = value.charCodeAt(KEPT_HEAD_CHARS - 1);
  return value.slice(0, cut >= 0xd800 && cut <= 0xdbff ? KEPT_HEAD_CHARS - 1 : KEPT_HEAD_CHARS);
}

/**
 * The first characters of a string value from its raw JSON body (checked by `plainBody`: valid
 * UTF-8, no raw control byte, no surrogate escape), at most KEPT_HEAD_CHARS UTF-16 units: what a reader
 * asks of most long values is whether they begin with a tag (`<persisted-output>`), answered
 * without reading the value back from the file (at each build of a followed session). Decoded by
 * `JSON.parse` from a prefix cut before an escape or a character that does not fit whole.
 */
function bodyHead(body: Buffer): string | undefined {
  const limit = Math.min(body.length, HEAD_RAW_BYTES);
  let cut = 0;
  while (cut < limit) {
    const b = body[cut] as number;
    const size = b === 0x5c ? (body[cut + 1] === 0x75 ? 6 : 2) : b < 0x80 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
    if (cut + size > limit) break;
    cut += size;
  }
  try {
    return headChars(JSON.parse(`"${body.toString('utf8', 0, cut)}"`) as string);
  } catch {
    // Not reached for a body the walk and plainBody passed; no head then (a read answers).
    return undefined;
  }
}

/**
 * Walks the object at `[offset, end)`, pushing every string value whose body is `minRaw` bytes or
 * longer; false when the line is not one JSON object (with only whitespace after it).
 */
function walkRecord(win: Window, offset: number, end: number, minRaw: number, found: { bodyStart: number; close: number; walk: JsonStringWalk }[]): boolean {
  let pos = offset;
  const skipWs = () => {
    while (pos < end && WS.has(win.byte(pos))) pos++;
  };
  skipWs();
  if (win.byte(pos) !== 0x7b /* { */) return false;
  pos++;
  /** Per open container: true for an object. */
  const stack: boolean[] = [true];
  let state: 'first' | 'next' | 'after' = 'first';
  for (;;) {
    skipWs();
    if (pos >= end) return false;
    const object = stack[stack.length - 1] as boolean;
    const c = win.byte(pos);
    const closes = (c === 0x7d && object) || (c === 0x5d && !object);
    if (state === 'after' || (state === 'first' && closes)) {
      if (state === 'after' && c === 0x2c /* , */) {
        pos++;
        state = 'next';
        continue;
      }
      if (!closes) return false;
      stack.pop();
      pos++;
      state = 'after';
      if (stack.length === 0) {
        skipWs();
        return pos >= end;
      }
      continue;
    }
    let v = c;
    if (object) {
      if (c !== 0x22) return false;
      pos = keyEnd(win, pos, end) + 1;
      skipWs();
      if (win.byte(pos) !== 0x3a /* : */) return false;
      pos++;
      skipWs();
      v = win.byte(pos);
    }
    if (v === 0x7b || v === 0x5b) {
      stack.push(v === 0x7b);
      pos++;
      state = 'first';
      continue;
    }
    if (v === 0x22) {
      const walk = new JsonStringWalk();
      const close = walkString(win, pos, end, walk);
      if (close - (pos + 1) >= minRaw) found.push({ bodyStart: pos + 1, close, walk });
      pos = close + 1;
    } else {
      // A number, true, false or null: validated by the rest's parse.
      const start = pos;
      while (pos < end) {
        const d = win.byte(pos);
        if (d === 0x2c || d === 0x7d || d === 0x5d || WS.has(d)) break;
        pos++;
      }
      if (pos === start) return false;
    }
    state = 'after';
  }
}

/**
 * The closing quote of the key whose opening quote is at `quote`: the next quote when the window
 * holds it and no backslash comes before it (a key is short, and most have no escape), else the
 * walk's. Nothing of the key is checked here: it stays in the rest, which `JSON.parse` reads.
 */
function keyEnd(win: Window, quote: number, end: number): number {
  if (win.cover(quote)) {
    const at = quote - win.base;
    const stop = Math.min(win.buf.length, end - win.base);
    const close = win.buf.indexOf(0x22, at + 1);
    // The backslash looked for within the key only: a search on to the next one could run over a
    // long value's every byte, once per key before it.
    if (close !== -1 && close < stop && win.buf.subarray(at + 1, close).indexOf(0x5c) === -1) return win.base + close;
  }
  return readShortString(win, quote, end).close;
}

/**
 * True when the body `[from, to)` is valid UTF-8 without a raw control character (JSON.parse refuses
 * those); a surrogate's escape the walk met is the caller's to check.
 */
function plainBody(options: LineScanOptions, from: number, to: number, windowBytes: number): boolean {
  const utf8 = new Utf8Check();
  const buf = options.bytes ? undefined : Buffer.allocUnsafe(Math.min(windowBytes, to - from));
  for (let at = from; at < to; ) {
    const n = Math.min(windowBytes, to - at);
    const piece = options.bytes ? options.bytes.subarray(at - options.offset, at - options.offset + n) : readExactly(options.fd, at, n, options.read, buf);
    if (!piece) return false;
    if (hasControlByte(piece)) return false;
    utf8.push(piece);
    at += n;
  }
  return utf8.finish();
}

/**
 * A string value kept out of memory: its UTF-8 bytes (`source`), what a reader of the record asks
 * of a string without reading it all (its first characters, its length in UTF-16 units), and, where
 * it must be a string after all, `text()`.
 */
export abstract class LargeText {
  abstract readonly source: ByteSource;

  /** The whole value as a string (read from the file). */
  text(): string {
    const parts: string[] = [];
    // A U+FEFF first is the value's, as in `head`.
    const decoder = utf8StreamDecoder();
    for (const chunk of sourceWindows(this.source)) parts.push(decoder.decode(chunk, { stream: true }));
    parts.push(decoder.decode());
    return parts.join('');
  }

  /** The value's first characters: at most `bytes` of its UTF-8, cut at a character boundary. */
  head(bytes: number): string {
    return Buffer.from(this.source.read(0, floorSourceBoundary(this.source, Math.min(this.source.length, bytes)))).toString('utf8');
  }

  /** True when the value starts with `prefix`. */
  startsWith(prefix: string): boolean {
    // A prefix cut between the halves of a pair (a preview cut at a UTF-16 length) ends with a high
    // surrogate: as a string, the value starts with it when its next character is a pair whose high
    // half it is.
    const last = prefix.charCodeAt(prefix.length - 1);
    const cutPair = last >= 0xd800 && last <= 0xdbff;
    const whole = cutPair ? prefix.slice(0, -1) : prefix;
    const want = Buffer.from(whole, 'utf8');
    // A lone surrogate encodes as U+FFFD, which a value read from UTF-8 may hold: it starts with no such prefix.
    if (want.toString('utf8') !== whole) return false;
    const end = want.length + (cutPair ? 4 : 0);
    if (end > this.source.length) return false;
    const bytes = Buffer.from(this.source.read(0, end));
    if (!bytes.subarray(0, want.length).equals(want)) return false;
    return !cutPair || bytes.subarray(want.length).toString('utf8').charCodeAt(0) === last;
  }

  /** The value as a string, a piece of at most `windowBytes` of UTF-8 at a time (each piece whole characters). */
  *pieces(windowBytes?: number): Generator<string> {
    // A U+FEFF first is the value's, as in `head`.
    const decoder = utf8StreamDecoder();
    for (const chunk of sourceWindows(this.source, 0, this.source.length, windowBytes)) {
      const piece = decoder.decode(chunk, { stream: true });
      if (piece !== '') yield piece;
    }
    const last = decoder.decode();
    if (last !== '') yield last;
  }

  /** The value's `length` as a JS string: UTF-16 units. */
  utf16Length(): number {
    let n = 0;
    for (const chunk of sourceWindows(this.source)) {
      for (let i = 0; i < chunk.length; i++) {
        const b = chunk[i] as number;
        if ((b & 0xc0) !== 0x80) n += b >= 0xf0 ? 2 : 1;
      }
    }
    return n;
  }
}

/** A large string value read from the file. */
class FileText extends LargeText {
  constructor(
    readonly source: FileContent,
    /** Its first characters, when the line was in memory as it was scanned (bodyHead). */
    private readonly start?: string,
  ) {
    super();
  }

  override startsWith(prefix: string): boolean {
    // A head shorter than the prefix cannot tell (a value is longer than any head).
    if (this.start !== undefined && prefix.length <= this.start.length) return this.start.startsWith(prefix);
    return super.startsWith(prefix);
  }
}

/** A message's content kept out of memory (its `large`), as a text. */
class SourceText extends LargeText {
  constructor(readonly source: ByteSource) {
    super();
  }
}

/** Texts joined by a separator, at least one of them large. */
class JoinedText extends LargeText {
  readonly source: ByteSource;
  constructor(parts: readonly (string | LargeText)[], separator: string) {
    super();
    const sources: ByteSource[] = [];
    parts.forEach((p, k) => {
      if (k > 0 && separator !== '') sources.push(memorySource(utf8Encode(separator)));
      sources.push(typeof p === 'string' ? memorySource(utf8Encode(p)) : p.source);
    });
    this.source = concatSources(sources);
  }
}

export type Text = string | LargeText;

export const isLargeText = (v: unknown): v is LargeText => v instanceof LargeText;

/** `parts.join(separator)`, kept out of memory when one part is. */
export function joinTexts(parts: readonly Text[], separator: string): Text {
  if (parts.every((p): p is string => typeof p === 'string')) return parts.join(separator);
  return parts.length === 1 ? (parts[0] as LargeText) : new JoinedText(parts, separator);
}

/** A text as a string: a large one read whole. */
export function textString(t: Text): string {
  return typeof t === 'string' ? t : t.text();
}

/** The text whose UTF-8 bytes `source` reads. */
export function sourceText(source: ByteSource): LargeText {
  return new SourceText(source);
}

/** A message's content as a text: its `large` bytes when it has them, else its `content`. */
export function messageText(m: ChatMessage): Text {
  return m.large ? new SourceText(m.large) : m.content;
}

/** Whether the text is empty. */
export function isEmptyText(t: Text): boolean {
  return typeof t === 'string' ? t.length === 0 : t.source.length === 0;
}

/**
 * `t.includes(needle)`, a large text searched a window at a time in its bytes (a value read from
 * UTF-8 holds no lone surrogate: a needle with one is in none).
 */
export function textIncludes(t: Text, needle: string, windowBytes?: number): boolean {
  if (typeof t === 'string') return t.includes(needle);
  const want = Buffer.from(needle, 'utf8');
  if (want.toString('utf8') !== needle) return false;
  if (want.length === 0) return true;
  // Each window, then the bytes across its start (the last bytes before it and its first).
  const keep = want.length - 1;
  let tail = Buffer.alloc(0);
  for (const chunk of sourceWindows(t.source, 0, t.source.length, windowBytes)) {
    const window = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    if (window.includes(want) || Buffer.concat([tail, window.subarray(0, keep)]).includes(want)) return true;
    const joined = window.length >= keep ? window : Buffer.concat([tail, window]);
    tail = Buffer.from(joined.subarray(joined.length - Math.min(keep, joined.length)));
  }
  return false;
}

/** SHA-256 (as a pointer's hash) and UTF-8 length of a text, read by range when it is large. */
export function measureText(t: Text): { hash: string; bytes: number } {
  if (typeof t === 'string') return { hash: ptrHash(createHash('sha256').update(t, 'utf8').digest('hex')), bytes: Buffer.byteLength(t, 'utf8') };
  return measureSource(t.source);
}

/** SHA-256 (as a pointer's hash) and length of a source's bytes, a window at a time. */
export function measureSource(source: ByteSource): { hash: string; bytes: number } {
  if (source.sha256 !== undefined) return { hash: ptrHash(source.sha256), bytes: source.length };
  const h = createHash('sha256');
  for (const chunk of sourceWindows(source)) h.update(chunk);
  return { hash: ptrHash(h.digest('hex')), bytes: source.length };
}

/**
 * The hash and length of the §3.5 transcript of `messages` (shared/resolver/original.ts `transcriptOf`),
 * piece by piece: the same bytes, without one string of them all, a large content read by range.
 */
export function measureTranscript(messages: readonly ChatMessage[]): { hash: string; bytes: number } {
  return measureTranscriptPrefixes(messages, [messages.length])[0]!;
}

/** Bytes gathered before they are hashed: texts are encoded into it, not each into a string's own bytes. */
const HASH_WINDOW_BYTES = 1024 * 1024;
/**
 * The window's first size: it grows fourfold each time it fills, up to its most. A small
 * session's transcripts are a few KiB, and a window of its most allocated for each (every Claude
 * Code session measures its view at its build) cost a listing of 334 small Claude Code sessions
 * about a tenth of their indexing (docs/library.md "Scale").
 */
export const HASH_WINDOW_FIRST_BYTES = 16 * 1024;

/**
 * A SHA-256 fed texts and sources through one window: a transcript of 60,000 messages is three
 * pieces a message, and hashing each piece by itself (a string encoded into bytes of its own, a
 * call into the hash) cost more than the hashing.
 */
class WindowedHash {
  private window: Buffer;
  private used = 0;
  bytes: number;
  // At least a character's most (four bytes), or a character could never be written.
  private readonly most: number;

  constructor(
    readonly hash: Hash,
    bytes: number,
    windowBytes: number,
  ) {
    this.bytes = bytes;
    this.most = Math.max(4, windowBytes);
    this.window = Buffer.allocUnsafe(Math.min(this.most, HASH_WINDOW_FIRST_BYTES));
  }

  text(text: string): void {
    let rest = text;
    for (;;) {
      const { read, written } = utf8EncodeInto(rest, this.window, this.used);
      this.used += written;
      this.bytes += written;
      if (read === rest.length) return;
      // The window is full (a character that does not fit is written into the next one).
      this.flush();
      if (this.window.length < this.most) this.window = Buffer.allocUnsafe(Math.min(this.most, this.window.length * 4));
      rest = rest.slice(read);
    }
  }

  source(source: ByteSource): void {
    this.flush();
    for (const chunk of sourceWindows(source)) this.hash.update(chunk);
    this.bytes += source.length;
  }

  /** The hash of every byte given so far (the window hashed first). */
  flush(): Hash {
    if (this.used > 0) this.hash.update(this.window.subarray(0, this.used));
    this.used = 0;
    return this.hash;
  }
}

/** One message of a measured transcript as its piece is written: role, tool call id, content (a string, or its large source). */
interface TranscriptKey {
  role: string;
  id: string | undefined;
  body: string | ByteSource;
}

/** A transcript's running hash and length after its first `at` messages, and the pointer hash there. */
interface TranscriptState {
  at: number;
  hash: Hash;
  bytes: number;
  ptr: string;
}

const keyOf = (m: ChatMessage): TranscriptKey => ({ role: m.role, id: m.tool_call_id, body: m.large ?? m.content });
// A large message's `content` is a getter that reads the file: only its source is compared.
const sameKey = (k: TranscriptKey, m: ChatMessage): boolean => k.role === m.role && k.id === m.tool_call_id && k.body === (m.large ?? m.content);

/**
 * What `measureTranscriptPrefixes` keeps between builds of one growing view (a followed session is
 * built again at each append): the messages it measured and the hash state at each end. A build
 * resumes from the last state whose messages are the same (compared, never assumed: an append may
 * move the live branch), so an append no longer hashes every compaction's transcript again.
 */
export class TranscriptMemo {
  keys: TranscriptKey[] = [];
  states: TranscriptState[] = [];
}

/**
 * `measureTranscript(messages.slice(0, end))` for each of `ends` (ascending), in one pass over the
 * messages: a transcript of a prefix is a prefix of the transcript, so each end's hash is a copy of
 * the running one. A session's compactions each measure all the view before them: measured apart,
 * their cost grew with their count times the file. With `memo` (kept by the caller across builds
 * of the same view), the pass starts from the last remembered end whose messages, and every end
 * before it, are as they were. Texts are hashed through a window of `windowBytes`.
 */
export function measureTranscriptPrefixes(
  messages: readonly ChatMessage[],
  ends: readonly number[],
  memo?: TranscriptMemo,
  windowBytes = HASH_WINDOW_BYTES,
): { hash: string; bytes: number }[] {
  const out: { hash: string; bytes: number }[] = [];
  let k = 0;
  let start = 0;
  let hash = createHash('sha256');
  let bytes = 0;
  const kept: TranscriptState[] = [];
  if (memo) {
    // How many of the first messages are the ones measured last time.
    const limit = Math.min(memo.keys.length, messages.length);
    let same = 0;
    while (same < limit && sameKey(memo.keys[same]!, messages[same]!)) same++;
    // The last state within them such that every end up to it is a remembered state too.
    const byAt = new Map(memo.states.map((st) => [st.at, st]));
    let from: TranscriptState | undefined;
    let e = 0;
    for (const st of memo.states) {
      if (st.at > same) break;
      while (e < ends.length && ends[e]! <= st.at && byAt.has(ends[e]!)) e++;
      if (e < ends.length && ends[e]! <= st.at) break;
      from = st;
    }
    if (from) {
      for (; k < ends.length && ends[k]! <= from.at; k++) out.push({ hash: byAt.get(ends[k]!)!.ptr, bytes: byAt.get(ends[k]!)!.bytes });
      for (const st of memo.states) if (st.at <= from.at) kept.push(st);
      start = from.at;
      hash = from.hash.copy();
      bytes = from.bytes;
    }
  }
  const into = new WindowedHash(hash, bytes, windowBytes);
  const settle = (at: number): void => {
    for (; k < ends.length && ends[k]! <= at; k++) {
      const ptr = ptrHash(into.flush().copy().digest('hex'));
      out.push({ hash: ptr, bytes: into.bytes });
      if (memo && ends[k] === at) kept.push({ at, hash: into.hash.copy(), bytes: into.bytes, ptr });
    }
  };
  let i = start;
  for (; i < messages.length; i++) {
    settle(i);
    if (k === ends.length) break;
    const m = messages[i]!;
    into.text(transcriptHeader(m));
    if (m.large) into.source(m.large);
    else into.text(m.content);
    into.text('\n');
  }
  settle(Number.POSITIVE_INFINITY);
  if (memo) {
    // The messages measured: those remembered up to where this pass started, then the ones it hashed.
    memo.keys.length = Math.min(memo.keys.length, start);
    for (let j = memo.keys.length; j < i; j++) memo.keys.push(keyOf(messages[j]!));
    memo.states = kept;
  }
  return out;
}

/**
 * The lengths `measureTranscriptPrefixes` gives for `ends` (ascending), without reading or hashing:
 * a large content's source knows its length. What a compaction's pointer says of its size at the
 * build, while its hash waits until something reads it (`lazyHashPtr`).
 */
export function transcriptPrefixLengths(messages: readonly ChatMessage[], ends: readonly number[]): number[] {
  const out: number[] = [];
  let bytes = 0;
  let i = 0;
  for (const end of ends) {
    for (const stop = Math.min(end, messages.length); i < stop; i++) {
      const m = messages[i]!;
      // A large message's `content` is a getter that reads the file: its source holds the length.
      bytes += Buffer.byteLength(transcriptHeader(m), 'utf8') + (m.large ? m.large.length : Buffer.byteLength(m.content, 'utf8')) + 1;
    }
    out.push(bytes);
  }
  return out;
}

/**
 * A pointer whose hash is made when it is first read, then kept (an own, enumerable field, so JSON
 * and structured clones carry it as any other). `view`, `trace` and `export` never read a
 * compaction's hash, and hashing its transcript reads most of a long session's file again
 * (docs/streaming-import.md "Hashes made when read"). A resolve that reads those bytes first gives
 * it their hash instead (HASH_ON_READ), so they are not hashed twice. Like any content of the
 * session, it cannot be made once the session is closed: `hash` throws ContentUnavailableError then.
 */
export function lazyHashPtr(index: number, bytes: number, hash: () => string): { index: number; hash: string; bytes: number } {
  const ptr = { index, hash: '', bytes };
  let made = false;
  const settle = (value: string): string => {
    made = true;
    Object.defineProperty(ptr, 'hash', { value, enumerable: true, writable: true, configurable: true });
    return value;
  };
  Object.defineProperty(ptr, 'hash', { enumerable: true, configurable: true, get: () => settle(hash()), set: settle });
  // The resolver, reading the transcript to verify it, gives it its hash instead (HASH_ON_READ).
  const onRead: HashOnRead = {
    made: () => made,
    settle: (value) => {
      if (!made) settle(value);
    },
  };
  Object.defineProperty(ptr, HASH_ON_READ, { value: onRead, enumerable: false });
  return ptr;
}

/**
 * The fields of `parts`, in order, each copied as it is defined: a getter stays a getter, not run.
 * An object spread runs contentFields' `content` getter and keeps a preview of up to
 * LARGE_PREVIEW_BYTES in every message built so (docs/streaming-import.md).
 */
function copyFields(...parts: object[]): object {
  const out = {};
  // Plain parts are assigned (copying every descriptor cost a rebuilt 537 MB session's view some
  // 0.17 s of a 1 s look, docs/streaming-import.md). A message's one getter is its `content`
  // (contentFields here, the native reader's preview): from the first part holding it on,
  // descriptors are copied, so it stays a getter and a later plain field may still replace it.
  let descriptors = false;
  for (const part of parts) {
    descriptors ||= hasContentGetter(part);
    if (descriptors) Object.defineProperties(out, Object.getOwnPropertyDescriptors(part));
    else Object.assign(out, part);
  }
  return out;
}

/** `message` with `tail`'s fields set, its content getter (withContent) kept as a getter. */
export function withFields<M extends object, R extends object>(message: M, tail: R): M & R {
  return copyFields(message, tail) as M & R;
}

/** `head`'s fields, then `t`'s content fields (contentFields), then `tail`'s: a message built with its content left in the file. */
export function withContent<M extends object, R extends object = Record<never, never>>(head: M, t: Text, tail?: R): M & { content: string; large?: ByteSource } & R {
  type Built = M & { content: string; large?: ByteSource } & R;
  // A content left in the file, between parts that hold no `content` getter (and a tail no `content`
  // at all): the getter is defined on the message itself, the plain fields assigned. The same
  // message as copyFields makes, which copied every field after the getter as a descriptor: 4–7
  // µs a message, 0.1 s of building the bench's 537 MB session (docs/streaming-import.md).
  if (typeof t !== 'string' && !hasContentGetter(head) && (tail === undefined || !Object.hasOwn(tail, 'content'))) {
    const out = Object.assign({}, head) as { content: string; large?: ByteSource };
    out.large = t.source;
    Object.defineProperty(out, 'content', contentGetter(t));
    return (tail ? Object.assign(out, tail) : out) as Built;
  }
  return copyFields(head, contentFields(t), tail ?? {}) as Built;
}

function hasContentGetter(part: object): boolean {
  return Object.getOwnPropertyDescriptor(part, 'content')?.get !== undefined;
}

/** The `content` of a message whose content is left in the file: its first bytes, decoded on each use, never kept. */
function contentGetter(t: LargeText): PropertyDescriptor {
  return {
    enumerable: true,
    configurable: true,
    get: () => {
      try {
        return t.head(LARGE_PREVIEW_BYTES);
      } catch (e) {
        if (e instanceof ContentUnavailableError) return '';
        throw e;
      }
    },
  };
}

/** A message's content fields for `t`: `content`, or `large` with `content` its first bytes (decoded on each use, never kept). */
export function contentFields(t: Text): { content: string; large?: ByteSource } {
  if (typeof t === 'string') return { content: t };
  const fields = { large: t.source } as { content: string; large: ByteSource };
  Object.defineProperty(fields, 'content', contentGetter(t));
  return fields;
}

/** Turns a line's tokens back into values: `keep(token)` says where a LargeText may stay; elsewhere it is read whole. */
export class LargeStrings {
  private readonly texts: FileText[];
  /** The values `materialize` cut, in the order it met them. */
  readonly cut: CutValue[] = [];

  /** The scanned line's bytes while its record is parsed (`release` lets them go): a value read whole is decoded from them. */
  private line: { bytes: Buffer; offset: number } | undefined;

  constructor(
    fd: number,
    read: ReadSync,
    private readonly large: readonly RawContent[],
    isOpen: () => boolean,
    services: ContentServices,
    /** A value longer than this many bytes is cut, not read whole (MAX_WHOLE_VALUE_BYTES). */
    private readonly wholeValueBytes: number = MAX_WHOLE_VALUE_BYTES,
    /** What the line scan kept of it in memory: each value's first characters, and its bytes (see `line`). */
    inMemory?: { heads: readonly (string | undefined)[]; bytes: Buffer; offset: number },
  ) {
    this.texts = large.map((raw, k) => new FileText(new FileContent(fd, read, raw, isOpen, services), inMemory?.heads[k]));
    if (inMemory) this.line = { bytes: inMemory.bytes, offset: inMemory.offset };
  }

  /**
   * The record is parsed: the line's bytes are not looked at again (a line handed over in the pass's
   * chunk is a view of an array the next chunk is read into).
   */
  release(): void {
    this.line = undefined;
  }

  /** Puts the LargeText its token stands for at `o[k]`, when it holds one. */
  keep(o: Record<string, unknown>, k: string): void {
    const t = this.of(o[k]);
    if (t) o[k] = t;
  }

  /** Replaces every token in `value` by its LargeText, read nowhere (a part of a record its reader never looks at). */
  keepAll(value: unknown): void {
    const stack: unknown[] = [value];
    while (stack.length > 0) {
      const v = stack.pop();
      if (typeof v !== 'object' || v === null || v instanceof LargeText) continue;
      for (const [k, x] of Object.entries(v)) {
        const t = this.of(x);
        if (t) (v as Record<string, unknown>)[k] = t;
        else if (typeof x === 'object' && x !== null) stack.push(x);
      }
    }
  }

  /** The LargeText a token string stands for; undefined for any other value. */
  of(value: unknown): LargeText | undefined {
    const k = this.numberOf(value);
    return k === undefined ? undefined : this.texts[k];
  }

  /** The number of the large value a token string stands for; undefined for any other value. */
  private numberOf(value: unknown): number | undefined {
    if (typeof value !== 'string' || !value.startsWith(tokenOf().prefix)) return undefined;
    const k = Number(value.slice(tokenOf().prefix.length));
    return this.texts[k] === undefined ? undefined : k;
  }

  /**
   * Replaces, without recursion, every token left in `value` by its string read whole; but for the
   * tokens in `spare` (a record's short fields — its type, its ids — are strings again, whatever the
   * threshold, before the record is looked at), and those under `value[skip]`.
   */
  materialize(value: unknown, spare?: ReadonlySet<string>, skip?: string): void {
    const stack: [unknown, string][] = [[value, '']];
    while (stack.length > 0) {
      const [v, path] = stack.pop()!;
      if (typeof v !== 'object' || v === null || v instanceof LargeText) continue;
      const entries: [string | number, unknown][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
      for (const [k, x] of entries) {
        // A top-level field its reader prunes first is not read yet (`skip`).
        if (path === '' && k === skip) continue;
        const at = typeof k === 'number' ? `${path}[${k}]` : path === '' ? k : `${path}.${k}`;
        const n = spare?.has(x as string) === true ? undefined : this.numberOf(x);
        if (n !== undefined) (v as Record<string | number, unknown>)[k] = this.whole(n, at);
        else if (typeof x === 'object' && x !== null) stack.push([x, at]);
      }
    }
  }

  /** `t` as a string: read whole, or its first LARGE_PREVIEW_BYTES when it is longer than the cap (kept in `cut`). */
  private whole(n: number, path: string): string {
    const t = this.texts[n] as FileText;
    const bytes = t.source.length;
    if (bytes <= this.wholeValueBytes) {
      // While the line is in memory the value is decoded from its literal there, not read back
      // from the file: the same string (its body was checked by plainBody), and a followed file's
      // appended bytes are read once.
      const raw = this.large[n] as RawContent;
      if (this.line) {
        const at = raw.start - 1 - this.line.offset;
        try {
          return JSON.parse(this.line.bytes.toString('utf8', at, at + raw.rawLength + 2)) as string;
        } catch {
          // Not reached for a body the scan passed: read from the file then, as without the line.
        }
      }
      return t.text();
    }
    this.cut.push({ path, bytes });
    return t.head(LARGE_PREVIEW_BYTES);
  }
}

/**
 * The line `taken` (`length` bytes, in memory or handed over by range) scanned for its large string
 * values (scanLine): the rest of its record, whether that is valid UTF-8, and the large values as
 * LargeStrings reading from `fd`. Undefined when it holds none, or is not one well-formed record.
 * `ahead`: the line's scan made on the scan-ahead thread, when it made one.
 */
export function scanTakenLine(
  fd: number,
  read: ReadSync,
  taken: TakenLine,
  length: number,
  minRawBytes: number,
  isOpen: () => boolean,
  services: ContentServices,
  wholeValueBytes: number = MAX_WHOLE_VALUE_BYTES,
  ahead?: LineScan | null,
): { rest: string; utf8: boolean; large: LargeStrings } | undefined {
  // The scan made ahead on another thread (scanAhead.ts): null when it found the line holds none.
  const scan = ahead === undefined ? scanLine({ fd, read, offset: taken.offset, length, ...(taken.bytes ? { bytes: taken.bytes } : {}), minRawBytes }) : (ahead ?? undefined);
  if (!scan) return undefined;
  const inMemory = scan.heads && taken.bytes ? { heads: scan.heads, bytes: taken.bytes, offset: taken.offset } : undefined;
  return { rest: scan.rest, utf8: scan.utf8, large: new LargeStrings(fd, read, scan.large, isOpen, services, wholeValueBytes, inMemory) };
}

/** A line handed over by range (`byRange`) read into its holder now; false when the file shrank. */
export function readTakenLine(fd: number, read: ReadSync, taken: TakenLine, length: number): boolean {
  if (!taken.byRange) return true;
  const bytes = readExactly(fd, taken.offset, length, read);
  taken.byRange = false;
  if (!bytes) return false;
  taken.bytes = bytes;
  return true;
}
