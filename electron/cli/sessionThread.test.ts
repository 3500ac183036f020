/**
 * A one-shot command over a large session runs on a thread whose heap is sized to its files
 * (sessionThread.ts): which command lines do, with what heap, and that the built command line
 * prints the same there, byte for byte, with the same exit status.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../tools/testing/files';
import { CODE_CACHE_ENV } from './chunkLoader';
import type { SessionThreadData } from './sessionThread';
import { SESSION_THREAD_ENV, SESSION_THREAD_MAX_HEAP_MB, SESSION_THREAD_MIN_BYTES, SESSION_THREAD_MIN_HEAP_MB, SESSION_THREAD_MIN_LINES, estimatedLines, runOnSessionThread, sessionThreadHeapMb, sessionThreadPlan } from './sessionThread';

const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist', 'cli.cjs');
const DEMO = join(ROOT, 'samples/demo.sidecar.jsonl');
const MiB = 1024 * 1024;
const tmp = tempDir();
afterAll(() => tmp.cleanup());

/** Sizes by path, for plans made without files. */
const sized =
  (sizes: Record<string, number>) =>
  (path: string): number | undefined =>
    sizes[path];

describe('which command lines run on a session thread', () => {
  const big = { 'big.jsonl': 512 * MiB, 'small.jsonl': 40 * 1000, 'half.jsonl': SESSION_THREAD_MIN_BYTES / 2 };
  // Files of lines enough (each as many as the threshold), unless a test says otherwise.
  const plan = (command: string, files: string[], options: { follow?: boolean; env?: NodeJS.ProcessEnv; execArgv?: string[]; linesOf?: (path: string, size: number) => number } = {}) =>
    sessionThreadPlan({ command, follow: options.follow ?? false, files }, { env: options.env ?? {}, execArgv: options.execArgv ?? [], sizeOf: sized(big), linesOf: options.linesOf ?? (() => SESSION_THREAD_MIN_LINES) });

  it('each one-session command over files of the threshold or more, with three eighths of their bytes as its heap', () => {
    for (const command of ['check', 'view', 'log', 'diff', 'expand', 'search', 'trace']) expect(plan(command, ['big.jsonl']), command).toBe(192);
    // A sidecar and its snapshot count together.
    expect(plan('check', ['half.jsonl', 'half.jsonl'])).toBe(sessionThreadHeapMb(SESSION_THREAD_MIN_BYTES));
    expect(plan('check', ['half.jsonl'])).toBeUndefined();
    expect(plan('check', ['small.jsonl'])).toBeUndefined();
  });

  it('not a command that follows, lists, serves or writes a bundle, nor one without files', () => {
    expect(plan('check', ['big.jsonl'], { follow: true })).toBeUndefined();
    for (const command of ['sessions', 'serve', 'open', 'bundle', 'export']) expect(plan(command, ['big.jsonl']), command).toBeUndefined();
    expect(plan('check', [], { env: { [SESSION_THREAD_ENV]: 'always' } })).toBeUndefined();
  });

  it('not when a file cannot be read: the main thread reports it', () => {
    expect(plan('check', ['big.jsonl', 'missing.jsonl'])).toBeUndefined();
  });

  it('not when the user sized the heap (their flag is kept), in the command line or NODE_OPTIONS', () => {
    expect(plan('check', ['big.jsonl'], { execArgv: ['--initial-old-space-size=100'] })).toBeUndefined();
    expect(plan('check', ['big.jsonl'], { env: { NODE_OPTIONS: '--max-old-space-size=4096 --initial-heap-size=50' } })).toBeUndefined();
    // A limit alone is not a start size: the thread's heap grows within it.
    expect(plan('check', ['big.jsonl'], { env: { NODE_OPTIONS: '--max-old-space-size=4096' } })).toBe(192);
  });

  it('not for files of few lines, however large (a session of a few huge records keeps little), unless asked for every size', () => {
    const few = (): number => SESSION_THREAD_MIN_LINES - 1;
    expect(plan('check', ['big.jsonl'], { linesOf: few })).toBeUndefined();
    expect(plan('check', ['big.jsonl'], { linesOf: () => SESSION_THREAD_MIN_LINES })).toBe(192);
    // A sidecar and its snapshot: their lines count together.
    expect(plan('check', ['big.jsonl', 'big.jsonl'], { linesOf: () => SESSION_THREAD_MIN_LINES / 2 })).toBe(384);
    expect(plan('check', ['big.jsonl'], { linesOf: few, env: { [SESSION_THREAD_ENV]: 'always' } })).toBe(192);
  });

  it('the environment turns it off, or on for every size', () => {
    expect(plan('check', ['big.jsonl'], { env: { [SESSION_THREAD_ENV]: 'off' } })).toBeUndefined();
    expect(plan('check', ['small.jsonl'], { env: { [SESSION_THREAD_ENV]: 'Always' } })).toBe(SESSION_THREAD_MIN_HEAP_MB);
  });

  it('the heap grows with the files, within its bounds', () => {
    fc.assert(
      fc.property(fc.nat({ max: 8 * 1024 * MiB }), fc.nat({ max: 8 * 1024 * MiB }), (a, b) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        const heap = sessionThreadHeapMb(low);
        expect(heap).toBeGreaterThanOrEqual(SESSION_THREAD_MIN_HEAP_MB);
        expect(heap).toBeLessThanOrEqual(SESSION_THREAD_MAX_HEAP_MB);
        expect(sessionThreadHeapMb(high)).toBeGreaterThanOrEqual(heap);
        // Within the bounds it is three eighths of the bytes, rounded up to a MiB.
        if (heap > SESSION_THREAD_MIN_HEAP_MB && heap < SESSION_THREAD_MAX_HEAP_MB) expect(heap).toBe(Math.ceil((low * 3) / 8 / MiB));
      }),
    );
  });
});

