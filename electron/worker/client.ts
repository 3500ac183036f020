/**
 * The host thread's handle on the resolver worker (ResolverClient of electron/host/types.ts).
 *
 * Every reply and event from the worker is validated against the contract before anyone sees it.
 * A worker that dies (an uncaught error, a non-zero exit, a request past `requestTimeoutMs`) never
 * leaves a caller waiting: every pending request answers `worker_crashed` naming the reason,
 * listeners get `workerRestarted`, and a fresh worker reopens the last files opened successfully
 * (same generation), so later requests answer as before.
 */
import { basename, dirname, join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { z } from 'zod';
import type { HostError, HostEvent, ParsedParams, Reply, SessionInfo, WorkerSessionMethod } from '../../shared/index';
import { parseEvent, parseReply, replyParser, workerMethods } from '../../shared/index';
import type { OpenSource, ResolverClient } from './resolverClient';
import type { TestHookMethod, WorkerInit, WorkerReply, WorkerRequest } from './protocol';
import { BUNDLE_SLOT, EPOCH_SLOT, EPOCH_SLOTS, WORKER_BUNDLE } from './protocol';

export interface ResolverClientOptions {
  /** The bundled worker; default `defaultWorkerPath()`. */
  workerPath?: string;
  /** Node flags of the worker thread (default: the process's own). */
  execArgv?: string[];
  /** Lets `injectFault` reach the worker's `__crash` / `__hang` hooks. Tests only. */
  testHooks?: boolean;
  /**
   * A request not answered within this many milliseconds (counted from when it was sent, waiting
   * behind earlier requests included) is taken as a hung worker: it is terminated and restarted
   * like a crashed one. One bound for every method, or bounds by method with a `default`. No limit
   * by default; the hosts pass DEFAULT_REQUEST_TIMEOUTS.
   */
  requestTimeoutMs?: number | RequestTimeouts;
  /** A search still running after this long stops and answers `timeout` (the worker's DEFAULT_SEARCH_TIME_LIMIT_MS by default). */
  searchTimeLimitMs?: number;
}

/** Bounds by method (the worker's method names: `open`, `close`, `search`…), and one for the rest. */
export type RequestTimeouts = { readonly default: number } & { readonly [method: string]: number | undefined };

/**
 * The bounds the hosts use. A request answers well within them unless the worker is stuck: rows,
 * expand and the like take milliseconds (a search no longer holds them up: it runs in slices);
 * opening a 1 GiB sidecar indexes it in tens of seconds; a search first waits for an open being
 * indexed, then stops itself at its time limit (DEFAULT_SEARCH_TIME_LIMIT_MS, 120 s), so its bound
 * leaves it room to answer `timeout` itself; `check` verifies every hash of a session.
 */
export const DEFAULT_REQUEST_TIMEOUTS: RequestTimeouts = {
  default: 120_000,
  open: 600_000,
  search: 240_000,
  searchPage: 240_000,
  trace: 240_000,
  // Counted in slices that wait while a search runs (handlers/tokens.ts).
  callTokens: 240_000,
  check: 600_000,
  // A repro bundle loads and checks up to MINIMIZE_MAX_CALLS candidates (its bytes capped).
  reproBundle: 600_000,
  replay: 600_000,
  whatIf: 600_000,
};

/** A ResolverClient over a worker thread, with what tests need to drive the real worker. */
export interface WorkerResolverClient extends ResolverClient {
  /**
   * Resolves true once the worker has begun running the in-flight search `searchId`; false when
   * that search is not in flight or ends (answered, superseded, crashed) before it begins. Tests
   * wait on this instead of a clock.
   */
  searchStarted(searchId: string): Promise<boolean>;
  /**
   * Test-only: makes the worker throw an uncaught error (`crash`) or busy-loop (`hang`, which only a
   * `requestTimeoutMs` ends). Answers the failure the fault produced (`worker_crashed`), or
   * `not_supported` when the client was created without `testHooks`.
   */
  injectFault(fault: 'crash' | 'hang'): Promise<{ ok: false; error: HostError }>;
  /**
   * Test- and bench-only: a full garbage collection in the worker. Answers whether one ran (the
   * process must run with --expose-gc); false without `testHooks`.
   */
  collectGarbage(): Promise<boolean>;
  /**
   * Bench- and test-only: resolves once the open session's background work (hash verification,
   * search preparation) has ended, true; false without `testHooks`.
   */
  whenPrepared(): Promise<boolean>;
}

/**
 * Where the bundled worker is: beside the bundle running this code (`__dirname` of dist/*.cjs),
 * or, when this file runs from its TypeScript source (Vitest), the built dist/worker.cjs of the
 * repository. Where there is no `__dirname` at all (an ES module loader), dist/ of the working
 * directory. A bundle written elsewhere than dist/ passes `workerPath`.
 */
export function defaultWorkerPath(): string {
  const here = typeof __dirname === 'string' ? __dirname : resolve('dist');
  const beside = join(here, WORKER_BUNDLE);
  const fromSources = basename(here) === 'worker' && basename(dirname(here)) === 'electron';
  if (fromSources) return resolve(here, '../../dist', WORKER_BUNDLE);
  return beside;
}

type Parse = (raw: unknown) => WorkerReply<unknown>;

interface Pending {
  method: string;
  parse: Parse;
  resolve(reply: WorkerReply<unknown>): void;
  timer?: NodeJS.Timeout;
}

interface InFlightSearch {
  searchId: string;
  requestId: number;
  started: Promise<boolean>;
  markStarted(started: boolean): void;
}

const parseOpen = replyParser('open', workerMethods.open.result);
const parseClose = replyParser('close', workerMethods.close.result);
const failureOnly = replyParser('a test hook', z.never());
const collected = replyParser('__gc', z.boolean());
const prepared = replyParser('__prepared', z.literal(true));

class WorkerClient implements WorkerResolverClient {
  private readonly workerPath: string;
  /** The search epoch, shared with every worker this client spawns (protocol.ts). */
  private readonly epochBuffer = new SharedArrayBuffer(EPOCH_SLOTS * Int32Array.BYTES_PER_ELEMENT);
  private readonly epoch = new Int32Array(this.epochBuffer);
  private worker: Worker | undefined;
  /** The current worker has said `ready`: a worker that dies before is not restarted in a loop. */
  private ready = false;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Set<(event: HostEvent) => void>();
  private inFlightSearch: InFlightSearch | undefined;
  /** The repro bundles sent and not yet answered, by bundleId. */
  private readonly inFlightBundles = new Set<string>();
  /** What the worker holds open, to reopen after a crash. */
  private lastOpened: { paths: string[]; generation: number; source: OpenSource } | undefined;
  /** Counts opens and closes: only the reply to the latest one decides `lastOpened`. */
  private openSeq = 0;
  /** The request reopening `lastOpened` in a fresh worker: if that crashes too, the files are not reopened again. */
  private reopenId: number | undefined;
  private disposed = false;
  /** Why the last spawn failed, for the replies of requests that had no worker to go to. */
  private spawnError: string | undefined;

  constructor(private readonly options: ResolverClientOptions) {
    this.workerPath = options.workerPath ?? defaultWorkerPath();
    this.spawn();
  }

  async open(paths: string[], generation: number, source: OpenSource = {}): Promise<{ ok: true; value: SessionInfo } | { ok: false; error: HostError }> {
    // The search in flight is about the session being replaced: stop it rather than wait for it.
    this.bumpEpoch();
    const seq = ++this.openSeq;
    this.lastOpened = undefined;
    const reply = (await this.send('open', { paths, generation, ...source }, parseOpen)) as WorkerReply<SessionInfo>;
    if (seq === this.openSeq) this.lastOpened = reply.ok ? { paths: [...paths], generation, source: { ...source } } : undefined;
    return reply;
  }

  async close(): Promise<void> {
    this.bumpEpoch();
    this.openSeq++;
    this.lastOpened = undefined;
    if (this.disposed || !this.worker) return;
    await this.send('close', {}, parseClose);
  }

  request<M extends WorkerSessionMethod>(method: M, params: ParsedParams<M>): Promise<Reply<M>> {
    const parse: Parse = (raw) => parseReply(method, raw);
    // A page of a search is a search, and so is a trace (docs/trace.md): one in flight at a time, cancelled by the next.
    if (method === 'reproBundle') {
      // Sent with the bundle epoch of now: a cancel moves it on, and the bundle stops with its best so far.
      const bundleId = (params as ParsedParams<'reproBundle'>).bundleId;
      if (bundleId !== undefined) this.inFlightBundles.add(bundleId);
      const { reply } = this.post(method, params, parse, Atomics.load(this.epoch, BUNDLE_SLOT));
      return reply.finally(() => {
        if (bundleId !== undefined) this.inFlightBundles.delete(bundleId);
      }) as Promise<Reply<M>>;
    }
    if (method !== 'search' && method !== 'searchPage' && method !== 'trace') return this.send(method, params, parse) as Promise<Reply<M>>;

    // A new search cancels the one in flight (which answers `cancelled`) before it is sent.
    const epoch = this.bumpEpoch();
    this.inFlightSearch?.markStarted(false);
    let markStarted: (started: boolean) => void = () => undefined;
    const started = new Promise<boolean>((resolve) => (markStarted = resolve));
    const { id, reply } = this.post(method, params, parse, epoch);
    const search: InFlightSearch = { searchId: (params as ParsedParams<'search' | 'searchPage' | 'trace'>).searchId, requestId: id, started, markStarted };
    this.inFlightSearch = search;
    return reply.finally(() => {
      search.markStarted(false);
      if (this.inFlightSearch === search) this.inFlightSearch = undefined;
    }) as Promise<Reply<M>>;
  }

  cancelSearch(searchId: string): boolean {
    if (this.inFlightSearch?.searchId !== searchId) return false;
    this.inFlightSearch.markStarted(false);
    this.inFlightSearch = undefined;
    this.bumpEpoch();
    return true;
  }

  cancelBundle(bundleId: string): boolean {
    if (!this.inFlightBundles.has(bundleId)) return false;
    Atomics.add(this.epoch, BUNDLE_SLOT, 1);
    return true;
  }

  searchStarted(searchId: string): Promise<boolean> {
    const search = this.inFlightSearch;
    return search?.searchId === searchId ? search.started : Promise.resolve(false);
  }

  async injectFault(fault: 'crash' | 'hang'): Promise<{ ok: false; error: HostError }> {
    if (this.options.testHooks !== true) return { ok: false, error: { code: 'not_supported', message: 'injectFault needs a client created with testHooks: true' } };
    const method: TestHookMethod = fault === 'crash' ? '__crash' : '__hang';
    const reply = await this.send(method, {}, failureOnly);
    return reply.ok ? { ok: false, error: { code: 'internal_error', message: `${method} was answered` } } : reply;
  }

  async collectGarbage(): Promise<boolean> {
    if (this.options.testHooks !== true) return false;
    const reply = await this.send('__gc', {}, collected);
    return reply.ok && reply.value === true;
  }

  async whenPrepared(): Promise<boolean> {
    if (this.options.testHooks !== true) return false;
    const reply = await this.send('__prepared', {}, prepared);
    return reply.ok;
  }

  onEvent(listener: (event: HostEvent) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.bumpEpoch();
    const worker = this.worker;
    this.worker = undefined;
    this.failPending('the resolver client was disposed');
    this.listeners.clear();
    await worker?.terminate();
  }

  // -------------------------------------------------------------------------------------------

  /** Moves the search epoch on (cancelling the search in flight) and returns the new value, wrapped like the Int32 it is. */
  private bumpEpoch(): number {
    return (Atomics.add(this.epoch, EPOCH_SLOT, 1) + 1) | 0;
  }

  /** Starts a worker; false (with the reason kept for the replies) when Node refuses to. */
  private spawn(): boolean {
    const init: WorkerInit = {
      searchEpoch: this.epochBuffer,
      testHooks: this.options.testHooks === true,
      ...(this.options.searchTimeLimitMs !== undefined ? { searchTimeLimitMs: this.options.searchTimeLimitMs } : {}),
    };
    let worker: Worker;
    try {
      worker = new Worker(this.workerPath, { workerData: init, ...(this.options.execArgv ? { execArgv: this.options.execArgv } : {}) });
    } catch (e) {
      this.worker = undefined;
      this.spawnError = `the resolver worker ${this.workerPath} cannot be started: ${e instanceof Error ? e.message : String(e)}`;
      return false;
    }
    this.worker = worker;
    this.spawnError = undefined;
    this.ready = false;
    // Events of a worker already replaced are ignored: its pending requests were answered then.
    worker.on('message', (message: unknown) => {
      if (this.worker === worker) this.onMessage(message);
    });
    worker.on('error', (e: unknown) => {
      if (this.worker === worker) this.crashed(`threw an uncaught error: ${e instanceof Error ? e.message : String(e)}`);
    });
    worker.on('exit', (code: number) => {
      if (this.worker === worker) this.crashed(`exited with code ${code}`);
    });
    return true;
  }

  /** A worker to send to: a fresh one, reopening the last files, if the last one could not start. */
  private ensureWorker(): Worker | undefined {
    if (this.worker) return this.worker;
    if (this.spawn()) this.reopen();
    return this.worker;
  }

  private reopen(): void {
    const last = this.lastOpened;
    if (!last) return;
    const seq = this.openSeq;
    const { id, reply } = this.post('open', { paths: last.paths, generation: last.generation, ...last.source }, parseOpen);
    this.reopenId = id;
    void reply.then((answer) => {
      if (this.reopenId === id) this.reopenId = undefined;
      // The files can no longer be opened (moved, deleted): later requests answer `no_session`.
      if (!answer.ok && seq === this.openSeq) this.lastOpened = undefined;
    });
  }

  private send(method: string, params: unknown, parse: Parse): Promise<WorkerReply<unknown>> {
    return this.post(method, params, parse).reply;
  }

  /** Sends one request; `id` is the request's (0 when the client is disposed and nothing was sent). */
  private post(method: string, params: unknown, parse: Parse, epoch?: number): { id: number; reply: Promise<WorkerReply<unknown>> } {
    if (this.disposed) return { id: 0, reply: Promise.resolve({ ok: false, error: { code: 'worker_crashed', message: `the resolver client was disposed; ${method} was not sent` } }) };
    const worker = this.ensureWorker();
    if (!worker) return { id: 0, reply: Promise.resolve({ ok: false, error: { code: 'worker_crashed', message: `${this.spawnError ?? 'the resolver worker is not running'}; ${method} was not sent` } }) };
    const id = this.nextId++;
    const reply = new Promise<WorkerReply<unknown>>((resolve) => {
      const pending: Pending = { method, parse, resolve };
      const bound = this.options.requestTimeoutMs;
      const timeout = typeof bound === 'object' ? (bound[method] ?? bound.default) : bound;
      if (timeout !== undefined) {
        pending.timer = setTimeout(() => this.crashed(`did not answer ${method} within ${timeout} ms and was stopped`), timeout);
        pending.timer.unref();
      }
      this.pending.set(id, pending);
      const request: WorkerRequest = { id, method, params, ...(epoch !== undefined ? { epoch } : {}) };
      try {
        worker.postMessage(request);
      } catch (e) {
        this.settle(id, { ok: false, error: { code: 'internal_error', message: `${method} could not be sent to the resolver worker: ${(e as Error).message}` } });
      }
    });
    return { id, reply };
  }

  private settle(id: number, reply: WorkerReply<unknown>): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    if (pending.timer) clearTimeout(pending.timer);
    pending.resolve(reply);
  }

  private onMessage(raw: unknown): void {
    if (typeof raw !== 'object' || raw === null) return;
    const message = raw as Record<string, unknown>;
    if (message.ready === true) {
      this.ready = true;
    } else if ('event' in message) {
      const event = parseEvent(message.event);
      if (event) this.emit(event);
    } else if (typeof message.searchStarted === 'number') {
      if (this.inFlightSearch?.requestId === message.searchStarted) this.inFlightSearch.markStarted(true);
    } else if (typeof message.id === 'number') {
      // A worker that answers has started, whether or not its `ready` was seen first.
      this.ready = true;
      const pending = this.pending.get(message.id);
      if (pending) this.settle(message.id, pending.parse(message.reply));
    }
  }

  private emit(event: HostEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch {
        // One listener's failure is its own: the others still hear the event.
      }
    }
  }

  private failPending(reason: string): void {
    const entries = [...this.pending.entries()];
    for (const [id, pending] of entries) {
      this.settle(id, { ok: false, error: { code: 'worker_crashed', message: `${reason}; ${pending.method} was not answered` } });
    }
  }

  /** The worker died or hung: answer everything pending, then restart it and reopen the last files. */
  private crashed(what: string): void {
    const dead = this.worker;
    if (!dead || this.disposed) return;
    this.worker = undefined;
    // A hung worker is stopped; a dead one is already gone.
    void dead.terminate();
    const reason = `the resolver worker ${what}`;
    const wasReady = this.ready;
    if (this.reopenId !== undefined && this.pending.has(this.reopenId)) {
      // Reopening these files is what killed it: do not reopen them again and again.
      this.lastOpened = undefined;
    }
    this.reopenId = undefined;
    this.inFlightSearch?.markStarted(false);
    this.inFlightSearch = undefined;
    this.failPending(reason);
    // A worker that never started (a missing or broken bundle) is not respawned in a loop: the
    // next request tries again.
    if (!wasReady) return;
    if (this.spawn()) this.reopen();
    this.emit({ name: 'workerRestarted', payload: { reason } });
  }
}

/** Spawns the resolver worker and returns its client. */
export function createResolverClient(options: ResolverClientOptions = {}): WorkerResolverClient {
  return new WorkerClient(options);
}
