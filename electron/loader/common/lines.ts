/**
 * A streaming line splitter over the raw bytes of a file descriptor. The file is never held as one
 * string (V8 strings stop near 512 MB, and a sidecar may be larger): lines are found by scanning a
 * reusable buffer for `\n`, and only a line that straddles two reads is copied.
 */
import { readSync } from 'node:fs';

/** `fs.readSync`'s positional form; injected by tests to count or fake reads. */
export type ReadSync = (fd: number, buffer: Uint8Array, offset: number, length: number, position: number) => number;

export const DEFAULT_CHUNK_BYTES = 1024 * 1024;

export interface SplitLine {
  /** 1-based line number; empty lines are counted even though they are not yielded. */
  number: number;
  /** Byte offset of the line's first byte in the file. */
  offset: number;
  /** Length in bytes, without the `\n` and without a `\r` before it. */
  length: number;
  /** False only for a last line that has no `\n`. */
  terminated: boolean;
  /**
   * The line's bytes (`length` of them). When the line lies inside one read it is a view of the
   * splitter's reusable buffer, valid only until the next line is requested: decode or copy it
   * first. Absent when the line is longer than `maxLineBytes`.
   */
  bytes?: Buffer;
}

export interface SplitOptions {
  /** Size of the reusable read buffer (default 1 MiB). Tests use a few bytes to cross boundaries. */
  chunkSize?: number;
  /** File offset to start at (default 0): the first byte of a line. */
  start?: number;
  /** Number of the line at `start` (default 1), so a pass resumed mid-file keeps its numbers. */
  firstLine?: number;
  /**
   * File offset to stop at (default: end of file). A file still being appended to is read up to
   * its size when it was opened, so one pass sees one consistent prefix.
   */
  end?: number;
  /** A line longer than this is yielded without `bytes`, and is never accumulated in memory. */
  maxLineBytes?: number;
  /**
   * A line of this many bytes or more before its `\n` (and at most maxLineBytes) is yielded without
   * `bytes` too, and not accumulated, but still skipped when blank: for a reader that reads such
   * lines by range itself.
   */
  keepBytesBelow?: number;
  /** Called after each read with the file offset reached. */
  onRead?: (position: number) => void;
  readSync?: ReadSync;
}

const LF = 0x0a;
const CR = 0x0d;

/** True for a line that holds nothing but spaces, tabs and carriage returns: not a record. */
function isBlank(bytes: Buffer): boolean {
  for (const b of bytes) if (b !== 0x20 && b !== 0x09 && b !== CR) return false;
  return true;
}

/** Where the complete lines of a pass end: the start of the line after the last terminated one. */
export interface SplitEnd {
  /** File offset of that line's first byte (the end of the pass when every line was terminated). */
  offset: number;
  /** Its line number. */
  line: number;
}

/**
 * Yields every non-blank line of the file open at `fd`, in order. Empty and whitespace-only lines
 * are skipped (they are not records) but still counted in line numbers. Returns where the
 * terminated lines end: a pass resumed there (`start`, `firstLine`) reads what follows.
 */
