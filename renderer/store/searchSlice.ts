/**
 * The search of hidden content. Typing waits for a quiet moment, then runs one search; each search
 * gets a fresh `searchId`, the one still in flight is cancelled, and only the reply of the latest
 * search is shown (a `cancelled` reply is silent).
 *
 * Beside the agent's bounded result, the human view pages through every match
 * (`searchPage`, a page at a time, fetched when a step reaches it) with `n of N`; its first page is
 * asked for once the agent's search has answered, so the two never cancel each other. With the
 * scope `view` the search runs over what the model saw (the rows of the shown call) instead, and
 * the agent's result does not apply.
 */
import type { HostError, ResultOf } from '../../shared/contract';
import { MAX_QUERY_BYTES } from '../../shared/contract';
import { utf8Length } from '../../shared/format/utf8';
import type { SliceCreator } from './appState';
import { callParams } from './callParams';

export type SearchResult = ResultOf<'search'>;
export type SearchMatch = SearchResult['matches'][number];
export type SearchPageReply = ResultOf<'searchPage'>;
export type ViewMatch = SearchPageReply['view_matches'][number];
export type SearchScope = 'hidden' | 'view';

/** Matches a page of the human view holds. */
export const HUMAN_PAGE_SIZE = 50;

/** The human view of the latest search: every match, page by page. */
export interface SearchPaging {
  status: 'loading' | 'ready' | 'error';
  scope: SearchScope;
  /** The model call whose view `scope: "view"` searched (null: the latest view). */
  call: number | null;
  /** Every match the pass counted, and how many of them can be paged. */
  total: number;
  pageable: number;
  /** Pages fetched so far, by page number. */
  pages: ReadonlyMap<number, SearchPageReply>;
  /** 0-based position of the match shown, null before the first step. */
  current: number | null;
  error: HostError | null;
}

/**
 * Pages next to `page`, not fetched yet, that may hold hits of reduction `id` (the one a step opens):
 * the previous page when this page's first match is in `id`, the next when its last is. Matches are
 * in view order, so a reduction's hits are contiguous: fetching these marks every hit of `id` as
 * far as the neighbouring pages reach.
 */
export function neighbourPages(paging: SearchPaging | null, page: number, id: string): number[] {
  const here = paging?.pages.get(page);
  if (!paging || !here || paging.scope !== 'hidden') return [];
  const out: number[] = [];
  if (page > 0 && here.matches[0]?.reduction_id === id && !paging.pages.has(page - 1)) out.push(page - 1);
  if ((page + 1) * HUMAN_PAGE_SIZE < paging.pageable && here.matches.at(-1)?.reduction_id === id && !paging.pages.has(page + 1)) out.push(page + 1);
  return out;
}

/** The match at `position` of the pages fetched, if its page is. */
export function pagedMatch(paging: SearchPaging, position: number): { hidden: SearchMatch } | { view: ViewMatch } | undefined {
  const page = paging.pages.get(Math.floor(position / HUMAN_PAGE_SIZE));
  if (!page) return undefined;
  const k = position - page.first;
  const hidden = page.matches[k];
  if (hidden) return { hidden };
  const view = page.view_matches[k];
  return view ? { view } : undefined;
}

export interface SearchSlice {
  searchQuery: string;
  searchRegex: boolean;
  searchCaseSensitive: boolean;
  /** `waiting`: typed, not yet sent; `running`: sent, not answered. */
  searchStatus: 'idle' | 'waiting' | 'running' | 'done' | 'error';
  searchResult: SearchResult | null;
  searchError: HostError | null;
  /** Show the result exactly as the agent's intrinsic returns it (JSON). */
  searchShowJson: boolean;
  /** How far the running search has got, once it reports (long searches over large sessions). */
  searchProgress: { spans_searched: number; spans: number; hidden_bytes_searched: number } | null;
  /** A `searchProgress` event: kept when it is about the search in flight. */
  applySearchProgress: (progress: { searchId: string; spans_searched: number; spans: number; hidden_bytes_searched: number }) => void;
  setSearchQuery: (query: string) => void;
  setSearchRegex: (regex: boolean) => void;
  setSearchCaseSensitive: (caseSensitive: boolean) => void;
  /** Runs the search now (cancelling the one in flight). */
  runSearch: () => Promise<void>;
  toggleSearchJson: () => void;
  /** Where the search looks — hidden content (the agent's search) or what the model saw. */
  searchScope: SearchScope;
  setSearchScope: (scope: SearchScope) => void;
  searchPaging: SearchPaging | null;
  /** Goes to the next (1) or previous (-1) match of the human view, wrapping at either end. */
  stepMatch: (direction: 1 | -1) => Promise<void>;
}

export function freshSearchResults(): Pick<SearchSlice, 'searchStatus' | 'searchResult' | 'searchError' | 'searchProgress' | 'searchPaging'> {
  return { searchStatus: 'idle', searchResult: null, searchError: null, searchProgress: null, searchPaging: null };
}

