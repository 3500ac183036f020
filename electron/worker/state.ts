/**
 * The session state the request handlers share (docs/worker.md): the open session with its layout
 * cache, the open being indexed, the follower, the background verification and what the running
 * searches tell the idle work. One object per worker; the handlers under handlers/ read and update
 * it, and nothing else keeps state between requests.
 */
import type {
  ByteSource,
  CallInput,
  EventPayload,
  HostError,
  LoadedSession,
  ProjectionLayout,
  Reduction,
  ReductionKind,
  Reply,
  SessionInfo,
  SidecarSearchResult,
  WorkerSessionMethod,
} from '../../shared/index';
import { REDUCTION_KINDS, projectionLayout } from '../../shared/index';
import type { ContextMapInfo } from '../../shared/contract';
import type { LiveLayout } from '../../shared/resolver/liveLayout';
import { extendLayout } from '../../shared/resolver/liveLayout';
import type { BackgroundOptions, BackgroundVerify, IdleVerifier } from '../loader/content/backgroundVerify';
import type { SessionFollower } from '../loader/follow';
import type { FollowLoop, FollowLoopOptions } from '../loader/followLoop';
import type { ContentServices } from '../loader/content/contentServices';
import { createContentServices } from '../loader/content/contentServices';
import type { LoadOptions } from '../loader/session';
import type { HiddenTokens } from '../tokens/sessionEstimates';
import { FileChangedError } from '../loader/session';
import type { WorkerReply } from './protocol';
import { fail, internal, ok } from './replies';
import type { PoolStop } from './scanProtocol';
import type { SearchPool } from './searchPool';
import { formatOf, listedSessions } from './sessions';
import type { TokenCache } from './tokenMap';

/** What a search checks to stop early; entry.ts backs it with the shared search epoch. */
export interface SearchSignal {
  readonly aborted: boolean;
  /** The same condition as shared memory, which the search pool's threads look at. */
  readonly shared?: PoolStop;
}

/** What `rows`, `rowOfIndex`, `rowText` and `verify` read: the latest view, or a call's input (handlers/calls.ts). */
export interface CallView extends CallInput {
  layout: ProjectionLayout;
}

/** The open session and what is computed once per open. */
export interface OpenSession {
  session: LoadedSession;
  /** The same object for every update of one open: a search over it goes on while the file grows. */
  token: object;
  /** Computed once per open: every `rows` and `rowOfIndex` reuses it. */
  layout: ProjectionLayout;
  /** A followed session's layout with its ranges, which the next update's layout is extended from. */
  liveLayout?: LiveLayout;
  info: SessionInfo;
  /** A file change was reported (onFileChanged) for this open. */
  changeReported?: boolean;
  /** The last row text (or tool-call arguments) `rowText` encoded: paging through one huge row encodes it once. */
  lastRowText?: { row: number; toolCall: number | undefined; call: number | null; bytes: ByteSource };
  /** The inputs of the calls last shown, with their layouts (at most CALL_VIEWS_KEPT, most recent last). */
  callViews?: Map<number, CallView>;
  /** The context map as the `calls` reply gives it (with compaction marks and recorded usage), computed at its first request. */
  contextMap?: ContextMapInfo;
  /** The estimates behind the map in tokens (worker/tokenMap.ts), made at the first `tokenMap` or `callTokens`. */
  tokens?: TokenCache;
  /** The token estimates asked for in this open (handlers/hiddenTokens.ts), made at the first ask: no ask, no tokenizer. */
  hiddenTokens?: HiddenTokens;
  /** The last search's pass over this open, before its bounds: the human view's first pages come from it (handlers/search.ts). */
  lastSearch?: KeptSearch;
}

/** A search's pass kept with what names it: matches are the same for the same query, mode, case and snippet bound. */
export interface KeptSearch {
  query: string;
  mode: 'substring' | 'regex';
  case_sensitive: boolean;
  snippet_max_bytes: number;
  /** Its first matches (at least SEARCH_PAGE_SIZE, shared/search/searchPage.ts), their bytes unbounded. */
  result: SidecarSearchResult;
}