describe("a file's lines, estimated from three windows", () => {
  const WINDOW = 4096;
  it('are about as many as a file of even lines holds, and next to none in a file of one huge line', () => {
    fc.assert(
      fc.property(fc.integer({ min: 20, max: 400 }), fc.integer({ min: 4 * WINDOW, max: 40 * WINDOW }), (lineBytes, approx) => {
        const count = Math.ceil(approx / lineBytes);
        const path = tmp.path('even.jsonl');
        writeFileSync(path, `${'x'.repeat(lineBytes - 1)}\n`.repeat(count));
        const size = lineBytes * count;
        // Each window holds its share of line breaks, give or take one, scaled to the file: three
        // breaks off in three windows' bytes.
        expect(Math.abs(estimatedLines(path, size, WINDOW) - count)).toBeLessThanOrEqual(Math.ceil(size / WINDOW) + 1);
      }),
      { numRuns: 60 },
    );
    const huge = tmp.path('huge.jsonl');
    const text = `{"type":"meta"}\n{"type":"prompt"}\n{"output":"${'y'.repeat(400 * WINDOW)}"}\n{"type":"answer"}\n`;
    writeFileSync(huge, text);
    const size = Buffer.byteLength(text);
    // Its four line breaks, all in the first and last windows, scaled to the file: a twentieth of what lines of 100 bytes would make.
    expect(estimatedLines(huge, size, WINDOW)).toBe(Math.round((4 * size) / (3 * WINDOW)));
    expect(estimatedLines(huge, size, WINDOW)).toBeLessThan(size / 100 / 20);
  });

  it('an archive, a FIFO or a missing file counts as many lines as can be: its size alone decides', () => {
    const zip = tmp.path('log.eval');
    writeFileSync(zip, Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(20 * WINDOW)]));
    expect(estimatedLines(zip, 20 * WINDOW + 4, WINDOW)).toBe(Number.POSITIVE_INFINITY);
    const fifo = tmp.path('session.fifo');
    execFileSync('mkfifo', [fifo]);
    // Never opened: a FIFO's reader would wait for a writer.
    expect(estimatedLines(fifo, 100 * MiB, WINDOW)).toBe(Number.POSITIVE_INFINITY);
    expect(estimatedLines(tmp.path('missing.jsonl'), 100 * MiB, WINDOW)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('running on a session thread', () => {
  /** A stand-in for the command line's bundle: it writes what marks its thread to process.stdout, then ends with `status`. */
  const stand = (status: string) => (data: SessionThreadData) =>
    new Worker(`const { workerData } = require('node:worker_threads'); process.stdout.write('on the thread ' + JSON.stringify(workerData)); ${status}`, { eval: true, workerData: data, stdout: true, stderr: true });

  it('answers the thread’s exit status, and writes what it wrote to process.stdout to the process’s', async () => {
    const written: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(Buffer.from(chunk).toString('utf8'));
      return true;
    });
    try {
      await expect(runOnSessionThread(['check', 'x'], 64, 'unused', stand('process.exitCode = 3;'))).resolves.toBe(3);
      // The thread's stream is read after it ends: wait for its last chunk.
      await vi.waitFor(() => expect(written.join('')).toBe('on the thread {"sessionThread":true}'));
    } finally {
      write.mockRestore();
    }
  });

  it('rejects when the thread throws, and answers nothing when no thread can be started (the command runs where it is)', async () => {
    const quiet = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      await expect(runOnSessionThread(['check', 'x'], 64, 'unused', stand("throw new Error('thrown on the thread');"))).rejects.toThrow('thrown on the thread');
    } finally {
      quiet.mockRestore();
    }
    expect(
      runOnSessionThread(['check', 'x'], 64, 'unused', () => {
        throw new Error('no threads here');
      }),
    ).toBeUndefined();
  });
});

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  /** The threads that ran JavaScript (a CPU profile each). */
  threads: number;
}