export function* splitLines(fd: number, options: SplitOptions = {}): Generator<SplitLine, SplitEnd, void> {
  const chunkSize = Math.max(1, Math.floor(options.chunkSize ?? DEFAULT_CHUNK_BYTES));
  const maxLineBytes = options.maxLineBytes ?? Number.POSITIVE_INFINITY;
  const keepBelow = options.keepBytesBelow ?? Number.POSITIVE_INFINITY;
  const read = options.readSync ?? readSync;
  // A pass that ends within one chunk reads into a buffer of its size: a small file's pass (a
  // library indexes thousands) does not take a megabyte from the allocator to read a kilobyte.
  const buffer = Buffer.allocUnsafe(Math.max(0, Math.min(chunkSize, (options.end ?? Number.POSITIVE_INFINITY) - (options.start ?? 0))));

  let position = options.start ?? 0;
  let lineNumber = (options.firstLine ?? 1) - 1;
  /** File offset of the current (unfinished) line. */
  let lineStart = position;
  /** Copies of the current line's earlier segments, when it straddles reads. */
  let pending: Buffer[] = [];
  let pendingLength = 0;
  /** The current line has grown past maxLineBytes: its bytes are no longer kept. */
  let oversized = false;
  /** The current line has reached keepBytesBelow: its bytes are not kept, its blankness is tracked. */
  let unkept = false;
  /** A byte other than space, tab or CR was seen in the current line's unkept segments. */
  let inked = false;
  /** The current unkept line's first byte. */
  let firstByte = -1;
  const drop = (segment: Buffer) => {
    if (!inked && !isBlank(segment)) inked = true;
  };
  /** Stops keeping the current line's bytes: what was kept (`pending`, then `next`) only counts for blankness. */
  const unkeep = (next: Buffer) => {
    unkept = true;
    firstByte = (pending[0] ?? next)[0] ?? -1;
    for (const p of pending) drop(p);
    pending = [];
  };
  /** Last byte of the current line seen so far (to drop a `\r` before the `\n`). */
  let lastByte = -1;

  const finish = (rawLength: number, terminated: boolean, bytes: Buffer | undefined): SplitLine | undefined => {
    lineNumber++;
    const length = lastByte === CR ? rawLength - 1 : rawLength;
    const line: SplitLine = { number: lineNumber, offset: lineStart, length, terminated };
    // A line dropped only for keepBytesBelow is skipped when blank, as a kept one would be.
    if (bytes === undefined && unkept && !oversized && rawLength <= maxLineBytes && (length === 0 || ((firstByte === 0x20 || firstByte === 0x09) && !inked))) return undefined;
    if (bytes !== undefined) {
      const trimmed = bytes.length > length ? bytes.subarray(0, length) : bytes;
      if (length === 0 || ((trimmed[0] === 0x20 || trimmed[0] === 0x09) && isBlank(trimmed))) return undefined;
      line.bytes = trimmed;
    }
    return line;
  };

  const end = options.end ?? Number.POSITIVE_INFINITY;
  for (;;) {
    const want = Math.min(chunkSize, end - position);
    if (want <= 0) break;
    const n = read(fd, buffer, 0, want, position);
    if (n <= 0) break;
    position += n;
    options.onRead?.(position);
    const chunk = buffer.subarray(0, n);
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(LF, start);
      if (nl === -1) {
        // The rest of this read belongs to a line that continues in the next one.
        const segment = chunk.subarray(start);
        if (segment.length > 0) {
          if (!oversized && pendingLength + segment.length > maxLineBytes) {
            oversized = true;
            pending = [];
          }
          if (!oversized && !unkept && pendingLength + segment.length >= keepBelow) unkeep(segment);
          if (unkept) drop(segment);
          if (!oversized && !unkept) pending.push(Buffer.from(segment));
          pendingLength += segment.length;
          lastByte = segment[segment.length - 1] ?? lastByte;
        }
        break;
      }
      const segment = chunk.subarray(start, nl);
      const rawLength = pendingLength + segment.length;
      if (segment.length > 0) lastByte = segment[segment.length - 1] ?? lastByte;
      let bytes: Buffer | undefined;
      if (!oversized && !unkept && rawLength >= keepBelow && rawLength <= maxLineBytes) unkeep(segment);
      if (unkept) drop(segment);
      if (!oversized && !unkept && rawLength <= maxLineBytes) {
        bytes = pending.length === 0 ? segment : Buffer.concat([...pending, segment], rawLength);
      }
      const line = finish(rawLength, true, bytes);
      if (line) yield line;
      lineStart += rawLength + 1;
      pending = [];
      pendingLength = 0;
      oversized = false;
      unkept = false;
      inked = false;
      lastByte = -1;
      start = nl + 1;
    }
  }
  const complete: SplitEnd = { offset: lineStart, line: lineNumber + 1 };
  if (pendingLength > 0) {
    if (!oversized && !unkept && pendingLength >= keepBelow) unkeep(Buffer.alloc(0));
    const bytes = oversized || unkept ? undefined : Buffer.concat(pending, pendingLength);
    const line = finish(pendingLength, false, bytes);
    if (line) yield line;
  }
  return complete;
}

/**
 * Reads exactly `length` bytes at `position`, or returns undefined when the file is shorter (it was
 * truncated since it was indexed). `into`: a buffer of at least `length` bytes to read into (the
 * answer is then a view of it) instead of a new one.
 */
export function readExactly(fd: number, position: number, length: number, read: ReadSync = readSync, into?: Buffer): Buffer | undefined {
  const out = into ? into.subarray(0, length) : Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const n = read(fd, out, filled, length - filled, position + filled);
    if (n <= 0) return undefined;
    filled += n;
  }
  return out;
}
