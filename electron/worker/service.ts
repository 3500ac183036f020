/**
 * The resolver worker's core, without the worker: owns at most one loaded session (state.ts) and
 * answers the contract's session methods over it through the handler table (handlers/index.ts,
 * docs/worker.md). Plain class, so it is tested directly; entry.ts feeds it validated params from
 * the message channel, and the hosts' tests run it in-process.
 *
 * Errors are values: every method answers `{ ok: false, error: { code, message } }` with the
 * contract's HostErrorCode and never throws (an unexpected exception becomes `internal_error`).
 */
import type { EventPayload, ParsedParams, Reply, SessionInfo, WorkerSessionMethod } from '../../shared/index';
import type { FollowLoopOptions } from '../loader/followLoop';
import type { LoadOptions } from '../loader/session';
import { whenPrepared, whenVerified } from './handlers/background';
import { followNow } from './handlers/follow';
import type { AnsweredAtOnce, DeferredMethod, RequestContext } from './handlers/handler';
import { handlers } from './handlers/index';
import type { LoadProgressPayload, OpenParams } from './handlers/open';
import { closeSession, openSession, whenLoaded } from './handlers/open';
import { searchAtOnce } from './handlers/search';
import type { WorkerReply } from './protocol';
import type { SearchPool } from './searchPool';
import type { SearchSignal, WorkerBackgroundOptions } from './state';
import { SessionState } from './state';

export class SessionService {
  private readonly state: SessionState;

  /** The arguments are SessionOptions' (state.ts), in this order; each may be left out. */
  constructor(
    loadOptions: Omit<LoadOptions, 'onProgress'> = {},
    onFileChanged?: (change: EventPayload<'fileChanged'>) => void,
    follow: { onUpdated?: (update: EventPayload<'sessionUpdated'>) => void; loop?: FollowLoopOptions; settleMs?: number } = {},
    searchPool?: SearchPool,
    background: WorkerBackgroundOptions = {},
    idleSignal?: () => SearchSignal,
    onSessionCounts?: (counts: EventPayload<'sessionCounts'>) => void,
  ) {
    this.state = new SessionState({
      loadOptions,
      follow,
      background,
      ...(onFileChanged ? { onFileChanged } : {}),
      ...(searchPool ? { searchPool } : {}),
      ...(idleSignal ? { idleSignal } : {}),
      ...(onSessionCounts ? { onSessionCounts } : {}),
    });
  }

  /** The open session's info, or null. */
  get info(): SessionInfo | null {
    return this.state.current?.info ?? null;
  }

  /** Opens `params.paths` (handlers/open.ts), closing the open session first. */
  open(params: OpenParams, onProgress?: (progress: LoadProgressPayload) => void, onPreview?: (info: SessionInfo) => void): Promise<WorkerReply<SessionInfo>> {
    return openSession(this.state, params, onProgress, onPreview);
  }

  /** Closes the session, superseding an open still being indexed. */
  close(): WorkerReply<Record<string, never>> {
    return closeSession(this.state);
  }

  /** Resolves once no open is being indexed (at once when none is). */
  whenLoaded(): Promise<void> {
    return whenLoaded(this.state);
  }

  /**
   * Answers one session method through its handler (handlers/index.ts): at once, or later for a
   * DeferredMethod (a search, a bundle). `context` is read by the searches only.
   */
  handle<M extends AnsweredAtOnce>(method: M, params: ParsedParams<M>, context?: RequestContext): Reply<M>;
  handle<M extends DeferredMethod>(method: M, params: ParsedParams<M>, context?: RequestContext): Promise<Reply<M>>;
  handle<M extends WorkerSessionMethod>(method: M, params: ParsedParams<M>, context?: RequestContext): Reply<M> | Promise<Reply<M>>;
  handle<M extends WorkerSessionMethod>(method: M, params: ParsedParams<M>, context: RequestContext = {}): Reply<M> | Promise<Reply<M>> {
    // A request is a user's: the warm-ups after an open give way to it for good (handlers/background.ts).
    this.state.requests++;
    return handlers[method](params, this.state, context);
  }

  /** `search` in one run, not in slices: for a caller that shares no event loop with other requests (tests). */
  searchAtOnce(params: ParsedParams<'search'>, context: RequestContext = {}): Reply<'search'> {
    return searchAtOnce(params, this.state, context);
  }

  /** Tests and the bench: resolves when the search preparation after the background verification has ended. */
  whenPrepared(): Promise<void> {
    return whenPrepared(this.state);
  }

  /** Tests: resolves when the background verification of the open session has ended (null when none runs). */
  whenVerified(): Promise<{ contents: number; hashed: number; located: number } | null> {
    return whenVerified(this.state);
  }

  /** One look at the followed files now (tests; the loop looks by itself). */
  followNow(): Promise<void> {
    return followNow(this.state);
  }
}
