/**
 * `search` and `searchPage` (docs/worker.md): run in slices of SEARCH_SLICE_MS between other
 * requests, with cancellation, progress and a time limit; `searchAtOnce` runs the same search in
 * one go for an in-process caller with no event loop to share.
 */
import type { EventPayload, HostError, HostErrorCode, LoadedSession, ParsedParams, Reply, Result, ResultOf, SearchOptions, SessionError, SidecarSearchResult } from '../../../shared/index';
import { MAX_MATCHES, MAX_RESULT_BYTES, SNIPPET_MAX_BYTES, isRangeKind, transcriptOffset } from '../../../shared/index';
import { fitSearchResult } from '../../../shared/search/index';
import type { SearchPage } from '../../../shared/search/searchPage';
import { MAX_PAGE_PASS_BYTES, SEARCH_PAGE_SIZE, pageFrom, pageSearchOptions, searchPageOf } from '../../../shared/search/searchPage';
import { viewSearchSteps } from '../../../shared/search/viewSearch';
import { fail, hostError, internal, ok } from '../replies';
import type { OpenSession, SearchSignal, SessionState } from '../state';
import { callView } from './calls';
import type { Handler, RequestContext } from './handler';
import { reductionsById } from './rows';

/** A search run in slices lets other requests in after this long… */
const SEARCH_SLICE_MS = 20;
/** The search preparation after an open, and each warm-up search, holds the worker at most this long at a time (handlers/background.ts). */
export const PREPARE_SLICE_MS = 5;
/** …and stops with `timeout` after this long, unless told otherwise. */
export const DEFAULT_SEARCH_TIME_LIMIT_MS = 120_000;

/** A search reports progress once it has run this long… */
const PROGRESS_AFTER_MS = 150;
/** …and then at most this often. */
const PROGRESS_EVERY_MS = 100;

/**
 * The options of a search request. Progress is reported once the search has run PROGRESS_AFTER_MS,
 * then at most every PROGRESS_EVERY_MS; `record` hears every step's. Exported for tests.
 */
export function searchOptions(
  params: ParsedParams<'search'>,
  signal: SearchSignal | undefined,
  onProgress: ((progress: EventPayload<'searchProgress'>) => void) | undefined,
  record?: (progress: EventPayload<'searchProgress'>) => void,
): SearchOptions {
  const started = performance.now();
  let last = started;
  const { searchId } = params;
  // One shape, numbers in the bounds, whatever the request leaves out (an absent bound is its
  // default here), and the mode as this code's own string (a request's comes through a message:
  // another kind of string than the literal it is compared with): the code the warm-up searches
  // leave optimized (handlers/background.ts) reads these, and a property met with another shape or
  // kind of value than before throws that code away.
  return {
    onProgress: (p) => {
      record?.({ searchId, ...p });
      if (!onProgress) return;
      const now = performance.now();
      if (now - started < PROGRESS_AFTER_MS || now - last < PROGRESS_EVERY_MS) return;
      last = now;
      onProgress({ searchId, ...p });
    },
    mode: params.mode === 'regex' ? 'regex' : 'substring',
    case_sensitive: params.case_sensitive,
    max_matches: params.max_matches ?? MAX_MATCHES,
    snippet_max_bytes: params.snippet_max_bytes ?? SNIPPET_MAX_BYTES,
    max_result_bytes: params.max_result_bytes ?? MAX_RESULT_BYTES,
    signal,
  };
}

/**
 * Each match inside a cleared or summarized range also says where it lands in the range's
 * transcript (what `expand` returns), so the renderer never parses transcript headers.
 */
function placeMatches(session: LoadedSession, result: SidecarSearchResult): ResultOf<'search'> {
  if (!result.matches.some((m) => isRangeKind(m.kind))) return result;
  const byId = reductionsById(session.log);
  const matches = result.matches.map((m) => {
    const r = isRangeKind(m.kind) ? byId.get(m.reduction_id) : undefined;
    const at = r ? transcriptOffset(r, session.minted, session.recorded, m.index, m.offset) : undefined;
    return at !== undefined ? { ...m, transcript_offset: at } : m;
  });
  return { ...result, matches };
}

