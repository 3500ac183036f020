/**
 * What the search pool (searchPool.ts) and its threads (scanThread.ts) share: the bundle's name,
 * each thread's shared state, the job posted to it, and the search's stop condition.
 */

/** The threads' bundle (scanThread.ts), beside the bundle running this code (threadBundle.ts). */
export const SCAN_THREAD_BUNDLE = 'scanThread.cjs';

/** A thread's workerData: its shared state ([outcome, hit count, windows read]) and hits ([position, length] pairs). */
export interface ScanThreadData {
  state: ArrayBufferLike;
  hits: ArrayBufferLike;
}

/**
 * A job posted to a thread: the file, its pieces ([start, end, readEnd] triples), the shared
 * counter, per-piece outcomes and spans, the halt flag, the thread's index, the needle (exact bytes
 * as Latin-1 with the piece the caller's scanner looks for, or a folded query) and the search's
 * stop condition.
 */
export interface ScanThreadJob {
  fd: number;
  pieces: Float64Array;
  counter: ArrayBufferLike;
  done: ArrayBufferLike;
  spans: ArrayBufferLike;
  halt: ArrayBufferLike;
  thread: number;
  exact?: string;
  pieceAt?: number | undefined;
  folded?: string;
  /** The search's stop condition (none: null, or undefined between searches). */
  stop: PoolStop | null | undefined;
}

/** The search's stop condition, shared with the threads: stop once `epoch[slot]` is no longer `value`. */
export interface PoolStop {
  epoch: SharedArrayBuffer;
  slot: number;
  value: number;
}
