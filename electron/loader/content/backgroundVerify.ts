/**
 * The hidden contents' hashes verified in the background right after the open, on a
 * worker thread (the second core), so the first search finds them computed instead of hashing
 * every hidden content itself.
 *
 * The contents a search would verify (the per-message reductions' originals that are read from the
 * file and not hashed while indexing) are listed in search order, and the thread hashes them in the
 * reverse order, from the last. A request that needs a hash the thread has not reached hashes it
 * itself (FileContent's `sha256` asks `claimedHash`) and the thread skips it, so a search sent at
 * once hashes from the first content on while the thread hashes from the last, and they meet once:
 * the search finds every hash from there on computed and waits at most for the content in the
 * thread's hands. (In the search's own order the thread, slower than a search that only reads, was
 * caught up with again and again, and the search waited for it each time — on a loaded machine,
 * for a thread that was not even running.) Every content has one slot in shared memory:
 *
 *   PENDING → THREAD (the thread hashes it) → DONE (digest and length written) | FAILED
 *   PENDING → HERE (this thread hashes it itself)
 *
 * A slot moves out of PENDING only by compare-and-swap, so no content is hashed twice; a request
 * that meets THREAD waits on the slot (one content, under HASH_AT_INDEX_BYTES) and gives up after
 * WAIT_MS (then hashes it itself: the same bytes, the same answer). The thread (verifyThread.ts,
 * bundled to dist/verifyThread.cjs) hashes with the same function as this one (contentHash.ts) and
 * gives up (FAILED) on what
 * that fast loop leaves to the general decoder, which then runs here and reports what it finds: a
 * hash mismatch or an unreadable content answers exactly as it does without the background work.
 * `stop` (the session closes or is replaced) ends the thread after the content in hand; a closed
 * session's contents are never read again, so a late write is never used.
 *
 * Before the hashes the thread finds every truncation's kept boundary (keptBoundary.ts): the
 * floor of `kept_bytes` and its raw offset, a few kilobytes of each body, which the first search
 * otherwise decoded at every truncated content. Those need no claim: the thread writes both numbers
 * and then marks the slot DONE; a search that gets there first decodes the boundary itself (the same
 * answer) and never waits. The contents are listed from the view's handles, without reading a
 * record, and the thread starts only for BACKGROUND_MIN_BYTES of work or more. What the thread
 * finds reaches the contents through the load's services (contentServices.ts PreparedBodies), which
 * the caller passes here: the same object it passed to the load.
 */
import type { Worker } from 'node:worker_threads';
import type { LoadedSession } from '../../../shared/index';
import { canonicalFullyVisible, holdsOriginal, isRangeKind } from '../../../shared/index';
import { DECODER_WINDOW, decoderModules } from './contentHash';
import type { PreparedBodies } from './contentServices';
import type { FileContentList } from './fileContent';
import { threadBundle } from '../common/threadBundle';
import { startThread } from '../common/threadPool';
import type { VerifyDone, VerifyThreadData, VerifyWork } from './verifyProtocol';
import { DONE, FAILED, HERE, PENDING, THREAD } from './verifyProtocol';

/** The thread's bundle (verifyThread.ts), beside the bundle running this code (threadBundle.ts). */
export const VERIFY_THREAD_BUNDLE = 'verifyThread.cjs';
/** Longest wait for a content the thread is hashing; then it is hashed here. */
const WAIT_MS = 2000;

export interface BackgroundVerify {
  /** Contents handed to the thread. */
  readonly contents: number;
  /** Settles when the thread has ended: how many contents it hashed, and how many kept boundaries it found. */
  readonly done: Promise<{ hashed: number; located: number }>;
  /** Ends the thread after the content in hand; contents not yet taken are hashed where asked. */
  stop(): void;
}

interface Body {
  key: object;
  fd: number;
  start: number;
  rawLength: number;
  /** Raw bytes to hash, or none (hashed while indexing). */
  hash: boolean;
  /** The truncation's `kept_bytes` whose boundary the thread finds first, or 0. */
  kept: number;
}

