/** The counts of an open file's sessions arrive after its open (`sessionCounts`): the store shows them for the session they name only. */
import { describe, expect, it } from 'vitest';
import { createAppStore } from './store';
import { fakeHost, sessionInfo, settle } from './testing/fakeHost';

const listed = [
  { id: 'a_epoch_1', messages: 5 },
  { id: 'b_epoch_1', messages: 0, counting: 'pending' as const },
  { id: 'c_epoch_1', messages: 0, counting: 'pending' as const },
];

async function started() {
  const info = sessionInfo({ generation: 4, sessions: listed, format: 'inspect' });
  const host = fakeHost(info);
  const store = createAppStore(host.api, { timing: { searchDebounceMs: 0, rangeDebounceMs: 0, verifyBatchMs: 0, liveRefreshMs: 0 } });
  store.getState().start();
  await settle();
  return { store, host, info };
}

describe('a sessionCounts event', () => {
  it('replaces the shown session`s list, counts filled in, and nothing else', async () => {
    const { store, host, info } = await started();
    const counted = [listed[0]!, { id: 'b_epoch_1', messages: 12 }, { id: 'c_epoch_1', messages: 0, counting: 'failed' as const }];
    host.emit({ name: 'sessionCounts', payload: { generation: 4, sessions: counted } });
    expect(store.getState().session).toEqual({ ...info, sessions: counted });
  });

  it('about another generation (an earlier open) is ignored', async () => {
    const { store, host, info } = await started();
    host.emit({ name: 'sessionCounts', payload: { generation: 3, sessions: [{ id: 'x', messages: 9 }] } });
    expect(store.getState().session).toEqual(info);
  });
});
