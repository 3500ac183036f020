/**
 * Long lines scanned ahead on the second core (docs/streaming-import.md "Long lines scanned
 * ahead"). An indexing pass over a transcript (LineSource.indexTo) scans each line of 4 KiB or
 * more for its large values (largeStrings.ts `scanLine`) before it parses the rest: on the bench's
 * 537 MB Claude Code session about half a second of `check`'s one busy core, while the other
 * waited. A pass over enough bytes, once it has scanned SCAN_AHEAD_AFTER_LINES long lines itself,
 * now starts a thread (scanAheadThread.ts) that reads the rest of the range on its own (its reads
 * ending where the pass's do), finds the same lines and scans the long ones with the same function,
 * posting each scan; the pass takes a line's scan from it when it gets there (`take`).
 *
 * The answer is the pass's own either way: the thread scans the bytes the pass would, with its
 * token; a line the thread has not posted is scanned by the pass itself as before, and one it is
 * scanning is waited for (at most WAIT_MS, then scanned here too). A scan is taken only for the
 * same offset and length; a line the thread skipped or a scan that threw is the pass's again (it
 * reports what it finds). The pass says where it is (PASS_AT), so a thread behind it skips what it
 * has taken; the thread keeps at most AHEAD_LINES scans unreceived. `stop` (the pass's end, its
 * cancellation, the file's close) waits until the thread is out of any read, so a file closed after
 * it is never read by the thread again.
 */
import type { Worker } from 'node:worker_threads';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { threadBundle } from '../common/threadBundle';
import { startThread } from '../common/threadPool';
import type { LineScan } from './largeStrings';
import { largeStringTokenJson } from './largeStrings';
import type { ScanAheadData, ScannedLine } from './scanAheadProtocol';
import { CONTROL_SLOTS, ENDED, PASS_AT, POSITION_SLOTS, POSTED, READING, RECEIVED, STOP, THREAD_AT } from './scanAheadProtocol';

/** The thread's bundle (scanAheadThread.ts), beside the bundle running this code (threadBundle.ts). */
export const SCAN_AHEAD_BUNDLE = 'scanAheadThread.cjs';
/** A pass over fewer bytes scans its lines itself: a thread's start (its bundle, its heap) costs more than it saves. */
export const SCAN_AHEAD_MIN_BYTES = 32 * 1024 * 1024;
/** Long lines a pass scans itself before it starts the thread (LineSource.scanAheadAfterLines). */
export const SCAN_AHEAD_AFTER_LINES = 64;
/** Scans posted and not yet taken at most. */
const AHEAD_LINES = 256;
/** The thread, waiting for the pass to receive, is woken each time it has received this many more. */
const NOTIFY_EVERY = 32;
/** Longest wait for the line in the thread's hands; then the pass scans it too. */
const WAIT_MS = 2000;
/** A patient pass's longest wait for one line. */
const PATIENT_MS = 60_000;
/** Longest wait at `stop` for the thread to leave a read. */
const STOP_WAIT_MS = 5000;

export interface ScanAheadOptions {
  fd: number;
  /** The first byte of a line: where the thread starts. */
  start: number;
  /** Where the pass's reads began (at or before `start`): the thread's reads end where the pass's do, every `chunkBytes` from here. */
  grid: number;
  end: number;
  lowBytes: number;
  highBytes: number;
  inMemoryLineBytes: number;
  minRawBytes: number;
  chunkBytes: number;
  /** The thread's bundle (tests); threadBundle's by default. */
  script?: string;
  /**
   * Tests: the pass waits for the thread's scan of every line, while the thread runs, rather than
   * scanning one the thread has not reached itself; so each scan the pass takes is the thread's.
   */
  patient?: boolean;
}

export class ScanAhead {
  private readonly control: Int32Array;
  private readonly positions: Float64Array;
  private head: ScannedLine | undefined;
  private dead = false;
  private stopped = false;
  /** Lines whose scan was taken from the thread (tests, the docs' figures). */
  taken = 0;

  private constructor(
    private readonly worker: Worker,
    private readonly port: MessagePort,
    control: SharedArrayBuffer,
    positions: SharedArrayBuffer,
    private readonly patient: boolean,
  ) {
    this.control = new Int32Array(control);
    this.positions = new Float64Array(positions);
    worker.on('error', () => {
      this.dead = true;
    });
    worker.on('exit', () => {
      this.dead = true;
    });
  }

