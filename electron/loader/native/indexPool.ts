/**
 * Indexing on every core: the expensive, order-free part of indexing a sidecar — walking
 * and hashing the content of each long message record (scanLongLine) — runs in a small pool of
 * worker_threads, while the indexing pass keeps the order-dependent part (the timeline, findings,
 * line numbers) on its own thread. A scan depends only on the file's bytes at a line's range, so a
 * worker's answer is the answer the pass would have computed itself; any worker failure makes the
 * pass compute that line itself. Small files, an injected reader (tests) and a missing worker
 * bundle index on one thread.
 */
import { existsSync, readSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { availableParallelism } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { ReadSync } from '../common/lines';
import { readExactly } from '../common/lines';
import { ThreadPool } from '../common/threadPool';
import type { RawContent } from '../content/rawRecord';
import { scanMessageRecord } from '../content/rawRecord';
import type { ScratchBuffers } from '../content/scratch';

/** A content at least this long is hashed while indexing, so its stub verifies at once. */
export const HASH_AT_INDEX_BYTES = 1024 * 1024;
/**
 * A pass over fewer bytes than this indexes on one thread: it takes a fraction of a second there,
 * and starting a worker (a Node environment, its own JIT warm-up) costs more than it would save.
 */
export const POOL_MIN_BYTES = 32 * 1024 * 1024;
/** The bundle of indexPoolWorker.ts, beside the bundle that runs this code. */
export const POOL_BUNDLE = 'indexPool.cjs';
/** Workers left idle this long are stopped (each holds a V8 heap): an open's searches run without them. */
const IDLE_MS = 1000;
/** A worker's young generation: its garbage is small and short-lived (a record's rest, checkpoints), so a small one keeps its RSS low. */
const WORKER_YOUNG_MB = 8;
const MAX_WORKERS = 4;
const MAX_FAILURES = 4;

/** One long line to scan: where it is, and how the pass reads it. */
export interface ScanJob {
  offset: number;
  /** Without its `\n` (and a `\r` before it). */
  length: number;
  number: number;
  terminated: boolean;
  /** A line up to this long is read into memory whole (as the splitter would have kept it). */
  maxLineBytes: number;
}

/**
 * What scanning a long line gave: undefined when it is not a message record valid as UTF-8 (the
 * pass parses it whole), `failed` when it could not be read this way (likewise), or the record's
 * JSON text with `msg.content` empty and where its content is (the pass parses and validates the
 * rest: a worker holds no schema, so its bundle stays small and starts fast).
 */
export type LongScan = { rest: string; content: RawContent } | { failed: string } | undefined;

/** How a message record starts when written by the agent: `{"t":"message",…`. */
const MESSAGE_START = /^\s*\{\s*"t"\s*:\s*"message"/;

/**
 * Scans one long line (never the first record of a file): finds and walks its `msg.content`,
 * hashing a large one. `bytes` are the line's bytes when the caller holds them; otherwise a line up
 * to `maxLineBytes` is read whole into `scratch`'s line buffer, as the splitter keeps it.
 * A line that is not valid UTF-8 is read as text by the caller (each bad sequence as U+FFFD), as
 * JSON.parse would see it; only lines too long for memory are scanned regardless (the caller
 * refuses them by `content.validUtf8`).
 */
export function scanLongLine(fd: number, read: ReadSync, job: ScanJob, scratch: ScratchBuffers, bytes?: Buffer): LongScan {
  let line = bytes;
  if (line === undefined && job.length <= job.maxLineBytes) line = readLine(fd, read, job.offset, job.length, scratch);
  if (line !== undefined && !isUtf8(line)) return undefined;
  const head = line ? line.toString('latin1', 0, 64) : (readLine(fd, read, job.offset, Math.min(64, job.length))?.toString('latin1') ?? '');
  if (!MESSAGE_START.test(head)) return undefined;
  const scan = scanMessageRecord({
    fd,
    read,
    offset: job.offset,
    length: job.length,
    ...(line ? { bytes: line } : {}),
    hash: job.length >= HASH_AT_INDEX_BYTES,
    maxRestBytes: 1024 * 1024,
    scratch,
  });
  return scan.ok ? { rest: scan.rest, content: scan.content } : { failed: scan.reason };
}

/** A line buffer larger than this is let go after each batch (indexPoolWorker.ts): an idle worker holds little. */
export const KEEP_LINE_BUFFER_BYTES = 1024 * 1024;

/**
 * Reads `[offset, offset + length)` whole, or undefined when the file is shorter. With `scratch`:
 * into its line buffer (a scan keeps nothing of the line), valid until the next such read.
 */
function readLine(fd: number, read: ReadSync, offset: number, length: number, scratch?: ScratchBuffers): Buffer | undefined {
  return readExactly(fd, offset, length, read, scratch?.get('line', length));
}

/** A worker's answer for one job: the scan, or why the worker could not (the pass then scans it itself). */
export type PoolAnswer = { scan: LongScan } | { error: string };

/** Scans batches of long lines of the file open at `fd`, off the indexing thread. */
export interface ScanPool {
  /** How many workers scan at once (batches are kept two per worker in flight). */
  readonly size: number;
  scan(fd: number, read: ReadSync, jobs: readonly ScanJob[]): Promise<PoolAnswer[]>;
}

/** The messages between the pool and its workers. */
export interface PoolRequest {
  id: number;
  fd: number;
  jobs: readonly ScanJob[];
}
export interface PoolReply {
  id: number;
  answers: PoolAnswer[];
}

/** worker_threads running indexPoolWorker.ts (a ThreadPool, common/threadPool.ts); started on first use, stopped when idle. */
export class ThreadScanPool implements ScanPool {
  private readonly pool: ThreadPool<Omit<PoolRequest, 'id'>, PoolReply>;

  constructor(
    script: string,
    readonly size: number,
  ) {
    this.pool = new ThreadPool({
      script,
      size,
      resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_MB },
      idleMs: IDLE_MS,
      maxFailures: MAX_FAILURES,
      words: {
        notStarted: 'no indexing worker could be started',
        failed: (e) => `an indexing worker failed: ${e.message}`,
        exited: () => 'an indexing worker exited',
        closed: 'the indexing pool was closed',
        timedOut: () => 'an indexing worker did not answer',
      },
    });
  }

  /** Each job's answer; when the worker cannot give them, why (the pass then scans those lines in-thread). */
  scan(fd: number, _read: ReadSync, jobs: readonly ScanJob[]): Promise<PoolAnswer[]> {
    const bytes = jobs.reduce((n, j) => n + j.length, 0);
    const refused = (why: string): PoolAnswer[] => jobs.map(() => ({ error: why }));
    return this.pool.request({ fd, jobs }, bytes).then(
      (reply) => (reply.answers.length === jobs.length ? reply.answers : refused('a worker answered the wrong number of jobs')),
      (e: Error) => refused(e.message),
    );
  }

  /** Stops every worker; pending scans are answered with errors (their passes scan in-thread). */
  close(): void {
    this.pool.close();
  }
}

/**
 * Where the pool's bundle is: beside the bundle running this code (dist/, bench/out/runners/).
 * From the TypeScript sources (Vitest) there is none — a dist/ built from other sources could
 * answer differently — so tests inject their pool.
 */
export function defaultPoolScript(): string | undefined {
  const here = typeof __dirname === 'string' ? __dirname : undefined;
  if (here === undefined) return undefined;
  if (basename(here) === 'native' && basename(dirname(here)) === 'loader') return undefined;
  const script = resolve(join(here, POOL_BUNDLE));
  return existsSync(script) ? script : undefined;
}

let shared: ThreadScanPool | null | undefined;

/**
 * The pool a pass over `bytes` bytes uses, or null to index on one thread: a small pass, a reader
 * other than fs.readSync (workers read the file themselves), one core, or no worker bundle.
 */
export function defaultScanPool(read: ReadSync, bytes: number): ScanPool | null {
  // One worker per core but one: the indexing thread scans too while it waits (ScanQueue.take).
  if (bytes < POOL_MIN_BYTES || read !== readSync) return null;
  if (shared === undefined) {
    const script = defaultPoolScript();
    const cores = availableParallelism();
    shared = script && cores >= 2 ? new ThreadScanPool(script, Math.min(cores - 1, MAX_WORKERS)) : null;
  }
  return shared;
}

/** A long line waiting for its scan. */
export interface ScanSlot {
  readonly job: ScanJob;
  state: 'queued' | 'sent' | 'done';
  result?: LongScan | { error: string };
  answered?: Promise<void>;
}

export interface QueueLimits {
  /** A batch holds up to this many bytes of lines, or batchLines lines. */
  batchBytes: number;
  batchLines: number;
  /** Batches sent and not yet answered, at most. */
  inFlight: number;
}

/**
 * The long lines of one indexing pass on their way to the pool, in file order. Batches go to the
 * workers while fewer than `inFlight` are unanswered; the pass takes each line's scan in order, and
 * while it waits for a worker's answer it scans the last queued lines itself (so both cores work
 * whether the pass or the workers are ahead). Every scan is scanLongLine's, wherever it ran.
 */
export class ScanQueue {
  private readonly queued: ScanSlot[] = [];
  private front = 0;
  private inFlight = 0;

  constructor(
    private readonly pool: ScanPool,
    private readonly fd: number,
    private readonly read: ReadSync,
    private readonly limits: QueueLimits,
    /** The pass's buffers, for the lines scanned here. */
    private readonly scratch: ScratchBuffers,
  ) {}

  add(job: ScanJob): ScanSlot {
    const slot: ScanSlot = { job, state: 'queued' };
    this.queued.push(slot);
    return slot;
  }

  /** Sends queued lines in batches while the workers have room. */
  pump(): void {
    while (this.inFlight < this.limits.inFlight && this.front < this.queued.length) {
      const slots: ScanSlot[] = [];
      let bytes = 0;
      while (this.front < this.queued.length && slots.length < this.limits.batchLines && bytes < this.limits.batchBytes) {
        const slot = this.queued[this.front++] as ScanSlot;
        slot.state = 'sent';
        slots.push(slot);
        bytes += slot.job.length;
      }
      this.compact();
      this.inFlight++;
      const answered = this.pool.scan(this.fd, this.read, slots.map((s) => s.job)).then(
        (answers) => {
          slots.forEach((slot, k) => {
            const a = answers[k];
            slot.result = a === undefined ? { error: 'no answer' } : 'scan' in a ? a.scan : a;
            slot.state = 'done';
          });
        },
        (e: unknown) => {
          for (const slot of slots) {
            slot.result = { error: e instanceof Error ? e.message : String(e) };
            slot.state = 'done';
          }
        },
      );
      const settled = answered.then(() => {
        this.inFlight--;
        this.pump();
      });
      for (const slot of slots) slot.answered = settled;
    }
  }

  /** The scan of `slot` (the pass's next long line): its worker's, or computed here. */
  async take(slot: ScanSlot): Promise<LongScan> {
    if (slot.state === 'queued') {
      // Not sent: the queue's first line, since the pass takes lines in order.
      if (this.queued[this.front] === slot) this.front++;
      else this.queued.splice(this.queued.indexOf(slot), 1);
      this.compact();
      return this.here(slot.job);
    }
    while (slot.state === 'sent' && this.front < this.queued.length) {
      // Waiting for a worker: scan the last queued line meanwhile, then let answers in.
      const last = this.queued.pop() as ScanSlot;
      last.result = this.here(last.job);
      last.state = 'done';
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (slot.state === 'sent') await slot.answered;
    const result = slot.result;
    // A worker that could not scan the line: this thread does, as without a pool.
    return result && 'error' in result ? this.here(slot.job) : result;
  }

  private here(job: ScanJob): LongScan {
    return scanLongLine(this.fd, this.read, job, this.scratch);
  }

  private compact(): void {
    if (this.front >= 1024) {
      this.queued.splice(0, this.front);
      this.front = 0;
    }
  }
}
