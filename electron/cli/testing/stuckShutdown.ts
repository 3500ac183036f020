/**
 * A long-running command whose shutdown cannot finish: a worker thread blocked reading the FIFO
 * named in argv (nothing ever writes it) and a shutdown that waits for that thread to terminate.
 * The signals test spawns it to check that SIGTERM still ends the process (signals.ts).
 */
import { Worker } from 'node:worker_threads';
import { untilSignal } from '../signals';

const fifo = process.argv[2] ?? '';
const worker = new Worker(`require('node:fs').readFileSync(${JSON.stringify(fifo)})`, { eval: true });
worker.once('online', () => process.stdout.write('ready\n'));
void untilSignal().then(async () => {
  // Never resolves while the thread is inside its read.
  await worker.terminate();
  process.exitCode = 0;
});