export const createSearchSlice: SliceCreator<SearchSlice> = (deps) => (set, get) => {
  let counter = 0;
  let latest: string | null = null;
  let inFlight: string | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const schedule = (): void => {
    clearTimeout(timer);
    set({ searchStatus: get().searchQuery === '' ? 'idle' : 'waiting' });
    timer = setTimeout(() => void get().runSearch(), deps.timing.searchDebounceMs);
  };

  /** What the latest search asked, for the pages fetched after it. */
  let asked: { query: string; mode: 'substring' | 'regex'; case_sensitive: boolean; scope: SearchScope; call: number | null } | null = null;

  /** Fetches page `page` of the human view of search `token`; false when it did not land (stale, cancelled, failed). */
  const loadPage = async (token: string | null, page: number): Promise<boolean> => {
    if (!asked || token === null || latest !== token) return false;
    const { epoch } = get();
    const searchId = `page-${++counter}`;
    inFlight = searchId;
    const reply = await deps.api.searchPage({
      searchId,
      query: asked.query,
      mode: asked.mode,
      case_sensitive: asked.case_sensitive,
      page,
      page_size: HUMAN_PAGE_SIZE,
      scope: asked.scope,
      ...callParams(asked.call),
    });
    if (inFlight === searchId) inFlight = null;
    if (latest !== token || get().epoch !== epoch) return false;
    const paging = get().searchPaging;
    if (!reply.ok) {
      if (reply.error.code === 'cancelled') return false;
      set({ searchPaging: { status: 'error', scope: asked.scope, call: asked.call, total: 0, pageable: 0, pages: new Map(), current: null, error: reply.error } });
      return false;
    }
    const pages = new Map(paging?.pages ?? []);
    pages.set(page, reply.value);
    set({ searchPaging: { status: 'ready', scope: asked.scope, call: asked.call, total: reply.value.total_matches, pageable: reply.value.pageable, pages, current: paging?.current ?? null, error: null } });
    return true;
  };

  return {
    searchQuery: '',
    searchRegex: false,
    searchCaseSensitive: true,
    searchShowJson: false,
    searchScope: 'hidden',

    applySearchProgress({ searchId, ...progress }) {
      if (searchId === inFlight && searchId === latest) set({ searchProgress: progress });
    },
    ...freshSearchResults(),

    setSearchQuery(query) {
      if (query === get().searchQuery) return;
      set({ searchQuery: query });
      schedule();
    },
    setSearchRegex(regex) {
      set({ searchRegex: regex });
      schedule();
    },
    setSearchCaseSensitive(caseSensitive) {
      set({ searchCaseSensitive: caseSensitive });
      schedule();
    },
    toggleSearchJson() {
      set({ searchShowJson: !get().searchShowJson });
    },
    setSearchScope(scope) {
      if (scope === get().searchScope) return;
      set({ searchScope: scope });
      schedule();
    },

    async stepMatch(direction) {
      const paging = get().searchPaging;
      if (!paging || paging.status !== 'ready' || paging.pageable === 0) return;
      const token = latest;
      const { epoch } = get();
      const position = paging.current === null ? (direction > 0 ? 0 : paging.pageable - 1) : (paging.current + direction + paging.pageable) % paging.pageable;
      const page = Math.floor(position / HUMAN_PAGE_SIZE);
      if (!paging.pages.has(page)) {
        const ok = await loadPage(token, page);
        if (!ok) return;
      }
      // The match's reduction may hold hits on the pages either side: fetch them, so that every
      // hit of the open reduction is marked (a reduction of more than a page's hits is marked
      // as far as the neighbouring pages reach).
      const fetched = get().searchPaging;
      const target = fetched ? pagedMatch(fetched, position) : undefined;
      if (target && 'hidden' in target) {
        for (const neighbour of neighbourPages(fetched, page, target.hidden.reduction_id)) {
          if (!(await loadPage(token, neighbour))) return;
        }
      }
      const now = get().searchPaging;
      if (!now || latest !== token || get().epoch !== epoch) return;
      set({ searchPaging: { ...now, current: position } });
      const match = pagedMatch(now, position);
      if (!match) return;
      if ('hidden' in match) await get().goToMatch(match.hidden);
      else await get().goToIndex(match.view.index);
    },

    async runSearch() {
      clearTimeout(timer);
      if (inFlight !== null) {
        void deps.api.cancelSearch({ searchId: inFlight });
        inFlight = null;
      }
      const { searchQuery: query, searchRegex, searchCaseSensitive, session, epoch } = get();
      const searchId = `search-${++counter}`;
      latest = searchId;
      if (query === '' || !session) {
        set({ ...freshSearchResults() });
        return;
      }
      if (utf8Length(query) > MAX_QUERY_BYTES) {
        set({ searchStatus: 'error', searchResult: null, searchError: { code: 'invalid_query', message: `the query is longer than ${MAX_QUERY_BYTES} bytes` } });
        return;
      }
      const mode = searchRegex ? 'regex' : 'substring';
      const scope = get().searchScope;
      asked = { query, mode, case_sensitive: searchCaseSensitive, scope, call: get().shownCall };
      set({ searchPaging: { status: 'loading', scope, call: asked.call, total: 0, pageable: 0, pages: new Map(), current: null, error: null } });
      if (scope === 'view') {
        // What the model saw: the agent's search (hidden content only) does not apply.
        set({ searchStatus: 'running', searchResult: null, searchError: null, searchProgress: null });
        await loadPage(searchId, 0);
        if (latest !== searchId || get().epoch !== epoch) return;
        const paging = get().searchPaging;
        if (paging?.status === 'error' && paging.error) set({ searchStatus: 'error', searchError: paging.error });
        else set({ searchStatus: paging?.status === 'ready' ? 'done' : 'idle' });
        return;
      }
      inFlight = searchId;
      set({ searchStatus: 'running', searchProgress: null });
      const reply = await deps.api.search({ searchId, query, mode, case_sensitive: searchCaseSensitive });
      if (inFlight === searchId) inFlight = null;
      if (latest !== searchId || get().epoch !== epoch) return;
      set({ searchProgress: null });
      if (reply.ok) {
        set({ searchStatus: 'done', searchResult: reply.value, searchError: null });
        // The human view's first page, once the agent's search is done (one search in flight at a time).
        await loadPage(searchId, 0);
      } else if (reply.error.code === 'cancelled') {
        set({ searchStatus: 'idle', searchPaging: null });
      } else {
        set({ searchStatus: 'error', searchResult: null, searchError: reply.error, searchPaging: null });
      }
    },
  };
};
