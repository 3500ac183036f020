/**
 * A search pool thread (searchPool.ts), bundled to dist/scanThread.cjs: it scans the pieces of each
 * job posted to it with the loader's own scanners (rawScan.ts) into the shared `hits` ([position,
 * length] pairs). Per piece it takes it writes its own index as the piece's owner, and per piece it
 * ends, the piece's pairs in `hits` ([from, to) in the job's `spans`) and then its outcome in the
 * job's `done`, with a notify: the calling thread uses a piece's hits as soon as it is done. It
 * stops taking pieces when none is left, the job is halted (`halt`) or the search stopped, and then
 * sets the shared `state` ([outcome, hit count, windows read]) with a notify. Only reads.
 */
import { readSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { PART_FAILED, makeExactScanner, makeFoldedScanner, scanPieces } from '../loader/content/rawScan';
import type { ScanThreadData, ScanThreadJob } from './scanProtocol';

const port = parentPort;
if (!port) throw new Error('scanThread.ts runs as a worker_threads worker of the search pool');

const data = workerData as ScanThreadData;
const state = new Int32Array(data.state);
const hits = new Float64Array(data.hits);
/** The window this thread reads its pieces into, kept from job to job (see scanPart). */
const scratch = { buf: Buffer.alloc(0) };

port.on('message', (job: ScanThreadJob) => {
  let count = 0;
  let outcome = PART_FAILED;
  try {
    const scanner = job.exact !== undefined ? makeExactScanner(Buffer.from(job.exact, 'latin1'), undefined, job.pieceAt) : makeFoldedScanner(job.folded ?? '');
    const stop = job.stop ? new Int32Array(job.stop.epoch) : null;
    const stopAt = job.stop ?? null;
    const counter = new Int32Array(job.counter);
    const done = new Int32Array(job.done);
    const spans = new Int32Array(job.spans);
    const halt = new Int32Array(job.halt);
    const pieces = job.pieces.length / 3;
    const onHit = (position: number, length: number): boolean => {
      if (2 * count + 2 > hits.length) return false;
      hits[2 * count] = position;
      hits[2 * count + 1] = length;
      count++;
      return true;
    };
    const next = (): number => {
      if (Atomics.load(halt, 0) !== 0) return pieces;
      const k = Atomics.add(counter, 0, 1);
      if (k < pieces) Atomics.store(spans, 3 * k + 2, job.thread);
      return k;
    };
    let from = 0;
    const onPiece = (k: number, ended: number): void => {
      spans[3 * k] = from;
      spans[3 * k + 1] = count;
      from = count;
      Atomics.store(done, k, ended);
      Atomics.notify(done, k);
    };
    const stopped = (): boolean => Atomics.load(halt, 0) !== 0 || (stop !== null && stopAt !== null && Atomics.load(stop, stopAt.slot) !== stopAt.value);
    outcome = scanner === null ? PART_FAILED : scanPieces(readSync, job.fd, job.pieces, next, scanner, onHit, stopped, () => Atomics.add(state, 2, 1), scratch, onPiece);
  } catch {
    outcome = PART_FAILED;
  }
  state[1] = count;
  Atomics.store(state, 0, outcome);
  Atomics.notify(state, 0);
});
