/**
 * What the scan-ahead thread (scanAheadThread.ts) and the indexing pass that starts it
 * (scanAhead.ts) share: the thread's data, the message it posts per line, and the slots of their
 * shared memory. docs/streaming-import.md "Long lines scanned ahead".
 */
import type { MessagePort } from 'node:worker_threads';
import type { LineScan } from './largeStrings';

// Int32 slots of `control`.
/** Set by the pass: the thread stops before its next read. */
export const STOP = 0;
/** Lines the thread has posted (it notifies here after each). */
export const POSTED = 1;
/** Lines the pass has received (the thread waits here when it is AHEAD_LINES ahead). */
export const RECEIVED = 2;
/** 1 while the thread is inside a read of the file (the pass waits here before the file is closed). */
export const READING = 3;
/** 1 once the thread has nothing more to post. */
export const ENDED = 4;
export const CONTROL_SLOTS = 5;

// Float64 slots of `positions` (file offsets pass 2^31).
/** The offset up to which the pass has taken its lines: the thread skips a line that starts before it. */
export const PASS_AT = 0;
/** The offset of the line the thread is scanning, or -1. */
export const THREAD_AT = 1;
export const POSITION_SLOTS = 2;

export interface ScanAheadData {
  fd: number;
  /** The pass's range: the first byte of a line, and where the pass stops reading. */
  start: number;
  end: number;
  /** Where the pass's reads began: the thread's reads end on the same grid of `chunkBytes`, so a line lies in one read for both or for neither. */
  grid: number;
  /** A line of `lowBytes` to `highBytes` bytes (its `\n` left out) is scanned. */
  lowBytes: number;
  highBytes: number;
  /** The line's bytes are read into memory when it is at most this long (LineSource.inMemoryLineBytes), as the pass does. */
  inMemoryLineBytes: number;
  /** scanLine's `minRawBytes`. */
  minRawBytes: number;
  /** The pass's token (largeStringTokenJson). */
  tokenJson: Uint8Array;
  chunkBytes: number;
  /** Lines posted and not yet received at most. */
  aheadLines: number;
  control: SharedArrayBuffer;
  positions: SharedArrayBuffer;
  port: MessagePort;
}

/** One line scanned: `scan` null when it holds no large value or is not one well-formed record; `failed` when the scan threw. */
export interface ScannedLine {
  offset: number;
  length: number;
  scan: LineScan | null;
  failed?: true;
}