/** What a worker's sessions are opened and watched with; tests give their own. */
export interface SessionOptions {
  /** Tune the loader (cache budget, read size); progress comes through `open`. */
  readonly loadOptions: Omit<LoadOptions, 'onProgress'>;
  /** Hears, once per open, that a file of the session changed on disk. */
  readonly onFileChanged?: (change: EventPayload<'fileChanged'>) => void;
  /** Hears every change of a followed session, and how it is followed (tests drive the loop by hand). */
  readonly follow: { onUpdated?: (update: EventPayload<'sessionUpdated'>) => void; loop?: FollowLoopOptions; settleMs?: number };
  /** Raw searches over both cores (the loads' services' parallelScan unless `loadOptions.services` is given); used while a search runs in slices. */
  readonly searchPool?: SearchPool;
  /** When the background thread starts (tests lower its least work), and the warm-ups' bound (tests give a clock). */
  readonly background: WorkerBackgroundOptions;
  /**
   * A signal raised by the next search or cancel sent (the worker's shared epoch at its value now):
   * it ends the warm-up searches after an open's preparation, on every thread, within one read
   * window. Without it only the searches that begin here end them.
   */
  readonly idleSignal?: () => SearchSignal;
  /** Hears the counts of the open file's sessions as they arrive after the open (sessionCounts.ts). */
  readonly onSessionCounts?: (counts: EventPayload<'sessionCounts'>) => void;
}

/**
 * Methods that read content. A session whose file is newer than supported (`stopped`) answers them
 * with `unsupported_version`; `log` (empty) and `check` (whose findings say why) still answer.
 */
const CONTENT_METHODS: ReadonlySet<WorkerSessionMethod> = new Set(['rows', 'rowOfIndex', 'rowText', 'expand', 'search', 'verify', 'callDiff', 'abandoned', 'calls', 'instructions', 'whatIf', 'exportDocument', 'trace', 'exportCall', 'tokenMap', 'callTokens', 'hiddenTokens']);

/** Methods whose session call checks the files itself, before and after it reads them (LoadedSession). */
const SESSION_GUARDED: ReadonlySet<WorkerSessionMethod> = new Set(['expand', 'search', 'check', 'replay', 'whatIf']);

/** The warm-up searches' bound after an open (handlers/background.ts, docs/background-work.md). */
export interface WarmUpBound {
  /** Time all the warm-ups of one open may take, together (default WARM_UP_BUDGET_MS). */
  budgetMs?: number;
  /** The clock the budget is kept with (default performance.now). */
  now?: () => number;
}

export type WorkerBackgroundOptions = BackgroundOptions & { warmUp?: WarmUpBound };

export class SessionState {
  /** The open session, if any (a provisional one while a large file is indexed). */
  current: OpenSession | undefined;
  /** The names the user knows the open files by (an upload's label), by path: a repro bundle writes them instead of the paths. */
  labels = new Map<string, string>();
  /** The open session's follower and its change detection, while it is followed (handlers/follow.ts). */
  following: { follower: SessionFollower; loop: FollowLoop } | undefined;
  /** The open being indexed, if any: aborting its signal supersedes it. */
  loading: { signal: { aborted: boolean }; done: Promise<void> } | undefined;
  /** The open session's hidden contents, verified on a worker thread since the open reply (handlers/background.ts). */
  verifying: BackgroundVerify | undefined;
  /** The background thread is still verifying: a search is not split meanwhile (handlers/search.ts). */
  verifyRunning = false;
  /** Settles when the search preparation has ended. */
  preparing: Promise<void> | undefined;
  /** Searches running in slices now: the preparation and a call's token counting give way to them. */
  searchesRunning = 0;
  /** Waiting for the searches running to end (`whenNoSearch`). */
  private searchWaiters: (() => void)[] = [];

  /** A search in slices begins (handlers/search.ts inSlices). */
  searchBegan(): void {
    this.searchesRunning++;
  }

  /** A search in slices ended: those waiting for no search to run go on once none does. */
  searchEnded(): void {
    this.searchesRunning--;
    if (this.searchesRunning > 0) return;
    const waiting = this.searchWaiters;
    this.searchWaiters = [];
    for (const go of waiting) go();
  }

  /** Resolves once no search runs in slices (at once when none does). */
  whenNoSearch(): Promise<void> {
    return this.searchesRunning === 0 ? Promise.resolve() : new Promise<void>((go) => this.searchWaiters.push(go));
  }
  /** Requests answered so far (SessionService.handle): one arriving ends the warm-ups (docs/background-work.md). */
  requests = 0;
  /** The background thread, started while the open's files are indexed, until it gets its work. */
  idleVerifier: IdleVerifier | undefined;
  /** The open session's pending sessions (an Inspect log's samples) being counted after the open (sessionCounts.ts). */
  counting: { stop(): void } | undefined;

