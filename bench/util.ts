/**
 * The parent side of the benchmark: building the child runners, running one in a fresh process,
 * warming the page cache, describing the machine.
 */
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { RESULT_MARKER } from './runners/common';

export const repoRoot = resolve(import.meta.dirname, '..');
export const runnersOut = join(repoRoot, 'bench', 'out', 'runners');
export const workerBundle = join(repoRoot, 'dist', 'worker.cjs');

export const RUNNERS = ['indexBaseline', 'inflateBaseline', 'indexOurs', 'memoryHost', 'latencyHost', 'searchHost', 'wholeBaseline', 'followHost', 'tokensHost'] as const;
export type RunnerName = (typeof RUNNERS)[number];

export function formatBytes(n: number): string {
  if (n >= 1024 ** 3) return `${(n / 1024 ** 3).toFixed(2)} GiB`;
  if (n >= 1024 ** 2) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} B`;
}

/** Decimal megabytes: every MB and MB/s of the table is 10^6 bytes. */
export const MB = 1e6;

/**
 * Bundles every runner (bench/runners/*.ts) with the code it measures into bench/out/runners/*.cjs,
 * with the options scripts/build.mjs uses for dist/worker.cjs: the children run plain `node` on
 * code compiled like the shipped bundles, with no TypeScript loader in their heap.
 */
export async function buildRunners(): Promise<void> {
  await build({
    absWorkingDir: repoRoot,
    // The threads' bundles beside them, where the loader looks for them (indexPool.ts, threadBundle.ts).
    entryPoints: [
      ...RUNNERS.map((name) => join(repoRoot, 'bench', 'runners', `${name}.ts`)),
      { in: join(repoRoot, 'electron', 'loader', 'native', 'indexPoolWorker.ts'), out: 'indexPool' },
      { in: join(repoRoot, 'electron', 'worker', 'scanThread.ts'), out: 'scanThread' },
      { in: join(repoRoot, 'electron', 'loader', 'content', 'verifyThread.ts'), out: 'verifyThread' },
      { in: join(repoRoot, 'electron', 'loader', 'content', 'scanAheadThread.ts'), out: 'scanAheadThread' },
    ],
    outdir: runnersOut,
    outExtension: { '.js': '.cjs' },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: true,
    external: ['electron'],
    logLevel: 'warning',
  });
}

/** Builds dist/worker.cjs from the current sources (as the unit tests' global setup does). */
export function buildWorker(): void {
  execFileSync(process.execPath, [join(repoRoot, 'scripts', 'build.mjs'), 'worker', 'indexPool', 'scanThread', 'verifyThread', 'scanAheadThread'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  if (!existsSync(workerBundle)) throw new Error(`scripts/build.mjs worker did not write ${workerBundle}`);
}

/**
 * Runs one runner in a fresh `node` process with `input` and resolves with the result it prints
 * (the last `RESULT_MARKER` line of its stdout). Its stderr passes through; other stdout lines are
 * echoed. Rejects when it exits without a result (a crash, out of memory).
 */
export function runChild<T>(name: RunnerName, input: unknown, nodeFlags: readonly string[] = []): Promise<T> {
  const script = join(runnersOut, `${name}.cjs`);
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, script, JSON.stringify(input)], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (out += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const lines = out.split('\n');
      const line = lines.filter((l) => l.startsWith(RESULT_MARKER)).pop();
      for (const l of lines) if (l.length > 0 && !l.startsWith(RESULT_MARKER)) process.stderr.write(`  [${name}] ${l}\n`);
      if (code !== 0 || line === undefined) {
        reject(new Error(`runner ${name} ${signal ? `was killed by ${signal}` : `exited with ${code}`}${line === undefined ? ' without a result' : ''}`));
        return;
      }
      try {
        resolvePromise(JSON.parse(line.slice(RESULT_MARKER.length)) as T);
      } catch (e) {
        reject(new Error(`runner ${name} printed an unreadable result: ${(e as Error).message}`));
      }
    });
  });
}

/** Reads the whole file once so every measurement starts from a warm page cache. */
export function warmPageCache(path: string): number {
  const fd = openSync(path, 'r');
  const buffer = Buffer.allocUnsafe(4 * 1024 * 1024);
  let position = 0;
  try {
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, position);
      if (n <= 0) break;
      position += n;
    }
  } finally {
    closeSync(fd);
  }
  return position;
}

export interface Machine {
  cpu: string;
  cores: number;
  ramGiB: number;
  node: string;
  /** Load averages at the start of the run: this machine is shared. */
  load: string;
  commit: string;
  date: string;
}

function gitCommit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: repoRoot, encoding: 'utf8' }).trim().length > 0;
    return dirty ? `${head} (with uncommitted changes)` : head;
  } catch {
    return 'unknown';
  }
}

export function describeMachine(): Machine {
  let cpu = cpus()[0]?.model ?? 'unknown CPU';
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (m?.[1]) cpu = m[1].trim();
  } catch {
    // not Linux: os.cpus() named it
  }
  return {
    cpu,
    cores: cpus().length,
    ramGiB: Math.round(totalmem() / 1024 ** 3),
    node: process.version,
    load: loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
    commit: gitCommit(),
    date: new Date().toISOString().slice(0, 10),
  };
}