/**
 * `sidecarSearch` (SPEC §5.3) in one run; an aborted `signal` makes it answer `cancelled`. A search
 * that runs longer than PROGRESS_AFTER_MS reports its progress through `onProgress`, at most every
 * PROGRESS_EVERY_MS.
 */
export function searchAtOnce(request: ParsedParams<'search'>, state: SessionState, context: RequestContext = {}): Reply<'search'> {
  return state.withSession('search', ({ session }) => {
    const result = session.search(request.query, searchOptions(request, context.signal, context.onProgress));
    return result.ok ? ok(placeMatches(session, result.value)) : hostError(result.error);
  });
}

/**
 * `search`, run in slices so that it holds the worker only `sliceMs` at a time: between slices the
 * event loop turns, and requests that came meanwhile (rows, expand) are answered while the search
 * goes on. It answers `cancelled` when the context's signal is raised or the session is closed or
 * replaced meanwhile (it never reads the files of a closed session: the search looks at its signal
 * after every slice before reading on), and `timeout` once it has run its time limit.
 */
export function searchInSlices(request: ParsedParams<'search'>, state: SessionState, context: RequestContext, sliceMs = SEARCH_SLICE_MS): Promise<Reply<'search'>> {
  const open = state.current;
  // No session, or one not read: the search in one run answers why at once.
  if (!open || open.session.stopped) return Promise.resolve(searchAtOnce(request, state, context));
  return inSlices(state, open, request, (options) => keptSearchSteps(open, request, options), (value) => placeMatches(open.session, value), context, sliceMs);
}

/**
 * The search's pass, run keeping at least the human view's first page of matches with no bound on
 * their bytes, and that result kept on the open (`OpenSession.lastSearch`) before it is fitted to
 * the asked bounds. The app asks for that page right after the agent's result, and it is answered
 * from what was kept instead of a second pass over the hidden content (docs/search.md "One pass
 * for both"). A pass's work does not depend on its bounds: only how many snippets it makes.
 */
function* keptSearchSteps(open: OpenSession, request: ParsedParams<'search'>, options: SearchOptions): Generator<void, Result<SidecarSearchResult, SessionError>> {
  const bounds = { max_matches: options.max_matches, max_result_bytes: options.max_result_bytes };
  const pass = yield* open.session.searchSteps(request.query, { ...options, max_matches: Math.max(bounds.max_matches ?? MAX_MATCHES, SEARCH_PAGE_SIZE), max_result_bytes: MAX_PAGE_PASS_BYTES });
  if (!pass.ok) return pass;
  open.lastSearch = { query: request.query, mode: options.mode ?? 'substring', case_sensitive: options.case_sensitive ?? true, snippet_max_bytes: options.snippet_max_bytes ?? SNIPPET_MAX_BYTES, result: pass.value };
  return fitSearchResult(pass.value, bounds);
}

/** Page `request.page` from the search kept on the open, when it was of the same query and holds the page. */
function keptPage(open: OpenSession, request: ParsedParams<'searchPage'>): SearchPage<ResultOf<'search'>['matches'][number]> | undefined {
  const kept = open.lastSearch;
  if (!kept || kept.query !== request.query || kept.mode !== request.mode || kept.case_sensitive !== request.case_sensitive || kept.snippet_max_bytes !== SNIPPET_MAX_BYTES) return undefined;
  return pageFrom(placeMatches(open.session, kept.result), request.page, request.page_size);
}

export const search: Handler<'search'> = (request, state, context) => searchInSlices(request, state, context);

/**
 * Page `request.page` of every match (shared/search/searchPage.ts), run in slices with the time limit,
 * cancellation and progress of `search`. `scope: "view"` searches the rows' text of the projected
 * view at `request.call` instead (shared/search/viewSearch.ts).
 */
