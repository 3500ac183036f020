/**
 * Issue 16: the hidden contents' hashes verified in the background right after the open, on a
 * worker thread (the second core), so the first search finds them computed instead of hashing
 * every hidden content itself.
 *
 * The contents a search would verify (the per-message reductions' originals that are read from the
 * file and not hashed while indexing) are listed in search order, and the thread hashes them in that
 * order. A request that needs a hash the thread has not reached hashes it itself (FileContent's
 * `sha256` asks `claimedHash`) and the thread skips it, so a search sent at once is behind the thread
 * as soon as the thread hashes faster than the search reads (it hashes only the unverified contents;
 * the search also reads the rest), and from then on finds every hash computed. Where the search
 * catches up with it (the thread is slower, or started late), the thread leaps LEAP contents ahead
 * rather than have the search wait for it at every other content. Every content has one slot in
 * shared memory:
 *
 *   PENDING → THREAD (the thread hashes it) → DONE (digest and length written) | FAILED
 *   PENDING → HERE (this thread hashes it itself)
 *
 * A slot moves out of PENDING only by compare-and-swap, so no content is hashed twice; a request
 * that meets THREAD waits on the slot (one content, under HASH_AT_INDEX_BYTES) and gives up after
 * WAIT_MS (then hashes it itself: the same bytes, the same answer). The thread hashes with the same
 * function as this one (contentHash.ts, its source run in the thread) and gives up (FAILED) on what
 * that fast loop leaves to the general decoder, which then runs here and reports what it finds: a
 * hash mismatch or an unreadable content answers exactly as it does without the background work.
 * `stop` (the session closes or is replaced) ends the thread after the content in hand; a closed
 * session's contents are never read again, so a late write is never used.
 */
import { Worker } from 'node:worker_threads';
import type { LoadedSession } from '../../shared/index';
import { canonicalFullyVisible, isRangeKind } from '../../shared/index';
import { DECODER_WINDOW, hashContentBody, jsEscapeDecoder, setHashClaim, wasmEscapeDecoder } from './contentHash';
import { RAW, decoderModuleBytes } from './escapeDecoder';
import { FileContent } from './fileContent';

const PENDING = 0;
const THREAD = 1;
const HERE = 2;
const DONE = 3;
const FAILED = 4;
/** How far the thread leaps ahead of a request that caught up with it. */
const LEAP = 16;
/** Longest wait for a content the thread is hashing; then it is hashed here. */
const WAIT_MS = 2000;

export interface BackgroundVerify {
  /** Contents handed to the thread. */
  readonly contents: number;
  /** Settles when the thread has ended: how many contents it hashed. */
  readonly done: Promise<{ hashed: number }>;
  /** Ends the thread after the content in hand; contents not yet taken are hashed where asked. */
  stop(): void;
}

interface Body {
  key: object;
  fd: number;
  start: number;
  rawLength: number;
}

/** The contents a search verifies, in its order, that are read from the file and not hashed yet. */
function unhashedBodies(session: LoadedSession): Body[] {
  const { log, minted } = session;
  const seen = new Set<object>();
  const bodies: { index: number; body: Body }[] = [];
  for (const r of log) {
    // Ranges are hashed over their transcript, not content by content; a duplicate whose
    // canonical is shown is not searched (shared/search.ts `searchUnits`).
    if (r.ptr.hash === null || isRangeKind(r.kind)) continue;
    if (r.kind === 'duplicate_output' && canonicalFullyVisible(r, log)) continue;
    const large = minted.at(r.ptr.index)?.large;
    const body = large instanceof FileContent ? large.unhashedBody() : undefined;
    if (!body || seen.has(body.key)) continue;
    seen.add(body.key);
    bodies.push({ index: r.ptr.index, body });
  }
  return bodies.sort((a, b) => a.index - b.index).map((b) => b.body);
}

