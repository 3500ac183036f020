import { afterEach, describe, expect, it, vi } from 'vitest';
import { provenanceLabel, verificationLabel } from '../text/format';
import type { Reply } from '../../shared/contract';
import type { Deferred } from './testing/fakeHost';
import { EXPAND_WINDOW_BYTES, expansionKey, shownOutcomes, shownRange } from './reductionsSlice';
import { MAX_ROW_PAGES, ROW_PAGE_SIZE, rowAt } from './rowsSlice';
import type { AppStoreOptions } from './store';
import { createAppStore } from './store';
import { CONTENT_BYTES, deferred, fakeHost, sessionInfo, settle } from './testing/fakeHost';

const TWO_FILES = [
  { id: 'file-1', name: 'a.sidecar.jsonl', bytes: 10 },
  { id: 'file-2', name: 'b.sidecar.jsonl', bytes: 20 },
];
const NO_DELAY: AppStoreOptions['timing'] = { searchDebounceMs: 0, rangeDebounceMs: 0, verifyBatchMs: 0 };

async function started(host = fakeHost(), options: AppStoreOptions = {}) {
  const store = createAppStore(host.api, { timing: NO_DELAY, ...options });
  const stop = store.getState().start();
  await settle();
  return { store, host, stop };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('session', () => {
  it('asks the host its state and shows the open session; check runs once', async () => {
    const { store, host } = await started();
    const s = store.getState();
    expect(s.host).toBe('http');
    expect(s.session?.generation).toBe(1);
    expect(s.offeredFiles).toEqual([{ id: 'file-1', name: 'demo.sidecar.jsonl', bytes: 1234 }]);
    expect(s.rowCount).toBe(1000);
    expect(host.callsOf('check')).toHaveLength(1);
    expect(s.checkStatus).toBe('done');
  });

  it('starts empty when no session is open, and takes the one a sessionOpened event brings', async () => {
    const { store, host } = await started(fakeHost(null, TWO_FILES));
    expect(store.getState().session).toBeNull();
    host.emit({ name: 'loadProgress', payload: { generation: 1, bytesRead: 10, totalBytes: 40 } });
    expect(store.getState().loading).toEqual({ generation: 1, bytesRead: 10, totalBytes: 40 });
    host.emit({ name: 'sessionOpened', payload: sessionInfo() });
    expect(store.getState().session?.generation).toBe(1);
    expect(store.getState().loading).toBeNull();
  });

  it('shows why the files named at start could not be opened, though that happened before it connected', async () => {
    const error = { code: 'unrecognized_file' as const, message: 'README.md is neither a sidecar nor a session snapshot' };
    const { store, host } = await started(fakeHost(null, TWO_FILES, { generation: 1, files: ['demo.sidecar.jsonl', 'README.md'], error }));
    expect(store.getState().session).toBeNull();
    expect(host.callsOf('openFile')).toEqual([]);
    expect(store.getState().alerts.map((a) => [a.message, a.hint])).toEqual([
      ['README.md is neither a sidecar nor a session snapshot', 'Open a session file: a sidecar (.sidecar.jsonl) or snapshot (.session.json), a Claude Code transcript or Codex rollout (.jsonl), a SWE-agent or mini-swe-agent trajectory (.traj), an Inspect AI log (.eval, .json) or an OpenHands trajectory (.json, or the base_state.json of a V1 conversation).'],
    ]);
  });

  it('shows a preview while a large file is indexed, keeps the progress bar, and takes the whole session after', async () => {
    const { store, host } = await started(fakeHost(null, TWO_FILES));
    host.emit({ name: 'loadProgress', payload: { generation: 1, bytesRead: 10, totalBytes: 400 } });
    host.emit({ name: 'sessionPreview', payload: sessionInfo({ rows: 40, provisional: true }) });
    await settle();
    expect(store.getState().session?.provisional).toBe(true);
    expect(store.getState().rowCount).toBe(40);
    expect(store.getState().loading).not.toBeNull();
    // Progress that comes after the preview still shows (a page that connects mid-load gets both).
    host.emit({ name: 'loadProgress', payload: { generation: 1, bytesRead: 200, totalBytes: 400 } });
    expect(store.getState().loading).toEqual({ generation: 1, bytesRead: 200, totalBytes: 400 });
    // Nothing that needs the whole session runs over a preview.
    expect(host.callsOf('check')).toHaveLength(0);
    host.emit({ name: 'sessionOpened', payload: sessionInfo({ rows: 1000 }) });
    await settle();
    expect(store.getState().session?.provisional).toBeUndefined();
    expect(store.getState().rowCount).toBe(1000);
    expect(store.getState().loading).toBeNull();
    expect(host.callsOf('check')).toHaveLength(1);
  });

  it('a check asked for over the preview of a large file runs again over the whole session', async () => {
    const big = [{ path: '/x/big.jsonl', format: 'codex-rollout' as const, bytes: 64 * 1024 * 1024 }];
    const { store, host } = await started(fakeHost(null, TWO_FILES));
    host.emit({ name: 'sessionPreview', payload: sessionInfo({ files: big, rows: 40, provisional: true }) });
    await settle();
    // The user runs the check before the file is read (the host answers once indexing ends).
    const asked = store.getState().runCheck();
    expect(store.getState().checkStatus).toBe('running');
    host.emit({ name: 'sessionOpened', payload: sessionInfo({ files: big, rows: 1000 }) });
    await asked;
    await settle();
    // Too large for the automatic check, yet checked: the user asked.
    expect(host.callsOf('check')).toHaveLength(2);
    expect(store.getState().checkStatus).toBe('done');
  });

  it('a large session opened without a preview waits for the user to run the check', async () => {
    const big = [{ path: '/x/big.jsonl', format: 'codex-rollout' as const, bytes: 64 * 1024 * 1024 }];
    const { store, host } = await started(fakeHost(null, TWO_FILES));
    host.emit({ name: 'sessionOpened', payload: sessionInfo({ files: big, rows: 1000 }) });
    await settle();
    expect(host.callsOf('check')).toHaveLength(0);
    expect(store.getState().checkStatus).toBe('idle');
  });

  it('drops a preview whose file then fails to load', async () => {
    const { store, host } = await started(fakeHost(null, TWO_FILES));
    host.emit({ name: 'sessionPreview', payload: sessionInfo({ rows: 40, provisional: true }) });
    host.emit({ name: 'loadFailed', payload: { generation: 1, error: { code: 'unreadable_file', message: 'cannot read x: gone' } } });
    expect(store.getState().session).toBeNull();
  });

  it('ignores a sessionOpened older than the open session', async () => {
    const { store, host } = await started(fakeHost(sessionInfo({ generation: 5 })));
    const epoch = store.getState().epoch;
    host.emit({ name: 'sessionOpened', payload: sessionInfo({ generation: 4 }) });
    expect(store.getState().session?.generation).toBe(5);
    expect(store.getState().epoch).toBe(epoch);
  });

  it('says what to do when a file fails to load, and when the resolver restarts', async () => {
    const { store, host } = await started(fakeHost(null, TWO_FILES));
    host.emit({ name: 'loadFailed', payload: { generation: 1, error: { code: 'unrecognized_file', message: 'x.txt is neither a sidecar nor a snapshot' } } });
    host.emit({ name: 'workerRestarted', payload: { reason: 'exit code 1' } });
    expect(store.getState().alerts.map((a) => `${a.message} ${a.hint ?? ''}`.trim())).toEqual([
      'x.txt is neither a sidecar nor a snapshot Open a session file: a sidecar (.sidecar.jsonl) or snapshot (.session.json), a Claude Code transcript or Codex rollout (.jsonl), a SWE-agent or mini-swe-agent trajectory (.traj), an Inspect AI log (.eval, .json) or an OpenHands trajectory (.json, or the base_state.json of a V1 conversation).',
      'The resolver restarted (exit code 1); the session was reopened.',
    ]);
  });

  it('over HTTP a dropped file is not supported: the alert says to start the host with it', async () => {
    const openDropped = (): Promise<Reply<'openFile'>> => Promise.resolve({ ok: false, error: { code: 'not_supported', message: 'Opening a dropped file needs the desktop app.' } });
    const { store } = await started(fakeHost(null, TWO_FILES), { openDropped });
    await store.getState().openDropped({ name: 'mine.sidecar.jsonl' } as File);
    const [alert] = store.getState().alerts;
    expect(alert?.message).toBe('Opening a dropped file needs the desktop app.');
    expect(alert?.hint).toContain('npx session-inspector serve mine.sidecar.jsonl');
  });

  it('follows menu commands', async () => {
    const { store, host } = await started();
    store.getState().setSystemDark(false);
    host.emit({ name: 'command', payload: { name: 'toggleTheme' } });
    expect(store.getState().themeChoice).toBe('dark');
    host.emit({ name: 'command', payload: { name: 'showShortcuts' } });
    expect(store.getState().shortcutsOpen).toBe(true);
    store.getState().setActiveTab('log');
    host.emit({ name: 'command', payload: { name: 'focusSearch' } });
    expect(store.getState().activeTab).toBe('search');
    expect(store.getState().focusSearchSeq).toBe(1);
  });
});

describe('rows', () => {
  it('fetches the pages near the viewport, at most MAX_ROWS_PER_REQUEST rows each, and caches them', async () => {
    const { store, host } = await started();
    store.getState().wantRows(0, 30);
    await settle();
    expect(host.callsOf('rows')).toEqual([{ start: 0, end: ROW_PAGE_SIZE }]);
    expect(rowAt(store.getState(), 7)?.text).toBe('row 7');
    store.getState().wantRows(5, 40);
    await settle();
    expect(host.callsOf('rows')).toHaveLength(1);
    store.getState().wantRows(520, 560);
    await settle();
    // The viewport's page first, then half a page of margin either side; nothing farther.
    const asked = host.callsOf('rows').slice(1);
    expect(asked.map((p) => p.start)).toEqual([500, 400, 600]);
    for (const p of host.callsOf('rows')) expect(p.end - p.start).toBeLessThanOrEqual(500);
  });

  it('never holds the whole session: far pages are dropped as the viewport travels', async () => {
    const host = fakeHost(sessionInfo({ rows: 1_000_000, messages: 1_000_000 }));
    const { store } = await started(host);
    const viewports: number[] = [];
    for (let row = 0; row < 1_000_000; row += 7_919) {
      viewports.push(row);
      store.getState().wantRows(row, row + 40);
      await settle(2);
    }
    expect(store.getState().rowPages.size).toBeLessThanOrEqual(MAX_ROW_PAGES);
    // Only pages the viewport came near were asked for (its own and one either side at most).
    const asked = host.callsOf('rows');
    expect(asked.length).toBeLessThanOrEqual(3 * viewports.length);
    for (const p of asked) expect(viewports.some((v) => Math.abs(p.start - v) <= 2 * ROW_PAGE_SIZE)).toBe(true);
  });

  it('drops a rows reply that arrives after the session changed', async () => {
    const host = fakeHost();
    const { store } = await started(host);
    const held = deferred<Reply<'rows'>>();
    host.answer('rows', () => held.promise);
    store.getState().wantRows(0, 10);
    host.emit({ name: 'sessionOpened', payload: sessionInfo({ generation: 2 }) });
    held.resolve({ ok: true, value: { rowCount: 1000, rows: [{ row: 0, index: 0, end: 1, text: 'stale', text_bytes: 5, reductions: [] }] } });
    await settle();
    expect(rowAt(store.getState(), 0)).toBeUndefined();
  });

  it('pages through a cut row with rowText (Show more)', async () => {
    const host = fakeHost();
    host.answer('rows', ({ start }) => ({ ok: true, value: { rowCount: 1000, rows: [{ row: start, index: start, end: start + 1, role: 'tool', text: 'abc', text_bytes: 100_000, reductions: [] }] } }));
    const { store } = await started(host);
    store.getState().wantRows(0, 1);
    await settle();
    await store.getState().showMoreText(0);
    expect(host.callsOf('rowText')).toEqual([{ row: 0, range: [3, 3 + 65536] }]);
    expect(store.getState().rowMore.get(0)?.shownBytes).toBe(3 + 65536);
    await store.getState().showMoreText(0);
    expect(host.callsOf('rowText')[1]).toEqual({ row: 0, range: [65539, 100_000] });
  });

  it('moves the selection with j/k semantics and asks the view to scroll', async () => {
    const { store } = await started();
    store.getState().wantRows(10, 20);
    store.getState().moveSelection(1);
    expect(store.getState().selectedRow).toBe(10);
    store.getState().moveSelection(-1);
    expect(store.getState().selectedRow).toBe(9);
    expect(store.getState().scrollRequest).toMatchObject({ row: 9, align: 'auto' });
  });
});

describe('reductions', () => {
  it('batches verify for the stubs on screen, asking each id once', async () => {
    const { store, host } = await started();
    store.getState().requestStatuses(['r0', 'r10']);
    store.getState().requestStatuses(['r10', 'r20']);
    await settle();
    expect(host.callsOf('verify')).toEqual([{ ids: ['r0', 'r10', 'r20'] }]);
    expect(store.getState().statuses.get('r20')?.status).toBe('verified');
    store.getState().requestStatuses(['r0', 'r20']);
    await settle();
    expect(host.callsOf('verify')).toHaveLength(1);
  });

  it('keeps what verify says of §10.1 reductions (original not recorded, hashed at import, provenance); expanding one not recorded is an error of its own', async () => {
    const host = fakeHost();
    host.answer('verify', ({ ids }) => ({
      ok: true,
      value: {
        statuses: ids.map((id) =>
          id === 'r0'
            ? { id, status: 'original_unavailable' as const, hidden_bytes: 5000, provenance: 'derived' as const, message: 'reduction r0: the file does not record the original bytes' }
            : { id, status: 'verified' as const, source: 'minted' as const, total_bytes: 10, hidden_bytes: 10, provenance: 'recorded' as const, hash_origin: 'import' as const },
        ),
      },
    }));
    host.answer('expand', () => ({ ok: false, error: { code: 'original_unavailable', message: 'reduction r0: the file does not record the original bytes' } }));
    const { store } = await started(host);
    store.getState().requestStatuses(['r0', 'r10']);
    await settle();
    const r0 = store.getState().statuses.get('r0');
    const r10 = store.getState().statuses.get('r10');
    expect(r0).toMatchObject({ status: 'original_unavailable', hidden_bytes: 5000, provenance: 'derived' });
    expect(verificationLabel(r0)).toBe('original not recorded');
    expect(provenanceLabel(r0)).toBe('derived');
    expect(verificationLabel(r10)).toBe('hashed at import');
    expect(provenanceLabel(r10)).toBe('recorded by the agent');
    // A native reduction says "verified" and nothing of its provenance.
    const native = { id: 'n', status: 'verified' as const, provenance: 'recorded' as const, hash_origin: 'recorded' as const };
    expect([verificationLabel(native), provenanceLabel(native)]).toEqual(['verified', undefined]);
    store.getState().toggleReduction('r0');
    await settle();
    // Shown in the reduction's region, not as an app alert.
    expect([...store.getState().expansions.values()].map((e) => (e.status === 'error' ? e.error.code : e.status))).toEqual(['original_unavailable']);
    expect(store.getState().alerts).toEqual([]);
  });

  it('verifies 100,000 ids one batch at a time, so an expansion waits behind one batch, not all of them', async () => {
    const { store, host } = await started();
    const held: Deferred<Reply<'verify'>>[] = [];
    host.answer('verify', () => {
      const d = deferred<Reply<'verify'>>();
      held.push(d);
      return d.promise;
    });
    const ids = Array.from({ length: 100_000 }, (_, k) => `r${k}`);
    store.getState().requestStatuses(ids);
    await settle();
    // One batch in flight: the resolver answers one request at a time, and a click's expand must
    // not queue behind 100 batches (a click unanswered for 120 s).
    expect(held).toHaveLength(1);
    store.getState().expand('r5');
    await settle();
    expect(host.calls.map((c) => c.method).filter((m) => m === 'verify' || m === 'expand')).toEqual(['verify', 'expand']);

    // Each reply is one store update; a chip's own status changes once, when its batch lands.
    const seen: unknown[] = [];
    const unsubscribe = store.subscribe((s) => {
      const status = s.statuses.get('r99999');
      if (seen[seen.length - 1] !== status) seen.push(status);
    });
    let updates = 0;
    const countUpdates = store.subscribe(() => void updates++);
    for (let k = 0; k < held.length; k++) {
      const batch = host.callsOf('verify')[k]?.ids ?? [];
      held[k]?.resolve({ ok: true, value: { statuses: batch.map((id) => ({ id, status: 'verified' as const, source: 'minted' as const, total_bytes: 1, hidden_bytes: 1 })) } });
      await settle();
    }
    unsubscribe();
    countUpdates();
    const batches = host.callsOf('verify');
    expect(batches).toHaveLength(100);
    expect(batches.every((b) => b.ids.length <= 1000)).toBe(true);
    expect(batches.flatMap((b) => b.ids)).toEqual(ids);
    expect(store.getState().statuses.size).toBe(100_000);
    expect(updates).toBe(100);
    expect(seen.filter((v) => v !== undefined)).toHaveLength(1);
  });

  it('expands the first 64 KiB window, and never fetches the same (id, range) twice', async () => {
    const { store, host } = await started();
    store.getState().expand('r10');
    await settle();
    expect(host.callsOf('expand')).toEqual([{ id: 'r10', range: [0, EXPAND_WINDOW_BYTES] }]);
    const open = store.getState().openReduction;
    expect(open && shownRange(shownOutcomes(open, store.getState().expansions))).toEqual([0, EXPAND_WINDOW_BYTES]);
    expect(open?.requested).toEqual([0, EXPAND_WINDOW_BYTES]);
    store.getState().toggleReduction('r10');
    expect(store.getState().openReduction).toBeNull();
    store.getState().toggleReduction('r10');
    await settle();
    expect(host.callsOf('expand')).toHaveLength(1);
    expect(store.getState().expansions.get(expansionKey('r10', [0, EXPAND_WINDOW_BYTES]))?.status).toBe('ready');
  });

  it('appends the next window with Load more, from where the host stopped', async () => {
    const { store, host } = await started();
    store.getState().expand('r10');
    await settle();
    store.getState().loadMore();
    await settle();
    expect(host.callsOf('expand')[1]).toEqual({ id: 'r10', range: [EXPAND_WINDOW_BYTES, 2 * EXPAND_WINDOW_BYTES] });
    const open = store.getState().openReduction;
    expect(open && shownRange(shownOutcomes(open, store.getState().expansions))).toEqual([0, 2 * EXPAND_WINDOW_BYTES]);
    for (let k = 0; k < 5; k++) {
      store.getState().loadMore();
      await settle();
    }
    const last = host.callsOf('expand').at(-1);
    expect(last?.range?.[1]).toBe(CONTENT_BYTES);
  });

  it('fetches only the last range of a drag, and ignores a stale reply', async () => {
    vi.useFakeTimers();
    const host = fakeHost();
    const store = createAppStore(host.api, { timing: { ...NO_DELAY, rangeDebounceMs: 100 } });
    store.getState().start();
    await vi.runAllTimersAsync();
    store.getState().expand('r10');
    await vi.runAllTimersAsync();
    store.getState().setShownRange([10, 20]);
    store.getState().setShownRange([10, 30]);
    store.getState().setShownRange([15, 40]);
    expect(store.getState().openReduction?.requested).toEqual([15, 40]);
    await vi.advanceTimersByTimeAsync(150);
    expect(host.callsOf('expand').slice(1)).toEqual([{ id: 'r10', range: [15, 40] }]);
    const open = store.getState().openReduction;
    expect(open && shownRange(shownOutcomes(open, store.getState().expansions))).toEqual([15, 40]);

    // A slow reply for an older range must not replace a newer one.
    const held = deferred<Reply<'expand'>>();
    host.answer('expand', () => held.promise);
    store.getState().setShownRange([100, 200]);
    await vi.advanceTimersByTimeAsync(150);
    host.answer('expand', ({ id, range }) => ({ ok: true, value: { reduction_id: id, kind: 'tool_output_elided', index: 0, content: 'x', range: range ?? [0, 0], total_bytes: CONTENT_BYTES, source: 'minted' } }));
    store.getState().setShownRange([300, 301]);
    await vi.advanceTimersByTimeAsync(150);
    held.resolve({ ok: true, value: { reduction_id: 'r10', kind: 'tool_output_elided', index: 0, content: 'old', range: [100, 200], total_bytes: CONTENT_BYTES, source: 'minted' } });
    await vi.runAllTimersAsync();
    const now = store.getState().openReduction;
    expect(now && shownRange(shownOutcomes(now, store.getState().expansions))).toEqual([300, 301]);
  });

  it('forgets every cache when the generation changes', async () => {
    const { store, host } = await started();
    store.getState().wantRows(0, 10);
    store.getState().requestStatuses(['r0']);
    store.getState().expand('r0');
    await settle();
    expect(store.getState().rowPages.size).toBe(1);
    expect(store.getState().statuses.size).toBe(1);
    expect(store.getState().expansions.size).toBe(1);
    host.emit({ name: 'sessionOpened', payload: sessionInfo({ generation: 2, rows: 50 }) });
    const s = store.getState();
    expect([s.rowPages.size, s.statuses.size, s.expansions.size, s.openReduction, s.rowCount]).toEqual([0, 0, 0, null, 50]);
    // The same reduction id in the new session is fetched afresh.
    store.getState().expand('r0');
    store.getState().requestStatuses(['r0']);
    await settle();
    expect(host.callsOf('expand')).toHaveLength(2);
    expect(host.callsOf('verify')).toHaveLength(2);
  });
});

describe('search', () => {
  it('shows the progress of the search in flight only, and clears it when the search answers', async () => {
    const host = fakeHost();
    const { store } = await started(host);
    const pending = deferred<Reply<'search'>>();
    host.answer('search', () => pending.promise);
    store.getState().setSearchQuery('needle');
    await settle();
    const searchId = host.callsOf('search').at(-1)?.searchId ?? '';
    host.emit({ name: 'searchProgress', payload: { searchId: 'search-0', spans_searched: 1, spans: 9, hidden_bytes_searched: 10 } });
    expect(store.getState().searchProgress).toBeNull();
    host.emit({ name: 'searchProgress', payload: { searchId, spans_searched: 3, spans: 9, hidden_bytes_searched: 300 } });
    expect(store.getState().searchProgress).toEqual({ spans_searched: 3, spans: 9, hidden_bytes_searched: 300 });
    pending.resolve({ ok: true, value: { query: 'needle', mode: 'substring', case_sensitive: true, matches: [], total_matches: 0, truncated: false, reductions_searched: 9, hidden_bytes_searched: 900 } });
    await settle();
    expect(store.getState().searchStatus).toBe('done');
    expect(store.getState().searchProgress).toBeNull();
  });

  it('cancels the search in flight and shows only the latest reply', async () => {
    const host = fakeHost();
    const { store } = await started(host);
    const first = deferred<Reply<'search'>>();
    host.answer('search', () => first.promise);
    store.getState().setSearchQuery('err');
    await settle();
    const [firstCall] = host.callsOf('search');
    expect(firstCall).toMatchObject({ query: 'err', mode: 'substring', case_sensitive: true });
    host.answer('search', ({ query }) => ({ ok: true, value: { query, mode: 'substring', case_sensitive: true, matches: [], total_matches: 7, truncated: false, reductions_searched: 3, hidden_bytes_searched: 99 } }));
    store.getState().setSearchQuery('error');
    await settle();
    expect(host.callsOf('cancelSearch')).toEqual([{ searchId: firstCall?.searchId }]);
    const second = host.callsOf('search')[1];
    expect(second?.searchId).not.toBe(firstCall?.searchId);
    // The first search answers late (cancelled, or even a result): neither is shown.
    first.resolve({ ok: true, value: { query: 'err', mode: 'substring', case_sensitive: true, matches: [], total_matches: 1, truncated: false, reductions_searched: 3, hidden_bytes_searched: 99 } });
    await settle();
    expect(store.getState().searchResult?.query).toBe('error');
    expect(store.getState().searchResult?.total_matches).toBe(7);
  });

  it('debounces typing into one search', async () => {
    vi.useFakeTimers();
    const host = fakeHost();
    const store = createAppStore(host.api, { timing: { ...NO_DELAY, searchDebounceMs: 150 } });
    store.getState().start();
    await vi.runAllTimersAsync();
    for (const q of ['e', 'er', 'err', 'erro', 'error']) {
      store.getState().setSearchQuery(q);
      await vi.advanceTimersByTimeAsync(40);
    }
    expect(host.callsOf('search')).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(200);
    expect(host.callsOf('search').map((p) => p.query)).toEqual(['error']);
  });

  it('passes the regex and case options, and shows invalid_query inline, not as an alert', async () => {
    const host = fakeHost();
    host.answer('search', () => ({ ok: false, error: { code: 'invalid_query', message: 'missing closing ) at byte 9' } }));
    const { store } = await started(host);
    store.getState().setSearchRegex(true);
    store.getState().setSearchCaseSensitive(false);
    store.getState().setSearchQuery('(unclosed');
    await settle();
    expect(host.callsOf('search').at(-1)).toMatchObject({ query: '(unclosed', mode: 'regex', case_sensitive: false });
    expect(store.getState().searchStatus).toBe('error');
    expect(store.getState().searchError?.code).toBe('invalid_query');
    expect(store.getState().alerts).toEqual([]);
  });

  it('a cancelled reply to the latest search is silent', async () => {
    const host = fakeHost();
    host.answer('search', () => ({ ok: false, error: { code: 'cancelled', message: 'cancelled' } }));
    const { store } = await started(host);
    store.getState().setSearchQuery('x');
    await settle();
    expect(store.getState().searchError).toBeNull();
    expect(store.getState().alerts).toEqual([]);
  });
});

describe('navigation', () => {
  it('goes to a search match: row of its index, selected, expanded around the match, highlighted', async () => {
    const { store, host } = await started();
    await store.getState().goToMatch({ reduction_id: 'r40', kind: 'tool_output_elided', index: 40, offset: 5000, length: 5, snippet: 'fghij', snippet_match: [0, 5] });
    await settle();
    expect(host.callsOf('rowOfIndex')).toEqual([{ index: 40 }]);
    expect(store.getState().selectedRow).toBe(40);
    expect(store.getState().scrollRequest).toMatchObject({ row: 40, align: 'start' });
    expect(host.callsOf('expand').at(-1)).toEqual({ id: 'r40', range: [5000 - 2048, 5005 + 2048] });
    expect(store.getState().openReduction).toMatchObject({ id: 'r40', highlight: { offset: 5000, length: 5 } });
  });

  it('a match in a summarized range goes to the transcript offset the host placed it at (no transcript is read to place it)', async () => {
    const { store, host } = await started();
    await store.getState().goToMatch({ reduction_id: 's1', kind: 'summarized', index: 11, offset: 9, length: 4, snippet: 'error at line 3', snippet_match: [9, 13], transcript_offset: 40 });
    await settle();
    expect(host.callsOf('rowOfIndex')).toEqual([{ index: 11 }]);
    expect(host.callsOf('expand')).toEqual([{ id: 's1', range: [0, 44 + 2048] }]);
    expect(store.getState().openReduction).toMatchObject({ id: 's1', highlight: { offset: 40, length: 4 } });
    expect(store.getState().alerts).toEqual([]);
  });

  it('a match in a cleared range the host could not place opens the range from its start, and says so', async () => {
    const { store, host } = await started();
    await store.getState().goToMatch({ reduction_id: 'c1', kind: 'turns_cleared', index: 12, offset: 9, length: 4, snippet: 'x', snippet_match: [0, 1] });
    await settle();
    expect(host.callsOf('expand').at(-1)).toMatchObject({ id: 'c1' });
    expect(store.getState().openReduction).toMatchObject({ id: 'c1', highlight: null });
    expect(store.getState().alerts.map((a) => a.message).join(' ')).toContain('could not be placed');
  });

  it('goes to a reduction of the log, and to the next and previous stub', async () => {
    const { store, host } = await started();
    await store.getState().goToReduction('r30');
    expect(store.getState().selectedRow).toBe(30);
    expect(store.getState().openReduction?.id).toBe('r30');
    store.getState().wantRows(0, 100);
    await settle();
    await store.getState().stepStub(1);
    expect(store.getState().selectedRow).toBe(40);
    await store.getState().stepStub(-1);
    await store.getState().stepStub(-1);
    expect(store.getState().selectedRow).toBe(20);
    expect(host.callsOf('log')).toHaveLength(1);
  });

  it('says so when a finding points outside the view', async () => {
    const { store } = await started();
    await store.getState().goToFinding({ code: 'address_out_of_range', severity: 'error', message: 'r9 addresses 5000', reduction_id: 'r9', index: 5000 });
    expect(store.getState().alerts[0]?.message).toBe('Message 5000 is not in the projected view (it has 1,000 messages).');
  });

  it('Enter expands the selected row’s stub', async () => {
    const { store } = await started();
    store.getState().wantRows(0, 30);
    await settle();
    store.getState().selectRow(20);
    store.getState().expandSelected();
    expect(store.getState().openReduction?.id).toBe('r20');
  });
});
