/**
 * The session library (SPEC §14: the app opens on it when the host was started with no FILE): the
 * host's listing so far; the host pushes what changes (`libraryChanged`: while a listing runs, rows
 * as they arrive and its progress; after it, files that appeared, grew or went, rows no longer
 * live) and it is merged here, in the library's order whatever the order rows arrive in.
 */
import type { EventPayload, ResultOf } from '../../shared/contract';
import { mergeLibraryChange, mergeLibraryReply } from '../../shared/libraryOrder';
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
  /** Merges a change the host pushed: rows new or changed replace theirs, removed ones go. */
  applyLibraryChange: (change: EventPayload<'libraryChanged'>) => void;
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
  applyLibraryChange(change) {
    const library = get().library;
    if (!library) return;
    const sessions = mergeLibraryChange(library.sessions, change);
    const perRoot = new Map<string, number>();
    for (const row of sessions) perRoot.set(row.root, (perRoot.get(row.root) ?? 0) + 1);
    set({
      library: {
        ...library,
        sessions,
        roots: library.roots.map((r) => ({ ...r, sessions: perRoot.get(r.id) ?? 0 })),
        ...(change.complete !== undefined ? { complete: change.complete } : {}),
        ...(change.progress !== undefined ? { progress: change.progress } : {}),
      },
    });
  },
  async loadLibrary() {
    const reply = await deps.api.library({});
    if (reply.ok) return set({ library: mergeLibraryReply(get().library, reply.value) });
    if (reply.error.code !== 'not_supported') get().pushAlert(reply.error.message, 'The library is listed again in a moment.');
  },
});
