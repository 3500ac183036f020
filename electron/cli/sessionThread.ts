/**
 * A one-shot command over a large session runs on a thread of its own whose V8 heap starts at a
 * size fitted to the files (docs/streaming-import.md "A heap sized to the session"). Such a command
 * keeps a session's records while it reads them (150–200 MB live for the bench's 537 MB Claude Code
 * session): from V8's small first heap, each growth of it ran a full collection that marked every
 * record kept so far, six in a `check` of that session, with their marking on the cores the pass
 * and its threads need. V8 sizes a heap when it makes it, and the main thread's was made before any
 * code of ours ran: so the command runs on a worker thread made after the size is set, and the
 * process's own thread waits for its exit status. Output is the same: the thread writes through
 * the process's descriptors (output.ts fdWriter) as the main thread would.
 */
import type { Worker } from 'node:worker_threads';
import { startWithHeap } from '../loader/common/heapStart';
import { processStream } from './output';
import type { GivenFlags } from './v8Flags';
import { gaveV8Flag } from './v8Flags';

// Fetched when used: dist/cli.cjs holds this file, and `--help` loads no more than it needs (chunkLoader.ts).
const fs = () => process.getBuiltinModule('node:fs');
const threads = () => process.getBuiltinModule('node:worker_threads');

/** Files of at least this many bytes in all (a command's FILE arguments) are read on a session thread. */
export const SESSION_THREAD_MIN_BYTES = 64 * 1024 * 1024;
/**
 * The heap a session thread starts with is three eighths of its files' bytes, within these bounds
 * (MiB): 192 MiB for the bench's 537 MB session, which keeps 150–200 MB (docs/streaming-import.md).
 */
export const SESSION_THREAD_MIN_HEAP_MB = 64;
export const SESSION_THREAD_MAX_HEAP_MB = 512;
/**
 * `off` keeps every command on the main thread; `always` runs every one-session command on a
 * session thread whatever its files' size (tests run small files so).
 */
export const SESSION_THREAD_ENV = 'SESSION_INSPECTOR_SESSION_THREAD';

/**
 * Files whose lines are estimated below this many in all (estimatedLines) stay on the main thread
 * whatever their size. A thread's own heap helps a session that keeps many records (the bench's
 * 537 MB session keeps 150–200 MB for its 169,173 lines); it costs an isolate of its own and a heap
 * that lets garbage pile up: a 260 MB file of one 250 MB line peaked 8–15 MB higher on a thread
 * (docs/streaming-import.md). The line sits far from both: some 122,000 lines are estimated for
 * that session, 330–495 for the one-line files; a transcript of 64 MiB reaches it at 8 KB a line.
 */
export const SESSION_THREAD_MIN_LINES = 8192;
/** The bytes of each of the three windows (start, middle, end) whose line breaks estimate a file's lines. */
export const LINE_SAMPLE_BYTES = 1024 * 1024;

/** The commands that read one session and end: `check --follow` follows, and the others are not one session's. */
const ONE_SESSION_COMMANDS: ReadonlySet<string> = new Set(['check', 'view', 'log', 'diff', 'expand', 'search', 'trace']);
/** A heap size the user gave (V8's flags): kept, and the command runs on the main thread. */
const USER_HEAP_FLAGS = ['--initial-old-space-size', '--initial-heap-size'];

/** What marks a session thread's `workerData`. */
export interface SessionThreadData {
  readonly sessionThread: true;
}

/** The heap (MiB) a session thread starts with for files of `bytes`. */
export function sessionThreadHeapMb(bytes: number): number {
  return Math.min(SESSION_THREAD_MAX_HEAP_MB, Math.max(SESSION_THREAD_MIN_HEAP_MB, Math.ceil((bytes * 3) / 8 / (1024 * 1024))));
}

/** The process's own V8 flags and environment: a heap size the user gave is kept. */
export interface SessionThreadContext extends GivenFlags {
  /** A file's size, or undefined when it cannot be read (the command then reports it on the main thread). */
  sizeOf?: (path: string) => number | undefined;
  /** A file's lines, estimated (estimatedLines). */
  linesOf?: (path: string, size: number) => number;
}

/** An archive (a zip: an Inspect `.eval`) holds its records in entries, not lines: its lines are not counted. */
const ZIP_MAGIC = 0x04034b50;

/**
 * The lines of the file `path` of `size` bytes, estimated from the line breaks in three windows of
 * `window` bytes (its start, middle and end) as if the whole file were like them: a file of one
 * huge line has next to none, a transcript of small records about as many as it holds. An archive,
 * a file that is not a regular one, or one that cannot be read counts as many lines as can be (its
 * size alone decides): none of these is opened past its first bytes, and nothing waits on a FIFO.
 */