/** The default least work (raw bytes to hash, plus KEPT_WORK_BYTES per kept boundary) worth a thread's start. */
export const BACKGROUND_MIN_BYTES = 32 * 1024 * 1024;

/**
 * A kept boundary found here costs the search's thread two decodes from the body's start (a floor,
 * then a raw offset) with their reads: about what hashing this many bytes costs. So 2,048
 * truncations are worth a thread even when every content was hashed while indexing.
 */
const KEPT_WORK_BYTES = 16 * 1024;

export interface BackgroundOptions {
  /** Least work in bytes for which the thread starts (default BACKGROUND_MIN_BYTES; tests pass 0). */
  minBytes?: number;
  /** The thread's script (default: dist/verifyThread.cjs, see threadBundle.ts); without one, no thread starts. */
  script?: string;
}

/**
 * The contents a search reads, in its order, that are read from the file: to hash (not hashed
 * while indexing) or with a truncation's boundary to find. Listed from the view's handles, without
 * reading a record (FileContentList): a listing that read them took ~100–200 ms of the worker's
 * thread right when the first search came.
 */
function listBodies(session: LoadedSession): Body[] {
  const { log, minted } = session;
  if (!('fileContent' in minted)) return [];
  const list = minted as typeof minted & FileContentList;
  const seen = new Map<object, { index: number; body: Body }>();
  for (const r of log) {
    // Ranges are hashed over their transcript, not content by content (and a compaction's is
    // made only when read: its kind is asked first); a duplicate whose
    // canonical is shown is not searched (shared/search.ts `searchUnits`).
    if (isRangeKind(r.kind) || !holdsOriginal(r.ptr)) continue;
    if (r.kind === 'duplicate_output' && canonicalFullyVisible(r, log)) continue;
    const b = list.fileContent(r.ptr.index)?.body();
    if (!b) continue;
    // A truncation's kept prefix inside the content (shared/format/bytes.ts floorSourceBoundary asks the
    // content only then), in a body whose escapes locateKept knows.
    const kept = r.kind === 'tool_output_truncated' && b.canonical && (r.kept_bytes ?? 0) > 0 && (r.kept_bytes ?? 0) < b.length ? (r.kept_bytes ?? 0) : 0;
    const known = seen.get(b.key);
    if (known) {
      // Two truncations of one content with different kept prefixes: the first searched wins.
      if (known.body.kept === 0) known.body.kept = kept;
      continue;
    }
    if (b.hashed && kept === 0) continue;
    seen.set(b.key, { index: r.ptr.index, body: { key: b.key, fd: b.fd, start: b.start, rawLength: b.rawLength, hash: !b.hashed, kept } });
  }
  return [...seen.values()].sort((a, b) => a.index - b.index).map((b) => b.body);
}

/** A thread started before its work is known (while the session is indexed), waiting for it. */
export interface IdleVerifier {
  /** Ends the thread without work (the open failed, was superseded, or left it nothing to do). */
  dispose(): void;
}

const idleWorkers = new WeakMap<IdleVerifier, Worker>();

/** Background threads started and not yet ended. */
let running = 0;

/** Tests: how many background threads are running (waiting for work or working). */
export function backgroundThreads(): number {
  return running;
}

/**
 * Starts the thread with nothing to do yet, so that its start (Node's set-up of a thread, the
 * decoder's compilation: tens of milliseconds, more under load) overlaps the indexing rather than
 * delaying the work after the open reply; undefined when there is no thread bundle or Node refuses
 * the thread.
 */
