/**
 * A library thread (./pool.ts), bundled to dist/library.cjs: indexes (and searches) each session
 * it is sent (./index.ts), one at a time in the order sent (a few are sent ahead: they wait here,
 * so only one session is in memory at once), read-only, and answers.
 */
import { parentPort } from 'node:worker_threads';
import type { IndexJob, IndexReply } from './index';
import { indexFile } from './index';

const port = parentPort;
if (!port) throw new Error('library/worker.ts runs as a worker_threads worker of the session library');

let last: Promise<void> = Promise.resolve();
port.on('message', (job: IndexJob & { id: number }) => {
  last = last.then(() =>
    indexFile(job).then(
      (reply) => port.postMessage({ id: job.id, reply }),
      (e: unknown) => port.postMessage({ id: job.id, reply: { ok: false, message: e instanceof Error ? e.message : String(e) } satisfies IndexReply }),
    ),
  );
});
