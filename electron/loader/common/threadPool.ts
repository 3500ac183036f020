/**
 * The Node side's threads, started one way: each from a bundled module file of its own
 * (threadBundle.ts finds it beside the running bundle; docs/content-services.md), never from
 * source text. `startThread` starts one; `ThreadPool` keeps a few that answer requests by id — the
 * indexing pool (native/indexPool.ts) and the folder listing's thread (electron/listing/thread.ts)
 * are two of them. The search pool (electron/worker/searchPool.ts) and the background verifier
 * (content/backgroundVerify.ts) share memory with their threads and wait on it (Atomics) rather than
 * on messages, so they use `startThread` alone.
 */
import { setPriority } from 'node:os';
import type { ResourceLimits, TransferListItem } from 'node:worker_threads';
import { Worker } from 'node:worker_threads';
import { startWithHeap } from './heapStart';

/** The lowest scheduling priority (nice 19): what `yieldToOtherThreads` gives its thread. */
export const BACKGROUND_NICE = 19;

/**
 * Called on a thread that works ahead of need (the counting thread, electron/tokens/countThread.ts):
 * gives the calling thread alone the lowest scheduling priority, so that where the cores are all
 * busy the thread a user waits on runs first, and this one takes what they leave
 * (docs/token-estimates.md "Counting on two threads"). Linux keeps a nice value per thread; on
 * macOS and Windows the same call sets the whole process's, so there it does nothing. True when
 * the priority was set.
 */
export function yieldToOtherThreads(platform: NodeJS.Platform = process.platform): boolean {
  if (platform !== 'linux') return false;
  try {
    setPriority(BACKGROUND_NICE);
    return true;
  } catch {
    // Refused (a sandbox without setpriority): the thread runs at its default priority, as before.
    return false;
  }
}

export interface ThreadOptions {
  workerData?: unknown;
  resourceLimits?: ResourceLimits;
  /** Whether the thread may hold the process open while it runs (default false: it is unref'd). */
  keepAlive?: boolean;
  /** What `workerData` hands over rather than copies (a MessagePort). */
  transferList?: TransferListItem[];
  /** The size its heap starts at, in MiB (V8's `--initial-old-space-size`; heapStart.ts), rather than V8's own. */
  initialOldSpaceMb?: number;
}

/** Starts a thread running the bundle `script`; undefined when Node refuses to start it. */
export function startThread(script: string, options: ThreadOptions = {}): Worker | undefined {
  let worker: Worker;
  const make = (): Worker =>
    new Worker(script, {
      ...(options.workerData !== undefined ? { workerData: options.workerData } : {}),
      ...(options.resourceLimits ? { resourceLimits: options.resourceLimits } : {}),
      ...(options.transferList ? { transferList: options.transferList } : {}),
    });
  try {
    worker = options.initialOldSpaceMb === undefined ? make() : startWithHeap(options.initialOldSpaceMb, make);
  } catch {
    return undefined;
  }
  if (!options.keepAlive) worker.unref();
  return worker;
}

/** What a pool's refusals say; each becomes the message of the Error a request is rejected with. */
export interface PoolWords {
  /** No thread could be started (or too many failed). */
  notStarted: string;
  /** A thread failed with an error. */
  failed: (error: Error) => string;
  /** A thread exited unasked. */
  exited: (code: number) => string;
  /** The pool was closed, or its threads stopped when idle. */
  closed: string;
  /** A request was not answered within `timeoutMs` (its thread is stopped). */
  timedOut: (ms: number) => string;
}

export interface ThreadPoolOptions extends Omit<ThreadOptions, 'keepAlive'> {
  /** The threads' bundle. */
  script: string;
  /** Threads at most (default 1); a request goes to the least loaded, one is started while fewer run. */
  size?: number;
  /** Threads are stopped after this long without a request in flight (each holds a V8 heap). */
  idleMs: number;
  /** After this many threads failed or exited unasked, none is started again (default: no limit). */
  maxFailures?: number;
  /** A request not answered by then stops its thread, and every request in flight on it is refused (default: none). */
  timeoutMs?: number;
  words: PoolWords;
}

interface PoolThread {
  worker: Worker;
  /** Weight of the requests sent and not yet answered: a request goes to the least loaded thread. */
  load: number;
  /** Requests sent and not yet answered: while there are any the thread keeps the process alive. */
  inFlight: number;
}

