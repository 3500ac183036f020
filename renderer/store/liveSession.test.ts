/** The store follows a growing session without losing the user's place. */
import { describe, expect, it, vi } from 'vitest';
import { createAppStore } from './store';
import type { Reply } from '../../shared/contract';
import type { Deferred } from './testing/fakeHost';
import { deferred, fakeHost, sessionInfo, settle } from './testing/fakeHost';

async function started(rows = 150, liveRefreshMs = 0) {
  const info = sessionInfo({ generation: 3, rows, messages: rows });
  const host = fakeHost(info);
  const store = createAppStore(host.api, { timing: { searchDebounceMs: 0, rangeDebounceMs: 0, verifyBatchMs: 0, liveRefreshMs } });
  store.getState().start();
  await settle();
  store.getState().wantRows(0, 20);
  await settle();
  return { store, host, info };
}

describe('a sessionUpdated event', () => {
  it('grows the row count, asks the shown pages again in place, keeps the open expansion and the list; counts new messages while not at the bottom', async () => {
    const { store, host, info } = await started();
    store.getState().expand('r10');
    await settle();
    const listEpoch = store.getState().listEpoch;
    const open = store.getState().openReduction;
    expect(store.getState().rowPages.get(0)?.status).toBe('ready');
    const rowsAsked = host.callsOf('rows').length;

    const grown = { ...info, rows: 180, messages: 180 };
    host.setSession(grown);
    host.emit({ name: 'sessionUpdated', payload: { generation: 3, info: grown, new_messages: 30, calls: 2 } });
    // The page shown stays shown while it is asked again: nothing flickers to "loading".
    expect(store.getState().rowPages.get(0)?.status).toBe('ready');
    await settle();
    const s = store.getState();
    expect(s.rowCount).toBe(180);
    expect(s.session?.rows).toBe(180);
    expect(host.callsOf('rows').length).toBeGreaterThan(rowsAsked);
    expect(s.listEpoch).toBe(listEpoch);
    expect(s.openReduction?.id).toBe(open?.id);
    expect(s.expansions.size).toBeGreaterThan(0);
    expect(s.liveNew).toBe(30);

    host.emit({ name: 'sessionUpdated', payload: { generation: 3, info: { ...grown, rows: 185, messages: 185 }, new_messages: 5, calls: 2 } });
    expect(store.getState().liveNew).toBe(35);
    store.getState().jumpToLatest();
    expect(store.getState().liveNew).toBe(0);
    expect(store.getState().scrollRequest).toMatchObject({ row: 184, align: 'end' });
  });

  it('at the bottom, new messages are not counted (the view follows them)', async () => {
    const { store, host, info } = await started();
    store.getState().setAtBottom(true);
    host.emit({ name: 'sessionUpdated', payload: { generation: 3, info: { ...info, rows: 160, messages: 160 }, new_messages: 10, calls: 1 } });
    expect(store.getState().liveNew).toBe(0);
    expect(store.getState().rowCount).toBe(160);
  });

  it('the context map is asked again (the Model call slider grows), and a check that was run runs again', async () => {
    const { store, host, info } = await started();
    await store.getState().loadContextMap();
    expect(store.getState().contextMapStatus).toBe('ready');
    const checks = host.callsOf('check').length;
    host.emit({ name: 'sessionUpdated', payload: { generation: 3, info: { ...info, rows: 151, messages: 151 }, new_messages: 1, calls: 3 } });
    expect(store.getState().contextMapStatus).toBe('idle');
    await store.getState().loadContextMap();
    expect(host.callsOf('calls').length).toBe(2);
    await settle();
    expect(host.callsOf('check').length).toBe(checks + 1);
  });

  it('a burst of updates asks the check, the log and the context map again once at once and once when liveRefreshMs has passed, not once per update; rows follow every update', async () => {
    const { store, host, info } = await started(150, 60_000);
    await store.getState().loadContextMap();
    await store.getState().loadLog();
    await settle();
    const asked = () => ({ check: host.callsOf('check').length, log: host.callsOf('log').length });
    const first = asked();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      for (let k = 1; k <= 5; k++) {
        const grown = { ...info, rows: 150 + k, messages: 150 + k };
        host.setSession(grown);
        host.emit({ name: 'sessionUpdated', payload: { generation: 3, info: grown, new_messages: 1, calls: 3 } });
        // Every update shows its rows at once.
        expect(store.getState().rowCount).toBe(150 + k);
      }
      // The first update refreshed at once (its answers arrive); the other four wait for one refresh.
      await vi.advanceTimersByTimeAsync(0);
      expect(asked()).toEqual({ check: first.check + 1, log: first.log + 1 });
      expect(vi.getTimerCount()).toBe(1);
      await vi.advanceTimersByTimeAsync(60_000);
      expect(vi.getTimerCount()).toBe(0);
      expect(store.getState().contextMapStatus).toBe('idle');
      expect(asked()).toEqual({ check: first.check + 2, log: first.log + 2 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('a check slower than the updates is asked one at a time: refreshes meanwhile ask one more once it is answered, and its findings show', async () => {
    const { store, host, info } = await started(150, 0);
    await settle();
    const held: Deferred<Reply<'check'>>[] = [];
    const report = await host.api.check({});
    host.answer('check', () => {
      const d = deferred<Reply<'check'>>();
      held.push(d);
      return d.promise;
    });
    const checks = host.callsOf('check').length;
    for (let k = 1; k <= 4; k++) {
      const grown = { ...info, rows: 150 + k, messages: 150 + k };
      host.setSession(grown);
      host.emit({ name: 'sessionUpdated', payload: { generation: 3, info: grown, new_messages: 1, calls: 3 } });
      await settle();
    }
    // Four refreshes, one check in flight.
    expect(host.callsOf('check').length).toBe(checks + 1);
    held[0]?.resolve(report);
    await settle();
    // Answered (about a smaller session): one more is asked for the session as it is now.
    expect(host.callsOf('check').length).toBe(checks + 2);
    held[1]?.resolve(report);
    await settle();
    expect(host.callsOf('check').length).toBe(checks + 2);
    expect(store.getState().checkStatus).toBe('done');
  });

  it('a reopen starts a new list with a notice; a deleted file keeps everything and says so; another generation is ignored', async () => {
    const { store, host, info } = await started();
    const listEpoch = store.getState().listEpoch;
    host.emit({ name: 'sessionUpdated', payload: { generation: 2, info: { ...info, generation: 2, rows: 9 }, new_messages: 0, calls: 0 } });
    expect(store.getState().rowCount).toBe(150);

    const pages = store.getState().rowPages;
    host.emit({ name: 'sessionUpdated', payload: { generation: 3, info, new_messages: 0, calls: 0, notice: { kind: 'deleted', message: 'a.sidecar.jsonl was deleted: what was read from it is still shown' } } });
    expect(store.getState().liveNotice).toContain('was deleted');
    expect(store.getState().rowPages).toBe(pages);
    expect(store.getState().listEpoch).toBe(listEpoch);

    const reopened = { ...info, rows: 40, messages: 40 };
    host.emit({ name: 'sessionUpdated', payload: { generation: 3, info: reopened, new_messages: 0, calls: 0, notice: { kind: 'reopened', message: 'a.sidecar.jsonl shrank: the session was reopened from scratch' } } });
    expect(store.getState().listEpoch).toBe(listEpoch + 1);
    expect(store.getState().rowCount).toBe(40);
    expect(store.getState().liveNotice).toContain('reopened from scratch');
  });

  it('the Follow file setting asks the host, which reopens the session (sessionOpened follows)', async () => {
    const { store, host } = await started();
    await store.getState().setFollow(false);
    expect(host.callsOf('setFollow')).toEqual([{ follow: false }]);
    expect(store.getState().alerts).toEqual([]);
  });
});