  /** What every session opened here reads its contents with (docs/content-services.md): passed to each load and to the background verifier. */
  readonly services: ContentServices;

  constructor(readonly options: SessionOptions) {
    this.services = options.loadOptions.services ?? createContentServices({ parallelScan: options.searchPool ?? null });
  }

  /**
   * Runs `body` over the open session: `no_session` without one, `unsupported_version` for content
   * of a stopped one, `file_changed` when the files changed around the read, `internal_error` for a
   * throw.
   */
  withSession<M extends WorkerSessionMethod>(method: M, body: (open: OpenSession) => Reply<M>): Reply<M> {
    const open = this.current;
    if (!open) return fail('no_session', `${method}: no session is open`);
    if (open.session.stopped && CONTENT_METHODS.has(method)) {
      const why = open.session.loadFindings.find((f) => f.code === 'unsupported_version')?.message ?? 'a file is newer than this version supports';
      return fail('unsupported_version', `${method}: the session was not read: ${why}`);
    }
    // Whatever reads the files is bracketed by two checks that they are as they were opened: bytes
    // read around a change are never served (and `check` never reports over them). The session's
    // expand, search and check bracket their own reads; the other methods read through its lists.
    const reads = CONTENT_METHODS.has(method) && !SESSION_GUARDED.has(method);
    const changed = (): { ok: false; error: HostError } | undefined => {
      const change = open.session.fileChange();
      if (!change) return undefined;
      if (!open.changeReported) {
        open.changeReported = true;
        this.options.onFileChanged?.({ generation: open.info.generation, path: change.path, message: change.message });
      }
      return fail('file_changed', `${method}: ${change.message}`);
    };
    try {
      const before = reads ? changed() : undefined;
      if (before) return before;
      const reply = body(open);
      if (reads || (!reply.ok && reply.error.code === 'file_changed')) return changed() ?? reply;
      return reply;
    } catch (e) {
      if (e instanceof FileChangedError) return changed() ?? fail('file_changed', `${method}: ${e.message}`);
      return internal(e);
    }
  }

  /** Supersedes an open still being indexed. */
  cancelLoad(): void {
    if (this.loading) this.loading.signal.aborted = true;
  }

  /** Closes the open session, its follower and its background work; nothing is open after it. */
  release(): WorkerReply<Record<string, never>> {
    const open = this.current;
    const following = this.following;
    this.current = undefined;
    this.following = undefined;
    this.verifying?.stop();
    this.verifying = undefined;
    this.counting?.stop();
    this.counting = undefined;
    this.verifyRunning = false;
    this.idleVerifier?.dispose();
    this.idleVerifier = undefined;
    try {
      following?.loop.stop();
      following?.follower.close();
      open?.session.close();
    } catch (e) {
      return internal(e);
    }
    return ok({});
  }
}

function countByKind(log: readonly Reduction[]): Record<ReductionKind, number> {
  const counts = Object.fromEntries(REDUCTION_KINDS.map((k) => [k, 0])) as Record<ReductionKind, number>;
  for (const r of log) counts[r.kind] += 1;
  return counts;
}

/**
 * The open session's layout and info (`provisional` while its file is still being indexed);
 * `asked` is the session id the open asked for ('' for the main one).
 */
export function describe(session: LoadedSession, generation: number, provisional: boolean, asked: string, token: object = {}, following = false, previous?: OpenSession): OpenSession {
  // A followed session's layout is extended from the one before the update (O(new rows)), equal to projectionLayout's.
  const liveLayout = following ? extendLayout(previous?.liveLayout, session.minted.length, session.log) : undefined;
  const layout = liveLayout?.layout ?? projectionLayout(session.minted.length, session.log);
  const listed = listedSessions(session, asked);
  const info: SessionInfo = {
    generation,
    files: session.files.map((f) => ({ ...f })),
    session_id: session.sessionId,
    model: session.model,
    gate: session.header?.gate ?? null,
    policy: session.header?.policy ?? null,
    messages: session.minted.length,
    rows: layout.rowCount,
    reductions: session.log.length,
    reductions_by_kind: countByKind(session.log),
    load_findings: session.loadFindings.length,
    stopped: session.stopped,
    ...(provisional ? { provisional: true } : {}),
    format: formatOf(session),
    session: asked,
    sessions: listed.sessions,
    ...(listed.omitted > 0 ? { sessions_omitted: listed.omitted } : {}),
    ...(following ? { following: true } : {}),
  };
  return { session, layout, ...(liveLayout ? { liveLayout } : {}), info, token };
}