export function startIdleVerifier(options: BackgroundOptions = {}): IdleVerifier | undefined {
  const script = options.script ?? threadBundle(VERIFY_THREAD_BUNDLE);
  if (script === undefined) return undefined;
  // Not unref'd, as before: the thread ends itself once its work is done, or `dispose` ends it.
  const worker = startThread(script, { workerData: { wasm: decoderModules(), window: DECODER_WINDOW } satisfies VerifyThreadData, keepAlive: true });
  if (!worker) return undefined;
  // A thread that fails leaves its slots to this thread (a THREAD slot is waited on for at most WAIT_MS).
  worker.on('error', () => undefined);
  running++;
  worker.on('exit', () => running--);
  const idle: IdleVerifier = {
    dispose() {
      if (idleWorkers.delete(idle)) void worker.terminate();
    },
  };
  idleWorkers.set(idle, worker);
  return idle;
}

/**
 * Hands `session`'s unhashed hidden contents to verify, and its truncations' kept boundaries to
 * find, to a thread (`thread` when given, else a new one), and offers what it will find in
 * `prepared` (the services the session was loaded with); undefined when that is less work than
 * `minBytes` (a thread's start would cost more than doing it where asked) or no thread starts (then
 * every hash and boundary is computed where asked, as before). `thread` is used or disposed of.
 */
export function startBackgroundVerify(session: LoadedSession, prepared: PreparedBodies, options: BackgroundOptions = {}, thread?: IdleVerifier): BackgroundVerify | undefined {
  const bodies = listBodies(session);
  let work = 0;
  for (const b of bodies) work += (b.hash ? b.rawLength : 0) + (b.kept > 0 ? KEPT_WORK_BYTES : 0);
  const given = thread && idleWorkers.get(thread);
  if (thread) idleWorkers.delete(thread);
  if (bodies.length === 0 || work < (options.minBytes ?? BACKGROUND_MIN_BYTES)) {
    if (given) void given.terminate();
    return undefined;
  }
  const worker = given ?? (() => {
    const idle = startIdleVerifier(options);
    const started = idle && idleWorkers.get(idle);
    if (idle) idleWorkers.delete(idle);
    return started;
  })();
  if (!worker) return undefined;
  const n = bodies.length;
  const slots = new SharedArrayBuffer(4 * n);
  const lengths = new SharedArrayBuffer(8 * n);
  const digests = new SharedArrayBuffer(32 * n);
  const bounds = new SharedArrayBuffer(16 * n);
  const boundSlots = new SharedArrayBuffer(4 * n);
  const control = new SharedArrayBuffer(4);
  const state = new Int32Array(slots);
  const length = new Float64Array(lengths);
  const digest = new Uint8Array(digests);
  const bound = new Float64Array(bounds);
  const boundState = new Int32Array(boundSlots);
  const stopFlag = new Int32Array(control);
  worker.postMessage({
    fds: bodies.map((b) => b.fd),
    starts: bodies.map((b) => b.start),
    rawLengths: bodies.map((b) => b.rawLength),
    hashes: bodies.map((b) => b.hash),
    kepts: bodies.map((b) => b.kept),
    slots,
    lengths,
    digests,
    bounds,
    boundSlots,
    control,
  } satisfies VerifyWork);
  const done = new Promise<VerifyDone>((resolve) => {
    let ended: VerifyDone = { hashed: 0, located: 0 };
    worker.on('message', (m: { hashed?: unknown; located?: unknown }) => {
      if (typeof m.hashed === 'number' && typeof m.located === 'number') ended = { hashed: m.hashed, located: m.located };
    });
    worker.on('exit', () => resolve(ended));
  });
  bodies.forEach((body, k) => {
    if (body.kept > 0) {
      // Read once DONE (the thread wrote both numbers before its store): no wait, no claim; a
      // boundary not found yet is found here, as before (the same answer).
      prepared.offerKeptBoundary(body.key, () =>
        Atomics.load(boundState, k) === DONE ? { kept: body.kept, floored: bound[2 * k] as number, raw: bound[2 * k + 1] as number } : undefined,
      );
    }
    if (!body.hash) return;
    prepared.offerHash(body.key, {
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
