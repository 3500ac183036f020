/**
 * The resolver worker (worker_threads), bundled to dist/worker.cjs. It owns the loaded session
 * (SessionService) and answers `{ id, method, params }` with `{ id, reply }`, one request at a time
 * in arrival order. A search does not hold that queue: it runs in slices of a few milliseconds
 * (handlers/search.ts), and requests that come meanwhile are answered between slices;
 * its reply comes when it ends. A call's token counting (`callTokens`, handlers/tokens.ts) runs so
 * too. An open of a large sidecar holds the queue only until its preview:
 * rows, expansions and the log then answer over the records read so far, while search and check
 * wait for the whole session.
 *
 * Cancellation is a shared search epoch, read without waiting for a message: the client bumps it
 * before each search and to cancel one, and a search started at epoch `e` is aborted at its next
 * look (within one engine step, see shared/search.ts) once the shared value is no longer `e`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { EventPayload, HostError, WorkerSessionMethod } from '../../shared/index';
import { WORKER_SESSION_METHODS, workerMethods } from '../../shared/index';
import type { WorkerInit, WorkerMessage, WorkerReply, WorkerRequest } from './protocol';
import { BUNDLE_SLOT, EPOCH_SLOT, isWorkerRequest } from './protocol';
import { describeIssues, parseRequest } from './handlers/index';
import type { RequestContext } from './handlers/handler';
import type { SearchSignal } from './state';
import { SessionService } from './service';
import { SearchPool } from './searchPool';

const port = parentPort;
if (!port) throw new Error('electron/worker/entry.ts runs as a worker_threads worker; the host thread uses createResolverClient()');

const init = workerData as Partial<WorkerInit> | undefined;
if (!(init?.searchEpoch instanceof SharedArrayBuffer)) throw new Error('the resolver worker needs workerData.searchEpoch, a SharedArrayBuffer');
const epoch = new Int32Array(init.searchEpoch);
const testHooks = init.testHooks === true;
const searchTimeLimitMs = typeof init.searchTimeLimitMs === 'number' && init.searchTimeLimitMs > 0 ? init.searchTimeLimitMs : undefined;

// Raw searches split across threads, besides this one: the service's loads scan with it
// (their ContentServices' parallelScan, docs/content-services.md).
const searchPool = new SearchPool();
const service = new SessionService(
  {},
  (payload) => post({ event: { name: 'fileChanged', payload } }),
  { onUpdated: (payload) => post({ event: { name: 'sessionUpdated', payload } }) },
  searchPool,
  {},
  // Idle work (the warm-up searches after an open) ends as soon as a search or cancel is sent.
  () => searchSignal(Atomics.load(epoch, EPOCH_SLOT)),
  (payload) => post({ event: { name: 'sessionCounts', payload } }),
);

function post(message: WorkerMessage): void {
  port?.postMessage(message);
}

function invalid(message: string): { ok: false; error: HostError } {
  return { ok: false, error: { code: 'invalid_request', message } };
}

function isSessionMethod(method: string): method is WorkerSessionMethod {
  return (WORKER_SESSION_METHODS as readonly string[]).includes(method);
}

/** Aborted once the shared epoch moves past the one the search was sent at. */
function searchSignal(sentAt: number): SearchSignal {
  return {
    get aborted() {
      return Atomics.load(epoch, EPOCH_SLOT) !== sentAt;
    },
    shared: { epoch: epoch.buffer, slot: EPOCH_SLOT, value: sentAt },
  };
}

/** A reply sent later, after the queue has moved on: an open's when indexing ends (the queue moves on at its preview), a search's when it ends. */
const DEFERRED = Symbol('deferred');

/** Methods that need the whole session: they wait for an open still being indexed (search too, out of the queue). */
const WHOLE_SESSION: ReadonlySet<WorkerSessionMethod> = new Set(['check', 'replay', 'whatIf', 'reproBundle', 'exportDocument']);

