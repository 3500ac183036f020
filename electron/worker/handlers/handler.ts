/**
 * What a request handler is (docs/worker.md): a function of the request the contract parsed and
 * the shared session state, answering the contract's reply for its method. The table of them
 * (handlers/index.ts) is keyed by the contract's method names, so a method without a handler fails
 * to compile.
 */
import type { EventPayload, ParsedParams, Reply, WorkerSessionMethod } from '../../../shared/index';
import type { SearchSignal, SessionState } from '../state';

/** What the worker's message loop knows of a request besides its params; only the searches read it. */
export interface RequestContext {
  /** Raised when the search is cancelled (entry.ts backs it with the shared search epoch). */
  readonly signal?: SearchSignal;
  /** Hears a long search's progress, at most every PROGRESS_EVERY_MS (handlers/search.ts). */
  readonly onProgress?: (progress: EventPayload<'searchProgress'>) => void;
  /** A search still running after this long answers `timeout` (default DEFAULT_SEARCH_TIME_LIMIT_MS). */
  readonly timeLimitMs?: number;
  /** A repro bundle's cancel: true stops its search, which answers with the best bundle so far. */
  readonly bundleCancelled?: () => boolean;
  /** Hears a repro bundle's progress (the request's `bundleId` names it). */
  readonly onBundleProgress?: (progress: EventPayload<'bundleProgress'>) => void;
}

/** Methods answered later: a search runs in slices between other requests, a bundle loads every candidate, tokens load the tokenizer first. */
export type DeferredMethod = 'search' | 'searchPage' | 'reproBundle' | 'trace' | 'tokenMap' | 'callTokens';

/** Methods whose handler answers at once. */
export type AnsweredAtOnce = Exclude<WorkerSessionMethod, DeferredMethod>;

/** A handler's answer: the reply now, or later for a DeferredMethod. */
export type Answer<M extends WorkerSessionMethod> = M extends DeferredMethod ? Promise<Reply<M>> : Reply<M>;

export type Handler<M extends WorkerSessionMethod> = (request: ParsedParams<M>, state: SessionState, context: RequestContext) => Answer<M>;

/** One handler per method the worker answers: a method missing here is a compile error. */
export type Handlers = { readonly [M in WorkerSessionMethod]: Handler<M> };
