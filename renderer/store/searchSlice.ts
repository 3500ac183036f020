/**
 * The search of hidden content. Typing waits for a quiet moment, then runs one search; each search
 * gets a fresh `searchId`, the one still in flight is cancelled, and only the reply of the latest
 * search is shown (a `cancelled` reply is silent).
 */
import type { HostError, ResultOf } from '../../shared/contract';
import { MAX_QUERY_BYTES } from '../../shared/contract';
import { utf8Length } from '../../shared/utf8';
import type { SliceCreator } from './appState';

export type SearchResult = ResultOf<'search'>;
export type SearchMatch = SearchResult['matches'][number];

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
}

export function freshSearchResults(): Pick<SearchSlice, 'searchStatus' | 'searchResult' | 'searchError' | 'searchProgress'> {
  return { searchStatus: 'idle', searchResult: null, searchError: null, searchProgress: null };
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

  return {
    searchQuery: '',
    searchRegex: false,
    searchCaseSensitive: true,
    searchShowJson: false,

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
      inFlight = searchId;
      set({ searchStatus: 'running', searchProgress: null });
      const reply = await deps.api.search({ searchId, query, mode: searchRegex ? 'regex' : 'substring', case_sensitive: searchCaseSensitive });
      if (inFlight === searchId) inFlight = null;
      if (latest !== searchId || get().epoch !== epoch) return;
      set({ searchProgress: null });
      if (reply.ok) {
        set({ searchStatus: 'done', searchResult: reply.value, searchError: null });
      } else if (reply.error.code === 'cancelled') {
        set({ searchStatus: 'idle' });
      } else {
        set({ searchStatus: 'error', searchResult: null, searchError: reply.error });
      }
    },
  };
};
