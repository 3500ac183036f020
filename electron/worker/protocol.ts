/**
 * The messages between the host thread (client.ts) and the resolver worker (entry.ts). Both sides
 * are ours, but the worker still validates every request against the contract: the params come
 * from the renderer in the end.
 */
import type { HostError } from '../../shared/index';

/** The bundled worker, beside the bundle that spawns it (`scripts/build.mjs` writes it). */
export const WORKER_BUNDLE = 'worker.cjs';

/** Slot of the search epoch in the shared `Int32Array`: a search started at epoch `e` is cancelled once it differs. */
export const EPOCH_SLOT = 0;
/** Slot of the bundle epoch: a repro bundle sent at epoch `e` stops (keeping its best so far) once it differs. */
export const BUNDLE_SLOT = 1;
/** Int32 slots of the shared buffer. */
export const EPOCH_SLOTS = 2;

/** `workerData` of the worker. */
export interface WorkerInit {
  /** Backs an `Int32Array` of EPOCH_SLOTS elements: the search epoch, the bundle epoch. */
  searchEpoch: SharedArrayBuffer;
  /** Enables `__crash`, `__hang`, `__gc` and `__prepared`; set only by tests and the benchmarks. */
  testHooks: boolean;
  /** A search still running after this many milliseconds stops and answers `timeout` (default DEFAULT_SEARCH_TIME_LIMIT_MS). */
  searchTimeLimitMs?: number;
}

/** Test-only requests, answered only when `WorkerInit.testHooks` is true. */
export const TEST_HOOK_METHODS = ['__crash', '__hang', '__gc', '__prepared'] as const;
export type TestHookMethod = (typeof TEST_HOOK_METHODS)[number];

/** Host → worker. `epoch` is set on `search`: the epoch the client bumped to when it sent it; on `reproBundle`: the bundle epoch when it was sent. */
export interface WorkerRequest {
  id: number;
  method: string;
  params?: unknown;
  epoch?: number;
}

/** A reply as the worker sends it: the contract's reply shape, for `open` and `close` too. */
export type WorkerReply<T> = { ok: true; value: T } | { ok: false; error: HostError };

/** Worker → host. */
export type WorkerMessage =
  /** Sent once, when the worker has loaded and listens: a worker that dies before it is not restarted in a loop. */
  | { ready: true }
  | { id: number; reply: WorkerReply<unknown> }
  /** Pushed while opening (`loadProgress`). */
  | { event: { name: string; payload: unknown } }
  /** The worker began running search request `searchStarted` (it may have waited behind other requests). */
  | { searchStarted: number };

export function isWorkerRequest(value: unknown): value is WorkerRequest {
  if (typeof value !== 'object' || value === null) return false;
  const { id, method, epoch } = value as Record<string, unknown>;
  return Number.isSafeInteger(id) && typeof method === 'string' && (epoch === undefined || Number.isInteger(epoch));
}
