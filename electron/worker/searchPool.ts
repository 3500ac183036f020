/**
 * Raw searches over both cores (docs/worker.md). The first raw search of a search for a needle in a file
 * asks the pool for every occurrence in a chunk of the file from that content on (`fileHits`):
 * CHUNK_BYTES at first, then, when the contents asked for most of it, to the end of the file. The
 * chunk is cut into pieces (shared/search/scanSplit.ts) that the threads take one at a time, in order, and
 * the calling thread goes on with the contents as soon as the pieces under each are done: a content
 * waits only for its own pieces, and while one of them is still being scanned the calling thread
 * scans the next piece no thread has taken (Atomics.wait only when none is left). So the contents'
 * own work (decoding offsets, snippets) runs while the threads scan ahead; before, the calling
 * thread scanned its share of the whole chunk first, and that work came after. Every content is
 * then searched from the list: a substring reads only the bytes before each occurrence
 * (FileContent.findRaw), a regex with a literal only the bytes around each when they are sparse
 * (FileContent.findAllDirect). The list is kept for the search (`begin`/`end`); the search's file
 * guard stops it if the file changes meanwhile.
 *
 * Bounds: a file smaller than `minBytes` is not split (one thread does better); a needle with more
 * than `maxHits` occurrences (a dense one), or more than one per `sparseBytes` when the caller asks
 * for sparse ones, answers null, and each content is then searched on its own as before, so the
 * memory held is at most `maxHits` pairs besides the threads' buffers. Cancellation: a thread looks
 * at the search's stop condition (the worker's shared epoch) and at its chunk's halt flag before
 * each window it reads (SCAN_PART_WINDOW), so a new search or a cancel stops it within one window;
 * a chunk dropped (the search ended, the next chunk began, the needle proved dense) is halted and
 * its threads waited for, within a window, before their buffers are used again. `close`
 * terminates the threads, which never hold the process open (unref). Each thread runs
 * scanThread.ts, bundled to dist/scanThread.cjs; without that bundle the pool scans nothing (every
 * content reads its own bytes, as on one core).
 */
import { fstatSync, readSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { availableParallelism, loadavg } from 'node:os';
import type { FileHits, ParallelScan, RawScanner, ScanNeedle } from '../loader/content/rawScan';
import { PART_DONE, PART_FAILED, PART_FULL, PART_STOPPED, scanPart } from '../loader/content/rawScan';
import { threadBundle } from '../loader/common/threadBundle';
import { startThread } from '../loader/common/threadPool';
import { splitScan } from '../../shared/search/scanSplit';
import type { PoolStop, ScanThreadData, ScanThreadJob } from './scanProtocol';
import { SCAN_THREAD_BUNDLE } from './scanProtocol';

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
  /** The threads' script (default: dist/scanThread.cjs, see threadBundle.ts); without one the pool answers null. */
  script?: string;
}

/** A file and needle's list in this search: the chunk being scanned, how many of its bytes contents asked for, and whether the needle proved dense. */
interface PoolFile {
  job: Job | null;
  served: number;
  dense: boolean;
}

/**
 * A chunk being scanned: its pieces ([start, end, readEnd] triples) are taken one at a time, in
 * order, by the threads and, when a content needs a piece no thread has taken yet, by the calling
 * thread. Per piece, shared with the threads: its outcome once ended (`done`, 0 before), and which
 * pairs of its owner's hits are its own (`spans`: [from, to, owner], owner −1 for the calling
 * thread). The pieces ended so far from the first on are merged, in order, into `merged`.
 */
