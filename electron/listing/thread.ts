/**
 * Folder scans (./scan.ts) off the host's main thread: they run in a worker_threads worker (the
 * bundle of ./worker.ts), started at the first listing and stopped after IDLE_MS without one, so the
 * host answers other requests while a listing reads the heads of a folder's files. Requests for a
 * folder that come while it is being scanned share one scan, started when that one ends (so each
 * answer was read after it was asked, and a client asking again and again queues at most one
 * more). A scan not answered within SCAN_TIMEOUT_MS stops the thread and is refused.
 */
import { threadBundle } from '../loader/common/threadBundle';
import { ThreadPool } from '../loader/common/threadPool';
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
  return threadBundle(LISTING_BUNDLE);
}

/** One listing thread (a ThreadPool of one, loader/common/threadPool.ts), started on first use and stopped when idle. */
class ListingThread {
  private readonly pool: ThreadPool<Omit<ScanRequest, 'id'>, ScanReply>;

  constructor(script: string, timeoutMs: number) {
    this.pool = new ThreadPool({
      script,
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
      idleMs: IDLE_MS,
      timeoutMs,
      words: {
        notStarted: 'the listing thread could not be started',
        failed: (e) => e.message,
        exited: (code) => `the listing thread exited (${code}) before it answered`,
        closed: 'the listing thread was stopped',
        timedOut: (ms) => `the folder was not read within ${ms / 1000} s`,
      },
    });
  }

  async scan(request: Omit<ScanRequest, 'id'>): Promise<FolderScan> {
    const reply = await this.pool.request(request);
    if (!reply.ok) throw new Error(reply.message);
    return reply.scan;
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
