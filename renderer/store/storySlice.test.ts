/** The store's diff between calls, session events by page, and abandoned messages. */
import { describe, expect, it } from 'vitest';
import type { Reply } from '../../shared/contract';
import { createAppStore } from './store';
import { EVENT_PAGE_SIZE, eventsAt } from './storySlice';
import { FAKE_CALLS, deferred, fakeHost, sessionInfo, settle } from './testing/fakeHost';

async function started(host = fakeHost()) {
  const store = createAppStore(host.api, { timing: { searchDebounceMs: 0, rangeDebounceMs: 0, verifyBatchMs: 0 } });
  store.getState().start();
  await settle();
  return { store, host };
}

describe('story: the diff between calls', () => {
  it('by default compares the last call with the latest view, learning the number of calls from the host', async () => {
    const { store, host } = await started();
    await store.getState().loadDefaultDiff(null);
    expect(host.callsOf('callDiff').at(-1)).toEqual({ from: FAKE_CALLS, to: null });
    expect(store.getState().diff).toMatchObject({ status: 'done', from: FAKE_CALLS, to: null, result: { calls: FAKE_CALLS } });
  });

  it('with a call selected, compares it with its previous one (call 1 with itself)', async () => {
    const { store, host } = await started();
    store.getState().setSelectedCall(4);
    await store.getState().loadDefaultDiff(store.getState().selectedCall);
    expect(host.callsOf('callDiff').at(-1)).toEqual({ from: 3, to: 4 });
    await store.getState().loadDefaultDiff(1);
    expect(host.callsOf('callDiff').at(-1)).toEqual({ from: 1, to: 1 });
  });

  const NO_CHANGES = { bytes: { from: 0, to: 0 }, changed: [], changed_count: 0, between: [], between_count: 0, compactions: [] };

  it('keeps only the last diff asked for when replies come out of order', async () => {
    const { store, host } = await started();
    const first = deferred<Reply<'callDiff'>>();
    host.answer('callDiff', ({ from, to }) => {
      const none = { count: 0, bytes: 0 };
      const value = { calls: FAKE_CALLS, from, to, added: [], removed: [], reduced: [], restored: [], totals: { added: none, removed: none, reduced: none, restored: none }, ...NO_CHANGES };
      return from === 1 ? first.promise : { ok: true, value };
    });
    const slow = store.getState().loadDiff(1, 2);
    await store.getState().loadDiff(2, 3);
    first.resolve({ ok: true, value: { calls: FAKE_CALLS, from: 1, to: 2, added: [], removed: [], reduced: [], restored: [], totals: { added: { count: 9, bytes: 9 }, removed: { count: 0, bytes: 0 }, reduced: { count: 0, bytes: 0 }, restored: { count: 0, bytes: 0 } }, ...NO_CHANGES } });
    await slow;
    expect(store.getState().diff).toMatchObject({ status: 'done', from: 2, to: 3 });
  });

  it('shows the host’s error, and a new session forgets the diff', async () => {
    const { store, host } = await started();
    host.answer('callDiff', () => ({ ok: false, error: { code: 'invalid_request', message: 'call 99 is no model call' } }));
    await store.getState().loadDiff(99, null);
    expect(store.getState().diff).toMatchObject({ status: 'error', error: { message: 'call 99 is no model call' } });
    store.getState().applySession(sessionInfo({ generation: 2 }));
    expect(store.getState().diff.status).toBe('idle');
  });
});

describe('story: events by page of view positions', () => {
  it('asks each page once, whatever rows ask for it, and finds an event at its position', async () => {
    const { store, host } = await started();
    store.getState().wantEvents(0, 10);
    store.getState().wantEvents(5, 20);
    await settle();
    expect(host.callsOf('sessionEvents')).toEqual([{ start: 0, end: EVENT_PAGE_SIZE }]);
    const pages = store.getState().eventPages;
    expect(eventsAt(pages, 100)).toMatchObject([{ kind: 'rewind', index: 100 }]);
    expect(eventsAt(pages, 101)).toEqual([]);
  });

  it('a range across pages asks for each page it covers', async () => {
    const { store, host } = await started(fakeHost(sessionInfo({ messages: 5000, rows: 5000 })));
    store.getState().wantEvents(EVENT_PAGE_SIZE - 1, 2 * EVENT_PAGE_SIZE + 1);
    await settle();
    expect(host.callsOf('sessionEvents').map((p) => p.start)).toEqual([0, EVENT_PAGE_SIZE, 2 * EVENT_PAGE_SIZE]);
  });

  it('drops a page that arrives after the session changed', async () => {
    const { store, host } = await started();
    const late = deferred<Reply<'sessionEvents'>>();
    host.answer('sessionEvents', () => late.promise);
    store.getState().wantEvents(0, 1);
    store.getState().applySession(sessionInfo({ generation: 2 }));
    late.resolve({ ok: true, value: { events: [{ kind: 'rewind', index: 0, line: 1, rewind: 0, abandoned: 1 }], total: 1 } });
    await settle();
    expect(store.getState().eventPages.size).toBe(0);
  });
});

describe('story: abandoned messages', () => {
  it('reads a rewind’s abandoned messages once', async () => {
    const { store, host } = await started();
    await store.getState().loadAbandoned(3);
    await store.getState().loadAbandoned(3);
    expect(host.callsOf('abandoned')).toEqual([{ rewind: 3, start: 0, end: 100 }]);
    expect(store.getState().abandoned.get(3)?.result?.messages[0]).toMatchObject({ index: 300, text: 'gone' });
  });
});