interface Pending<Reply> {
  resolve: (reply: Reply) => void;
  reject: (why: Error) => void;
  owner: PoolThread;
  weight: number;
  timer: NodeJS.Timeout | undefined;
}

/**
 * A few threads answering requests: each request is posted with an `id`, the thread posts back a
 * reply with the same `id`. Threads start on first use and stop after `idleMs` idle; an idle thread
 * never holds the process open, a thread with a request in flight does. A thread that fails or exits
 * refuses its requests in flight (with `words`), and the next request starts another.
 */
export class ThreadPool<Request extends object, Reply extends { id: number }> {
  readonly size: number;
  private threads: PoolThread[] = [];
  private readonly pending = new Map<number, Pending<Reply>>();
  private nextId = 1;
  private idle: NodeJS.Timeout | undefined;
  private failures = 0;

  constructor(private readonly options: ThreadPoolOptions) {
    this.size = Math.max(1, options.size ?? 1);
  }

  /** The reply to `request`, or a rejection saying why none will come. `weight` balances the threads (default 1). */
  request(request: Request, weight = 1): Promise<Reply> {
    if (this.idle) clearTimeout(this.idle);
    this.idle = undefined;
    const owner = this.pick();
    if (!owner) return Promise.reject(new Error(this.options.words.notStarted));
    const id = this.nextId++;
    return new Promise<Reply>((resolve, reject) => {
      owner.load += weight;
      // A caller awaiting this reply must not see its process exit under it (an idle thread is unref'd).
      if (owner.inFlight++ === 0) owner.worker.ref();
      const ms = this.options.timeoutMs;
      const timer = ms === undefined ? undefined : setTimeout(() => this.stop(owner, this.options.words.timedOut(ms)), ms);
      timer?.unref();
      this.pending.set(id, { resolve, reject, owner, weight, timer });
      owner.worker.postMessage({ id, ...request });
    });
  }

  /** Stops every thread; requests in flight are refused. */
  close(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = undefined;
    for (const thread of [...this.threads]) this.stop(thread, this.options.words.closed);
  }

  private pick(): PoolThread | undefined {
    while (this.threads.length < this.size && this.failures < (this.options.maxFailures ?? Infinity)) {
      const thread = this.start();
      if (!thread) break;
      this.threads.push(thread);
    }
    let best: PoolThread | undefined;
    for (const t of this.threads) if (!best || t.load < best.load) best = t;
    return best;
  }

  private start(): PoolThread | undefined {
    const { script, workerData, resourceLimits, initialOldSpaceMb } = this.options;
    const worker = startThread(script, { workerData, ...(resourceLimits ? { resourceLimits } : {}), ...(initialOldSpaceMb !== undefined ? { initialOldSpaceMb } : {}) });
    if (!worker) return undefined;
    const thread: PoolThread = { worker, load: 0, inFlight: 0 };
    worker.on('message', (reply: Reply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.settle(reply.id, p);
      p.resolve(reply);
      this.maybeIdle();
    });
    worker.on('error', (e) => this.gone(thread, this.options.words.failed(e), true));
    worker.on('exit', (code) => this.gone(thread, this.options.words.exited(code), true));
    return thread;
  }

  private settle(id: number, p: Pending<Reply>): void {
    this.pending.delete(id);
    if (p.timer) clearTimeout(p.timer);
    p.owner.load -= p.weight;
    if (--p.owner.inFlight === 0) p.owner.worker.unref();
  }

  /** Takes the thread out (its exit is then no failure), refuses its requests in flight and terminates it. */
  private stop(thread: PoolThread, why: string): void {
    this.gone(thread, why, false);
    void thread.worker.terminate();
  }

  private gone(thread: PoolThread, why: string, failed: boolean): void {
    if (!this.threads.includes(thread)) return;
    if (failed) this.failures++;
    this.threads = this.threads.filter((t) => t !== thread);
    for (const [id, p] of this.pending) {
      if (p.owner !== thread) continue;
      this.settle(id, p);
      p.reject(new Error(why));
    }
  }

  private maybeIdle(): void {
    if (this.pending.size > 0) return;
    this.idle = setTimeout(() => {
      this.idle = undefined;
      if (this.pending.size === 0) this.close();
    }, this.options.idleMs);
    this.idle.unref();
  }
}
