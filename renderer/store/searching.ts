/**
 * Whether a search the user asked for is running, for the work that gives way to it: each slice of
 * a search in the worker waits on any request sent meanwhile, so the map's pass (callsSlice.ts)
 * and the hidden tokens' asks (tokensSlice.ts) are not sent while one runs (docs/tokens.md "How the
 * pass runs").
 */
import type { StoreApi } from 'zustand/vanilla';
import type { AppState } from './appState';

/** A search is running or fetching a page (searchSlice.ts). */
export function searching(s: AppState): boolean {
  return s.searchStatus === 'running' || s.searchPaging?.status === 'loading';
}

/** Resolves once no search runs (at once when none does). */
export function searchOver(store: Pick<StoreApi<AppState>, 'getState' | 'subscribe'>): Promise<void> {
  if (!searching(store.getState())) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const off = store.subscribe((s) => {
      if (searching(s)) return;
      off();
      resolve();
    });
  });
}
