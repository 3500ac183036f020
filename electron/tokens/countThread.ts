/**
 * A counting thread (textCounter.ts), bundled to dist/countThread.cjs: answers each request with the
 * o200k count (`countText`, the same function the asking thread counts with) of each of its texts.
 * The encoding loads when the thread starts, so a thread started before its texts are known (while
 * the session is read) has it ready. Reads nothing, writes nothing.
 */
import { parentPort } from 'node:worker_threads';
import { yieldToOtherThreads } from '../loader/common/threadPool';
import { countText } from './counter';
import type { CountReply, CountRequest } from './textCounter';
import { CLAIMED_BY_THREAD, CLAIM_FREE } from './textCounter';

const port = parentPort;
if (!port) throw new Error('countThread.ts runs as a counting thread (electron/tokens/textCounter.ts)');

// It counts ahead of need: where every core is busy (the session still being read), the reading
// thread goes first (docs/token-estimates.md "Counting on two threads").
yieldToOtherThreads();
// Loads the encoding (its ranks: hundreds of milliseconds) before the first request comes.
countText('warm');

port.on('message', ({ id, texts, claim }: CountRequest & { id: number }) => {
  // Texts the asking thread took back (counted there) are not counted twice.
  if (claim && Atomics.compareExchange(claim, 0, CLAIM_FREE, CLAIMED_BY_THREAD) !== CLAIM_FREE) {
    port.postMessage({ id, counts: null } satisfies CountReply);
    return;
  }
  port.postMessage({ id, counts: texts.map(countText) } satisfies CountReply);
});