async function answer(request: WorkerRequest): Promise<WorkerReply<unknown> | typeof DEFERRED> {
  const { method, params } = request;
  if (testHooks && method === '__gc') return { ok: true, value: typeof (globalThis as { gc?: unknown }).gc === 'function' };
  // For the bench: answered once the open's background work (verification, search preparation) has ended.
  if (testHooks && method === '__prepared') {
    await service.whenPrepared();
    return { ok: true, value: true };
  }
  if (method === 'open') {
    const parsed = workerMethods.open.params.safeParse(params);
    if (!parsed.success) return invalid(`open: ${describeIssues(parsed.error.issues)}`);
    let previewed: () => void = () => undefined;
    const preview = new Promise<void>((resolve) => (previewed = resolve));
    const done = service.open(
      parsed.data,
      (payload) => post({ event: { name: 'loadProgress', payload } }),
      (info) => {
        post({ event: { name: 'sessionPreview', payload: info } });
        previewed();
      },
    );
    // The queue moves on at the preview: the first rows answer while the rest is indexed.
    const first = await Promise.race([preview.then((): typeof DEFERRED => DEFERRED), done]);
    if (first !== DEFERRED) return first;
    void done.then((reply) => send(request, reply));
    return DEFERRED;
  }
  if (method === 'close') return service.close();
  if (!isSessionMethod(method)) return invalid(`the resolver worker does not answer ${JSON.stringify(method).slice(0, 100)}`);
  const parsed = parseRequest(method, params);
  if (!parsed.ok) return parsed;
  if (method === 'search' || method === 'searchPage' || method === 'trace') {
    // A search (or a page of one) sent without an epoch can only be cancelled by the searches and cancels after it.
    const context: RequestContext = {
      signal: searchSignal(request.epoch ?? Atomics.load(epoch, EPOCH_SLOT)),
      onProgress: (payload: EventPayload<'searchProgress'>) => post({ event: { name: 'searchProgress', payload } }),
      ...(searchTimeLimitMs !== undefined ? { timeLimitMs: searchTimeLimitMs } : {}),
    };
    // It waits for the whole session out of the queue: rows of the preview still answer meanwhile.
    const searching = service.whenLoaded().then((): WorkerReply<unknown> | Promise<WorkerReply<unknown>> => {
      post({ searchStarted: request.id });
      return service.handle(parsed.method, parsed.params, context);
    });
    void searching.then(
      (reply) => send(request, reply),
      (e: unknown) => send(request, { ok: false, error: { code: 'internal_error', message: `the search failed unexpectedly: ${e instanceof Error ? e.message : String(e)}` } }),
    );
    return DEFERRED;
  }
  if (method === 'callTokens') {
    // Counted in slices out of the queue (handlers/tokens.ts): the requests after it are answered meanwhile.
    const counting = service.whenLoaded().then(() => service.handle(parsed.method, parsed.params));
    void counting.then(
      (reply) => send(request, reply),
      (e: unknown) => send(request, { ok: false, error: { code: 'internal_error', message: `callTokens failed unexpectedly: ${e instanceof Error ? e.message : String(e)}` } }),
    );
    return DEFERRED;
  }
  if (WHOLE_SESSION.has(method)) await service.whenLoaded();
  if (method === 'reproBundle') {
    // Stopped (with its best so far) once the client moves the bundle epoch on from the one it was sent at.
    const sentAt = request.epoch;
    const context: RequestContext = {
      ...(sentAt !== undefined && epoch.length > BUNDLE_SLOT ? { bundleCancelled: () => Atomics.load(epoch, BUNDLE_SLOT) !== sentAt } : {}),
      onBundleProgress: (payload: EventPayload<'bundleProgress'>) => post({ event: { name: 'bundleProgress', payload } }),
    };
    return service.handle(parsed.method, parsed.params, context);
  }
  return service.handle(parsed.method, parsed.params);
}

function runTestHook(method: string): void {
  // A full collection, where the process runs with --expose-gc (the follow bench measures what stays).
  if (method === '__gc') (globalThis as { gc?: () => void }).gc?.();
  if (method === '__crash') throw new Error('test hook __crash: the resolver worker throws on purpose');
  if (method === '__hang') {
    // Busy, never returning to the event loop: only terminate() (a request timeout) ends it.
    for (;;) Atomics.load(epoch, EPOCH_SLOT);
  }
}

let queue: Promise<void> = Promise.resolve();

port.on('message', (message: unknown) => {
  // Without a numeric id there is nobody to answer.
  if (!isWorkerRequest(message)) return;
  // Synchronously, out of the queue: the throw must be uncaught, and a hang must hold the thread.
  if (testHooks) runTestHook(message.method);
  queue = queue.then(async () => {
    let reply: WorkerReply<unknown> | typeof DEFERRED;
    try {
      reply = await answer(message);
    } catch (e) {
      reply = { ok: false, error: { code: 'internal_error', message: `the resolver worker failed unexpectedly: ${e instanceof Error ? e.message : String(e)}` } };
    }
    if (reply !== DEFERRED) send(message, reply);
  });
});

function send(request: WorkerRequest, reply: WorkerReply<unknown>): void {
  try {
    post({ id: request.id, reply });
  } catch (e) {
    // A reply that cannot be cloned is a bug; the request still gets an answer.
    post({ id: request.id, reply: { ok: false, error: { code: 'internal_error', message: `the reply to ${request.method} could not be sent: ${(e as Error).message}` } } });
  }
}

post({ ready: true });
