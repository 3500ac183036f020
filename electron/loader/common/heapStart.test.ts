/**
 * A thread whose heap starts at a size of ours (heapStart.ts): it runs no full collection while it
 * keeps less than that size, and the flag is V8's own again for the threads made after it.
 * Observed through each thread's own count of full collections (`gc` performance entries).
 */
import { EventEmitter } from 'node:events';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { startWithHeap } from './heapStart';

/** Keeps some 60 MB of small objects, then answers how many full collections its thread ran. */
const KEEPER = `
const { PerformanceObserver, constants } = require('node:perf_hooks');
const { parentPort } = require('node:worker_threads');
let major = 0;
const count = (entries) => { for (const e of entries) if (e.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) major++; };
const observer = new PerformanceObserver((list) => count(list.getEntries()));
observer.observe({ entryTypes: ['gc'] });
const kept = [];
for (let i = 0; i < 600000; i++) kept.push({ i, list: [i], text: 'x' + i });
// The entries are queued on the event loop: two turns, then whatever is still buffered.
setImmediate(() => setImmediate(() => { count(observer.takeRecords()); observer.disconnect(); parentPort.postMessage({ major, kept: kept.length }); }));
`;

const keeper = (): Worker => new Worker(KEEPER, { eval: true });

function fullCollections(worker: Worker): Promise<number> {
  return new Promise((resolve, reject) => {
    worker.once('message', (m: { major: number }) => {
      resolve(m.major);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

const online = (worker: Worker): Promise<void> => new Promise((resolve) => worker.once('online', () => resolve()));

describe('a thread whose heap starts at a size of ours', () => {
  it('runs no full collection below that size; a thread made after it starts at V8’s own again', async () => {
    const sized = startWithHeap(256, keeper);
    await online(sized);
    expect(await fullCollections(sized)).toBe(0);
    expect(await fullCollections(keeper())).toBeGreaterThan(0);
  });

  it('the flag stays while any thread made with it has not started: it goes back once the last one runs', async () => {
    // Two threads being made, told apart from real ones by when they say they run.
    const first = new EventEmitter();
    const second = new EventEmitter();
    startWithHeap(256, () => first as unknown as Worker);
    startWithHeap(256, () => second as unknown as Worker);
    first.emit('online');
    expect(await fullCollections(keeper())).toBe(0);
    second.emit('exit', 1);
    expect(await fullCollections(keeper())).toBeGreaterThan(0);
  });

  it('the flag goes back when the thread cannot be made', async () => {
    expect(() =>
      startWithHeap(256, () => {
        throw new Error('refused');
      }),
    ).toThrow('refused');
    expect(await fullCollections(keeper())).toBeGreaterThan(0);
  });
});
