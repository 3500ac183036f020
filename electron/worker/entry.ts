/**
 * The resolver worker (worker_threads), bundled to dist/worker.cjs. It owns the loaded session
 * (SessionService) and answers `{ id, method, params }` with `{ id, reply }`, one request at a time
 * in arrival order: a search runs synchronously, so everything else waits behind it. An open of a
 * large sidecar holds the queue only until its preview: rows, expansions and the log then answer
 * over the records read so far, while search and check wait for the whole session.
 *
 * Cancellation cannot be a message (none is read while a search runs); it is a shared search
 * epoch. The client bumps it before each search and to cancel one, and a search started at epoch
 * `e` is aborted as soon as the shared value is no longer `e`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { HostError, ParsedParams, WorkerSessionMethod } from '../../shared/index';
import { WORKER_SESSION_METHODS, parseParams, workerMethods } from '../../shared/index';
import type { WorkerInit, WorkerMessage, WorkerReply, WorkerRequest } from './protocol';
import { EPOCH_SLOT, isWorkerRequest } from './protocol';
import type { SearchSignal } from './service';
import { SessionService } from './service';

const port = parentPort;
if (!port) throw new Error('electron/worker/entry.ts runs as a worker_threads worker; the host thread uses createResolverClient()');

const init = workerData as Partial<WorkerInit> | undefined;
if (!(init?.searchEpoch instanceof SharedArrayBuffer)) throw new Error('the resolver worker needs workerData.searchEpoch, a SharedArrayBuffer');
const epoch = new Int32Array(init.searchEpoch);
const testHooks = init.testHooks === true;

const service = new SessionService({}, (payload) => post({ event: { name: 'fileChanged', payload } }));

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
  };
}

/** An open whose reply is sent when indexing ends, after the queue has moved on at its preview. */
const DEFERRED = Symbol('deferred');

/** Methods that need the whole session: they wait for an open still being indexed. */
const WHOLE_SESSION: ReadonlySet<string> = new Set(['search', 'check']);

async function answer(request: WorkerRequest): Promise<WorkerReply<unknown> | typeof DEFERRED> {
  const { method, params } = request;
  if (method === 'open') {
    const parsed = workerMethods.open.params.safeParse(params);
    if (!parsed.success) return invalid(`open: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(params)'}: ${i.message}`).join('; ')}`);
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
    void done.then((reply) => post({ id: request.id, reply }));
    return DEFERRED;
  }
  if (method === 'close') return service.close();
  if (!isSessionMethod(method)) return invalid(`the resolver worker does not answer ${JSON.stringify(method).slice(0, 100)}`);
  const parsed = parseParams(method, params);
  if (!parsed.ok) return parsed;
  if (WHOLE_SESSION.has(method)) await service.whenLoaded();
  let signal: SearchSignal | undefined;
  if (method === 'search') {
    // A search sent without an epoch can only be cancelled by the searches and cancels after it.
    signal = searchSignal(request.epoch ?? Atomics.load(epoch, EPOCH_SLOT));
    post({ searchStarted: request.id });
  }
  return service.handle(method, parsed.params as ParsedParams<WorkerSessionMethod>, signal, (payload) => post({ event: { name: 'searchProgress', payload } }));
}

function runTestHook(method: string): void {
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
    if (reply === DEFERRED) return;
    try {
      post({ id: message.id, reply });
    } catch (e) {
      // A reply that cannot be cloned is a bug; the request still gets an answer.
      post({ id: message.id, reply: { ok: false, error: { code: 'internal_error', message: `the reply to ${message.method} could not be sent: ${(e as Error).message}` } } });
    }
  });
});

post({ ready: true });