/** The thread: the sources of hashContentBody and the decoders, and a loop over the slots in search order. */
function threadSource(): string {
  return `'use strict';
const { workerData, parentPort } = require('node:worker_threads');
const { readSync } = require('node:fs');
const { createHash } = require('node:crypto');
const hashContentBody = (${hashContentBody.toString()});
const wasmEscapeDecoder = (${wasmEscapeDecoder.toString()});
const jsEscapeDecoder = (${jsEscapeDecoder.toString()});
const { fds, starts, rawLengths, slots, lengths, digests, control, wasm, rawAt, window } = workerData;
const decoder = wasmEscapeDecoder(wasm, rawAt, window) ?? jsEscapeDecoder(window);
const state = new Int32Array(slots);
const length = new Float64Array(lengths);
const digest = new Uint8Array(digests);
const stop = new Int32Array(control);
let hashed = 0;
function hash(k) {
  let h;
  try {
    h = hashContentBody(fds[k], readSync, createHash, starts[k], rawLengths[k], decoder);
  } catch {
    h = undefined;
  }
  if (h) {
    digest.set(Buffer.from(h.sha256, 'hex'), k * 32);
    length[k] = h.length;
    hashed++;
  }
  Atomics.store(state, k, h ? ${DONE} : ${FAILED});
  Atomics.notify(state, k);
}
// In search order; where the request has caught up (a slot it took), ${LEAP} slots ahead, so the two
// hash side by side instead of one waiting for the other at every other content. Then whatever
// was left behind.
for (let k = 0; k < state.length && Atomics.load(stop, 0) === 0; k++) {
  const was = Atomics.compareExchange(state, k, ${PENDING}, ${THREAD});
  if (was === ${PENDING}) hash(k);
  else if (was === ${HERE}) k += ${LEAP};
}
for (let k = 0; k < state.length && Atomics.load(stop, 0) === 0; k++) {
  if (Atomics.compareExchange(state, k, ${PENDING}, ${THREAD}) === ${PENDING}) hash(k);
}
parentPort.postMessage({ hashed });
`;
}

/**
 * Starts verifying `session`'s unhashed hidden contents on a worker thread; undefined when there is
 * nothing to verify or Node refuses the thread (then every hash is computed where asked, as before).
 */
export function startBackgroundVerify(session: LoadedSession): BackgroundVerify | undefined {
  const bodies = unhashedBodies(session);
  if (bodies.length === 0) return undefined;
  const n = bodies.length;
  const slots = new SharedArrayBuffer(4 * n);
  const lengths = new SharedArrayBuffer(8 * n);
  const digests = new SharedArrayBuffer(32 * n);
  const control = new SharedArrayBuffer(4);
  const state = new Int32Array(slots);
  const length = new Float64Array(lengths);
  const digest = new Uint8Array(digests);
  const stopFlag = new Int32Array(control);
  let worker: Worker;
  try {
    worker = new Worker(threadSource(), {
      eval: true,
      workerData: {
        fds: bodies.map((b) => b.fd),
        starts: bodies.map((b) => b.start),
        rawLengths: bodies.map((b) => b.rawLength),
        slots,
        lengths,
        digests,
        control,
        wasm: decoderModuleBytes(),
        rawAt: RAW,
        window: DECODER_WINDOW,
      },
    });
  } catch {
    return undefined;
  }
  const done = new Promise<{ hashed: number }>((resolve) => {
    let hashed = 0;
    worker.on('message', (m: { hashed?: unknown }) => {
      if (typeof m.hashed === 'number') hashed = m.hashed;
    });
    // A thread that fails leaves its slots to this thread (a THREAD slot is waited on for at most WAIT_MS).
    worker.on('error', () => undefined);
    worker.on('exit', () => resolve({ hashed }));
  });
  bodies.forEach((body, k) => {
    setHashClaim(body.key, {
      take() {
        const deadline = Date.now() + WAIT_MS;
        for (;;) {
          const s = Atomics.compareExchange(state, k, PENDING, HERE);
          if (s === PENDING || s === HERE || s === FAILED) return undefined;
          if (s === DONE) return { sha256: Buffer.from(digest.subarray(k * 32, k * 32 + 32)).toString('hex'), length: length[k] as number };
          const left = deadline - Date.now();
          if (left <= 0) return undefined;
          Atomics.wait(state, k, THREAD, left);
        }
      },
    });
  });
  return {
    contents: n,
    done,
    stop() {
      Atomics.store(stopFlag, 0, 1);
    },
  };
}
