/**
 * The library's indexing threads (docs/library.md "Scale"): a ThreadPool
 * (electron/loader/common/threadPool.ts) of the bundle of ./worker.ts (dist/library.cjs), sized to
 * the machine's cores minus one (at least one), so a listing of thousands indexes off the caller's
 * thread — which walks and reads heads — without taking every core. Jobs wait here and go to the
 * threads a few at a time (each thread reads one file at a time, ./worker.ts), so memory stays that
 * of a few sessions however many are queued. Without the bundle (a build without it) each job runs
 * on the calling thread. `close()` stops every thread at once: what is in flight or queued answers
 * `cancelled` (SIGINT ends a listing promptly, whatever a thread is reading).
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { ThreadPool } from '../loader/common/threadPool';
import type { IndexJob, IndexReply } from './index';
import { INDEX_IN_MEMORY_BYTES, indexFile } from './index';

export const LIBRARY_BUNDLE = 'library.cjs';
/** A thread's heap: a session is read whole, as the resolver worker reads it. */
const WORKER_HEAP_MB = 1024;
/**
 * The old generation a thread starts with (V8's `--initial-old-space-size`). A thread reads
 * thousands of small sessions, each whole and then dropped; from V8's default start its heap's
 * limit stayed near the ~12 MB it kept, and a full collection ran every ~40 ms (55 a thread in a
 * listing of 2,000, a sixth of its time; docs/library.md "Scale").
 */
const THREAD_INITIAL_OLD_SPACE_MB = 64;
/**
 * Jobs sent to each thread ahead of its answers; the rest wait here. A thread takes them one at a
 * time (a job is a path, not a session), and the calling thread hands out more only between its
 * walk's turns (every 2 ms: library.ts WALK_TURN_MS): with two ahead, a thread indexing small files
 * ran dry and waited (a quarter of its time in a cold listing of 2,000; docs/library.md "Scale").
 */
const AHEAD_PER_THREAD = 16;
/**
 * The largest file the calling thread indexes itself when it helps (IndexPool.help): one a listing
 * reads with its strings in memory. A larger one, or one of unknown size, goes to a thread, whose
 * heap is bounded (WORKER_HEAP_MB).
 */
export const HELP_MAX_BYTES = INDEX_IN_MEMORY_BYTES;
/** Jobs the calling thread indexes between turns of its event loop when it helps: the threads' answers are heard, and they are handed more, between them. */
const HELP_JOBS_PER_TURN = 8;
/** Threads stop after this long without a job (each holds a V8 heap). */
export const LIBRARY_IDLE_MS = 10_000;

/** Where the thread's bundle is: beside the running bundle, or the repository's dist/ from the sources (Vitest). */
export function libraryBundle(): string | undefined {
  const here = typeof __dirname === 'string' ? __dirname : resolve('dist');
  const fromSources = basename(here) === 'library' && basename(dirname(here)) === 'electron';
  const script = fromSources ? resolve(here, '../../dist', LIBRARY_BUNDLE) : join(here, LIBRARY_BUNDLE);
  return existsSync(script) ? script : undefined;
}

/** The indexing threads a machine of `cores` gets: one core is left to the caller (the walk, the heads, the page). */
export function libraryThreads(cores = availableParallelism()): number {
  return Math.max(1, cores - 1);
}

export interface IndexPool {
  index(job: IndexJob): Promise<IndexReply>;
  /** Stops the threads; jobs not yet answered answer `{ok:false}` with `cancelled`. */
  close(): void;
  /**
   * The calling thread indexes the jobs still waiting, one at a time, until none wait or the pool
   * is closed; the jobs handed to threads stay theirs, and a job of a file over HELP_MAX_BYTES (or
   * of unknown size) is handed to a thread. Answers how many jobs it indexed itself. For a caller
   * that would only wait (docs/library.md "The caller indexes too").
   */
  help(): Promise<number>;
}

interface Queued {
  job: IndexJob;
  resolve: (reply: IndexReply) => void;
}

/**
 * The jobs waiting for a thread, handed out in runs of one format: the next is the oldest of the
 * format handed out last, else the oldest of all. A thread then reads many files of one format in a
 * row, and its code stays fitted to that format: the bench's 2,000 files indexed on one thread in
 * process took 636–668 ms the first round and 421–422 ms the third in runs by format, against
 * 726–761 and 530–554 ms in the walk's order (docs/library.md "Scale"). A job waits at most until
 * the jobs of the format before it, queued meanwhile, are handed out.
 */
