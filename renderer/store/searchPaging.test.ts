import { describe, expect, it } from 'vitest';
import type { Params, ResultOf } from '../../shared/contract';
import type { AppStoreOptions } from './store';
import { createAppStore } from './store';
import { HUMAN_PAGE_SIZE, neighbourPages } from './searchSlice';
import { searchHitsIn } from '../features/reduction/reductionRegion';
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

describe('the human view of a search', () => {
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

  it('searches what the model saw at the model call shown, and says which', async () => {
    const host = pagingHost(3);
    const store = createAppStore(host.api, { timing: NO_DELAY });
    store.getState().start();
    await settle();
    store.setState({ shownCall: 3 });
    store.getState().setSearchScope('view');
    store.getState().setSearchQuery('needle');
    await settle(10);
    expect(host.callsOf('searchPage').map((p) => [p.scope, p.call])).toEqual([['view', 3]]);
    expect(store.getState().searchPaging).toMatchObject({ scope: 'view', call: 3, total: 3 });
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

describe('marks of every hit in the open reduction', () => {
  /** 115 matches, eleven a reduction: reduction r<k> holds matches 11k…11k+10, at byte 10j of it. */
  function elevenHost() {
    const host = pagingHost(115);
    host.answer('searchPage', (p: Params<'searchPage'>): { ok: true; value: ResultOf<'searchPage'> } => {
      const size = p.page_size ?? 50;
      const first = p.page * size;
      const matches = Array.from({ length: Math.max(0, Math.min(size, 115 - first)) }, (_, j) => {
        const k = first + j;
        const r = Math.floor(k / 11);
        return { reduction_id: `r${r * 10}`, kind: 'tool_output_elided' as const, index: r * 10, offset: 10 * (k % 11), length: 6, snippet: 'needle', snippet_match: [0, 6] as [number, number] };
      });
      return { ok: true, value: { query: p.query, mode: 'substring', case_sensitive: true, scope: 'hidden', page: p.page, page_size: size, first, matches, view_matches: [], total_matches: 115, pageable: 115, reductions_searched: 11, hidden_bytes_searched: 1000 } };
    });
    return host;
  }

  it("a step into a reduction whose hits continue on the next page fetches it first: all of the reduction's hits are at hand", async () => {
    const host = elevenHost();
    const store = createAppStore(host.api, { timing: NO_DELAY });
    store.getState().start();
    await settle();
    store.getState().setSearchQuery('needle');
    await settle(10);
    // Match 45 (1-based) is the first of reduction r40, whose eleven hits are matches 45…55: pages 0 and 1.
    for (let k = 0; k < 45; k++) await store.getState().stepMatch(1);
    expect(host.callsOf('searchPage').map((p) => p.page)).toEqual([0, 1]);
    const paging = store.getState().searchPaging;
    expect(store.getState().openReduction?.id).toBe('r40');
    expect(searchHitsIn(paging, 'r40')).toEqual(Array.from({ length: 11 }, (_, j) => [10 * j, 10 * j + 6]));
    // Hits of other reductions are not this region's.
    expect(searchHitsIn(paging, 'r50').every(([a]) => a % 10 === 0)).toBe(true);
    expect(searchHitsIn(paging, 'r999')).toEqual([]);
  });

  it('neighbourPages asks only for unfetched pages that can hold hits of the reduction opened', () => {
    const page = (n: number, ids: string[]) => ({ query: 'q', mode: 'substring' as const, case_sensitive: true, scope: 'hidden' as const, page: n, page_size: HUMAN_PAGE_SIZE, first: n * HUMAN_PAGE_SIZE, matches: ids.map((id) => ({ reduction_id: id, kind: 'tool_output_elided' as const, index: 0, offset: 0, length: 1, snippet: 'q', snippet_match: [0, 1] as [number, number] })), view_matches: [], total_matches: 150, pageable: 150, reductions_searched: 1, hidden_bytes_searched: 1 });
    const paging = (pages: [number, string[]][]) => ({ status: 'ready' as const, scope: 'hidden' as const, call: null, total: 150, pageable: 150, pages: new Map(pages.map(([n, ids]) => [n, page(n, ids)])), current: null, error: null });
    expect(neighbourPages(paging([[1, ['a', 'b', 'c']]]), 1, 'a')).toEqual([0]);
    expect(neighbourPages(paging([[1, ['a', 'b', 'c']]]), 1, 'c')).toEqual([2]);
    expect(neighbourPages(paging([[1, ['a', 'b', 'c']]]), 1, 'b')).toEqual([]);
    expect(neighbourPages(paging([[0, ['x']], [1, ['a']]]), 1, 'a')).toEqual([2]);
    // The last page has no next.
    expect(neighbourPages(paging([[2, ['a']]]), 2, 'a')).toEqual([1]);
  });
});
