/**
 * Folder scans (./scan.ts) off the host's main thread: they run in a worker_threads worker (the
 * bundle of ./worker.ts), started at the first listing and stopped after IDLE_MS without one, so the
 * host answers other requests while a listing reads the heads of a folder's files. Requests for a
 * folder that come while it is being scanned share one scan, started when that one ends (so each
 * answer was read after it was asked, and a client asking again and again queues at most one
 * more). A scan not answered within SCAN_TIMEOUT_MS stops the thread and is refused.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { FolderScan } from './scan';
import { scanFolder } from './scan';

/** The bundle of worker.ts, beside the bundle that runs this code (dist/). */
export const LISTING_BUNDLE = 'listing.cjs';
/** A scan not answered by then is stopped and refused (a folder on a file system that hangs). */
export const SCAN_TIMEOUT_MS = 60_000;
/** The thread holds heads and names only; this bounds its heap. */
const WORKER_HEAP_MB = 128;
/** A thread left idle this long is stopped (it holds a V8 heap); the next listing starts another. */
const IDLE_MS = 30_000;

/** What the listing thread is sent: one folder to scan. */
export interface ScanRequest {
  id: number;
  root: string;
  maxScanned: number;
  /**
   * Test hook: before each file is read the worker sets slot 1 to 1 and waits while slot 0 is 0,
   * so a test holds a scan in flight without sleeping.
   */
  gate?: SharedArrayBuffer;
}

export type ScanReply = { id: number } & ({ ok: true; scan: FolderScan } | { ok: false; message: string });

/** Scans a folder; rejects with the reason when it cannot be read. */
export type FolderScanner = (root: string, maxScanned: number) => Promise<FolderScan>;

/**
 * Where the worker's bundle is: beside the bundle running this code, or, from the TypeScript
 * sources (Vitest), the repository's dist/ (the tests' global setup builds it).
 */
export function defaultListingScript(): string | undefined {
  const here = typeof __dirname === 'string' ? __dirname : resolve('dist');
  const fromSources = basename(here) === 'listing' && basename(dirname(here)) === 'electron';
  const script = fromSources ? resolve(here, '../../dist', LISTING_BUNDLE) : join(here, LISTING_BUNDLE);
  return existsSync(script) ? script : undefined;
}

/** One listing thread, started on first use and stopped when idle; scans are sent to it one at a time. */
class ListingThread {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (scan: FolderScan) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  private idle: NodeJS.Timeout | undefined;

  constructor(
    private readonly script: string,
    private readonly timeoutMs: number,
  ) {}

  scan(request: Omit<ScanRequest, 'id'>): Promise<FolderScan> {
    if (this.idle) clearTimeout(this.idle);
    this.idle = undefined;
    let worker: Worker;
    try {
      worker = this.worker ?? this.start();
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
    const id = this.nextId++;
    return new Promise((resolveScan, reject) => {
      const timer = setTimeout(() => this.stop(new Error(`the folder was not read within ${this.timeoutMs / 1000} s`)), this.timeoutMs);
      timer.unref();
      this.pending.set(id, { resolve: resolveScan, reject, timer });
      // A scan awaited must not see its process exit under it (an idle thread is unref'd).
      worker.ref();
      worker.postMessage({ id, ...request } satisfies ScanRequest);
    });
  }

  private start(): Worker {
    const worker = new Worker(this.script, { resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    worker.unref();
    worker.on('message', (reply: ScanReply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      clearTimeout(p.timer);
      if (reply.ok) p.resolve(reply.scan);
      else p.reject(new Error(reply.message));
      if (this.pending.size === 0) {
        worker.unref();
        this.idle = setTimeout(() => this.stop(new Error('the listing thread was stopped')), IDLE_MS);
        this.idle.unref();
      }
    });
    worker.on('error', (e) => this.gone(worker, e));
    worker.on('exit', (code) => this.gone(worker, new Error(`the listing thread exited (${code}) before it answered`)));
    this.worker = worker;
    return worker;
  }

  /** Stops the thread; scans in flight are refused with `why`. */
  private stop(why: Error): void {
    const worker = this.worker;
    if (worker) this.gone(worker, why);
    if (worker) void worker.terminate();
  }

  private gone(worker: Worker, why: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      clearTimeout(p.timer);
      p.reject(why);
    }
  }
}

let sharedThread: ListingThread | undefined;

export interface ThreadScannerOptions {
  /** The worker's bundle (default: defaultListingScript()). */
  script?: string;
  timeoutMs?: number;
  /** See ScanRequest.gate. */
  gate?: SharedArrayBuffer;
}

/**
 * A scanner whose scans run in worker threads. Without a worker bundle (a build without it) the
 * scan runs on the calling thread: still head-only and bounded, but no longer beside other requests.
 */
export function threadScanner(options: ThreadScannerOptions = {}): FolderScanner {
  const custom = options.script !== undefined || options.timeoutMs !== undefined;
  const script = options.script ?? defaultListingScript();
  // One thread per process serves every folder with the defaults (a host serves one).
  const thread = script === undefined ? undefined : custom ? new ListingThread(script, options.timeoutMs ?? SCAN_TIMEOUT_MS) : (sharedThread ??= new ListingThread(script, SCAN_TIMEOUT_MS));
  const scan = (root: string, maxScanned: number): Promise<FolderScan> =>
    thread === undefined ? new Promise<FolderScan>((resolveScan) => resolveScan(scanFolder(root, maxScanned))) : thread.scan({ root, maxScanned, ...(options.gate ? { gate: options.gate } : {}) });
  /** By folder: the scan in flight, and the one every request that came meanwhile shares. */
  const lanes = new Map<string, { running: Promise<FolderScan>; next?: Promise<FolderScan> }>();
  const begin = (key: string, root: string, maxScanned: number): Promise<FolderScan> => {
    const running = scan(root, maxScanned);
    lanes.set(key, { running });
    const done = (): void => {
      if (lanes.get(key)?.running === running) lanes.delete(key);
    };
    void running.then(done, done);
    return running;
  };
  return (root, maxScanned) => {
    const key = `${maxScanned}\0${root}`;
    const lane = lanes.get(key);
    if (!lane) return begin(key, root, maxScanned);
    // The scan in flight may have read the folder before this request (a Refresh after a file
    // appeared): it shares the next scan, which starts when that one ends.
    lane.next ??= lane.running.then(
      () => begin(key, root, maxScanned),
      () => begin(key, root, maxScanned),
    );
    return lane.next;
  };
}
