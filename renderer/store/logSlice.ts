/** The live reduction log, fetched once per session when something needs it, and its sort order. */
import type { HostError, ResultOf } from '../../shared/contract';
import type { ReductionKind } from '../../shared/format/types';
import type { SliceCreator } from './appState';

export type LogEntry = ResultOf<'log'>['entries'][number];
export type LogColumn = 'id' | 'kind' | 'index' | 'hidden' | 'tokens' | 'source' | 'status' | 'provenance';

export interface LogSort {
  column: LogColumn;
  direction: 'ascending' | 'descending';
}

export interface LogSlice {
  logStatus: 'idle' | 'loading' | 'ready' | 'error';
  logEntries: LogEntry[];
  logError: HostError | null;
  /** null: log order. */
  logSort: LogSort | null;
  /** Fetches the log unless it is here or on its way; resolves when it is. */
  loadLog: () => Promise<void>;
  /** Sorts by `column`; a second click reverses, a third returns to log order. */
  setLogSort: (column: LogColumn) => void;
  /** The log shows only reductions of this kind (null: every kind). */
  logKind: ReductionKind | null;
  setLogKind: (kind: ReductionKind | null) => void;
}

export function freshLog(): Pick<LogSlice, 'logStatus' | 'logEntries' | 'logError' | 'logKind'> {
  return { logStatus: 'idle', logEntries: [], logError: null, logKind: null };
}

export const createLogSlice: SliceCreator<LogSlice> = (deps) => (set, get) => {
  let pending: { epoch: number; done: Promise<void> } | null = null;

  return {
    ...freshLog(),
    logSort: null,
    setLogKind(kind) {
      set({ logKind: kind });
    },

    loadLog() {
      const epoch = get().epoch;
      if (get().logStatus === 'ready' || !get().session) return Promise.resolve();
      if (pending?.epoch === epoch) return pending.done;
      set({ logStatus: 'loading', logError: null });
      const done = deps.api.log({}).then((reply) => {
        if (get().epoch !== epoch) return;
        pending = null;
        if (reply.ok) set({ logStatus: 'ready', logEntries: reply.value.entries });
        else set({ logStatus: 'error', logError: reply.error });
      });
      pending = { epoch, done };
      return done;
    },

    setLogSort(column) {
      const sort = get().logSort;
      if (sort?.column !== column) set({ logSort: { column, direction: 'ascending' } });
      else if (sort.direction === 'ascending') set({ logSort: { column, direction: 'descending' } });
      else set({ logSort: null });
    },
  };
};
