/**
 * An indexing pool worker (indexPool.ts), bundled to dist/indexPool.cjs: scans the long lines it is
 * sent, reading the file through the descriptor the indexing thread opened (descriptors belong to
 * the process, so every thread reads the same open file). Never writes.
 */
import { readSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import type { PoolAnswer, PoolReply, PoolRequest } from './indexPool';
import { KEEP_LINE_BUFFER_BYTES, scanLongLine } from './indexPool';
import { ScratchBuffers } from '../content/scratch';

const port = parentPort;
if (!port) throw new Error('indexPoolWorker.ts runs as a worker_threads worker of the indexing pool');

/** This thread's buffers: the whole lines it reads, and the bodies it hashes. */
const scratch = new ScratchBuffers();

port.on('message', (request: PoolRequest) => {
  const answers: PoolAnswer[] = request.jobs.map((job) => {
    try {
      return { scan: scanLongLine(request.fd, readSync, job, scratch) };
    } catch (e) {
      return { error: e instanceof Error ? e.message : String(e) };
    }
  });
  scratch.release('line', KEEP_LINE_BUFFER_BYTES);
  try {
    port.postMessage({ id: request.id, answers } satisfies PoolReply);
  } catch (e) {
    // A record that cannot be cloned: the indexing thread scans these lines itself.
    port.postMessage({ id: request.id, answers: answers.map(() => ({ error: `cannot send the scan: ${(e as Error).message}` })) } satisfies PoolReply);
  }
});
