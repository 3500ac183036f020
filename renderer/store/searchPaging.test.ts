import { describe, expect, it } from 'vitest';
import type { Params, ResultOf } from '../../shared/contract';
import type { AppStoreOptions } from './store';
import { createAppStore } from './store';
import { HUMAN_PAGE_SIZE } from './searchSlice';
import { fakeHost, settle } from './testing/fakeHost';

const NO_DELAY: AppStoreOptions['timing'] = { searchDebounceMs: 0, rangeDebounceMs: 0, verifyBatchMs: 0 };

/** A host whose hidden content holds `total` matches: match k in reduction r<10k>, message 10k, byte k. */
function pagingHost(total: number) {
  const host = fakeHost();
  const match = (k: number) => ({ reduction_id: `r${10 * (k % 100)}`, kind: 'tool_output_elided' as const, index: 10 * (k % 100), offset: k, length: 6, snippet: 'needle', snippet_match: [0, 6] as [number, number] });
  host.answer('search', ({ query }) => ({
    ok: true,
    value: { query, mode: 'substring', case_sensitive: true, matches: Array.from({ length: Math.min(50, total) }, (_, k) => match(k)), total_matches: total, truncated: total > 50, reductions_searched: 100, hidden_bytes_searched: 1000 },
  }));
  host.answer('searchPage', (p: Params<'searchPage'>): { ok: true; value: ResultOf<'searchPage'> } => {
    const size = p.page_size ?? 50;
    const first = p.page * size;
    const count = Math.max(0, Math.min(size, total - first));
    const scope = p.scope ?? 'hidden';
    const matches = Array.from({ length: count }, (_, k) => match(first + k));
    return {
      ok: true,
      value: {
        query: p.query,
        mode: 'substring',
        case_sensitive: true,
        scope,
        page: p.page,
        page_size: size,
        first,
        matches: scope === 'hidden' ? matches : [],
        view_matches: scope === 'view' ? matches.map((m) => ({ row: m.index, index: m.index, offset: m.offset, length: 6, snippet: 'needle', snippet_match: [0, 6] as [number, number] })) : [],
        total_matches: total,
        pageable: total,
        reductions_searched: 100,
        hidden_bytes_searched: 1000,
      },
    };
  });
  return host;
}

async function searched(total: number, scope: 'hidden' | 'view' = 'hidden') {
  const host = pagingHost(total);
  const store = createAppStore(host.api, { timing: NO_DELAY });
  store.getState().start();
  await settle();
  if (scope === 'view') store.getState().setSearchScope('view');
  store.getState().setSearchQuery('needle');
  await settle(10);
  return { store, host };
}

describe('the human view of a search (issue 13)', () => {
  it('asks for the first page once the agent search has answered, and counts every match', async () => {
    const { store, host } = await searched(115);
    expect(host.callsOf('search')).toHaveLength(1);
    expect(host.callsOf('searchPage').map((p) => [p.page, p.page_size, p.scope])).toEqual([[0, HUMAN_PAGE_SIZE, 'hidden']]);
    const calls = host.calls.map((c) => c.method).filter((m) => m === 'search' || m === 'searchPage');
    expect(calls).toEqual(['search', 'searchPage']);
    expect(store.getState().searchPaging).toMatchObject({ status: 'ready', total: 115, pageable: 115, current: null });
  });

  it('steps through all 115 matches in order, fetching each page once when reached, and wraps at both ends', async () => {
    const { store, host } = await searched(115);
    const seen: number[] = [];
    for (let k = 0; k < 115; k++) {
      await store.getState().stepMatch(1);
      const p = store.getState().searchPaging;
      expect(p?.current).toBe(k);
      seen.push(store.getState().openReduction?.highlight?.offset ?? -1);
    }
    expect(seen).toEqual(Array.from({ length: 115 }, (_, k) => k));
    expect(host.callsOf('searchPage').map((p) => p.page)).toEqual([0, 1, 2]);
    await store.getState().stepMatch(1);
    expect(store.getState().searchPaging?.current).toBe(0);
    await store.getState().stepMatch(-1);
    expect(store.getState().searchPaging?.current).toBe(114);
    // Each step opened the match's reduction.
    expect(store.getState().openReduction?.id).toBe('r140');
  });

  it('Previous before any step goes to the last match', async () => {
    const { store } = await searched(115);
    await store.getState().stepMatch(-1);
    expect(store.getState().searchPaging?.current).toBe(114);
  });

  it('does nothing without matches', async () => {
    const { store } = await searched(0);
    await store.getState().stepMatch(1);
    expect(store.getState().searchPaging).toMatchObject({ total: 0, current: null });
  });

  it('scope "What the model saw" skips the agent search, pages the rows, and lands on the row', async () => {
    const { store, host } = await searched(3, 'view');
    expect(host.callsOf('search')).toHaveLength(0);
    expect(host.callsOf('searchPage').map((p) => p.scope)).toEqual(['view']);
    expect(store.getState().searchStatus).toBe('done');
    expect(store.getState().searchResult).toBeNull();
    await store.getState().stepMatch(1);
    await store.getState().stepMatch(1);
    await settle();
    expect(store.getState().selectedRow).toBe(10);
  });

  it('a new query starts a new human view: pages of the old one never land', async () => {
    const { store, host } = await searched(115);
    store.getState().setSearchQuery('other');
    await settle(10);
    expect(host.callsOf('searchPage').at(-1)?.query).toBe('other');
    expect(store.getState().searchPaging).toMatchObject({ status: 'ready', current: null });
    expect([...(store.getState().searchPaging?.pages.keys() ?? [])]).toEqual([0]);
  });
});
