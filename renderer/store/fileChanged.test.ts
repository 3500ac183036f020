/** The window says when a file of the open session changed on disk: an alert naming it. */
import { describe, expect, it } from 'vitest';
import { createAppStore } from './store';
import { fakeHost, sessionInfo, settle } from './testing/fakeHost';

async function started() {
  const host = fakeHost(sessionInfo({ generation: 3 }));
  const store = createAppStore(host.api, { timing: { searchDebounceMs: 0, rangeDebounceMs: 0, verifyBatchMs: 0 } });
  store.getState().start();
  await settle();
  return { store, host };
}

describe('a fileChanged event', () => {
  it('about the open session: an alert names the file and says to open it again', async () => {
    const { store, host } = await started();
    store.setState({ statuses: new Map([['r1', { id: 'r1', status: 'verified' as const }]]) });
    host.emit({ name: 'fileChanged', payload: { generation: 3, path: '/work/runs/a.sidecar.jsonl', message: '/work/runs/a.sidecar.jsonl changed on disk since it was opened: its size went from 10 to 12 bytes' } });
    expect(store.getState().alerts.map((a) => `${a.message} ${a.hint ?? ''}`)).toEqual([
      'a.sidecar.jsonl changed on disk since it was opened; its content is no longer shown as verified. Open the file again to read what it holds now.',
    ]);
    // No reduction still shows as verified.
    expect(store.getState().statuses.size).toBe(0);
  });

  it('about a session no longer shown: nothing', async () => {
    const { store, host } = await started();
    host.emit({ name: 'fileChanged', payload: { generation: 2, path: '/x/old.sidecar.jsonl', message: 'changed' } });
    expect(store.getState().alerts).toEqual([]);
  });
});
