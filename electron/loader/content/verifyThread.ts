/**
 * The background verifier's thread (backgroundVerify.ts), bundled to dist/verifyThread.cjs: first
 * every kept boundary it is given (a few kilobytes each, so all are found before a search sent at
 * once reaches most of them), then the hashes from the last content to the first. It runs the same
 * functions as the asking thread (contentHash.ts, keptBoundary.ts) and writes what it finds into
 * the shared memory of its one message; with that handled it has nothing left and ends. Only reads.
 */
import { createHash } from 'node:crypto';
import { readSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { hashContentBody, jsEscapeDecoder, wasmEscapeDecoder } from './contentHash';
import { locateKept } from './keptBoundary';
import type { VerifyDone, VerifyThreadData, VerifyWork } from './verifyProtocol';
import { DONE, FAILED, PENDING, THREAD } from './verifyProtocol';

const port = parentPort;
if (!port) throw new Error('verifyThread.ts runs as the background verifier\'s worker_threads worker');

const { wasm, window } = workerData as VerifyThreadData;
// Made while the thread waits for its work (it may be started while the session is indexed).
const decoder = wasmEscapeDecoder(wasm, window) ?? jsEscapeDecoder(window);
const keptBuf = Buffer.allocUnsafe(64 * 1024);

port.once('message', (work: VerifyWork) => {
  const { fds, starts, rawLengths, hashes, kepts } = work;
  const state = new Int32Array(work.slots);
  const length = new Float64Array(work.lengths);
  const digest = new Uint8Array(work.digests);
  const bound = new Float64Array(work.bounds);
  const boundState = new Int32Array(work.boundSlots);
  const stop = new Int32Array(work.control);
  let hashed = 0;
  let located = 0;
  for (let k = 0; k < boundState.length && Atomics.load(stop, 0) === 0; k++) {
    if (kepts[k] === 0) continue;
    let found: [number, number] | undefined;
    try {
      found = locateKept(fds[k] as number, readSync, starts[k] as number, rawLengths[k] as number, kepts[k] as number, keptBuf);
    } catch {
      found = undefined;
    }
    if (found) {
      bound[2 * k] = found[0];
      bound[2 * k + 1] = found[1];
      located++;
    }
    Atomics.store(boundState, k, found ? DONE : FAILED);
  }
  const hash = (k: number): void => {
    let h;
    try {
      h = hashContentBody(fds[k] as number, readSync, createHash, starts[k] as number, rawLengths[k] as number, decoder);
    } catch {
      h = undefined;
    }
    if (h) {
      digest.set(Buffer.from(h.sha256, 'hex'), k * 32);
      length[k] = h.length;
      hashed++;
    }
    Atomics.store(state, k, h ? DONE : FAILED);
    Atomics.notify(state, k);
  };
  // From the last content a search reaches to the first: a search going the other way meets the
  // thread once, instead of catching up with it and waiting at every other content.
  for (let k = state.length - 1; k >= 0 && Atomics.load(stop, 0) === 0; k--) {
    if (hashes[k] === true && Atomics.compareExchange(state, k, PENDING, THREAD) === PENDING) hash(k);
  }
  port.postMessage({ hashed, located } satisfies VerifyDone);
});
