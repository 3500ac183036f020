/**
 * Issue 16: raw searches over both cores. The first raw search of a search for a needle in a file
 * asks the pool for every occurrence in a chunk of the file from that content on (`fileHits`):
 * CHUNK_BYTES at first, then, when the contents asked for most of it, to the end of the file. The
 * chunk is cut into pieces (shared/scanSplit.ts) that the threads and the calling thread take one
 * at a time, and the calling thread waits for the others (Atomics.wait: the search is synchronous
 * between its slices). Every content in the chunk is then searched from that list: a substring
 * reads only the bytes before each occurrence (FileContent.findRaw), a regex with a literal only
 * the bytes around each when they are sparse (FileContent.findAllDirect). The list is kept for the
 * search (`begin`/`end`); the search's file guard stops it if the file changes meanwhile.
 *
 * Bounds: a file smaller than `minBytes` is not split (one thread does better); a needle with more
 * than `maxHits` occurrences (a dense one), or more than one per `sparseBytes` when the caller asks
 * for sparse ones, answers null, and each content is then searched on its own as before, so the
 * memory held is at most `maxHits` pairs besides the threads' buffers. Cancellation: a thread looks
 * at the search's stop condition (the worker's shared epoch) before each window it reads
 * (SCAN_PART_WINDOW), so a new search or a cancel stops it within one window; `close` terminates
 * the threads, which never hold the process open (unref).
 */