describe.skipIf(!existsSync(CLI))('the built command line on a session thread', () => {
  let runs = 0;
  const run = (mode: 'always' | 'off', args: string[], env: NodeJS.ProcessEnv = {}): Run => {
    const profiles = tmp.path(`profiles-${runs++}`);
    const r = spawnSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${profiles}`, CLI, ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * MiB, env: { ...process.env, [CODE_CACHE_ENV]: '0', ...env, [SESSION_THREAD_ENV]: mode } });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr, threads: existsSync(profiles) ? readdirSync(profiles).length : 0 };
  };
  const invalid = tmp.path('invalid.sidecar.jsonl');
  writeFileSync(invalid, readFileSync(DEMO, 'utf8').replace('"kept_bytes":15,', ''));

  it('prints the same with the same status: a check, one with findings, a view, a log, an expand, an unknown reduction', () => {
    const lines: string[][] = [['check', DEMO], ['check', invalid], ['view', '--at', '1', DEMO], ['log', DEMO], ['expand', '--id', 'r1', DEMO], ['expand', '--id', 'no-such-reduction', DEMO]];
    const statuses: (number | null)[] = [];
    for (const args of lines) {
      const here = run('off', args);
      const there = run('always', args);
      expect(here.threads, args.join(' ')).toBe(1);
      expect(there.threads, args.join(' ')).toBe(2);
      expect({ status: there.status, stdout: there.stdout, stderr: there.stderr }, args.join(' ')).toEqual({ status: here.status, stdout: here.stdout, stderr: here.stderr });
      statuses.push(here.status);
    }
    // The lines cover success, findings and an error.
    expect(new Set(statuses)).toEqual(new Set([0, 1, 2]));
  });

  it('a usage error and a missing file are reported by the main thread', () => {
    for (const args of [['check', '--nope', DEMO], ['check', join(tmp.dir, 'missing.jsonl')]]) {
      const r = run('always', args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.threads, args.join(' ')).toBe(1);
    }
  });

  it('the thread and the main thread read each other’s code cache: neither writes an entry again', () => {
    const cacheHome = tmp.path('cache-home');
    const env = { [CODE_CACHE_ENV]: '', XDG_CACHE_HOME: cacheHome };
    const cacheDir = join(cacheHome, 'session-inspector', 'code-cache');
    const identities = (): string[] => readdirSync(cacheDir).map((name) => `${name} ${statSync(join(cacheDir, name), { bigint: true }).mtimeNs}`);
    expect(run('always', ['check', DEMO], env).status).toBe(0);
    const written = identities();
    expect(written).toHaveLength(1);
    expect(run('off', ['check', DEMO], env).status).toBe(0);
    expect(run('always', ['check', DEMO], env).status).toBe(0);
    expect(identities()).toEqual(written);
  });
});