export function estimatedLines(path: string, size: number, window = LINE_SAMPLE_BYTES): number {
  const files = fs();
  let fd: number | undefined;
  try {
    if (!files.statSync(path).isFile()) return Number.POSITIVE_INFINITY;
    fd = files.openSync(path, files.constants.O_RDONLY | files.constants.O_NONBLOCK);
    const buffer = Buffer.allocUnsafe(Math.min(window, size));
    let sampled = 0;
    let breaks = 0;
    const starts = size <= 3 * window ? [0] : [0, Math.floor((size - window) / 2), size - window];
    for (const [k, start] of starts.entries()) {
      const n = files.readSync(fd, buffer, 0, buffer.length, start);
      if (k === 0 && n >= 4 && buffer.readUInt32LE(0) === ZIP_MAGIC) return Number.POSITIVE_INFINITY;
      for (let at = buffer.indexOf(0x0a, 0); at >= 0 && at < n; at = buffer.indexOf(0x0a, at + 1)) breaks++;
      sampled += n;
    }
    return sampled === 0 ? 0 : Math.round((breaks * size) / sampled);
  } catch {
    return Number.POSITIVE_INFINITY;
  } finally {
    if (fd !== undefined) files.closeSync(fd);
  }
}

function statSize(path: string): number | undefined {
  try {
    return fs().statSync(path).size;
  } catch {
    return undefined;
  }
}

/**
 * The heap (MiB) a command line runs with on a session thread, or undefined to run it on the main
 * thread: not a one-session command, `check --follow`, files under the threshold or not readable,
 * files of fewer lines than SESSION_THREAD_MIN_LINES (estimated),
 * a heap size the user set, or turned off by SESSION_THREAD_ENV. `command`, `follow` and `files`
 * are the command line as main.ts parses it.
 */
export function sessionThreadPlan(parsed: { command: string; follow: boolean; files: readonly string[] }, context: SessionThreadContext = {}): number | undefined {
  const env = context.env ?? process.env;
  const setting = (env[SESSION_THREAD_ENV] ?? '').trim().toLowerCase();
  if (setting === 'off') return undefined;
  const minBytes = setting === 'always' ? 0 : SESSION_THREAD_MIN_BYTES;
  if (!ONE_SESSION_COMMANDS.has(parsed.command) || (parsed.command === 'check' && parsed.follow)) return undefined;
  if (gaveV8Flag(USER_HEAP_FLAGS, context)) return undefined;
  const sizeOf = context.sizeOf ?? statSize;
  const sizes: number[] = [];
  for (const file of parsed.files) {
    const size = sizeOf(file);
    if (size === undefined) return undefined;
    sizes.push(size);
  }
  const bytes = sizes.reduce((a, b) => a + b, 0);
  if (parsed.files.length === 0 || bytes < minBytes) return undefined;
  if (setting !== 'always') {
    const linesOf = context.linesOf ?? estimatedLines;
    let lines = 0;
    for (const [k, file] of parsed.files.entries()) lines += linesOf(file, sizes[k] ?? 0);
    if (lines < SESSION_THREAD_MIN_LINES) return undefined;
  }
  return sessionThreadHeapMb(bytes);
}

/** True on a session thread (runOnSessionThread's worker). */
export function onSessionThread(): boolean {
  const here = threads();
  const data = here.workerData as Partial<SessionThreadData> | null;
  return !here.isMainThread && data?.sessionThread === true;
}

/**
 * Runs `argv` on a session thread of `script` (the command line's bundle) with a heap of `heapMb`,
 * and answers its exit status; undefined when Node refuses to start a thread (the caller runs the
 * command itself). What the thread writes to `process.stdout` or `process.stderr` (not the
 * descriptors) is written to the process's own.
 */
export function runOnSessionThread(argv: readonly string[], heapMb: number, script: string, make: (data: SessionThreadData) => Worker = (data) => new (threads().Worker)(script, { argv: [...argv], workerData: data, stdout: true, stderr: true })): Promise<number> | undefined {
  let worker: Worker;
  try {
    worker = startWithHeap(heapMb, () => make({ sessionThread: true }));
  } catch {
    return undefined;
  }
  worker.stdout.on('data', (chunk: Buffer) => void processStream('stdout').write(chunk));
  worker.stderr.on('data', (chunk: Buffer) => void processStream('stderr').write(chunk));
  return new Promise((resolveStatus, rejectStatus) => {
    worker.on('error', rejectStatus);
    worker.on('exit', resolveStatus);
  });
}
