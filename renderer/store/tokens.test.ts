/**
 * The store's token figures (SPEC §15, §16.1): asked in batches once chips, log rows and results
 * show, what the worker left pending asked again until it is filled in, an id the view does not hold
 * not asked twice, and figures of another view (another call, another session) never shown.
 */
import { describe, expect, it } from 'vitest';
import type { ContextMapInfo, Params, Reply } from '../../shared/contract';
import { tokensText } from '../text/tokens';
import type { AppStoreOptions } from './store';
import { createAppStore } from './store';
import { deferred, fakeHost, settle } from './testing/fakeHost';
import { figuresOf } from './tokensSlice';

const NO_DELAY: AppStoreOptions['timing'] = { searchDebounceMs: 0, rangeDebounceMs: 0, verifyBatchMs: 0 };
const estimate = (tokens: number) => ({ tokens, source: 'estimated' as const });
const SAMPLING = { above_bytes: 8 * 1024 * 1024, chunks: 64, chunk_bytes: 64 * 1024 };

/** A host that counts one id per request (the rest pending), each id's figure its number × 10 (× 100 at a call). */
function slowHost() {
  const host = fakeHost();
  host.answer('hiddenTokens', (p: Params<'hiddenTokens'>): Reply<'hiddenTokens'> => {
    const known = p.ids.filter((id) => id !== 'gone');
    const [first, ...rest] = known;
    const scale = p.call == null ? 10 : 100;
    const reductions = first ? [{ id: first, hidden: estimate(Number(first.slice(1)) * scale), original: estimate(Number(first.slice(1)) * scale + 5) }] : [];
    return { ok: true, value: { reductions, pending: rest, unknown: p.ids.filter((id) => id === 'gone'), sampling: SAMPLING } };
  });
  return host;
}

async function started(host = slowHost()) {
  const store = createAppStore(host.api, { timing: NO_DELAY });
  store.getState().start();
  await settle();
  return { store, host };
}

describe('tokens slice', () => {
  it('asks once per id, asks pending ids again until every figure is in, and marks an id the view lacks', async () => {
    const { store, host } = await started();
    store.getState().requestHiddenTokens(['r1', 'r2', 'r3', 'gone']);
    store.getState().requestHiddenTokens(['r2', 'r3']);
    await settle(20);
    const s = store.getState();
    expect(figuresOf(s, 'r1')?.hidden).toEqual(estimate(10));
    expect(figuresOf(s, 'r3')?.original).toEqual(estimate(35));
    expect(figuresOf(s, 'gone')).toBeNull();
    const asked = host.callsOf('hiddenTokens').map((p) => p.ids);
    // One request at a time: the first names every id once, each later one what was pending.
    expect(asked).toEqual([['r1', 'r2', 'r3', 'gone'], ['r2', 'r3'], ['r3']]);
    store.getState().requestHiddenTokens(['r1', 'gone']);
    await settle();
    expect(host.callsOf('hiddenTokens')).toHaveLength(3);
  });

  it('asks nothing while a search the user asked for runs, then every figure once it is over', async () => {
    const { store, host } = await started();
    const search = deferred<Reply<'search'>>();
    host.answer('search', () => search.promise);
    store.setState({ searchQuery: 'needle' });
    const searching = store.getState().runSearch();
    expect(store.getState().searchStatus).toBe('running');
    store.getState().requestHiddenTokens(['r1', 'r2']);
    await settle(20);
    // Each ask would hold the worker between two of the search's slices.
    expect(host.callsOf('hiddenTokens')).toHaveLength(0);
    search.resolve({ ok: true, value: { query: 'needle', mode: 'substring', case_sensitive: true, matches: [], total_matches: 0, truncated: false, reductions_searched: 1, hidden_bytes_searched: 10 } });
    await searching;
    await settle(20);
    expect(host.callsOf('hiddenTokens').map((p) => p.ids)).toEqual([['r1', 'r2'], ['r2']]);
    expect(figuresOf(store.getState(), 'r2')?.hidden).toEqual(estimate(20));
  });

  it("a call's figures are asked with its call, and the latest view's are not shown there", async () => {
    const host = slowHost();
    const map: ContextMapInfo = { calls: 3, index: [1, 3, 5], given: [0, 0, 0], hidden: [0, 0, 0], minted: [1, 0, 0], rewinds: [], model_switches: [], minted_after_last: 0, unplaced: 0, ended: 0 };
    host.answer('calls', () => ({ ok: true, value: map }));
    const { store } = await started(host);
    store.getState().requestHiddenTokens(['r4']);
    await settle(10);
    expect(figuresOf(store.getState(), 'r4')?.hidden?.tokens).toBe(40);
    await store.getState().loadContextMap();
    await store.getState().showCall(2);
    // Not the latest view's figure at call 2, until call 2's own lands.
    expect(figuresOf(store.getState(), 'r4')).toBeUndefined();
    store.getState().requestHiddenTokens(['r4']);
    await settle(10);
    expect(figuresOf(store.getState(), 'r4')?.hidden?.tokens).toBe(400);
    expect(host.callsOf('hiddenTokens').at(-1)?.call).toBe(2);
  });

  it('words a figure with its unit and est., approx. for a Claude model, sampled where sampled', () => {
    expect(tokensText({ tokens: 1234 })).toBe('1,234 tokens est.');
    expect(tokensText({ tokens: 1 })).toBe('1 token est.');
    expect(tokensText({ tokens: 5, approximate: true, sampled: true })).toBe('5 tokens est. approx. sampled');
  });
});
