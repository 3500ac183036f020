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
import { indexFile } from './index';

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
 * walk's turns of 32 files: with two ahead, a thread indexing small files ran dry and waited (a
 * quarter of its time in a cold listing of 2,000; docs/library.md "Scale").
 */
const AHEAD_PER_THREAD = 16;
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
}

interface Queued {
  job: IndexJob;
  resolve: (reply: IndexReply) => void;
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
  if (script === undefined) {
    const signal = {
      get aborted() {
        return closed;
      },
    };
    return {
      index: (job) => (closed ? Promise.resolve(CANCELLED) : indexFile(job, signal)),
      close: () => void (closed = true),
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
  const queue: Queued[] = [];
  let inFlight = 0;
  const pump = (): void => {
    while (!closed && inFlight < size * AHEAD_PER_THREAD && queue.length > 0) {
      const { job, resolve: answer } = queue.shift() as Queued;
      inFlight++;
      threads.request(job).then(
        (m) => answer(closed ? CANCELLED : m.reply),
        (e: unknown) => answer(closed ? CANCELLED : { ok: false, message: e instanceof Error ? e.message : String(e) }),
      ).finally(() => {
        inFlight--;
        pump();
      });
    }
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
      for (const q of queue.splice(0)) q.resolve(CANCELLED);
      threads.close();
    },
  };
}
