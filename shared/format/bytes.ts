/**
 * Content bytes as ByteSources: in memory for ordinary messages, read by range for large ones, so
 * the resolver treats a 200 MB tool output like any other without ever holding it whole.
 */
import type { ByteSource, ChatMessage, Sha256 } from './types';
import { bytesEqual, bytesIndexOf, floorCharBoundary, utf8Encode, utf8EncodeInto, utf8Length } from './utf8';

/** Bytes read per step when a source is walked whole (hashing, comparing, scanning). */
export const SOURCE_CHUNK_BYTES = 1024 * 1024;

/** Bytes already in memory. */
export function memorySource(bytes: Uint8Array): ByteSource & { readonly bytes: Uint8Array } {
  return { bytes, length: bytes.length, read: (start, end) => bytes.subarray(start, end), readInto: (start, end, target, at) => target.set(bytes.subarray(start, end), at) };
}

/** True when `source` holds its bytes in memory (a `memorySource`): its `bytes` are a byte array, not merely a member of that name. */
export function isMemorySource(source: ByteSource): source is ByteSource & { readonly bytes: Uint8Array } {
  return 'bytes' in source && source.bytes instanceof Uint8Array;
}

/** The content bytes of a message: its large source, or the UTF-8 of `content`. */
export function contentSource(msg: ChatMessage): ByteSource {
  return msg.large ?? memorySource(utf8Encode(msg.content));
}

/**
 * The UTF-8 of `text`, encoded at each read and not held: for the messages of a range of tens of
 * thousands, whose encoded copies held at once were some 230 MB beside their strings while a
 * compaction's original was checked (docs/streaming-import.md). Not a memory source.
 */
export function textSource(text: string): ByteSource {
  return new TextSource(text);
}

class TextSource implements ByteSource {
  readonly length: number;
  constructor(readonly text: string) {
    this.length = utf8Length(text);
  }
  read(start: number, end: number): Uint8Array {
    return utf8Encode(this.text).subarray(start, end);
  }
  readInto(start: number, end: number, target: Uint8Array, at: number): void {
    if (start <= 0 && end >= this.length) utf8EncodeInto(this.text, target, at);
    else target.set(this.read(start, end), at);
  }
}

/** True when `source` is a `textSource`: its bytes are its text's UTF-8, never encoded until read. */
export function isTextSource(source: ByteSource): boolean {
  return source instanceof TextSource;
}

/** `contentSource(msg)`, a content held in memory encoded only when read (`textSource`). */
export function encodedOnReadSource(msg: ChatMessage): ByteSource {
  return msg.large ?? textSource(msg.content);
}

/**
 * A source that reads like `contentSource(msg)` over `[0, prefix]` (its bytes below `prefix`, and
 * whether `prefix` is a character boundary) without encoding the rest of a long content: the first
 * `prefix + 1` UTF-16 units are at least `prefix + 1` bytes, and only the last of them can differ
 * from the whole content's encoding (a surrogate pair cut in two), at or after byte `prefix`.
 * Its `length` is the content's only when that is at most `prefix`.
 */
export function contentPrefixSource(msg: ChatMessage, prefix: number): ByteSource {
  if (msg.large || msg.content.length <= prefix + 1) return contentSource(msg);
  return memorySource(utf8Encode(msg.content.slice(0, Math.max(0, prefix) + 1)));
}

/** `[start, end)` of a source in pieces of at most `size` bytes. */
export function* sourceChunks(source: ByteSource, start = 0, end = source.length, size = SOURCE_CHUNK_BYTES): Generator<Uint8Array> {
  for (let at = start; at < end; at += size) yield source.read(at, Math.min(end, at + size));
}

/** Bytes `[start, end)` of `source` written into `target` from `at`: by the source's own `readInto`, else copied from a read. */
export function readSourceInto(source: ByteSource, start: number, end: number, target: Uint8Array, at: number): void {
  if (end <= start) return;
  if (source.readInto) source.readInto(start, end, target, at);
  else target.set(source.read(start, end), at);
}

/** Windows `sourceWindows` lends, free for the next walk (a walk inside another takes its own). */
const freeWindows: Uint8Array[] = [];
/** Windows kept free at most: walks nest a few deep (a hash inside a read of a joined source). */
const FREE_WINDOWS_KEPT = 4;

/**
 * `[start, end)` of a source in pieces of at most `size` (SOURCE_CHUNK_BYTES), each a view of one window
 * the next piece is read into: for a walk that takes each piece before asking for the next and
 * keeps none (a hash, a count). The integrity check of a long session hashes hundreds of megabytes
 * of contents; read into new arrays, they were garbage outside the JS heap that the collector let
 * pile up to tens of megabytes before freeing (docs/streaming-import.md). A source held in memory
 * is walked in views of its own bytes.
 */
export function* sourceWindows(source: ByteSource, start = 0, end = source.length, size = SOURCE_CHUNK_BYTES): Generator<Uint8Array> {
  if (end <= start) return;
  if (isMemorySource(source)) {
    yield* sourceChunks(source, start, end, size);
    return;
  }
  // Windows of another size (tests cut texts at a few bytes) are the walk's own, not kept.
  const pooled = size === SOURCE_CHUNK_BYTES;
  const window = (pooled ? freeWindows.pop() : undefined) ?? new Uint8Array(size);
  try {
    for (let at = start; at < end; at += size) {
      const to = Math.min(end, at + size);
      readSourceInto(source, at, to, window, 0);
      yield window.subarray(0, to - at);
    }
  } finally {
    if (pooled && freeWindows.length < FREE_WINDOWS_KEPT) freeWindows.push(window);
  }
}