interface Job {
  fd: number;
  start: number;
  end: number;
  pieces: Float64Array;
  count: number;
  counter: Int32Array;
  done: Int32Array;
  spans: Int32Array;
  /** Set once the job is dropped: the threads take no more of its pieces and stop within a window. */
  halt: Int32Array;
  threads: Thread[];
  scanner: RawScanner;
  /** The calling thread's hits, pairs. */
  own: number[];
  merged: Float64Array;
  /** Numbers used in `merged` (two per hit). */
  mergedLength: number;
  /** Pieces merged: every piece before this one. */
  mergedPieces: number;
  /** Pieces the calling thread scanned. */
  ownPieces: number;
  /** Set once every thread has left the job (`finish`). */
  finished: boolean;
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
  private readonly script: string | undefined;
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
    this.script = options.script ?? threadBundle(SCAN_THREAD_BUNDLE);
  }

  /**
   * A search begins: a fresh list per file and needle, and its stop condition (none: it runs to the
   * end). `split: false` keeps it on the calling thread whatever the cores (the caller knows its
   * other threads are busy).
   */
  begin(stop?: PoolStop, split = true): number {
    this.drop();
    this.threadShare = 1;
    this.splitting = split && this.shouldSplit();
    this.stop = stop ?? null;
    return ++this.begun;
  }

  /**
   * The search ended: its lists are dropped, and raw searches run on the calling thread until the
   * next begins. With the number its `begin` gave, only while no other search has begun since (a
   * search cancelled by the next one ends after that one began).
   */
  end(search?: number): void {
    if (search !== undefined && search !== this.begun) return;
    this.drop();
    this.stop = undefined;
  }

  /** Searches begun so far: the last one's number. */
  private begun = 0;

  /** Drops the search's lists, and halts the chunk being scanned (its threads have left it on return). */
  private drop(): void {
    for (const file of this.files.values()) if (file.job !== null) this.finish(file.job);
    this.files.clear();
    this.last = undefined;
  }

  /** Test hook: the file range of the chunk scanned last for the needle asked last, if any. */
  scanning(): { start: number; end: number } | null {
    const job = this.last?.file.job;
    return job ? { start: job.start, end: job.end } : null;
  }

  /** Windows (SCAN_PART_WINDOW) read so far by the pool's scans, on every thread: the work done. */
  windowsRead(): number {
    return this.ownWindows + this.threads.reduce((n, t) => n + Atomics.load(t.state, 2), 0);
  }

  /** Terminates the threads (resolved once every one has exited); the pool answers null from then on. */
  async close(): Promise<void> {
    this.closed = true;
    for (const file of this.files.values()) if (file.job !== null) Atomics.store(file.job.halt, 0, 1);
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
    if (!this.closed && this.script !== undefined && this.shouldSplit()) this.spawn();
  }

  /** Threads started and not terminated. */
  threadsRunning(): number {
    return this.threads.filter((t) => t.alive).length;
  }

  fileHits(fd: number, needle: ScanNeedle, scanner: RawScanner, start: number, end: number, sparseBytes?: number): FileHits | null {
    const job = this.listed(fd, needle, scanner, start, end, sparseBytes);
    return job === null ? null : { start: job.start, end: this.mergedEnd(job), hits: job.merged.subarray(0, job.mergedLength) };
  }

  noneIn(fd: number, needle: ScanNeedle, scanner: RawScanner, start: number, end: number): boolean {
    const job = this.listed(fd, needle, scanner, start, end);
    if (job === null || job.start > start || end > this.mergedEnd(job)) return false;
    // The first occurrence at or after `start` (pairs: even indexes are positions).
    const hits = job.merged;
    let lo = 0;
    let hi = job.mergedLength / 2;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((hits[2 * mid] as number) < start) lo = mid + 1;
      else hi = mid;
    }
    return 2 * lo >= job.mergedLength || (hits[2 * lo] as number) >= end;
  }

  /** The job whose merged list holds every occurrence starting in `[start, end)` (see fileHits); null when there is none. */
  private listed(fd: number, needle: ScanNeedle, scanner: RawScanner, start: number, end: number, sparseBytes?: number): Job | null {
    if (this.closed || this.stop === undefined || !this.splitting || this.script === undefined) return null;
    // Asked once per content (thousands per search) with the same needle object, mostly: the entry
    // is found without making its key. The lists live for one search, whose file guard stops it
    // when the file changes meanwhile, so the key holds no stat of the file.
    let file = this.last !== undefined && this.last.fd === fd && this.last.needle === needle ? this.last.file : undefined;
    if (file === undefined) {
      const key = `${fd}:${'exact' in needle ? `e${Buffer.from(needle.exact).toString('hex')}` : `f${needle.folded}`}`;
      file = this.files.get(key);
      if (file === undefined) {
        if (this.files.size >= 2) this.drop();
        file = { job: null, served: 0, dense: false };
        this.files.set(key, file);
      }
      this.last = { fd, needle, file };
    }
    // Too many occurrences once: every chunk of this search would be (scanned and) dropped again.
    if (file.dense) return null;
    let job = file.job;
    if (job === null || job.start > start || end > job.end) {
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
      const sparse = (job !== null && file.served < (job.end - job.start) / 2) || this.threadShare < this.minThreadShare;
      const to = sparse ? end : Math.max(end, job !== null ? size : Math.min(size, start + this.chunkBytes));
      // One chunk is scanned at a time (this needle's or another's): the threads' hits are written over by the next.
      for (const other of this.files.values()) {
        if (other.job !== null) this.finish(other.job);
        other.job = null;
      }
      if (to - start < this.minBytes) return null;
      job = this.post(fd, start, to, size, needle, scanner);
      if (job === null) return null;
      file.job = job;
      file.served = 0;
    }
    file.served += end - start;
    const outcome = this.advance(job, end);
    if (outcome === PART_STOPPED || this.stopped()) return null;
    const dense = outcome === PART_FULL || job.mergedLength / 2 > this.maxHits || (sparseBytes !== undefined && job.mergedLength / 2 > 4 + (this.mergedEnd(job) - job.start) / sparseBytes);
    if (outcome !== PART_DONE || dense) {
      // A failed thread's piece is lost (its hits with it): the contents read their own bytes
      // instead, and the next content not covered starts a new chunk. A dense needle is not listed
      // again in this search.
      this.finish(job);
      file.job = null;
      if (dense) file.dense = true;
      return null;
    }
    return job;
  }

  private stopped(): boolean {
    const s = this.stop;
    return s !== null && s !== undefined && Atomics.load(new Int32Array(s.epoch), s.slot) !== s.value;
  }

  private spawn(): Thread[] {
    const script = this.script;
    while (script !== undefined && this.threads.length < this.threadCount) {
      const state = new Int32Array(new SharedArrayBuffer(3 * 4));
      // Room for the most hits a part may hold; a part with more is a dense needle (null).
      const hits = new Float64Array(new SharedArrayBuffer(Math.min(this.maxHits, 1 << 18) * 2 * 8));
      const worker = startThread(script, { workerData: { state: state.buffer, hits: hits.buffer } satisfies ScanThreadData });
      if (!worker) break;
      const thread: Thread = { worker, state, hits, alive: true };
      worker.on('error', () => (thread.alive = false));
      this.threads.push(thread);
    }
    return this.threads.filter((t) => t.alive);
  }

  /**
   * Starts scanning file bytes [start, end) (read up to `size`) on the threads: the range is cut
   * into pieces of PIECE_BYTES (shared/search/scanSplit.ts), which the threads take one by one, in order,
   * while the calling thread goes on with the contents (`advance`).
   */
  private post(fd: number, start: number, end: number, size: number, needle: ScanNeedle, scanner: RawScanner): Job | null {
    const threads = this.spawn();
    const pieces = Float64Array.from(splitScan(start, end, Math.ceil((end - start) / this.pieceBytes), scanner.maxLength - 1, size).flatMap((p) => [p.start, p.end, p.readEnd]));
    const count = pieces.length / 3;
    const job: Job = {
      fd,
      start,
      end,
      pieces,
      count,
      counter: new Int32Array(new SharedArrayBuffer(4)),
      done: new Int32Array(new SharedArrayBuffer(4 * count)),
      spans: new Int32Array(new SharedArrayBuffer(4 * 3 * count)),
      halt: new Int32Array(new SharedArrayBuffer(4)),
      threads,
      scanner,
      own: [],
      merged: new Float64Array(64),
      mergedLength: 0,
      mergedPieces: 0,
      ownPieces: 0,
      finished: false,
    };
    // No owner yet (−2): a piece's owner is written as it is taken.
    for (let k = 0; k < count; k++) job.spans[3 * k + 2] = -2;
    // The first piece is the calling thread's: a content needs it now, and a thread takes a while
    // to wake up.
    Atomics.store(job.counter, 0, 1);
    const stop = this.stop;
    threads.forEach((t, i) => {
      Atomics.store(t.state, 0, 0);
      // The needle as text (Latin-1 for bytes): a Buffer would be cloned with the whole pool slab under it.
      // An exact needle's piece as the caller's scanner chose it, where the text's sample guided it (see ScannerCache.exactScanner).
      t.worker.postMessage({
        fd,
        pieces,
        counter: job.counter.buffer,
        done: job.done.buffer,
        spans: job.spans.buffer,
        halt: job.halt.buffer,
        thread: i,
        ...('exact' in needle ? { exact: Buffer.from(needle.exact).toString('latin1'), pieceAt: scanner.pieceAt } : { folded: needle.folded }),
        stop,
      } satisfies ScanThreadJob);
    });
    this.scanHere(job, 0);
    return job;
  }

  /** Where the pieces merged so far end (the job's start before any). */
  private mergedEnd(job: Job): number {
    return job.mergedPieces === 0 ? job.start : (job.pieces[3 * (job.mergedPieces - 1) + 1] as number);
  }

  /**
   * Merges the job's pieces up to the one holding file byte `end − 1`, in order. While a piece is
   * not done, the next piece no thread has taken is scanned here; with none left, the thread that
   * holds it is waited for (a content needs it now).
   * Returns PART_DONE, or the outcome of the first piece that did not end so.
   */
  private advance(job: Job, end: number): number {
    while (job.mergedPieces < job.count && (job.pieces[3 * job.mergedPieces] as number) < end) {
      const k = job.mergedPieces;
      let outcome = Atomics.load(job.done, k);
      while (outcome === 0) {
        // The piece is needed now: the next one no thread has taken (it, or one after it) is
        // scanned here meanwhile, and only when none is left does this thread wait.
        const taken = Atomics.load(job.counter, 0) < job.count ? Atomics.add(job.counter, 0, 1) : job.count;
        if (taken < job.count) this.scanHere(job, taken);
        else outcome = this.waitPiece(job, k);
        outcome = Atomics.load(job.done, k) || outcome;
      }
      if (outcome !== PART_DONE) return outcome;
      const owner = job.spans[3 * k + 2] as number;
      const from = job.spans[3 * k] as number;
      const to = job.spans[3 * k + 1] as number;
      const list: ArrayLike<number> = owner === -1 ? job.own : (job.threads[owner] as Thread).hits;
      const need = job.mergedLength + 2 * (to - from);
      if (need > job.merged.length) {
        const grown = new Float64Array(Math.max(need, 2 * job.merged.length));
        grown.set(job.merged.subarray(0, job.mergedLength));
        job.merged = grown;
      }
      for (let h = 2 * from; h < 2 * to; h++) job.merged[job.mergedLength++] = list[h] as number;
      job.mergedPieces++;
    }
    return PART_DONE;
  }

  /** Scans piece `k` of the job on the calling thread. */
  private scanHere(job: Job, k: number): void {
    job.spans[3 * k + 2] = -1;
    const from = job.own.length / 2;
    const collect = (position: number, length: number): boolean => {
      if (job.own.length >= 2 * this.maxHits) return false;
      job.own.push(position, length);
      return true;
    };
    const p = job.pieces;
    const outcome = scanPart(readSync, { fd: job.fd, start: p[3 * k] as number, end: p[3 * k + 1] as number, readEnd: p[3 * k + 2] as number }, job.scanner, collect, () => this.stopped(), () => {
      this.ownWindows++;
      this.onOwnWindow?.();
    }, this.scratch);
    job.spans[3 * k] = from;
    job.spans[3 * k + 1] = job.own.length / 2;
    job.ownPieces++;
    Atomics.store(job.done, k, outcome);
  }

  /** Waits for piece `k`, which a thread took: its outcome, or PART_FAILED when that thread left the job without it or does not answer within `waitMs`. */
  private waitPiece(job: Job, k: number): number {
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      const outcome = Atomics.load(job.done, k);
      if (outcome !== 0) return outcome;
      const owner = job.threads[Atomics.load(job.spans, 3 * k + 2)];
      // The owner is written as the piece is taken: a moment before, no thread is named yet (−2).
      if (owner !== undefined && Atomics.load(owner.state, 0) !== 0) return Atomics.load(job.done, k) || PART_FAILED;
      const left = deadline - Date.now();
      if (left <= 0 || (owner !== undefined && !owner.alive)) {
        if (owner !== undefined) {
          owner.alive = false;
          void owner.worker.terminate();
        }
        return PART_FAILED;
      }
      Atomics.wait(job.done, k, 0, Math.min(left, 50));
    }
  }

  /**
   * Halts the job and waits until every thread has left it (within a window: they look at `halt`
   * before each), so that its hits are no longer written and the next job may reuse the buffers.
   * Records the share of its pieces the threads took: a small share means the system gave them
   * little time (a loaded machine), and scanning whole chunks costs more than each content reading
   * its own bytes.
   */
  private finish(job: Job): void {
    if (job.finished) return;
    job.finished = true;
    Atomics.store(job.halt, 0, 1);
    for (const t of job.threads) this.wait(t);
    const taken = Math.min(job.count, Atomics.load(job.counter, 0));
    if (taken > 0) this.threadShare = (taken - job.ownPieces) / taken;
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