import { fstatSync, readSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { availableParallelism, loadavg } from 'node:os';
import type { FileHits, ParallelScan, ScanNeedle } from '../loader/rawScan';
import { PART_DONE, PART_FAILED, PART_STOPPED, RAW_SCAN_THREAD_SOURCE, scanPieces, scannerOf } from '../loader/rawScan';
import { mergeHits, splitScan } from '../../shared/scanSplit';

/** The search's stop condition, shared with the threads: stop once `epoch[slot]` is no longer `value`. */
export interface PoolStop {
  epoch: SharedArrayBuffer;
  slot: number;
  value: number;
}

export interface SearchPoolOptions {
  /** Threads besides the calling one (default: the cores less one, at least one, at most three). */
  threads?: number;
  /** Files smaller than this are not split (default 4 MiB). */
  minBytes?: number;
  /** Most occurrences kept per file (default 1,048,576): a denser needle answers null. */
  maxHits?: number;
  /** How long to wait for a thread before scanning its part here (default 60 s). */
  waitMs?: number;
  /** File bytes scanned at once from the first content not covered (default CHUNK_BYTES; tests make it small). */
  chunkBytes?: number;
  /** Bytes of one piece (default PIECE_BYTES; tests make it small). */
  pieceBytes?: number;
  /** Below this share of a chunk's pieces taken by the threads, a search stops splitting (default MIN_THREAD_SHARE; tests, where who takes a piece is a race, say 0). */
  minThreadShare?: number;
  /** Called on the calling thread after each window it reads for the pool (tests cancel from there). */
  onOwnWindow?: () => void;
  /** Whether a search should be split, asked as it begins (default `idleCore`; tests say yes). */
  split?: () => boolean;
}

/** A file and needle's list in this search: the last chunk scanned, how many of its bytes contents asked for, and whether the needle proved dense. */
interface PoolFile {
  chunk: FileHits | null;
  served: number;
  dense: boolean;
}

interface Thread {
  worker: Worker;
  /** [outcome (0 while running), hit count, windows read]. */
  state: Int32Array;
  hits: Float64Array;
  /** False once it failed to answer: it is not given more work. */
  alive: boolean;
}

/**
 * File bytes scanned at once from the first content not covered yet: the contents after it are
 * searched from the same list (a search goes through the contents in file order, mostly).
 */
const CHUNK_BYTES = 32 * 1024 * 1024;
/** Below this share of a chunk's pieces taken by the threads, the search's next chunks are not split (see fileHits). */
const MIN_THREAD_SHARE = 0.25;
/** A piece of a chunk, taken by one thread at a time. */
const PIECE_BYTES = 1024 * 1024;

/** Fewer cores than this: a search stays on one thread (see idleCore). */
export const SPLIT_MIN_CORES = 2;

/**
 * True when a split can pay: at least SPLIT_MIN_CORES cores, and the last minute's load average
 * under twice their number. The load average lags (on 2 cores it reads 2 for a minute after any
 * work, this search's own included), so it only rules out a machine that is plainly overloaded;
 * the rest is measured: on a busy machine the threads get little time, they take few pieces, the
 * calling thread reads the rest, and a search whose threads took under MIN_THREAD_SHARE of a chunk
 * stops splitting (see fileHits).
 *
 * Measured on 2 cores (256 MiB bench sidecar, warm, in one process, alternating): split 41–61 ms
 * against 64–77 ms on one thread for the substring row. Before each part reused its window (see
 * scanPart), a split was slower than one thread (100–126 ms against 53–65 ms): every part was read
 * into fresh memory, whose pages the kernel faulted in during the read.
 */
export function idleCore(cores = availableParallelism(), load = loadavg()[0] ?? 0): boolean {
  return cores >= SPLIT_MIN_CORES && load < 2 * cores;
}

export class SearchPool implements ParallelScan {
  private readonly threadCount: number;
  private readonly minBytes: number;
  private readonly maxHits: number;
  private readonly waitMs: number;
  private readonly chunkBytes: number;
  private readonly pieceBytes: number;
  private readonly onOwnWindow: (() => void) | undefined;
  private readonly minThreadShare: number;
  private readonly shouldSplit: () => boolean;
  /** This search is split (asked at `begin`). */
  private splitting = false;
  private threads: Thread[] = [];
  /** The search's stop condition (null: none); undefined between searches, when the pool is not used. */
  private stop: PoolStop | null | undefined = undefined;
  /** Per file and needle, in this search: the last chunk scanned, and how many of its bytes contents asked for. */
  private files = new Map<string, PoolFile>();
  /** The entry asked for last, by file and needle object. */
  private last: { fd: number; needle: ScanNeedle; file: PoolFile } | undefined;
  private closed = false;
  /** The share of the last chunk's pieces the threads took (1 until one is scanned in a search). */
  private threadShare = 1;
  /** The calling thread's window for its pieces, kept between scans (see scanPart). */
  private readonly scratch = { buf: Buffer.alloc(0) };
  /** Windows the calling thread read for the pool (the threads count theirs in their state). */
  private ownWindows = 0;

  constructor(options: SearchPoolOptions = {}) {
    this.threadCount = Math.max(1, Math.floor(options.threads ?? Math.min(3, availableParallelism() - 1)));
    this.minBytes = options.minBytes ?? 4 * 1024 * 1024;
    this.maxHits = options.maxHits ?? 1 << 20;
    this.waitMs = options.waitMs ?? 60_000;
    this.chunkBytes = Math.max(1, options.chunkBytes ?? CHUNK_BYTES);
    this.pieceBytes = Math.max(1, options.pieceBytes ?? PIECE_BYTES);
    this.onOwnWindow = options.onOwnWindow;
    this.minThreadShare = options.minThreadShare ?? MIN_THREAD_SHARE;
    this.shouldSplit = options.split ?? idleCore;
  }

  /**
   * A search begins: a fresh list per file and needle, and its stop condition (none: it runs to the
   * end). `split: false` keeps it on the calling thread whatever the cores (the caller knows its
   * other threads are busy).
   */
  begin(stop?: PoolStop, split = true): void {
    this.files.clear();
    this.last = undefined;
    this.threadShare = 1;
    this.splitting = split && this.shouldSplit();
    this.stop = stop ?? null;
  }

  /** The search ended: its lists are dropped, and raw searches run on the calling thread until the next begins. */
  end(): void {
    this.files.clear();
    this.last = undefined;
    this.stop = undefined;
  }

  /** Windows (SCAN_PART_WINDOW) read so far by the pool's scans, on every thread: the work done. */
  windowsRead(): number {
    return this.ownWindows + this.threads.reduce((n, t) => n + Atomics.load(t.state, 2), 0);
  }

  /** Terminates the threads (resolved once every one has exited); the pool answers null from then on. */
  async close(): Promise<void> {
    this.closed = true;
    this.files.clear();
    this.last = undefined;
    const threads = this.threads;
    this.threads = [];
    await Promise.all(threads.map((t) => t.worker.terminate()));
  }

  /**
   * Starts the threads now, when a split could run (the caller has a large session open and its
   * cores are free), so the first split search does not wait for a thread's start (tens of
   * milliseconds, during which it scans alone).
   */
  prepare(): void {
    if (!this.closed && this.shouldSplit()) this.spawn();
  }

  /** Threads started and not terminated. */
  threadsRunning(): number {
    return this.threads.filter((t) => t.alive).length;
  }

  fileHits(fd: number, needle: ScanNeedle, start: number, end: number, sparseBytes?: number): FileHits | null {
    if (this.closed || this.stop === undefined || !this.splitting) return null;
    // Asked once per content (thousands per search) with the same needle object, mostly: the entry
    // is found without making its key. The lists live for one search, whose file guard stops it
    // when the file changes meanwhile, so the key holds no stat of the file.
    let file = this.last !== undefined && this.last.fd === fd && this.last.needle === needle ? this.last.file : undefined;
    if (file === undefined) {
      const key = `${fd}:${'exact' in needle ? `e${Buffer.from(needle.exact).toString('hex')}` : `f${needle.folded}`}`;
      file = this.files.get(key);
      if (file === undefined) {
        if (this.files.size >= 2) this.files.clear();
        file = { chunk: null, served: 0, dense: false };
        this.files.set(key, file);
      }
      this.last = { fd, needle, file };
    }
    // Too many occurrences once: every chunk of this search would be (scanned and) dropped again.
    if (file.dense) return null;
    const chunk = file.chunk;
    if (chunk !== null && chunk.start <= start && end <= chunk.end) {
      file.served += end - start;
      return chunk;
    }
    let size: number;
    try {
      size = fstatSync(fd).size;
    } catch {
      return null;
    }
    // A chunk of which less than half was asked for: the hidden bytes are sparse in this file, so
    // only a large content is scanned here (split), and a small one on its own as before. So too
    // when the threads took less than MIN_THREAD_SHARE of the last chunk's pieces. After a chunk
    // that was mostly asked for, the next one runs to the end of the file: one more scan.
    const sparse = (chunk !== null && file.served < (chunk.end - chunk.start) / 2) || this.threadShare < this.minThreadShare;
    const to = sparse ? end : Math.max(end, chunk !== null ? size : Math.min(size, start + this.chunkBytes));
    if (to - start < this.minBytes) return null;
    const found = this.scanRange(fd, start, to, size, needle);
    if (found === 'stopped') return null;
    if (found === null || (sparseBytes !== undefined && found.hits.length / 2 > 4 + (found.end - found.start) / sparseBytes)) {
      file.dense = true;
      return null;
    }
    file.chunk = found;
    file.served = end - start;
    return found;
  }

  private stopped(): boolean {
    const s = this.stop;
    return s !== null && s !== undefined && Atomics.load(new Int32Array(s.epoch), s.slot) !== s.value;
  }

  private spawn(): Thread[] {
    while (this.threads.length < this.threadCount) {
      const state = new Int32Array(new SharedArrayBuffer(3 * 4));
      // Room for the most hits a part may hold; a part with more is a dense needle (null).
      const hits = new Float64Array(new SharedArrayBuffer(Math.min(this.maxHits, 1 << 18) * 2 * 8));
      const worker = new Worker(RAW_SCAN_THREAD_SOURCE, { eval: true, workerData: { state: state.buffer, hits: hits.buffer } });
      worker.unref();
      const thread: Thread = { worker, state, hits, alive: true };
      worker.on('error', () => (thread.alive = false));
      this.threads.push(thread);
    }
    return this.threads.filter((t) => t.alive);
  }

  /**
   * Every occurrence starting in file bytes [start, end) (read up to `size`), over the threads and
   * this one: the range is cut into pieces of PIECE_BYTES (shared/scanSplit.ts), taken one by one
   * by whichever is free, so a thread the system gives no time delays the scan by one piece at most.
   */
  private scanRange(fd: number, start: number, end: number, size: number, needle: ScanNeedle): FileHits | null | 'stopped' {
    const scanner = scannerOf(needle);
    if (scanner === null) return null;
    const threads = this.spawn();
    const threadWindows = () => threads.reduce((n, t) => n + Atomics.load(t.state, 2), 0);
    const [threadsBefore, ownBefore] = [threadWindows(), this.ownWindows];
    const pieces = Float64Array.from(splitScan(start, end, Math.ceil((end - start) / this.pieceBytes), scanner.maxLength - 1, size).flatMap((p) => [p.start, p.end, p.readEnd]));
    const counter = new Int32Array(new SharedArrayBuffer(4));
    const stop = this.stop;
    for (const t of threads) {
      Atomics.store(t.state, 0, 0);
      // The needle as text (Latin-1 for bytes): a Buffer would be cloned with the whole pool slab under it.
      // An exact needle's piece as chosen here, where the text's sample guided it (see exactScanner).
      t.worker.postMessage({ fd, pieces, counter: counter.buffer, ...('exact' in needle ? { exact: Buffer.from(needle.exact).toString('latin1'), pieceAt: scanner.pieceAt } : { folded: needle.folded }), stop });
    }
    const own: number[] = [];
    const collect = (position: number, length: number): boolean => {
      if (own.length >= 2 * this.maxHits) return false;
      own.push(position, length);
      return true;
    };
    const outcomes = [
      scanPieces(readSync, fd, pieces, () => Atomics.add(counter, 0, 1), scanner, collect, () => this.stopped(), () => {
        this.ownWindows++;
        this.onOwnWindow?.();
      }, this.scratch),
    ];
    // Every thread is waited for, whatever happened here: one still running would write the next job's hits over these.
    const lists: ArrayLike<number>[] = [own];
    for (const t of threads) {
      const outcome = this.wait(t);
      outcomes.push(outcome);
      if (outcome === PART_DONE) lists.push(t.hits.slice(0, 2 * Atomics.load(t.state, 1)));
    }
    // Pieces the threads took, of all: a small share means the system gave them little time (a
    // loaded machine), and scanning whole chunks costs more than each content reading its own bytes.
    const byThreads = threadWindows() - threadsBefore;
    this.threadShare = byThreads / Math.max(1, byThreads + this.ownWindows - ownBefore);
    if (outcomes.includes(PART_STOPPED) || this.stopped()) return 'stopped';
    // A failed thread's piece is lost (its hits with it): the contents read their own bytes instead.
    if (outcomes.some((o) => o !== PART_DONE)) return null;
    const hits = mergeHits(lists);
    return hits.length / 2 > this.maxHits ? null : { start, end, hits };
  }

  /** The outcome of a thread's job; PART_FAILED when it does not answer within `waitMs`. */
  private wait(t: Thread): number {
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      const outcome = Atomics.load(t.state, 0);
      if (outcome !== 0) return outcome;
      const left = deadline - Date.now();
      if (left <= 0 || !t.alive) {
        t.alive = false;
        void t.worker.terminate();
        return PART_FAILED;
      }
      Atomics.wait(t.state, 0, 0, Math.min(left, 1000));
    }
  }
}