export const searchPage: Handler<'searchPage'> = async (request, state, context) => {
  const open = state.current;
  // No session, or one not read: withSession answers why.
  if (!open || open.session.stopped) return state.withSession('searchPage', () => fail('not_supported', 'searchPage needs a session whose content is read'));
  const searchParams: ParsedParams<'search'> = {
    searchId: request.searchId,
    query: request.query,
    mode: request.mode,
    case_sensitive: request.case_sensitive,
    ...pageSearchOptions(request.page, request.page_size),
  };
  if (request.scope === 'view') {
    const view = callView(open, request.call);
    if ('ok' in view) return view;
    return inSlices(
      state,
      open,
      searchParams,
      (options) => viewSearchSteps(view.minted, view.log, view.layout, request.query, options),
      (value) => ({ ...searchPageOf(value, request.page, request.page_size), scope: 'view' as const, view_matches: value.matches.slice(request.page * request.page_size, (request.page + 1) * request.page_size), matches: [] }),
      context,
    );
  }
  // The search just run holds this page: no second pass (a page asked after a cancel still answers cancelled).
  const kept = context.signal?.aborted === true ? undefined : keptPage(open, request);
  if (kept) return ok({ ...kept, scope: 'hidden' as const, view_matches: [] });
  return inSlices(
    state,
    open,
    searchParams,
    (options) => open.session.searchSteps(request.query, options),
    (value) => ({ ...searchPageOf(placeMatches(open.session, value), request.page, request.page_size), scope: 'hidden' as const, view_matches: [] }),
    context,
  );
};

/**
 * Runs a search's steps in slices of `sliceMs`, letting other requests in between; answers
 * `cancelled` when the signal is raised or the session is closed or replaced meanwhile, `timeout`
 * once it has run its time limit, else `finish` of the result.
 */
export async function inSlices<R, T>(
  state: SessionState,
  open: OpenSession,
  params: ParsedParams<'search'>,
  makeSteps: (options: SearchOptions) => Generator<void, { ok: true; value: R } | { ok: false; error: { code: HostErrorCode; message: string } }>,
  finish: (value: R) => T,
  { signal, onProgress, timeLimitMs = DEFAULT_SEARCH_TIME_LIMIT_MS }: RequestContext,
  sliceMs = SEARCH_SLICE_MS,
): Promise<{ ok: true; value: T } | { ok: false; error: HostError }> {
  const started = performance.now();
  let timedOut = false;
  let replaced = false;
  let progress: EventPayload<'searchProgress'> | undefined;
  // A followed session replaced by its own update is the same open: the search goes on over what it started with.
  const isCurrent = (): boolean => state.current?.token === open.token;
  const watched: SearchSignal = {
    get aborted() {
      if (signal?.aborted === true) return true;
      if (!isCurrent()) replaced = true;
      if (!timedOut && performance.now() - started > timeLimitMs) timedOut = true;
      return replaced || timedOut;
    },
  };
  // While the background thread verifies hashes it holds the second core (of two, here), so a
  // split search would wait on a thread the system gives little time, and start one more thread:
  // memory the first search's peak does not need.
  const pool = state.options.searchPool;
  const pooled = pool?.begin(signal?.shared, !state.verifyRunning);
  state.searchBegan();
  try {
    const steps = makeSteps(searchOptions(params, watched, onProgress, (p) => (progress = p)));
    for (;;) {
      const sliceEnd = performance.now() + sliceMs;
      let step = steps.next();
      while (!step.done && performance.now() < sliceEnd) step = steps.next();
      if (step.done) {
        const result = step.value;
        if (result.ok) return ok(finish(result.value));
        if (result.error.code === 'cancelled' && timedOut && signal?.aborted !== true) {
          const done = progress ? `, having searched ${progress.spans_searched} of ${progress.spans} hidden spans (${progress.hidden_bytes_searched} bytes)` : '';
          return fail('timeout', `the search for ${JSON.stringify(params.query).slice(0, 200)} stopped after ${Math.round(timeLimitMs / 1000)} s, its time limit${done}: narrow the query (a case-sensitive substring is fastest)`);
        }
        if (result.error.code === 'cancelled' && replaced) return fail('cancelled', 'search: the session was closed or replaced while searching');
        return hostError(result.error);
      }
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  } catch (e) {
    return internal(e);
  } finally {
    state.searchEnded();
    pool?.end(pooled);
  }
}
