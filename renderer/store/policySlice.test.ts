/** The store's policy replay and what-if: one result per session, the last policy asked for wins. */
import { describe, expect, it } from 'vitest';
import type { Reply } from '../../shared/contract';
import type { ReductionPolicy } from '../../shared/format/types';
import { createAppStore } from './store';
import { deferred, fakeHost, sessionInfo, settle } from './testing/fakeHost';

const POLICY: ReductionPolicy = { protect_last_n_tool_results: 2, max_tool_result_bytes: 4096, kept_prefix_bytes: 1024, dedupe: true, clear_turns_before: null };
const counts = (added: number) => ({ counts: { added, removed: 0, changed: 0, messages: 0 }, bytes: { recorded: 10, policy: 10 }, added: [], removed: [], changed: [], messages: [] });

async function started(host = fakeHost()) {
  const store = createAppStore(host.api, { timing: { searchDebounceMs: 0, rangeDebounceMs: 0, verifyBatchMs: 0 } });
  store.getState().start();
  await settle();
  return { store, host };
}

describe('policy replay and what-if in the store', () => {
  it('a replay answered after another session opened is dropped, and the new session starts with none', async () => {
    const { store, host } = await started();
    const held = deferred<Reply<'replay'>>();
    host.answer('replay', () => held.promise);
    const replay = store.getState().runReplay();
    expect(store.getState().replayStatus).toBe('running');
    host.emit({ name: 'sessionOpened', payload: sessionInfo({ generation: 2 }) });
    await settle();
    held.resolve({ ok: true, value: { replayed: true, policy: POLICY, passes: 3, findings: [], divergences: 0 } });
    await replay;
    expect(store.getState()).toMatchObject({ replayStatus: 'idle', replayResult: null });
  });

  it('keeps only the what-if of the last policy asked for when replies come out of order', async () => {
    const { store, host } = await started();
    const slow = deferred<Reply<'whatIf'>>();
    host.answer('whatIf', ({ policy }) => (policy.max_tool_result_bytes === 1 ? slow.promise : { ok: true, value: counts(2) }));
    const first = store.getState().runWhatIf({ ...POLICY, max_tool_result_bytes: 1 });
    await store.getState().runWhatIf({ ...POLICY, max_tool_result_bytes: 2 });
    slow.resolve({ ok: true, value: counts(1) });
    await first;
    expect(store.getState().whatIfResult?.counts.added).toBe(2);
    expect(store.getState().whatIfPolicy?.max_tool_result_bytes).toBe(2);
    expect(host.callsOf('whatIf')).toHaveLength(2);
  });
});
