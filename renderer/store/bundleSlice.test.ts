/**
 * Repro bundles' states in the store (docs/bundles.md "In the app"): a search runs for minutes while
 * the row holding its control may be unmounted by the virtual scroller, so what it shows lives here,
 * by target, for the open session.
 */
import { describe, expect, it } from 'vitest';
import type { Reply, ResultOf } from '../../shared/contract';
import { reproBundleKey } from './bundleSlice';
import { createAppStore } from './store';
import type { Deferred } from './testing/fakeHost';
import { deferred, fakeHost, sessionInfo, settle } from './testing/fakeHost';

function made(name: string): ResultOf<'reproBundle'> {
  return { name, files: [{ name: 'README.md', base64: btoa('hello') }], command: `session-inspector bundle x --out ${name}`, ids: [], codes: ['c'], oracle_calls: 12, bytes_before: 1000, bytes_after: 100, stop: 'minimal', stopped_early: null, cut: [] };
}

async function started() {
  const info = sessionInfo({ generation: 4 });
  const host = fakeHost(info);
  const held: Deferred<Reply<'reproBundle'>>[] = [];
  host.answer('reproBundle', () => {
    const d = deferred<Reply<'reproBundle'>>();
    held.push(d);
    return d.promise;
  });
  const store = createAppStore(host.api, { timing: { searchDebounceMs: 0, rangeDebounceMs: 0, verifyBatchMs: 0, liveRefreshMs: 0 } });
  store.getState().start();
  await settle();
  return { store, host, info, held };
}

const FINDING = { codes: ['chain_broken'], ids: [] };
const REDUCTION = { codes: [], ids: ['r10'] };

describe('a repro bundle', () => {
  it('is running in the store while the host searches, then done with the bundle made; each target has its own state', async () => {
    const { store, host, held } = await started();
    const result = store.getState().startReproBundle(FINDING);
    await settle();
    const state = store.getState().reproBundles[reproBundleKey(FINDING)];
    expect(state).toMatchObject({ status: 'running', stopping: false });
    expect(store.getState().reproBundles[reproBundleKey(REDUCTION)]).toBeUndefined();
    expect(host.callsOf('reproBundle')).toEqual([{ codes: ['chain_broken'], ids: [], bundleId: state?.status === 'running' ? state.bundleId : '' }]);

    // A second click while it runs asks nothing more.
    expect(await store.getState().startReproBundle(FINDING)).toBeNull();
    expect(host.callsOf('reproBundle')).toHaveLength(1);

    held[0]!.resolve({ ok: true, value: made('repro-chain_broken') });
    expect(await result).toEqual(made('repro-chain_broken'));
    expect(store.getState().reproBundles[reproBundleKey(FINDING)]).toEqual({ status: 'done', made: made('repro-chain_broken') });
  });

  it("says the host's error", async () => {
    const { store, held } = await started();
    const result = store.getState().startReproBundle(REDUCTION);
    await settle();
    held[0]!.resolve({ ok: false, error: { code: 'too_large', message: 'the bundle would be 9 MB' } });
    expect(await result).toBeNull();
    expect(store.getState().reproBundles[reproBundleKey(REDUCTION)]).toEqual({ status: 'error', message: 'the bundle would be 9 MB' });
  });

  it('Stop marks it stopping once and cancels it by its bundleId', async () => {
    const { store, host, held } = await started();
    const result = store.getState().startReproBundle(FINDING);
    await settle();
    store.getState().stopReproBundle(FINDING);
    store.getState().stopReproBundle(FINDING);
    const state = store.getState().reproBundles[reproBundleKey(FINDING)];
    expect(state).toMatchObject({ status: 'running', stopping: true });
    await settle();
    expect(host.callsOf('cancelBundle')).toEqual([{ bundleId: state?.status === 'running' ? state.bundleId : '' }]);
    held[0]!.resolve({ ok: true, value: { ...made('repro-chain_broken'), stop: 'cancelled', stopped_early: 'stopped by a cancel' } });
    expect((await result)?.stop).toBe('cancelled');
  });

  it('made over a session that grew meanwhile (followed live) is kept', async () => {
    const { store, host, info, held } = await started();
    const result = store.getState().startReproBundle(FINDING);
    await settle();
    const grown = { ...info, rows: info.rows + 5, messages: info.messages + 5 };
    host.emit({ name: 'sessionUpdated', payload: { generation: info.generation, info: grown, new_messages: 5, calls: 0 } });
    held[0]!.resolve({ ok: true, value: made('repro-chain_broken') });
    expect(await result).toEqual(made('repro-chain_broken'));
    expect(store.getState().reproBundles[reproBundleKey(FINDING)]?.status).toBe('done');
  });

  it("another session opened meanwhile drops it: the new session's controls are idle and the late reply is not shown", async () => {
    const { store, host, info, held } = await started();
    const result = store.getState().startReproBundle(FINDING);
    await settle();
    host.emit({ name: 'sessionOpened', payload: { ...info, generation: info.generation + 1 } });
    expect(store.getState().reproBundles).toEqual({});
    held[0]!.resolve({ ok: true, value: made('repro-chain_broken') });
    expect(await result).toBeNull();
    expect(store.getState().reproBundles).toEqual({});
  });
});
