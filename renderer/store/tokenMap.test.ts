/**
 * The store's map in tokens (docs/tokens.md "How the pass runs"): the worker's `tokenMap` counts a
 * slice per request, so the store asks again while a reply says there is more, shows what is known
 * after each reply, and stops asking once the map in tokens is gone or another session is open;
 * asked again later, it goes on.
 */
import { describe, expect, it } from 'vitest';
import type { ContextMapInfo, Reply } from '../../shared/contract';
import type { AppStoreOptions } from './store';
import { createAppStore } from './store';
import { deferred, fakeHost, sessionInfo, settle } from './testing/fakeHost';

const NO_DELAY: AppStoreOptions['timing'] = { searchDebounceMs: 0, rangeDebounceMs: 0, verifyBatchMs: 0 };
const CALLS = 10;
const PASS = 7;
const MAP: ContextMapInfo = {
  calls: CALLS,
  index: Array.from({ length: CALLS }, (_, k) => 2 * k + 1),
  given: Array.from({ length: CALLS }, (_, k) => 100 * k),
  hidden: Array.from({ length: CALLS }, () => 0),
  minted: Array.from({ length: CALLS }, () => 0),
  rewinds: [],
  model_switches: [],
  minted_after_last: 0,
  unplaced: 0,
  ended: 0,
};

/** A host whose pass estimates `perSlice` calls per request (call N: N × 1,000 tokens), `progress` until the last. */
function slicedHost(perSlice: number) {
  const host = fakeHost();
  host.answer('calls', () => ({ ok: true, value: MAP }));
  let done = 0;
  host.answer('tokenMap', (params): Reply<'tokenMap'> => {
    done = Math.min(CALLS, done + perSlice);
    // As the worker answers: only the calls after those the asker holds of this pass, and the windows once.
    const from = params.known?.pass === PASS ? Math.min(params.known.calls, done) : 0;
    const estimated = Array.from({ length: done }, (_, k) => (k + 1) * 1000).slice(from);
    return {
      ok: true,
      value: {
        pass: PASS,
        from,
        estimated,
        hidden: estimated.map(() => 0),
        window: from > 0 || params.known?.pass === PASS ? null : MAP.index.map(() => 128_000),
        calibration: null,
        approximate: false,
        sampled: false,
        partial: false,
        progress: done < CALLS ? { stage: 'estimating', done, calls: CALLS } : null,
      },
    };
  });
  return host;
}

async function withMap(perSlice: number) {
  const host = slicedHost(perSlice);
  const store = createAppStore(host.api, { timing: NO_DELAY });
  store.getState().start();
  await settle();
  await store.getState().loadContextMap();
  return { store, host };
}

describe('the map in tokens, asked slice after slice', () => {
  it('asks again while the reply says there is more, showing what is known after each reply, until complete', async () => {
    const { store, host } = await withMap(3);
    const seen: number[] = [];
    const off = store.subscribe((s) => {
      const n = s.tokenMap?.estimated.length;
      if (n !== undefined && seen.at(-1) !== n) seen.push(n);
    });
    await store.getState().loadTokenMap();
    off();
    expect(seen).toEqual([3, 6, 9, 10]);
    expect(host.callsOf('tokenMap')).toHaveLength(4);
    // Each ask says what the store holds; each reply carried only what was new, and the merge is every call's.
    expect(host.callsOf('tokenMap').map((p) => p.known)).toEqual([undefined, { pass: PASS, calls: 3 }, { pass: PASS, calls: 6 }, { pass: PASS, calls: 9 }]);
    expect(store.getState().tokenMap?.estimated).toEqual(Array.from({ length: CALLS }, (_, k) => (k + 1) * 1000));
    expect(store.getState().tokenMap?.window).toEqual(MAP.index.map(() => 128_000));
    expect(store.getState().tokenMapStatus).toBe('ready');
    expect(store.getState().tokenMap?.progress).toBeNull();
    // Complete: never asked again.
    await store.getState().loadTokenMap();
    expect(host.callsOf('tokenMap')).toHaveLength(4);
  });

  it('stops asking once the map in tokens is gone, keeps what it had, and goes on when asked again', async () => {
    const { store, host } = await withMap(1);
    const loading = store.getState().loadTokenMap();
    store.getState().stopTokenMap();
    await loading;
    await settle();
    expect(host.callsOf('tokenMap')).toHaveLength(1);
    expect(store.getState().tokenMap?.estimated).toEqual([1000]);
    expect(store.getState().tokenMapStatus).toBe('idle');
    await store.getState().loadTokenMap();
    expect(host.callsOf('tokenMap')).toHaveLength(CALLS);
    expect(store.getState().tokenMapStatus).toBe('ready');
  });

  it('waits while a search the user asked for runs, and goes on where it was once the search is over', async () => {
    const { store, host } = await withMap(1);
    const search = deferred<Reply<'search'>>();
    host.answer('search', () => search.promise);
    store.setState({ searchQuery: 'needle' });
    const searching = store.getState().runSearch();
    expect(store.getState().searchStatus).toBe('running');
    const loading = store.getState().loadTokenMap();
    await settle();
    // No ask while the search runs: the worker would answer one of the pass's slices between each two of the search's.
    expect(host.callsOf('tokenMap')).toHaveLength(0);
    expect(store.getState().tokenMapStatus).toBe('loading');
    search.resolve({ ok: true, value: { matches: [], total_matches: 0, truncated: false, reductions_searched: 1, reductions_unavailable: 0, hidden_bytes_searched: 10 } } as unknown as Reply<'search'>);
    await searching;
    await loading;
    expect(host.callsOf('tokenMap')).toHaveLength(CALLS);
    expect(store.getState().tokenMapStatus).toBe('ready');
    // The search's page was asked for before the pass went on.
    expect(host.callsOf('searchPage')).toHaveLength(1);
  });

  it('stops asking for a session that is no longer open', async () => {
    const { store, host } = await withMap(1);
    const loading = store.getState().loadTokenMap();
    host.emit({ name: 'sessionOpened', payload: sessionInfo({ generation: 2 }) });
    await loading;
    await settle();
    expect(host.callsOf('tokenMap')).toHaveLength(1);
    expect(store.getState().tokenMap).toBeNull();
  });
});
