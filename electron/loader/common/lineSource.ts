/**
 * The indexing pass of an imported JSONL file (a Claude Code transcript, a Codex rollout): its lines
 * are read in chunks, from where the previous pass stopped up to `end`, and handed one by one to the
 * format's `take`; the pass yields to the event loop every few milliseconds, and once at
 * PREVIEW_AFTER_BYTES when it owes a preview (the first pause from there offers it; every pause
 * honours cancellation). Resumable: a line is taken once, whole, and a last line without its
 * newline only by a `final` pass, so two passes take the same lines as one. A long pass has its
 * source's long lines scanned ahead on a thread (`scansLines`, content/scanAhead.ts).
 */
import { isUtf8 } from 'node:buffer';
import { readSync } from 'node:fs';
import type { LineScan } from '../content/largeStrings';
import { SCAN_AHEAD_AFTER_LINES, SCAN_AHEAD_MIN_BYTES, ScanAhead } from '../content/scanAhead';
import { readExactly } from './lines';
import type { TakenLine } from './takenLine';
import { safeClose } from './openFile';
import type { IndexPass, IndexStop, OpenFile, SessionSource, SourceIndex } from './source';
import { LoadCancelled, PREVIEW_AFTER_BYTES } from './source';


/**
 * The line's text (UTF-8, a `\r` before the `\n` dropped) and whether its bytes were valid UTF-8;
 * undefined for a line over the limit. The holder is emptied first: the caller's parse then runs
 * with no reference to the bytes left (a line of 250 MB was its buffer, its text and its parsed
 * value at once).
 */
export function takeLineText(line: TakenLine): { text: string; utf8: boolean } | undefined {
  const bytes = line.bytes;
  if (!bytes) return undefined;
  line.bytes = undefined;
  const text = bytes.toString('utf8');
  return { text: text.endsWith('\r') ? text.slice(0, -1) : text, utf8: isUtf8(bytes) };
}

/** How long a pass runs before it gives the event loop a turn (as the sidecar's pass does). */
const YIELD_MS = 16;
const LF = 0x0a;
/** See `LineSource.inMemoryLineBytes`. */
export const IN_MEMORY_LINE_BYTES = 16 * 1024 * 1024;
/** See `LineSource.piecesBytes`. */
export const LINE_PIECES_BYTES = 4 * 1024 * 1024;

export abstract class LineSource implements SessionSource {
  abstract readonly format: SessionSource['format'];
  /** See SessionSource.readsAfterIndexing: a format that leaves strings in the file says so (content/largeStrings.ts `leavesStringsInFile`). */
  get readsAfterIndexing(): boolean {
    return false;
  }
  /** See SessionSource.appends: a line-based transcript grows by appended lines. */
  get appends(): boolean {
    return true;
  }
  /** The first byte not yet taken: always the start of a line. */
  private offset = 0;
  private lineNo = 1;
  private closed = false;
  /**
   * A line that runs past its chunk is kept in pieces up to this many bytes; a longer one is read
   * by range once its end is found (as the sidecar's reader reads lines over IN_MEMORY_LINE_BYTES).
   * Tests lower it.
   */
  inMemoryLineBytes = IN_MEMORY_LINE_BYTES;
  /**
   * A line that runs past its chunk is kept in pieces up to this many bytes (at most
   * `inMemoryLineBytes`); a longer one is only scanned for its end, then read again in one buffer
   * of its size, or by range past `inMemoryLineBytes`. Its pieces were kept up to 16 MiB, which
   * set a 250 MB line's peak; a line of 4–16 MiB is read twice instead (docs/large-lines.md).
   * Tests lower it.
   */
  piecesBytes = LINE_PIECES_BYTES;
  /** A pass over this many bytes or more has its long lines scanned ahead on a thread (`scansLines`). Tests lower it. */
  scanAheadMinBytes = SCAN_AHEAD_MIN_BYTES;
  /**
   * The pass scans this many long lines itself before it starts the thread: a file of a few huge
   * lines (one of 250 MB) would pay a thread's memory for nothing, the pass waiting for each scan.
   * Tests lower it (0: the thread starts with the pass).
   */
  scanAheadAfterLines = SCAN_AHEAD_AFTER_LINES;
  /** Tests set it: a pass waits for its thread's scan of every long line (ScanAheadOptions.patient). */
  waitsForScans = false;

