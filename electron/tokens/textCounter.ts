/**
 * A thread that counts texts with the o200k counter (countThread.ts), so that a command's counting
 * runs on both cores: the asking thread reads and decodes what is to be counted, counts some of it
 * and hands the rest to this one (SessionEstimates.countAhead, docs/token-estimates.md "Counting
 * on two threads"). Started before the texts are known (while the session is read), so its encoding
 * is loaded by the time they are. Undefined where no thread starts (no bundle beside this one):
 * then everything is counted where it is asked, as before.
 */
import { threadBundle } from '../loader/common/threadBundle';
import { ThreadPool } from '../loader/common/threadPool';

/** The thread's bundle (countThread.ts), beside the bundle running this code (threadBundle.ts). */
export const COUNT_THREAD_BUNDLE = 'countThread.cjs';
/** The thread stops after this long without a request (it holds a heap and its own copy of the encoding). */
const IDLE_MS = 10_000;

export interface CountRequest {
  texts: string[];
  /**
   * A slot of shared memory whose 0 the thread swaps for CLAIMED_BY_THREAD before it counts; found
   * taken (the asking thread counted the texts itself: TAKEN_HERE), it answers `counts: null`.
   */
  claim?: Int32Array;
}

export interface CountReply {
  id: number;
  /** `countText` of each text, in order; null for a request whose claim was taken. */
  counts: number[] | null;
}

/** A request's claim, free (CountRequest.claim). */
export const CLAIM_FREE = 0;
/** A request's claim, taken by the counting thread: it counts the texts. */
export const CLAIMED_BY_THREAD = 1;
/** A request's claim, taken by the asking thread: the counting thread skips the texts. */
export const TAKEN_HERE = 2;

export interface TextCounter {
  /** The count of each text, counted on the thread; rejected when the thread fails or is closed. */
  count(texts: string[]): Promise<number[]>;
  /**
   * The count of each text, unless the asking thread takes `claim` first (swapping CLAIM_FREE for
   * TAKEN_HERE) before the thread comes to them: then undefined. Rejected as `count` is.
   */
  countUnlessTaken(texts: string[], claim: Int32Array): Promise<number[] | undefined>;
  /** Stops the thread; counts not yet answered are rejected, and so is every count asked after. */
  close(): void;
}

let started = 0;

/** Tests: how many counting threads this process has asked for. */
export function countersStarted(): number {
  return started;
}

/** Starts a counting thread (`script`: its bundle, default dist/countThread.cjs); undefined without one. */
export function startTextCounter(options: { script?: string } = {}): TextCounter | undefined {
  const script = options.script ?? threadBundle(COUNT_THREAD_BUNDLE);
  if (script === undefined) return undefined;
  const pool = new ThreadPool<CountRequest, CountReply>({
    script,
    size: 1,
    idleMs: IDLE_MS,
    maxFailures: 1,
    words: {
      notStarted: 'the counting thread could not be started',
      failed: (e) => `the counting thread failed: ${e.message}`,
      exited: (code) => `the counting thread exited (code ${code})`,
      closed: 'the counting thread was closed',
      timedOut: (ms) => `the counting thread did not answer within ${ms} ms`,
    },
  });
  started++;
  let closed = false;
  const counter: TextCounter = {
    // A closed pool would start a thread again for the next request: a closed counter counts nothing.
    count: async (texts) => {
      if (closed) throw new Error('the counting thread was closed');
      const { counts } = await pool.request({ texts }, texts.length);
      if (!counts) throw new Error('the counting thread skipped a request it was not told it could skip');
      return counts;
    },
    countUnlessTaken: async (texts, claim) => {
      if (closed) throw new Error('the counting thread was closed');
      return (await pool.request({ texts, claim }, texts.length)).counts ?? undefined;
    },
    close: () => {
      closed = true;
      pool.close();
    },
  };
  // Starts the thread now: it loads its encoding while the caller reads the session.
  counter.count([]).catch(() => undefined);
  return counter;
}
