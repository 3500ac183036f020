/**
 * Reading a sidecar's message records back by byte range, from the handles its indexing pass kept,
 * through one byte-budgeted cache. A record indexed without decoding its content keeps that content
 * in the file behind a FileContent (read by range, walked, hashed) and decodes only its preview.
 */
import { isUtf8 } from 'node:buffer';
import type { Cap, ChatMessage, Role } from '../../../shared/index';
import { ContentUnavailableError, applyCap, chatMessageSchema, floorSourceBoundary } from '../../../shared/index';
import type { ContentServices } from '../content/contentServices';
import { FileContent, hasSurrogateEscape } from '../content/fileContent';
import type { ReadSync } from '../common/lines';
import { readExactly } from '../common/lines';
import type { MessageCache } from './messageCache';
import type { RawContent } from '../content/rawRecord';
import { isPlainObject } from '../common/json';

/** The most a reader keeps allocated to read contents' bodies into, one after another. */
const SCRATCH_BYTES = 16 * 1024 * 1024;

/** A content read from the file keeps this much of its start as text, for display. */
export const PREVIEW_BYTES = 64 * 1024;

/**
 * A record read back whole is read with the bytes after it, up to this many: a walk in file order
 * (a view's, an estimate's, the check's) reads the next records from them, not one read each; a
 * walk backwards (the estimates counted ahead) gets the bytes before it (docs/worker.md "Rows:
 * each message read once"). A record longer than a quarter of it is read alone. Never past what
 * the index covers.
 */
export const READ_AHEAD_BYTES = 64 * 1024;

/** What the indexing pass keeps of a message record: where it is, never its content. */
export interface MessageHandle {
  line: number;
  offset: number;
  length: number;
  role: Role;
  tool_call_id?: string;
  contentBytes: number;
  hasArtifacts: boolean;
  /** Where the content lies in the file, for a record indexed without decoding it. */
  content?: RawContent;
  /** That record's rest (its `msg` with an empty content) as indexing validated it, when short. */
  rest?: ChatMessage;
  /** The content as a ByteSource, made on first read and kept: one per record. */
  source?: FileContent;
}


/** Reads message records back from the sidecar by handle, through one cache shared by all lists. */
export class SidecarReader {
  private closed = false;
  private scratch = Buffer.alloc(0);
  /**
   * The message read last, by its cache key: asked for again at once, it is not read again, kept by
   * the cache or not. `check` compares each message of the view with the history's copy of the same
   * record; one the cache cannot keep (tens of MB of tool-call arguments) was read and parsed twice
   * (docs/worker.md "Rows: each message read once").
   */
  private last: { key: number; msg: ChatMessage } | undefined;

  /** The bytes read ahead, from file offset `start`: the last records read and those after them. */
  private ahead = { start: 0, length: 0, bytes: Buffer.alloc(0) };

  constructor(
    private readonly fd: number,
    private readonly read: ReadSync,
    private readonly cache: MessageCache<ChatMessage>,
    /** The load's services, which every content read here uses (contentServices.ts). */
    private readonly services: ContentServices,
    /** Where the index ends: no read goes past it (the file may be growing). */
    private readonly indexedEnd: () => number = () => Number.MAX_SAFE_INTEGER,
  ) {}

  /** The record's `msg`, validated; with `cap`, the capped copy history held. */
  message(handle: MessageHandle, cap?: Cap): ChatMessage | undefined {
    if (this.closed) return undefined;
    // By line; the capped copy history held under the line's negative (a number: no string made and hashed per read).
    const key = cap ? -1 - handle.line : handle.line;
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    if (this.last?.key === key) return this.last.msg;
    let msg: ChatMessage | undefined;
    if (cap) {
      const full = this.message(handle);
      msg = full && applyCap(full, cap);
    } else {
      msg = handle.content ? this.readAround(handle, handle.content) : this.readRecord(handle);
    }
    // Charged by the record's length, not only its content: tool_calls arguments can be large too.
    const cost = cap ? Buffer.byteLength(msg?.content ?? '', 'utf8') : handle.content ? handle.length - handle.content.rawLength + 256 : Math.max(handle.length, handle.contentBytes);
    if (msg !== undefined) {
      this.cache.set(key, msg, cost);
      this.last = { key, msg };
    }
    return msg;
  }

