/**
 * The child side of the benchmark: each runner in this folder is bundled to
 * bench/out/runners/<name>.cjs and run in a fresh `node` process by bench/util.ts `runChild`. It
 * reads its input from argv[2] (JSON) and prints one result line.
 */
import { readFileSync } from 'node:fs';

export const RESULT_MARKER = '@@bench-result ';

/** The progressive-open event, when the contract has it: rows may be asked before indexing ends. */
export const PREVIEW_EVENT = 'sessionPreview';

export function readInput<T>(): T {
  const raw = process.argv[2];
  if (raw === undefined) throw new Error('a bench runner takes its input as one JSON argument');
  return JSON.parse(raw) as T;
}

export function sendResult(result: unknown): void {
  process.stdout.write(`${RESULT_MARKER}${JSON.stringify(result)}\n`);
}

/** `VmHWM` (peak resident set) and `VmRSS` of this process, in bytes, from /proc/self/status: every thread counts. */
export function memoryStatus(): { peakRss: number; rss: number } {
  const status = readFileSync('/proc/self/status', 'utf8');
  const kib = (key: string): number => {
    const m = new RegExp(`^${key}:\\s*(\\d+)\\s*kB`, 'm').exec(status);
    if (!m?.[1]) throw new Error(`/proc/self/status has no ${key}`);
    return Number(m[1]) * 1024;
  };
  return { peakRss: kib('VmHWM'), rss: kib('VmRSS') };
}

export function elapsedMs(since: number): number {
  return performance.now() - since;
}

/** Runs `main`, printing its result, or its error on stderr with exit status 1. */
export function runMain(main: () => unknown): void {
  Promise.resolve()
    .then(main)
    .then(
      (result) => {
        sendResult(result);
        // Worker threads or handles left open must not keep the child alive.
        process.exit(0);
      },
      (e: unknown) => {
        process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
        process.exit(1);
      },
    );
}
