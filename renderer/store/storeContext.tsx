/** The store reaches components through context, so tests and the app each bring their own. */
import type { ReactNode } from 'react';
import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { AppState } from './appState';
import type { AppStore } from './store';

const StoreContext = createContext<AppStore | null>(null);

export function StoreProvider({ store, children }: { store: AppStore; children: ReactNode }) {
  return <StoreContext.Provider value={store}>{children}</StoreContext.Provider>;
}

/** The store itself (for `getState()` in event handlers). */
export function useAppStore(): AppStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useAppStore: no StoreProvider above this component');
  return store;
}

/** Selects one value of the app state; derive arrays through `useShallow`. */
export function useApp<T>(selector: (state: AppState) => T): T {
  return useStore(useAppStore(), selector);
}