  /**
   * A record indexed without its content: the rest of the record is read and validated, the
   * content stays in the file behind a FileContent, and `content` is its first PREVIEW_BYTES,
   * decoded when asked for.
   */
  private readAround(handle: MessageHandle, content: RawContent): ChatMessage | undefined {
    const rest = handle.rest ?? this.restOf(handle, content);
    return rest && this.withContent(rest, this.contentSource(handle, content));
  }

  /** The record's `msg` with an empty content: the record read and validated without its content's body. */
  private restOf(handle: MessageHandle, content: RawContent): ChatMessage | undefined {
    try {
      const head = readExactly(this.fd, handle.offset, content.start - handle.offset, this.read);
      const tailStart = content.start + content.rawLength;
      const tail = readExactly(this.fd, tailStart, handle.offset + handle.length - tailStart, this.read);
      if (!head || !tail) return undefined;
      const value = JSON.parse(Buffer.concat([head, tail]).toString('utf8')) as unknown;
      if (!isPlainObject(value)) return undefined;
      const parsed = chatMessageSchema.safeParse(value.msg);
      return parsed.success ? parsed.data : undefined;
    } catch {
      // The file changed under us since it was indexed: the message reads as a hole.
      return undefined;
    }
  }

  /**
   * The record's `msg` with its whole content as text, as parsing the line gives it: policy replay
   * (docs/policy-replay.md) reads every message once, in file order, so this is never cached. A
   * record indexed without its content keeps its validated rest: only the content's body is read
   * and decoded. Undefined when the record can no longer be read.
   */
  wholeMessage(handle: MessageHandle): ChatMessage | undefined {
    if (this.closed) return undefined;
    const content = handle.content;
    if (!content) return this.readRecord(handle);
    const rest = handle.rest ?? this.restOf(handle, content);
    if (!rest) return undefined;
    try {
      // The body between its quotes, decoded as JSON.parse decodes the line (bad UTF-8 as U+FFFD).
      const quoted = this.bodyBuffer(content.rawLength + 2);
      quoted[0] = 0x22;
      quoted[content.rawLength + 1] = 0x22;
      if (!readExactly(this.fd, content.start, content.rawLength, this.read, quoted.subarray(1))) return undefined;
      const text: unknown = JSON.parse(quoted.toString('utf8'));
      return typeof text === 'string' ? { ...rest, content: text } : undefined;
    } catch {
      // The file changed under us since it was indexed: the message reads as a hole.
      return undefined;
    }
  }

  /**
   * For policy replay (docs/policy-replay.md): a record indexed without its content, as its validated
   * rest with the content left in the file (`large`, and `content` empty), when the bytes the body
   * decodes to are what parsing the line gives, text for text: valid UTF-8 (known when indexing
   * hashed it, else the body is checked here) and no `\u` escape of a surrogate (JSON.parse keeps a
   * lone one, which no UTF-8 holds). Undefined otherwise (wholeMessage decodes it), or when the
   * record can no longer be read.
   */
  messageInFile(handle: MessageHandle): ChatMessage | undefined {
    const content = handle.content;
    if (this.closed || !content) return undefined;
    try {
      if (content.validUtf8 !== true && content.rawLength > SCRATCH_BYTES) return undefined;
      if (content.plain !== true && !this.plainBody(content, content.validUtf8 !== true)) return undefined;
      content.plain = true;
    } catch {
      // The file changed under us since it was indexed: decoding it fails alike.
      return undefined;
    }
    const rest = handle.rest ?? this.restOf(handle, content);
    if (!rest) return undefined;
    return { ...rest, content: '', large: this.contentSource(handle, content) };
  }

  /**
   * Whether the body holds no `\u` escape of a surrogate (a backslash then `ud` or `uD`, found
   * wherever it is: a literal backslash before it only makes the answer no), and, with
   * `checkUtf8`, is valid UTF-8 (then read whole: at most SCRATCH_BYTES).
   */
  private plainBody(content: RawContent, checkUtf8: boolean): boolean {
    const window = checkUtf8 ? content.rawLength : Math.min(content.rawLength, 1024 * 1024);
    const buf = this.bodyBuffer(window);
    for (let at = 0; at < content.rawLength; ) {
      const length = Math.min(window, content.rawLength - at);
      const piece = buf.subarray(0, length);
      if (!readExactly(this.fd, content.start + at, length, this.read, piece)) throw new Error('the file is shorter than when it was indexed');
      if (checkUtf8 && !isUtf8(piece)) return false;
      if (hasSurrogateEscape(piece)) return false;
      if (at + length >= content.rawLength) break;
      // The next window starts 2 bytes back, so an escape across the cut is seen whole.
      at += length - 2;
    }
    return true;
  }

