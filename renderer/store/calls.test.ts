/**
 * The store's model calls — the context map fetched once per session, a chosen
 * call's rows, statuses and expansions asked with its `call`, the last choice winning while one is
 * in flight, and `[` / `]` stepping through the calls to the latest view.
 */
import { describe, expect, it } from 'vitest';
import type { ContextMapInfo, Params, Reply } from '../../shared/contract';
import type { AppStoreOptions } from './store';
import { createAppStore } from './store';
import { rowAt } from './rowsSlice';
import { deferred, fakeHost, settle } from './testing/fakeHost';

const NO_DELAY: AppStoreOptions['timing'] = { searchDebounceMs: 0, rangeDebounceMs: 0, verifyBatchMs: 0 };
const CALLS = 40;
const MAP: ContextMapInfo = {
  calls: CALLS,
  index: Array.from({ length: CALLS }, (_, k) => 2 * k + 1),
  given: Array.from({ length: CALLS }, (_, k) => 100 * k),
  hidden: Array.from({ length: CALLS }, (_, k) => 10 * k),
  minted: Array.from({ length: CALLS }, (_, k) => (k % 5 === 0 ? 1 : 0)),
  rewinds: [{ call: 12, to: 20 }],
  model_switches: [{ call: 30, from: 'a', to: 'b' }],
  minted_after_last: 0,
  unplaced: 0,
  ended: 0,
};

/** Rows `[start, end)` of a view of `rowCount` rows, their text naming the view. */
function rowsOf(p: Params<'rows'>, rowCount: number, name: string): Reply<'rows'> {
  const rows = [];
  for (let row = p.start; row < Math.min(p.end, rowCount); row++) {
    const text = `${name}row ${row}`;
    rows.push({ row, index: row, end: row + 1, role: 'tool' as const, text, text_bytes: text.length, reductions: [] });
  }
  return { ok: true, value: { rowCount, rows } };
}

/** A host whose call N's input has 2N - 1 rows (the latest view: the session's 1000 rows). */
function callsHost() {
  const host = fakeHost();
  host.answer('calls', () => ({ ok: true, value: MAP }));
  host.answer('rows', (p: Params<'rows'>) => (p.call == null ? rowsOf(p, 1000, '') : rowsOf(p, 2 * p.call - 1, `call ${p.call} `)));
  return host;
}

async function started(host = callsHost()) {
  const store = createAppStore(host.api, { timing: NO_DELAY });
  store.getState().start();
  await settle();
  return { store, host };
}

describe('calls slice', () => {
  it('fetches the context map once per session', async () => {
    const { store, host } = await started();
    await Promise.all([store.getState().loadContextMap(), store.getState().loadContextMap()]);
    await store.getState().loadContextMap();
    expect(store.getState().contextMap).toEqual(MAP);
    expect(host.callsOf('calls')).toHaveLength(1);
  });

  it('a chosen call shows its rows, asked with its call; Latest returns to the plain rows', async () => {
    const { store, host } = await started();
    await store.getState().loadContextMap();
    await store.getState().showCall(12);
    const s = store.getState();
    // The Diff tab (part B) follows the call shown.
    expect([s.shownCall, s.selectedCall, s.rowCount, s.pendingCall]).toEqual([12, 12, 23, undefined]);
    s.wantRows(0, 5);
    await settle();
    expect(rowAt(store.getState(), 0)?.text).toBe('call 12 row 0');
    expect(host.callsOf('rows').filter((p) => p.end > p.start).every((p) => p.call === 12)).toBe(true);
    // Statuses are asked for the call's chips against its own log.
    store.getState().requestStatuses(['r0']);
    await settle();
    expect(host.callsOf('verify').at(-1)).toEqual({ ids: ['r0'], call: 12 });
    store.getState().expand('r0');
    await settle();
    expect(host.callsOf('expand').at(-1)?.call).toBe(12);

    await store.getState().showCall(null);
    expect([store.getState().shownCall, store.getState().selectedCall, store.getState().rowCount]).toEqual([null, null, 1000]);
    store.getState().wantRows(0, 5);
    await settle();
    expect(rowAt(store.getState(), 0)?.text).toBe('row 0');
    expect(host.callsOf('rows').at(-1)).not.toHaveProperty('call');
  });

  it('ignores a call that is not one (0, past C, not an integer)', async () => {
    const { store, host } = await started();
    await store.getState().loadContextMap();
    const before = host.callsOf('rows').length;
    for (const call of [0, CALLS + 1, 2.5]) await store.getState().showCall(call);
    expect(store.getState().shownCall).toBeNull();
    expect(host.callsOf('rows')).toHaveLength(before);
  });

  it('while a choice is in flight, only the last one asked is shown next', async () => {
    const { store, host } = await started();
    await store.getState().loadContextMap();
    const held = deferred<void>();
    let first = true;
    host.answer('rows', async (p: Params<'rows'>) => {
      if (first) {
        first = false;
        await held.promise;
      }
      return rowsOf(p, p.call == null ? 1000 : 2 * p.call - 1, '');
    });
    void store.getState().showCall(3);
    for (const c of [4, 5, 6, 7]) void store.getState().showCall(c);
    expect(store.getState().pendingCall).toBe(7);
    held.resolve();
    await expect.poll(() => store.getState().shownCall).toBe(7);
    const asked = host.callsOf('rows').filter((p) => p.end === 0 && p.start === 0).map((p) => p.call);
    expect(new Set(asked)).toEqual(new Set([3, 7]));
    expect(store.getState().pendingCall).toBeUndefined();
  });

  it('[ and ] step through the calls; after the last comes the latest view', async () => {
    const { store } = await started();
    await store.getState().loadContextMap();
    store.getState().stepCall(-1);
    await expect.poll(() => store.getState().shownCall).toBe(CALLS);
    store.getState().stepCall(-1);
    await expect.poll(() => store.getState().shownCall).toBe(CALLS - 1);
    store.getState().stepCall(1);
    await expect.poll(() => store.getState().shownCall).toBe(CALLS);
    store.getState().stepCall(1);
    await expect.poll(() => store.getState().shownCall).toBeNull();
  });

  it('a new session shows its latest view and forgets the map', async () => {
    const { store, host } = await started();
    await store.getState().loadContextMap();
    await store.getState().showCall(5);
    host.emit({ name: 'sessionOpened', payload: { ...store.getState().session!, generation: 2 } });
    await settle();
    expect([store.getState().shownCall, store.getState().contextMap]).toEqual([null, null]);
  });
});