export class FormatRuns<T extends { job: { format?: string } }> {
  /** The waiting items by format, each list oldest first and never empty, with the order they came in. */
  private readonly byFormat = new Map<string | undefined, { item: T; seq: number }[]>();
  private current: string | undefined;
  private pushed = 0;
  private count = 0;

  get size(): number {
    return this.count;
  }

  push(item: T): void {
    const entry = { item, seq: this.pushed++ };
    const list = this.byFormat.get(item.job.format);
    if (list) list.push(entry);
    else this.byFormat.set(item.job.format, [entry]);
    this.count++;
  }

  take(): T | undefined {
    let list = this.byFormat.get(this.current);
    // The run is over: the format of the oldest waiting item starts the next.
    if (list === undefined) {
      for (const [format, other] of this.byFormat) {
        if (list === undefined || (other[0]?.seq ?? Infinity) < (list[0]?.seq ?? Infinity)) {
          list = other;
          this.current = format;
        }
      }
    }
    const entry = list?.shift();
    if (list?.length === 0) this.byFormat.delete(this.current);
    if (entry === undefined) return undefined;
    this.count--;
    return entry.item;
  }

  /** Every waiting item, oldest first; the queue is then empty. */
  drain(): T[] {
    const all = [...this.byFormat.values()].flat().sort((x, y) => x.seq - y.seq);
    this.byFormat.clear();
    this.count = 0;
    return all.map((entry) => entry.item);
  }
}

const CANCELLED: IndexReply = { ok: false, message: 'cancelled' };

export interface IndexPoolOptions {
  /** Threads (default libraryThreads()); never more than the cores. */
  threads?: number;
  /** The threads' bundle; null runs every job on the calling thread. */
  script?: string | null;
  /** Threads stop after this long idle (default LIBRARY_IDLE_MS): a pool that holds files open for incremental indexing keeps them longer. */
  idleMs?: number;
}

export function indexPool(options: IndexPoolOptions = {}): IndexPool {
  const script = options.script === null ? undefined : (options.script ?? libraryBundle());
  const size = Math.max(1, Math.min(options.threads ?? libraryThreads(), availableParallelism()));
  let closed = false;
  const signal = {
    get aborted() {
      return closed;
    },
  };
  if (script === undefined) {
    return {
      index: (job) => (closed ? Promise.resolve(CANCELLED) : indexFile(job, signal)),
      close: () => void (closed = true),
      // Every job already runs on the calling thread.
      help: () => Promise.resolve(0),
    };
  }
  const threads = new ThreadPool<IndexJob, { id: number; reply: IndexReply }>({
    script,
    size,
    idleMs: options.idleMs ?? LIBRARY_IDLE_MS,
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    initialOldSpaceMb: THREAD_INITIAL_OLD_SPACE_MB,
    words: {
      notStarted: 'no indexing thread could be started',
      failed: (e) => `the indexing thread failed: ${e.message}`,
      exited: (code) => `the indexing thread exited (${code})`,
      closed: 'cancelled',
      timedOut: (ms) => `indexing took longer than ${ms} ms`,
    },
  });
  const queue = new FormatRuns<Queued>();
  let inFlight = 0;
  const dispatch = ({ job, resolve: answer }: Queued): void => {
    inFlight++;
    threads.request(job).then(
      (m) => answer(closed ? CANCELLED : m.reply),
      (e: unknown) => answer(closed ? CANCELLED : { ok: false, message: e instanceof Error ? e.message : String(e) }),
    ).finally(() => {
      inFlight--;
      pump();
    });
  };
  const pump = (): void => {
    while (!closed && inFlight < size * AHEAD_PER_THREAD && queue.size > 0) dispatch(queue.take() as Queued);
  };
  return {
    index(job) {
      if (closed) return Promise.resolve(CANCELLED);
      return new Promise<IndexReply>((resolveJob) => {
        queue.push({ job, resolve: resolveJob });
        pump();
      });
    },
    close() {
      if (closed) return;
      closed = true;
      for (const q of queue.drain()) q.resolve(CANCELLED);
      threads.close();
    },
    async help() {
      let indexed = 0;
      let sinceTurn = 0;
      while (!closed && queue.size > 0) {
        const q = queue.take() as Queued;
        if (q.job.bytes === undefined || q.job.bytes > HELP_MAX_BYTES) {
          dispatch(q);
          continue;
        }
        const reply = await indexFile(q.job, signal);
        indexed++;
        q.resolve(closed ? CANCELLED : reply);
        if (++sinceTurn >= HELP_JOBS_PER_TURN) {
          sinceTurn = 0;
          await new Promise<void>((resolveTurn) => setImmediate(resolveTurn));
        }
      }
      return indexed;
    },
  };
}
