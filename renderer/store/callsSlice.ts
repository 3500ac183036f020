/**
 * Model calls (SPEC §11): the context map's figures, fetched once per session,
 * and which call's input the Projected view shows (`shownCall`; null is the latest view).
 *
 * Choosing a call asks the host for that call's row count first (`rows` with an empty range, which
 * also makes the worker lay the call out once), then swaps the view's rows and the chips' statuses
 * and expansions for the call's. One choice is in flight at a time and the last one asked wins:
 * dragging the slider over a thousand calls sends a few requests, not a thousand, and the view
 * never shows a call the slider has left. The session's epoch is not bumped — the log, the check
 * and the search are the session's, whatever call is shown — so the rows, statuses and expansions
 * check `shownCall` as well as the epoch.
 */
import type { ContextMapInfo, HostError, ResultOf } from '../../shared/contract';
import { knownOf, mergeTokenMap } from '../../shared/contract';
import type { MapUnit, TokenMapInfo } from '../features/calls/contextMapTokens';
import type { AppState, SliceCreator } from './appState';
import { callParams } from './callParams';
import { freshReductions } from './reductionsSlice';
import { freshRows } from './rowsSlice';
import { searchOver, searching } from './searching';

export interface CallsSlice {
  contextMapStatus: 'idle' | 'loading' | 'ready' | 'error';
  contextMap: ContextMapInfo | null;
  contextMapError: HostError | null;
  /** The call whose input the Projected view shows; null: the latest view. */
  shownCall: number | null;
  /** The call last asked for while its rows are on their way (undefined: none). */
  pendingCall: number | null | undefined;
  /** Fetches the context map unless it is here or on its way. */
  loadContextMap: () => Promise<void>;
  /** Shows call `call`'s input (1…C), or the latest view for null. An N that is no call is ignored. */
  showCall: (call: number | null) => Promise<void>;
  /** The call before (-1) or after (+1) the one shown: before the latest view is call C, after call C the latest view. */
  stepCall: (delta: -1 | 1) => void;
  /** The map's unit (SPEC §15 `Tokens`/`Bytes`): the user's choice, kept for the window's life across sessions. */
  /** The unit the user chose; null until they choose: tokens where the file records usage, else bytes (ContextMap). */
  mapUnit: MapUnit | null;
  setMapUnit: (unit: MapUnit) => void;
  /**
   * Every call's estimates (the worker's `tokenMap`), asked for once the map in tokens has drawn:
   * a slice per request, asked again while the reply says there is more (`progress`) and the map
   * still wants it; `tokenMap` holds what is known so far (docs/tokens.md "How the pass runs").
   */
  tokenMapStatus: 'idle' | 'loading' | 'ready' | 'error';
  tokenMap: TokenMapInfo | null;
  loadTokenMap: () => Promise<void>;
  /** The map in tokens is no longer shown (the unit switched to bytes): no further slice is asked for; `loadTokenMap` goes on. */
  stopTokenMap: () => void;
  /** One call's tokens (the worker's `callTokens`): per-message estimates, breakdown, calibration. */
  callTokens: ResultOf<'callTokens'> | null;
  loadCallTokens: (call: number) => Promise<void>;
}

/** A new session shows its latest view; the Diff tab's `selectedCall` (part B) follows the shown call. */
export function freshCalls(): Pick<AppState, 'contextMapStatus' | 'contextMap' | 'contextMapError' | 'shownCall' | 'pendingCall' | 'selectedCall' | 'tokenMapStatus' | 'tokenMap' | 'callTokens'> {
  return { contextMapStatus: 'idle', contextMap: null, contextMapError: null, shownCall: null, pendingCall: undefined, selectedCall: null, tokenMapStatus: 'idle', tokenMap: null, callTokens: null };
}

