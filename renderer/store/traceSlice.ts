/**
 * `Where did it go?` (SPEC §16): a text followed through the model calls by the host's `trace`
 * (shared/calls/trace.ts). Asked from a search result (its query, mode and case, the match it was
 * asked from in focus) or from a text selected in the transcript (a case-sensitive substring).
 */
import type { HostError, ResultOf } from '../../shared/contract';
import type { SliceCreator } from './appState';

export type TraceResult = ResultOf<'trace'>;
export type TraceOccurrence = TraceResult['occurrences'][number];

/** What a trace was asked for, and the occurrence it was asked from (a search match's message and offset). */
export interface TraceAsk {
  query: string;
  mode: 'substring' | 'regex';
  case_sensitive: boolean;
  focus?: { index: number; offset: number };
}

export interface TraceSlice {
  traceStatus: 'idle' | 'running' | 'done' | 'error';
  traceAsk: TraceAsk | null;
  traceResult: TraceResult | null;
  traceError: HostError | null;
  runTrace: (ask: TraceAsk) => Promise<void>;
  closeTrace: () => void;
}

/** Reset with the findings when a session opens (freshFindings). */
export function freshTrace(): Pick<TraceSlice, 'traceStatus' | 'traceAsk' | 'traceResult' | 'traceError'> {
  return { traceStatus: 'idle', traceAsk: null, traceResult: null, traceError: null };
}

/** The occurrence a trace is about: the one asked from, else the first. */
export function focusedOccurrence(result: TraceResult, ask: TraceAsk | null): TraceOccurrence | undefined {
  const focus = ask?.focus;
  return (focus && result.occurrences.find((o) => o.message_index === focus.index && o.offset === focus.offset)) || result.occurrences[0];
}

export const createTraceSlice: SliceCreator<TraceSlice> = (deps) => (set, get) => {
  let counter = 0;
  return {
    ...freshTrace(),

    async runTrace(ask) {
      const epoch = get().epoch;
      if (!get().session) return;
      set({ traceStatus: 'running', traceAsk: ask, traceError: null });
      // Named as a search is: a newer search or trace supersedes it in the host.
      const reply = await deps.api.trace({ searchId: `trace-${++counter}`, query: ask.query, mode: ask.mode, case_sensitive: ask.case_sensitive });
      // A later trace (or another session) owns the result.
      if (get().epoch !== epoch || get().traceAsk !== ask) return;
      if (reply.ok) set({ traceStatus: 'done', traceResult: reply.value });
      else set({ traceStatus: 'error', traceResult: null, traceError: reply.error });
    },

    closeTrace() {
      set(freshTrace());
    },
  };
};
