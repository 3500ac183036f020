/**
 * The library's indexing threads: a worker_threads pool of at most the core count (the bundle of
 * ./worker.ts, dist/library.cjs), so a listing of thousands indexes off the caller's thread while
 * it streams heads. Without the bundle (a build without it) each job runs on the calling thread.
 * `close()` stops every thread at once: what is in flight answers `cancelled` (SIGINT ends a
 * listing promptly, whatever a thread is reading).
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { IndexJob, IndexReply } from './index';
import { indexFile } from './index';

export const LIBRARY_BUNDLE = 'library.cjs';
/** A thread's heap: a session is read whole, as the resolver worker reads it. */
const WORKER_HEAP_MB = 1024;

/** Where the thread's bundle is: beside the running bundle, or the repository's dist/ from the sources (Vitest). */
export function libraryBundle(): string | undefined {
  const here = typeof __dirname === 'string' ? __dirname : resolve('dist');
  const fromSources = basename(here) === 'library' && basename(dirname(here)) === 'electron';
  const script = fromSources ? resolve(here, '../../dist', LIBRARY_BUNDLE) : join(here, LIBRARY_BUNDLE);
  return existsSync(script) ? script : undefined;
}

export interface IndexPool {
  index(job: IndexJob): Promise<IndexReply>;
  /** Stops the threads; jobs not yet answered answer `{ok:false}` with `cancelled`. */
  close(): void;
}

interface Pending {
  job: IndexJob;
  resolve: (reply: IndexReply) => void;
}

const CANCELLED: IndexReply = { ok: false, message: 'cancelled' };

export function indexPool(options: { threads?: number; script?: string | null } = {}): IndexPool {
  const script = options.script === null ? undefined : (options.script ?? libraryBundle());
  const size = Math.max(1, Math.min(options.threads ?? availableParallelism(), availableParallelism()));
  if (script === undefined) {
    let closed = false;
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
  const queue: Pending[] = [];
  const idle: Worker[] = [];
  const all: Worker[] = [];
  const busy = new Map<Worker, { id: number; pending: Pending }>();
  let nextId = 1;
  let closed = false;

  const fail = (w: Worker, message: string): void => {
    const b = busy.get(w);
    busy.delete(w);
    const k = all.indexOf(w);
    if (k >= 0) all.splice(k, 1);
    b?.pending.resolve(closed ? CANCELLED : { ok: false, message });
    pump();
  };
  const start = (): Worker => {
    const w = new Worker(script, { resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    w.on('message', (m: { id: number; reply: IndexReply }) => {
      const b = busy.get(w);
      if (!b || b.id !== m.id) return;
      busy.delete(w);
      b.pending.resolve(m.reply);
      idle.push(w);
      pump();
    });
    w.on('error', (e) => fail(w, `the indexing thread failed: ${e.message}`));
    w.on('exit', (code) => fail(w, `the indexing thread exited (${code})`));
    all.push(w);
    return w;
  };
  function pump(): void {
    while (!closed && queue.length > 0) {
      const w = idle.pop() ?? (all.length < size ? start() : undefined);
      if (!w) return;
      const pending = queue.shift() as Pending;
      const id = nextId++;
      busy.set(w, { id, pending });
      w.ref();
      w.postMessage({ ...pending.job, id });
    }
    // Idle threads do not keep the process alive.
    for (const w of idle) w.unref();
  }
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
      for (const p of queue.splice(0)) p.resolve(CANCELLED);
      for (const [, b] of busy) b.pending.resolve(CANCELLED);
      busy.clear();
      for (const w of all.splice(0)) void w.terminate();
      idle.length = 0;
    },
  };
}