/**
 * ByteSource.findAll for a source read through `readInto`: `[start, end)` in windows of
 * `windowBytes` (each overlapping the next by the needle's length less one, so no occurrence falls
 * between two) read into one array, where the needle's bytes are looked for. A search's literal was
 * found before by decoding each window to text and running the engine over it. In UTF-8 the
 * occurrences are the same; in other bytes they are now at their own offsets (docs/streaming-import.md
 * "Texts searched as bytes").
 */
export function findInWindows(
  readInto: (start: number, end: number, target: Uint8Array, at: number) => void,
  length: number,
  needle: Uint8Array,
  start: number,
  end: number,
  onMatch: (offset: () => number) => boolean,
  windowBytes = SOURCE_CHUNK_BYTES,
  /** How a window is searched: `bytesIndexOf`, or the host's faster one (the Node side passes Buffer's). */
  indexOf: (haystack: Uint8Array, needle: Uint8Array, from: number) => number = bytesIndexOf,
): void {
  const to = Math.min(end, length);
  const n = needle.length;
  // Where the next occurrence may start: after the last one reported (they do not overlap).
  let next = Math.max(0, start);
  if (n === 0 || to - next < n) return;
  const window = new Uint8Array(Math.min(to - next, windowBytes + n - 1));
  for (let a = next; a + n <= to; a += windowBytes) {
    const b = Math.min(to, a + windowBytes + n - 1);
    readInto(a, b, window, 0);
    const view = window.subarray(0, b - a);
    for (let i = indexOf(view, needle, Math.max(0, next - a)); i !== -1; i = indexOf(view, needle, i + n)) {
      const at = a + i;
      if (!onMatch(() => at)) return;
      next = at + n;
    }
  }
}

/** The parts one after another, as one source; `findAll` through windows of `windowBytes` (findInWindows). */
export function concatSources(parts: readonly ByteSource[], windowBytes = SOURCE_CHUNK_BYTES): ByteSource {
  const starts: number[] = [];
  let length = 0;
  for (const p of parts) {
    starts.push(length);
    length += p.length;
  }
  const readInto = (start: number, end: number, target: Uint8Array, at: number): void => {
    // From the last part starting at or before `start` (a transcript of 60,000 messages is read
    // a MiB at a time: visiting every part at each read cost more than the reads).
    let lo = 0;
    let hi = parts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= start) lo = mid;
      else hi = mid - 1;
    }
    for (let k = lo; k < parts.length && (starts[k] as number) < end; k++) {
      const p = parts[k] as ByteSource;
      const s = starts[k] as number;
      const from = Math.max(start, s);
      const to = Math.min(end, s + p.length);
      // Each part written in place (a text encoded there, a file's bytes read there), not into an array of its own.
      readSourceInto(p, from - s, to - s, target, at + from - start);
    }
  };
  return {
    length,
    read(start, end) {
      const out = new Uint8Array(Math.max(0, end - start));
      readInto(start, end, out, 0);
      return out;
    },
    readInto,
    findAll: (needle, start, end, onMatch) => findInWindows(readInto, length, needle, start, end, onMatch, windowBytes),
  };
}

/** SHA-256 hex of a source: known ahead, or hashed piece by piece. */
export function sourceSha256(source: ByteSource, sha256: Sha256): string {
  if (source.sha256 !== undefined) return source.sha256;
  return sha256(isMemorySource(source) ? [source.bytes] : sourceWindows(source));
}

/** Bytes `[start, end)` of `source` as a source of their own, read from it when asked (the source itself for all of it). */
export function sliceSource(source: ByteSource, start: number, end: number): ByteSource {
  if (start === 0 && end === source.length) return source;
  return {
    length: end - start,
    read: (from, to) => source.read(start + from, start + to),
    readInto: (from, to, target, at) => readSourceInto(source, start + from, start + to, target, at),
  };
}

/** `floorCharBoundary` over a source: reads at most four bytes. */
export function floorSourceBoundary(source: ByteSource, offset: number): number {
  if (offset <= 0 || offset >= source.length) return Math.max(0, Math.min(offset, source.length));
  if (source.floorBoundary) return source.floorBoundary(offset);
  const from = Math.max(0, offset - 3);
  const window = source.read(from, offset + 1);
  return from + floorCharBoundary(window, offset - from);
}

/** True when the source's byte at `offset` does not continue a UTF-8 character. */
export function isSourceBoundary(source: ByteSource, offset: number): boolean {
  return floorSourceBoundary(source, offset) === offset;
}

/** Byte equality of two sources, piece by piece; equal known hashes answer without reading. */
export function sourcesEqual(a: ByteSource, b: ByteSource): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  if (a.sha256 !== undefined && b.sha256 !== undefined) return a.sha256 === b.sha256;
  for (let at = 0; at < a.length; at += SOURCE_CHUNK_BYTES) {
    const end = Math.min(a.length, at + SOURCE_CHUNK_BYTES);
    if (!bytesEqual(a.read(at, end), b.read(at, end))) return false;
  }
  return true;
}

/** True when the source begins with `prefix`. */
export function sourceStartsWith(source: ByteSource, prefix: Uint8Array): boolean {
  return source.length >= prefix.length && bytesEqual(source.read(0, prefix.length), prefix);
}

/** True when `needle` occurs in the source (pieces overlap by the needle's length). */
export function sourceIncludes(source: ByteSource, needle: Uint8Array): boolean {
  if (needle.length === 0) return true;
  let found = false;
  if (source.findAll) {
    source.findAll(needle, 0, source.length, () => {
      found = true;
      return false;
    });
    return found;
  }
  for (let at = 0; at < source.length; at += SOURCE_CHUNK_BYTES) {
    const piece = source.read(at, Math.min(source.length, at + SOURCE_CHUNK_BYTES + needle.length - 1));
    if (bytesIndexOf(piece, needle) !== -1) return true;
  }
  return false;
}