  constructor(readonly file: OpenFile) {}

  /** False once closed: contents read by range from the file then fail. */
  protected get isOpen(): boolean {
    return !this.closed;
  }

  /**
   * True when a line of `length` bytes read by range (longer than `inMemoryLineBytes`) is handed to
   * `take` without its bytes (`byRange`), for the source to read as it likes (largeStrings.ts).
   */
  protected takesByRange(_length: number): boolean {
    return false;
  }

  /**
   * The long lines this source scans for their large values (`take`, largeStrings.ts `scanLine`):
   * a line of `lowBytes` up to the pass's `maxRecordBytes`, scanned with `minRawBytes`. A pass over
   * SCAN_AHEAD_MIN_BYTES or more has them scanned ahead on a thread (`scannedAhead`). None by default.
   */
  protected scansLines(): { lowBytes: number; minRawBytes: number } | undefined {
    return undefined;
  }

  /** The running pass's scan-ahead thread, while it runs. */
  private ahead: ScanAhead | undefined;
  /** What the running pass's thread would scan, until it starts. */
  private aheadPlan: { lowBytes: number; minRawBytes: number; end: number; grid: number; chunkBytes: number; highBytes: number; scannedHere: number } | undefined;
  /** Lines whose scan the last passes took from their scan-ahead thread (tests). */
  scannedAheadLines = 0;

  /**
   * The scan of the long line `[offset, offset + length)` made ahead on the pass's thread (null: it
   * holds no large value); undefined when there is none: `take` scans it itself.
   */
  protected scannedAhead(offset: number, length: number): LineScan | null | undefined {
    if (this.ahead) return this.ahead.take(offset, length);
    // The thread starts once the pass has scanned `scanAheadAfterLines` long lines itself, from the next line.
    if (this.aheadPlan && ++this.aheadPlan.scannedHere >= this.scanAheadAfterLines) this.startAhead(offset + length + 1);
    return undefined;
  }

  /**
   * One line (without its `\n`): `line.bytes` is undefined when the line is longer than
   * `maxRecordBytes` (`length` is then the line's); `torn` when it is the file's last line and has
   * no newline. Take the bytes with `takeLineText(line)`: nothing else holds them then, so a long
   * line's buffer can be collected while its text is parsed.
   */
  protected abstract take(line: number, bytes: TakenLine, length: number, torn: boolean, pass: IndexPass): void;

  abstract indexed(): SourceIndex;

  async indexTo(end: number, pass: IndexPass): Promise<IndexStop> {
    let onFirstPause = pass.onFirstPause;
    let sliceStart = performance.now();
    // A pass owed a preview pauses as soon as it has taken PREVIEW_AFTER_BYTES, whatever the clock
    // says: a machine fast enough to index the whole file within a few slices still shows it (and
    // a load cancelled there stops).
    const due = () => (onFirstPause !== undefined && this.offset >= PREVIEW_AFTER_BYTES) || performance.now() - sliceStart >= YIELD_MS;
    const pause = async () => {
      if (onFirstPause && this.offset >= PREVIEW_AFTER_BYTES) {
        onFirstPause();
        onFirstPause = undefined;
      }
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (pass.signal?.aborted) throw new LoadCancelled('the load was cancelled');
      sliceStart = performance.now();
    };
    if (pass.signal?.aborted) throw new LoadCancelled('the load was cancelled');
    // A read injected by a test (counting, failing) is one the thread would not make.
    const scans = end - this.offset >= this.scanAheadMinBytes && pass.read === readSync ? this.scansLines() : undefined;
    this.aheadPlan = scans ? { ...scans, end, grid: this.offset, chunkBytes: Math.max(pass.chunkSize, 1), highBytes: pass.maxRecordBytes, scannedHere: 0 } : undefined;
    if (this.scanAheadAfterLines === 0) this.startAhead(this.offset);
    try {
      return await this.indexLines(end, pass, due, pause);
    } finally {
      this.aheadPlan = undefined;
      this.stopAhead();
    }
  }

  /** The running pass's thread, once started from the line at `start` (its reads on the pass's chunk grid, so a line is in one read for both). */
  private startAhead(start: number): void {
    const plan = this.aheadPlan;
    if (!plan || this.ahead || plan.end - start < this.scanAheadMinBytes) return;
    this.aheadPlan = undefined;
    this.ahead = ScanAhead.start({ fd: this.file.fd, start, grid: plan.grid, end: plan.end, lowBytes: plan.lowBytes, highBytes: plan.highBytes, inMemoryLineBytes: this.inMemoryLineBytes, minRawBytes: plan.minRawBytes, chunkBytes: plan.chunkBytes, patient: this.waitsForScans });
  }