  /** A buffer of `length` bytes for one body: this reader's own up to SCRATCH_BYTES (replay reads one body after another), else a fresh one. */
  private bodyBuffer(length: number): Buffer {
    if (length > SCRATCH_BYTES) return Buffer.allocUnsafe(length);
    if (this.scratch.length < length) this.scratch = Buffer.allocUnsafe(Math.min(SCRATCH_BYTES, Math.max(length, 2 * this.scratch.length)));
    return this.scratch.subarray(0, length);
  }

  /** The message `rest` with its content read from `source`. */
  private withContent(rest: ChatMessage, source: FileContent): ChatMessage {
    const msg: ChatMessage = { ...rest, large: source };
    // Decoded on each use and never kept, so a cached message costs only its rest.
    Object.defineProperty(msg, 'content', { enumerable: true, configurable: true, get: () => previewOf(source) });
    return msg;
  }

  /**
   * The content a record keeps in the file, as the one FileContent its reads share, made without
   * reading the record (the background pass lists the contents a search will read).
   */
  contentSource(handle: MessageHandle, content: RawContent): FileContent {
    return (handle.source ??= new FileContent(this.fd, this.read, content, () => !this.closed, this.services));
  }

  /**
   * A record's bytes, valid until the next read here: from the bytes read ahead when they hold
   * them, else read with the bytes after them, or before them when the walk goes backwards.
   */
  private recordBytes(offset: number, length: number): Buffer | undefined {
    const a = this.ahead;
    if (offset >= a.start && offset + length <= a.start + a.length) return a.bytes.subarray(offset - a.start, offset - a.start + length);
    if (length > READ_AHEAD_BYTES / 4) return readExactly(this.fd, offset, length, this.read);
    // A walk backwards (a record before the bytes read last) gets the bytes before the record.
    const start = a.length > 0 && offset < a.start ? Math.max(0, offset + length - READ_AHEAD_BYTES) : offset;
    const want = Math.min(READ_AHEAD_BYTES, this.indexedEnd() - start);
    if (want < offset + length - start) return readExactly(this.fd, offset, length, this.read);
    if (a.bytes.length === 0) a.bytes = Buffer.allocUnsafe(READ_AHEAD_BYTES);
    a.length = 0;
    let filled = 0;
    while (filled < want) {
      const n = this.read(this.fd, a.bytes, filled, want - filled, start + filled);
      if (n <= 0) break;
      filled += n;
    }
    a.start = start;
    a.length = filled;
    return offset + length <= start + filled ? a.bytes.subarray(offset - start, offset - start + length) : undefined;
  }

  private readRecord(handle: MessageHandle): ChatMessage | undefined {
    try {
      const bytes = this.recordBytes(handle.offset, handle.length);
      if (!bytes) return undefined;
      const value = JSON.parse(bytes.toString('utf8')) as unknown;
      if (!isPlainObject(value)) return undefined;
      const parsed = chatMessageSchema.safeParse(value.msg);
      return parsed.success ? (parsed.data) : undefined;
    } catch {
      // The file changed under us since it was indexed: the message reads as a hole.
      return undefined;
    }
  }

  close(): void {
    this.closed = true;
    this.scratch = Buffer.alloc(0);
    this.ahead = { start: 0, length: 0, bytes: Buffer.alloc(0) };
    this.last = undefined;
    this.cache.clear();
  }
}

/** The first PREVIEW_BYTES of a content as text; empty when the file no longer holds it. */
function previewOf(source: FileContent): string {
  try {
    return Buffer.from(source.read(0, floorSourceBoundary(source, Math.min(source.length, PREVIEW_BYTES)))).toString('utf8');
  } catch (e) {
    if (e instanceof ContentUnavailableError) return '';
    throw e;
  }
}