export const createCallsSlice: SliceCreator<CallsSlice> = (deps) => (set, get, store) => {
  let mapPending: { epoch: number; done: Promise<void> } | null = null;
  /** The map's pass being asked for, slice after slice; `wanted` false once the map in tokens goes. */
  let tokensPending: { epoch: number; done: Promise<void>; wanted: boolean } | null = null;
  /** The call whose tokens were asked for last (the last one asked wins). */
  let callTokensAsked: { epoch: number; call: number } | null = null;
  /** The one choice in flight (its epoch), if any. */
  let choosing: { epoch: number } | null = null;

  const choose = async (call: number | null): Promise<void> => {
    const epoch = get().epoch;
    choosing = { epoch };
    const reply = await deps.api.rows({ start: 0, end: 0, ...callParams(call) });
    choosing = null;
    const state = get();
    if (state.epoch !== epoch || !state.session) return;
    const next = state.pendingCall;
    // The slider moved on meanwhile: ask for where it is now instead.
    if (next !== undefined && next !== call) {
      void choose(next);
      return;
    }
    set({ pendingCall: undefined });
    if (!reply.ok) {
      state.pushAlert(reply.error.message);
      return;
    }
    const rowCount = reply.value.rowCount;
    set({ shownCall: call, selectedCall: call, ...freshRows(state.session), rowCount, ...freshReductions() });
    // The messages just before the call are what it answered: show the input's end.
    if (call !== null && rowCount > 0) get().selectRow(rowCount - 1, 'end');
  };

  return {
    ...freshCalls(),

    loadContextMap() {
      const { epoch, session } = get();
      if (get().contextMapStatus === 'ready' || !session || session.stopped || session.provisional) return Promise.resolve();
      if (mapPending?.epoch === epoch) return mapPending.done;
      set({ contextMapStatus: 'loading', contextMapError: null });
      const done = deps.api.calls({}).then((reply) => {
        if (get().epoch !== epoch) return;
        mapPending = null;
        if (reply.ok) set({ contextMapStatus: 'ready', contextMap: reply.value });
        else set({ contextMapStatus: 'error', contextMapError: reply.error });
      });
      mapPending = { epoch, done };
      return done;
    },

    mapUnit: null,
    setMapUnit(unit) {
      set({ mapUnit: unit });
    },

    loadTokenMap() {
      const { epoch, session, contextMapStatus, tokenMapStatus } = get();
      if (tokenMapStatus === 'ready' || contextMapStatus !== 'ready' || !session || session.stopped || session.provisional) return Promise.resolve();
      if (tokensPending?.epoch === epoch) {
        tokensPending.wanted = true;
        return tokensPending.done;
      }
      set({ tokenMapStatus: 'loading' });
      const asking = { epoch, wanted: true, done: Promise.resolve() };
      asking.done = (async () => {
        // A slice per request: the worker answers other requests between two of them.
        for (;;) {
          // A search the user asked for goes first: each of its slices would otherwise wait on one of the pass's (docs/tokens.md "How the pass runs").
          if (searching(get())) {
            await searchOver(store);
            if (get().epoch !== epoch) return;
            if (!asking.wanted) break;
          }
          // What it holds goes with the ask: the reply carries only the calls after those.
          const held = get().tokenMap;
          const known = knownOf(held);
          const reply = await deps.api.tokenMap(known ? { known } : {});
          // Another session (or the same one reopened): its own pass is asked for by its own map.
          if (get().epoch !== epoch) return;
          if (!reply.ok) {
            set({ tokenMapStatus: 'error' });
            break;
          }
          // Built on figures this store no longer holds (not reached while one loop asks at a time): asked again whole, once.
          const figures = mergeTokenMap(get().tokenMap, reply.value);
          if (!figures) {
            if (get().tokenMap === null) {
              set({ tokenMapStatus: 'error' });
              break;
            }
            set({ tokenMap: null });
            continue;
          }
          const more = figures.progress !== null;
          set({ tokenMapStatus: more ? 'loading' : 'ready', tokenMap: figures });
          if (!more || !asking.wanted) break;
        }
        // Stopped while unfinished: the next loadTokenMap goes on where the worker stopped.
        if (get().tokenMapStatus === 'loading') set({ tokenMapStatus: 'idle' });
        if (tokensPending === asking) tokensPending = null;
      })();
      tokensPending = asking;
      return asking.done;
    },

    stopTokenMap() {
      if (tokensPending) tokensPending.wanted = false;
    },

    async loadCallTokens(call) {
      const { epoch, session, callTokens } = get();
      if (!session || session.stopped || session.provisional || callTokens?.call === call) return;
      callTokensAsked = { epoch, call };
      const reply = await deps.api.callTokens({ call });
      if (get().epoch !== epoch || callTokensAsked?.call !== call) return;
      set({ callTokens: reply.ok ? reply.value : null });
    },

    async showCall(call) {
      const { session, contextMap, shownCall, pendingCall } = get();
      if (!session || session.stopped) return;
      if (call !== null && (!Number.isInteger(call) || call < 1 || (contextMap !== null && call > contextMap.calls))) return;
      if (pendingCall === undefined ? call === shownCall : call === pendingCall) return;
      set({ pendingCall: call });
      if (choosing?.epoch === get().epoch) return;
      await choose(call);
    },

    stepCall(delta) {
      const { contextMap, shownCall, pendingCall } = get();
      if (!contextMap || contextMap.calls === 0) return;
      const from = pendingCall !== undefined ? pendingCall : shownCall;
      const c = contextMap.calls;
      const to = from === null ? (delta < 0 ? c : null) : from + delta > c ? null : Math.max(1, from + delta);
      void get().showCall(to);
    },
  };
};
