/**
 * The session picker's store side (SPEC §10.1): choosing a session reopens the open file (the
 * offered file whose names are the session's) on it; a failed choice is shown like any failed
 * open and the session that was open comes back.
 */
import { describe, expect, it } from 'vitest';
import type { ResultOf } from '../../shared/contract';
import { createAppStore } from './store';
import { openOfferedFile } from './sessionSlice';
import { fakeHost, sessionInfo, settle } from './testing/fakeHost';

const SESSIONS = [
  { id: 'main-uuid', messages: 4 },
  { id: 'agent-1', title: 'Explore the code', messages: 35 },
];
const FILES: ResultOf<'state'>['files'] = [
  { id: 'file-1', name: 'other.jsonl', bytes: 1 },
  { id: 'file-2', name: 't.jsonl', bytes: 2 },
];
const OPEN = sessionInfo({ files: [{ path: '/p/t.jsonl', format: 'claude-code', bytes: 2 }], format: 'claude-code', sessions: SESSIONS, session: '' });

async function started(host = fakeHost(OPEN, FILES)) {
  const store = createAppStore(host.api, { timing: { searchDebounceMs: 0, rangeDebounceMs: 0, verifyBatchMs: 0 } });
  store.getState().start();
  await settle();
  return { store, host };
}

describe('openOfferedFile', () => {
  it('is the offered file named as the session files are (a pair in either order), the last one when several are', () => {
    const pair = sessionInfo({ files: [{ path: '/a/s.session.json', format: 'supercode-snapshot', bytes: 1 }, { path: '/a/s.sidecar.jsonl', format: 'supercode-sidecar', bytes: 1 }] });
    const files = [
      { id: 'file-1', name: 's.sidecar.jsonl + s.session.json', bytes: 2 },
      { id: 'file-2', name: 's.sidecar.jsonl', bytes: 1 },
      { id: 'file-3', name: 's.session.json + s.sidecar.jsonl', bytes: 2 },
    ];
    expect(openOfferedFile(files, pair)?.id).toBe('file-3');
    expect(openOfferedFile(files, null)).toBeUndefined();
    expect(openOfferedFile(files.slice(1, 2), pair)).toBeUndefined();
  });
});

describe('openSession', () => {
  it('reopens the open file on the chosen session, and on the main one with no session named', async () => {
    const { store, host } = await started();
    const switched = sessionInfo({ ...OPEN, generation: 2, session: 'agent-1', messages: 35 });
    host.answer('openFile', () => ({ ok: true, value: switched }));
    await store.getState().openSession('agent-1');
    expect(host.callsOf('openFile')).toEqual([{ id: 'file-2', session: 'agent-1' }]);
    expect(store.getState().session).toEqual(switched);
    host.answer('openFile', () => ({ ok: true, value: { ...OPEN, generation: 3 } }));
    await store.getState().openSession('');
    expect(host.callsOf('openFile')[1]).toEqual({ id: 'file-2' });
    expect(store.getState().session?.session).toBe('');
  });

  it('asks the host again for its files when the open one is not among those it knew (a file opened from the dialog)', async () => {
    const { store, host } = await started(fakeHost(OPEN, FILES.slice(0, 1)));
    host.answer('state', () => ({ ok: true, value: { host: 'electron', session: OPEN, files: FILES, loadError: null } }));
    await store.getState().openSession('agent-1');
    expect(host.callsOf('openFile')).toEqual([{ id: 'file-2', session: 'agent-1' }]);
  });

  it('a failed choice shows the error as an alert and reopens the session that was open', async () => {
    const { store, host } = await started(fakeHost(sessionInfo({ ...OPEN, session: 'agent-1' }), FILES));
    const error = { code: 'usage' as const, message: 't.jsonl holds no session "agent-2": its sessions are main-uuid, agent-1' };
    let answered = 0;
    host.answer('openFile', () => {
      answered++;
      // The host closed the open session before it tried the new one.
      host.emit({ name: 'sessionClosed', payload: { generation: 1 } });
      return answered === 1 ? { ok: false, error } : { ok: true, value: sessionInfo({ ...OPEN, generation: 3, session: 'agent-1' }) };
    });
    await store.getState().openSession('agent-2');
    expect(store.getState().alerts.map((a) => a.message)).toEqual([error.message]);
    expect(host.callsOf('openFile')).toEqual([
      { id: 'file-2', session: 'agent-2' },
      { id: 'file-2', session: 'agent-1' },
    ]);
    expect(store.getState().session).toMatchObject({ generation: 3, session: 'agent-1' });
  });

  it('a superseded choice is not a failure: nothing is reopened and nothing alerts', async () => {
    const { store, host } = await started();
    host.answer('openFile', () => ({ ok: false, error: { code: 'cancelled', message: 'superseded' } }));
    await store.getState().openSession('agent-1');
    expect(host.callsOf('openFile')).toHaveLength(1);
    expect(store.getState().alerts).toEqual([]);
  });
});
