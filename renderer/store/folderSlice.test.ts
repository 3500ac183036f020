/** Opening files in the store: files opened one at a time, the upload shown while it runs, the folder listing. */
import { describe, expect, it } from 'vitest';
import type { Reply, ResultOf } from '../../shared/contract';
import type { AppStoreOptions } from './store';
import { createAppStore } from './store';
import { deferred, fakeHost, sessionInfo, settle } from './testing/fakeHost';

const NO_DELAY: AppStoreOptions['timing'] = { searchDebounceMs: 0, rangeDebounceMs: 0, verifyBatchMs: 0 };
const file = (name: string): File => new File(['x'], name);

async function started(host = fakeHost(null), options: AppStoreOptions = {}) {
  const store = createAppStore(host.api, { timing: NO_DELAY, ...options });
  store.getState().start();
  await settle();
  return { store, host };
}

describe('openFiles', () => {
  it('opens nothing when several files come at once, and says to open one at a time', async () => {
    const opened: File[] = [];
    const { store } = await started(undefined, { openDropped: (f) => (opened.push(f), Promise.resolve({ ok: true, value: sessionInfo({ generation: 2 }) })) });
    await store.getState().openFiles([file('a.sidecar.jsonl'), file('a.session.json')]);
    expect(opened).toEqual([]);
    expect(store.getState().session).toBeNull();
    expect(store.getState().alerts.map((a) => a.message)).toEqual(['2 files were given at once; nothing was opened.']);
  });

  it('shows the upload while it runs, then the session, and the offered files again (the upload under its label)', async () => {
    const host = fakeHost(null);
    const upload = deferred<Reply<'openFile'>>();
    const { store } = await started(host, { openDropped: () => upload.promise });
    const opening = store.getState().openFiles([file('mine.sidecar.jsonl')]);
    await settle();
    expect(store.getState().uploading).toBe('mine.sidecar.jsonl');
    const files = [{ id: 'file-2', name: 'mine.sidecar.jsonl', bytes: 1 }];
    host.answer('state', () => ({ ok: true, value: { host: 'http', session: sessionInfo({ generation: 2 }), files, loadError: null } }));
    upload.resolve({ ok: true, value: sessionInfo({ generation: 2 }) });
    await opening;
    expect(store.getState().uploading).toBeNull();
    expect(store.getState().session?.generation).toBe(2);
    expect(store.getState().offeredFiles).toEqual(files);
  });

  it('a file dropped while another uploads: the first answers superseded, no alert, and the second stays shown as uploading until it is opened', async () => {
    const host = fakeHost(null);
    const uploads = new Map([
      ['first.sidecar.jsonl', deferred<Reply<'openFile'>>()],
      ['second.sidecar.jsonl', deferred<Reply<'openFile'>>()],
    ]);
    const { store } = await started(host, { openDropped: (f) => uploads.get(f.name)!.promise });
    const first = store.getState().openFiles([file('first.sidecar.jsonl')]);
    await settle();
    const second = store.getState().openFiles([file('second.sidecar.jsonl')]);
    await settle();
    uploads.get('first.sidecar.jsonl')!.resolve({ ok: false, error: { code: 'cancelled', message: 'uploading first.sidecar.jsonl was superseded by a file dropped after it' } });
    await first;
    expect(store.getState().uploading).toBe('second.sidecar.jsonl');
    expect(store.getState().alerts).toEqual([]);
    uploads.get('second.sidecar.jsonl')!.resolve({ ok: true, value: sessionInfo({ generation: 2 }) });
    await second;
    expect(store.getState().uploading).toBeNull();
    expect(store.getState().session?.generation).toBe(2);
  });

  it('a file of the same name dropped while the first uploads stays shown as uploading until it is opened', async () => {
    const host = fakeHost(null);
    const uploads = [deferred<Reply<'openFile'>>(), deferred<Reply<'openFile'>>()];
    let sent = 0;
    const { store } = await started(host, { openDropped: () => uploads[sent++]!.promise });
    const first = store.getState().openFiles([file('same.sidecar.jsonl')]);
    await settle();
    const second = store.getState().openFiles([file('same.sidecar.jsonl')]);
    await settle();
    uploads[0]!.resolve({ ok: false, error: { code: 'cancelled', message: 'uploading same.sidecar.jsonl was superseded by a file dropped after it' } });
    await first;
    expect(store.getState().uploading).toBe('same.sidecar.jsonl');
    uploads[1]!.resolve({ ok: true, value: sessionInfo({ generation: 2 }) });
    await second;
    expect(store.getState().uploading).toBeNull();
  });

  it('shows a refused upload as an alert, and the upload is no longer shown as running', async () => {
    const { store } = await started(undefined, { openDropped: () => Promise.resolve({ ok: false, error: { code: 'invalid_request', message: 'the file is larger than the upload limit of 10 bytes' } }) });
    await store.getState().openFiles([file('big.sidecar.jsonl')]);
    expect(store.getState().uploading).toBeNull();
    expect(store.getState().alerts.map((a) => a.message)).toEqual(['the file is larger than the upload limit of 10 bytes']);
  });

  it('keeps a refused upload`s alert while the session shown comes back, and the next successful open takes it away', async () => {
    const host = fakeHost(sessionInfo({ generation: 1 }));
    let reply: Reply<'openFile'> = { ok: false, error: { code: 'unrecognized_file', message: 'notes.txt is neither a sidecar nor a session snapshot' } };
    const { store } = await started(host, { openDropped: () => Promise.resolve(reply) });
    await store.getState().openFiles([file('notes.txt')]);
    // The host shows the session it had again (a new open of the same file): the error stays.
    host.emit({ name: 'sessionOpened', payload: sessionInfo({ generation: 3 }) });
    expect(store.getState().session?.generation).toBe(3);
    expect(store.getState().alerts.map((a) => a.message)).toEqual(['notes.txt is neither a sidecar nor a session snapshot']);
    // What the next open itself says (a newer format version) is not taken away with it.
    reply = { ok: true, value: sessionInfo({ generation: 4, stopped: true }) };
    await store.getState().openFiles([file('session.sidecar.jsonl')]);
    expect(store.getState().session?.generation).toBe(4);
    expect(store.getState().alerts.map((a) => a.message)).toEqual([expect.stringMatching(/written by a newer format version/)]);
  });
});

describe('the served folder', () => {
  const LISTING: ResultOf<'folder'> = {
    name: 'runs',
    entries: [
      { id: 'entry-1', name: 'a.sidecar.jsonl', format: 'supercode', bytes: 10 },
      { id: 'entry-2', name: 'link.jsonl', bytes: 0, refused: 'a symbolic link: not followed' },
    ],
    scanned: 2,
    truncated: false,
  };

  it('keeps no listing when the host serves no folder, and no alert', async () => {
    const { store } = await started();
    await store.getState().loadFolder();
    expect(store.getState().folder).toBeNull();
    expect(store.getState().alerts).toEqual([]);
  });

  it('lists the folder, and opens an entry by its id', async () => {
    const host = fakeHost(null);
    host.answer('folder', () => ({ ok: true, value: LISTING }));
    const { store } = await started(host);
    await store.getState().loadFolder();
    expect(store.getState().folder).toEqual(LISTING);
    await store.getState().openFolderEntry('entry-1');
    expect(host.callsOf('openFile')).toEqual([{ id: 'entry-1' }]);
    expect(store.getState().session).not.toBeNull();
  });
});
