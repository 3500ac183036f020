/**
 * The session library (SPEC §14: the app opens on it when the host was started with no FILE): the
 * host's listing so far, asked again while it fills and, once finished, now and then so files that
 * appeared or grew show up (the host re-walks at most every few seconds).
 */
import type { ResultOf } from '../../shared/contract';
import type { SliceCreator } from './appState';

export type LibraryListing = ResultOf<'library'>;

export interface LibrarySlice {
  /** The host's library; null when it serves none (or it was not asked yet). */
  library: LibraryListing | null;
  /** Asks the host for its library again. */
  loadLibrary: () => Promise<void>;
}

export const createLibrarySlice: SliceCreator<LibrarySlice> = (deps) => (set, get) => ({
  library: null,
  async loadLibrary() {
    const reply = await deps.api.library({});
    if (reply.ok) return set({ library: reply.value });
    if (reply.error.code !== 'not_supported') get().pushAlert(reply.error.message, 'The library is listed again in a moment.');
  },
});
