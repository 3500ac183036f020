/**
 * The session library (SPEC §14: the app opens on it when the host was started with no FILE): the
 * host's listing so far, asked again while it fills and, once finished, now and then so files that
 * appeared or grew show up (the host re-walks at most every few seconds).
 */
import type { ResultOf } from '../../shared/contract';
import type { SliceCreator } from './appState';

export type LibraryListing = ResultOf<'library'>;
export type LibrarySearchFound = ResultOf<'librarySearch'> & { query: string };

export interface LibrarySlice {
  /** The host's library; null when it serves none (or it was not asked yet). */
  library: LibraryListing | null;
  /** Asks the host for its library again. */
  loadLibrary: () => Promise<void>;
  /** The last full-text search's results, and the query of the one running. */
  librarySearch: LibrarySearchFound | null;
  librarySearching: string | null;
  /** Searches every session's text (`Enter` in `Search sessions`); a new search replaces the one running. */
  searchLibrary: (query: string) => Promise<void>;
  clearLibrarySearch: () => void;
}

let searches = 0;

export const createLibrarySlice: SliceCreator<LibrarySlice> = (deps) => (set, get) => ({
  library: null,
  librarySearch: null,
  librarySearching: null,
  async searchLibrary(query) {
    if (query.trim() === '') return get().clearLibrarySearch();
    const searchId = `library-${++searches}`;
    set({ librarySearching: query, librarySearch: null });
    const reply = await deps.api.librarySearch({ query, searchId });
    // A later search (or a clear) replaced this one.
    if (get().librarySearching !== query) return;
    set({ librarySearching: null, ...(reply.ok ? { librarySearch: { ...reply.value, query } } : {}) });
    if (!reply.ok && reply.error.code !== 'cancelled') get().pushAlert(reply.error.message);
  },
  clearLibrarySearch() {
    set({ librarySearch: null, librarySearching: null });
  },
  async loadLibrary() {
    const reply = await deps.api.library({});
    if (reply.ok) return set({ library: reply.value });
    if (reply.error.code !== 'not_supported') get().pushAlert(reply.error.message, 'The library is listed again in a moment.');
  },
});
