/**
 * The one store of the app, combined from its slices. Tests build a fresh one with a fake host;
 * the app builds one over the bridge in main.tsx.
 */
import type { StoreApi } from 'zustand/vanilla';
import { createStore } from 'zustand/vanilla';
import type { HostApi, Reply } from '../../shared/contract';
import type { AppState, StoreDeps, StoreTiming } from './appState';
import { DEFAULT_TIMING } from './appState';
import { createBundleSlice } from './bundleSlice';
import { createExportSlice } from './exportSlice';
import { createCallsSlice } from './callsSlice';
import { createFindingsSlice } from './findingsSlice';
import { createFolderSlice } from './folderSlice';
import { createInstructionsSlice } from './instructionsSlice';
import { createLibrarySlice } from './librarySlice';
import { createLinkSlice } from './linkSlice';
import { createLogSlice } from './logSlice';
import { createNavigationSlice } from './navigationSlice';
import { createPolicySlice } from './policySlice';
import { createReductionsSlice } from './reductionsSlice';
import { createRowsSlice } from './rowsSlice';
import { createSearchSlice } from './searchSlice';
import { createSessionSlice } from './sessionSlice';
import { createStorySlice } from './storySlice';
import { createTokensSlice } from './tokensSlice';
import { createTraceSlice } from './traceSlice';
import { createUiSlice } from './uiSlice';

export type AppStore = StoreApi<AppState>;

export interface AppStoreOptions {
  openDropped?: (file: File) => Promise<Reply<'openFile'>>;
  timing?: Partial<StoreTiming>;
}

export function createAppStore(api: HostApi, options: AppStoreOptions = {}): AppStore {
  const deps: StoreDeps = {
    api,
    openDropped:
      options.openDropped ??
      (() => Promise.resolve({ ok: false, error: { code: 'not_supported', message: 'Opening a dropped file is not supported here.' } })),
    timing: { ...DEFAULT_TIMING, ...options.timing },
  };
  return createStore<AppState>()((...a) => ({
    ...createSessionSlice(deps)(...a),
    ...createPolicySlice(deps)(...a),
    ...createTraceSlice(deps)(...a),
    ...createTokensSlice(deps)(...a),
    ...createRowsSlice(deps)(...a),
    ...createReductionsSlice(deps)(...a),
    ...createSearchSlice(deps)(...a),
    ...createLogSlice(deps)(...a),
    ...createFindingsSlice(deps)(...a),
    ...createUiSlice(deps)(...a),
    ...createNavigationSlice(deps)(...a),
    ...createCallsSlice(deps)(...a),
    ...createStorySlice(deps)(...a),
    // Files opened from the browser.
    ...createFolderSlice(deps)(...a),
    ...createLibrarySlice(deps)(...a),
    ...createBundleSlice(deps)(...a),
    ...createExportSlice(deps)(...a),
    ...createLinkSlice(deps)(...a),
    ...createInstructionsSlice(deps)(...a),
  }));
}