  /** A thread scanning the range ahead; undefined when its bundle is missing or it cannot start. */
  static start(options: ScanAheadOptions): ScanAhead | undefined {
    const script = options.script ?? threadBundle(SCAN_AHEAD_BUNDLE);
    if (script === undefined) return undefined;
    const control = new SharedArrayBuffer(CONTROL_SLOTS * 4);
    const positions = new SharedArrayBuffer(POSITION_SLOTS * 8);
    new Float64Array(positions).set([options.start, -1]);
    const { port1, port2 } = new MessageChannel();
    const data: ScanAheadData = {
      fd: options.fd,
      start: options.start,
      grid: options.grid,
      end: options.end,
      lowBytes: options.lowBytes,
      highBytes: options.highBytes,
      inMemoryLineBytes: options.inMemoryLineBytes,
      minRawBytes: options.minRawBytes,
      tokenJson: new Uint8Array(largeStringTokenJson()),
      chunkBytes: options.chunkBytes,
      aheadLines: AHEAD_LINES,
      control,
      positions,
      port: port2,
    };
    const worker = startThread(script, { workerData: data, transferList: [port2] });
    if (!worker) {
      port1.close();
      return undefined;
    }
    return new ScanAhead(worker, port1, control, positions, options.patient === true);
  }

  /**
   * The scan of the line `[offset, offset + length)` as the thread made it (null: it holds no large
   * value, or is not one well-formed record); undefined when the thread has none for it: the pass
   * scans it itself.
   */
  take(offset: number, length: number): LineScan | null | undefined {
    if (this.stopped) return undefined;
    this.positions[PASS_AT] = offset;
    // A patient pass gives up too, on a thread that never posts (one that failed to start says so only between slices).
    const until = performance.now() + (this.patient ? PATIENT_MS : WAIT_MS);
    for (;;) {
      const line = this.next(offset);
      if (line !== undefined) {
        // A later line's: the thread skipped this one.
        if (line.offset !== offset) return this.passed(offset, length);
        this.head = undefined;
        if (line.length !== length || line.failed) return this.passed(offset, length);
        this.taken++;
        return line.scan;
      }
      // None posted for it: wait only for the line in the thread's hands.
      if (this.dead || (!this.patient && this.positions[THREAD_AT] !== offset)) return this.passed(offset, length);
      const posted = Atomics.load(this.control, POSTED);
      const got = receiveMessageOnPort(this.port);
      if (got) {
        this.received(got.message as ScannedLine);
        continue;
      }
      if (Atomics.load(this.control, ENDED) !== 0) return this.passed(offset, length);
      if (Atomics.wait(this.control, POSTED, posted, WAIT_MS) === 'timed-out' && (!this.patient || performance.now() >= until)) return this.passed(offset, length);
    }
  }

  /** Whether the thread is inside a read of the file. */
  reading(): boolean {
    return Atomics.load(this.control, READING) !== 0;
  }

  /** Ends the thread; returns once it is out of any read of the file. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    Atomics.store(this.control, STOP, 1);
    Atomics.notify(this.control, RECEIVED);
    const until = performance.now() + STOP_WAIT_MS;
    while (Atomics.load(this.control, READING) !== 0 && performance.now() < until) Atomics.wait(this.control, READING, 1, 50);
    this.port.close();
    void this.worker.terminate();
  }

  /** The first posted scan at or after `offset` (those before it are the pass's already), or undefined. */
  private next(offset: number): ScannedLine | undefined {
    for (;;) {
      if (this.head === undefined) {
        const got = receiveMessageOnPort(this.port);
        if (!got) return undefined;
        this.received(got.message as ScannedLine);
      }
      if (this.head!.offset >= offset) return this.head;
      this.head = undefined;
    }
  }

  private received(line: ScannedLine): void {
    this.head = line;
    // The thread waits only when AHEAD_LINES are unreceived: woken every NOTIFY_EVERY (a notify a
    // line cost the pass 0.1 s on the bench's session).
    if ((Atomics.add(this.control, RECEIVED, 1) + 1) % NOTIFY_EVERY === 0) Atomics.notify(this.control, RECEIVED);
  }

  /** The pass scans the line itself: the thread skips it. */
  private passed(offset: number, length: number): undefined {
    this.positions[PASS_AT] = offset + length + 1;
    return undefined;
  }
}