  private stopAhead(): void {
    if (!this.ahead) return;
    this.ahead.stop();
    this.scannedAheadLines += this.ahead.taken;
    this.ahead = undefined;
  }

  private async indexLines(end: number, pass: IndexPass, due: () => boolean, pause: () => Promise<void>): Promise<IndexStop> {
    // A line that ends in the chunk it starts in is handed over as a view of that chunk; one that
    // runs on is kept in pieces up to `piecesBytes`, past that only scanned for its end and then
    // read again into one buffer of its exact size (pieces and their concatenation were twice a
    // 250 MB line in buffers), or by range past `inMemoryLineBytes`; one over the limit is never
    // read whole.
    let readAt = this.offset;
    let pieces: Buffer[] = [];
    let piecesLength = 0;
    /** The current line ran past `piecesBytes`: its pieces were let go. */
    let dropped = false;
    let shrank = false;
    // The bytes travel in the holder alone (no local keeps them): `take` empties it.
    const finish = (line: TakenLine, total: number, torn: boolean) => {
      this.take(this.lineNo++, line, total, torn, pass);
      const consumed = total + (torn ? 0 : 1);
      this.offset += consumed;
      pass.progress.add(consumed);
      pieces = [];
      piecesLength = 0;
      dropped = false;
    };
    /** The current line `[this.offset, lineEnd)` whose last piece is `last`; null when the file shrank. */
    const whole = (last: Buffer, lineEnd: number): TakenLine | null => {
      const total = lineEnd - this.offset;
      const offset = this.offset;
      if (total > pass.maxRecordBytes) return { bytes: undefined, offset };
      if (!dropped) return { bytes: pieces.length === 0 ? last : Buffer.concat([...pieces, last], total), offset };
      if (total > this.inMemoryLineBytes && this.takesByRange(total)) return { bytes: undefined, offset, byRange: true };
      const bytes = readExactly(this.file.fd, offset, total, pass.read);
      return bytes ? { bytes, offset } : null;
    };
    // Every chunk is read into one array: a line is a view of it only while `take` has it (which
    // keeps none of its bytes), and the piece of a line that runs on is copied out. A new array a
    // chunk was 537 MB of garbage outside the JS heap for the bench's session, and every one
    // fresh pages for the kernel to map (docs/streaming-import.md).
    const chunkArray = Buffer.allocUnsafe(Math.max(0, Math.min(end - readAt, Math.max(pass.chunkSize, 1))));
    reading: while (readAt < end) {
      const want = Math.min(end - readAt, Math.max(pass.chunkSize, 1));
      const chunk = readExactly(this.file.fd, readAt, want, pass.read, chunkArray);
      if (!chunk) {
        shrank = true; // what was read stays indexed
        break;
      }
      const chunkAt = readAt;
      readAt += want;
      let start = 0;
      for (let nl = chunk.indexOf(LF); nl !== -1; nl = chunk.indexOf(LF, start)) {
        const line = whole(chunk.subarray(start, nl), chunkAt + nl);
        if (line === null) {
          shrank = true;
          break reading;
        }
        finish(line, chunkAt + nl - this.offset, false);
        start = nl + 1;
        if (due()) await pause();
      }
      if (start < chunk.length && !dropped) {
        const rest = chunk.subarray(start);
        if (piecesLength + rest.length <= Math.min(this.piecesBytes, this.inMemoryLineBytes)) {
          pieces.push(Buffer.from(rest));
          piecesLength += rest.length;
        } else {
          pieces = [];
          dropped = true;
        }
      }
      if (due()) await pause();
    }
    // A last line without its newline: taken (torn) by a final pass that read up to `end`, else left for the next pass.
    if (!shrank && readAt > this.offset && pass.final && readAt >= end) {
      const line = whole(Buffer.alloc(0), readAt);
      if (line !== null) finish(line, readAt - this.offset, true);
    }
    return { offset: this.offset, line: this.lineNo };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    // Its thread reads the file: it is out of any read before the file is closed.
    this.stopAhead();
    safeClose(this.file.fd);
  }
}
