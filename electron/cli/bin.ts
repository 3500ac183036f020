/** Entry point of `session-inspector` (bundled into dist/cli.cjs by scripts/build.mjs). */
import { flushChunkCache } from './chunkLoader';
import { main, parseArgs, printError, processIo } from './main';
import { heapMade } from '../loader/common/heapStart';
import { onSessionThread, runOnSessionThread, sessionThreadPlan } from './sessionThread';

// Output goes through the descriptors (output.ts fdWriter), so process.stdout and process.stderr
// are not made at start: a reader that stops early (`… | head`) is handled there, and by
// processStream for a stream made after all.

/** The heap a session thread of this command line gets, or undefined to run it here (a bad command line is reported here). */
function planOf(argv: readonly string[]): number | undefined {
  try {
    const { command, flags, files } = parseArgs(argv);
    return sessionThreadPlan({ command, follow: flags.has('follow'), files });
  } catch {
    return undefined;
  }
}

/**
 * A large session's command runs on a thread with a heap sized to it (sessionThread.ts), the rest
 * here. The plan comes first: a small command never loads node:worker_threads.
 */
function run(argv: string[]): Promise<number> {
  const heapMb = planOf(argv);
  if (heapMb === undefined) return main(argv);
  if (onSessionThread()) {
    // This thread's heap is made: the flag goes back to V8's own before any chunk loads, so the
    // threads it starts (scan-ahead, counting) keep V8's sizes and V8 takes the code-cache entries
    // the main thread wrote (it refuses those made under other flags: chunkLoader.ts).
    heapMade();
    return main(argv);
  }
  // Where no thread can be started, the command runs here, as a small one does.
  const status = runOnSessionThread(argv, heapMb, __filename);
  if (!status) return main(argv);
  return status.catch((e: unknown) => printError(processIo, 'internal_error', `internal error: ${e instanceof Error ? e.message : String(e)}`));
}

void run(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
  // After the run, so that the cache holds the functions it compiled too (chunkLoader.ts).
  flushChunkCache();
});
