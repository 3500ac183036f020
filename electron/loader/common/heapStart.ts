/**
 * A thread whose V8 heap starts at a size of ours (docs/streaming-import.md "A heap sized to the
 * session"). V8 reads `--initial-old-space-size` when it makes a thread's heap, and a Worker's
 * `resourceLimits` have no start size: so the flag is set while the thread is made and set back to
 * V8's own once it runs. Back, because the flag is the process's: left set, every thread made after
 * would start so too, and V8 refuses a code cache made under other flags than those it is read
 * under (the command line writes its chunks' cache after a run: electron/cli/chunkLoader.ts).
 */
import type { Worker } from 'node:worker_threads';

// Fetched when used: the command line's first bundle holds this file, and a small command loads no more than it needs.
const setFlagsFromString = (flags: string): void => process.getBuiltinModule('node:v8').setFlagsFromString(flags);

const INITIAL_OLD_SPACE = '--initial-old-space-size';
/** V8's own value of the flag: a start size chosen by V8. */
const V8_OWN = 0;

/** Threads made with a start size and not yet running: the flag goes back once none is left. */
let starting = 0;

/**
 * Makes a thread (`make`, which calls `new Worker`) whose heap starts at `initialOldSpaceMb`. The
 * flag is V8's own again once every thread so made has started running (or failed to), and at
 * once if `make` throws. Threads made meanwhile by other code start at that size too.
 */
export function startWithHeap<T extends Worker>(initialOldSpaceMb: number, make: () => T): T {
  setFlagsFromString(`${INITIAL_OLD_SPACE}=${Math.max(1, Math.round(initialOldSpaceMb))}`);
  starting++;
  let settled = false;
  const started = (): void => {
    if (settled) return;
    settled = true;
    if (--starting === 0) heapMade();
  };
  let worker: T;
  try {
    worker = make();
  } catch (e) {
    started();
    throw e;
  }
  worker.once('online', started);
  worker.once('error', started);
  worker.once('exit', started);
  return worker;
}

/**
 * Sets the flag back to V8's own. A thread made with a start size calls it first when it loads
 * code through the code cache (the command line's session thread), rather than wait for its
 * parent to hear that it runs.
 */
export function heapMade(): void {
  setFlagsFromString(`${INITIAL_OLD_SPACE}=${V8_OWN}`);
}
