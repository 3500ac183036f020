/**
 * The one store's shape: the intersection of its slices, and what every slice creator receives.
 * Slices are typed `StateCreator<AppState, [], [], XSlice>` (zustand's slices pattern): each sees
 * the whole state through `get`, owns its own part, and calls other slices' actions by name.
 */
import type { StateCreator } from 'zustand/vanilla';
import type { HostApi, Reply } from '../../shared/contract';
import type { BundleSlice } from './bundleSlice';
import type { ExportSlice } from './exportSlice';
import type { CallsSlice } from './callsSlice';
import type { FindingsSlice } from './findingsSlice';
import type { FolderSlice } from './folderSlice';
import type { InstructionsSlice } from './instructionsSlice';
import type { LibrarySlice } from './librarySlice';
import type { LinkSlice } from './linkSlice';
import type { LogSlice } from './logSlice';
import type { NavigationSlice } from './navigationSlice';
import type { PolicySlice } from './policySlice';
import type { ReductionsSlice } from './reductionsSlice';
import type { RowsSlice } from './rowsSlice';
import type { SearchSlice } from './searchSlice';
import type { SessionSlice } from './sessionSlice';
import type { StorySlice } from './storySlice';
import type { TokensSlice } from './tokensSlice';
import type { TraceSlice } from './traceSlice';
import type { UiSlice } from './uiSlice';

export type AppState = SessionSlice & RowsSlice & ReductionsSlice & SearchSlice & LogSlice & FindingsSlice & UiSlice & NavigationSlice & StorySlice & CallsSlice & FolderSlice & LibrarySlice & BundleSlice & ExportSlice & PolicySlice & LinkSlice & InstructionsSlice & TraceSlice & TokensSlice;

/** Delays the store waits before acting (tests set them to 0). */
export interface StoreTiming {
  /** Quiet time after typing before a search runs. */
  searchDebounceMs: number;
  /** Quiet time while a range thumb moves before its slice is fetched. */
  rangeDebounceMs: number;
  /** Time `verify` requests are gathered before one batched request goes out. */
  verifyBatchMs: number;
  /** The least time between two refreshes of what a live update makes stale over the whole session (log, check, search, context map). */
  liveRefreshMs: number;
}

export const DEFAULT_TIMING: StoreTiming = { searchDebounceMs: 150, rangeDebounceMs: 120, verifyBatchMs: 16, liveRefreshMs: 1000 };

/** What the slices need from outside: the host, the drop handler, timing. */
export interface StoreDeps {
  api: HostApi;
  openDropped: (file: File) => Promise<Reply<'openFile'>>;
  timing: StoreTiming;
}

export type SliceCreator<T> = (deps: StoreDeps) => StateCreator<AppState, [], [], T>;
