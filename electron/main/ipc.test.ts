import { mkdirSync, writeFileSync } from 'node:fs';
import type { WebContents } from 'electron';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { METHOD_NAMES } from '../../shared/contract';
import type { HostEvent, Method, Reply } from '../../shared/contract';
import type { SessionHost } from '../host/types';
import { tempDir } from '../../tools/testing/files';
import { APP_INDEX_URL } from './appProtocol';
import { CHANNEL_METHOD_NAMES, EVENT_CHANNEL, METHOD_CHANNELS, OPEN_DROPPED_CHANNEL } from './channels';
import { checkDroppedPath, eventSender, IPC_CHANNELS, isTrustedAppFrame, registerIpc, trustedFrameOf } from './ipc';
import type { FakeFrame } from './testing/fakeElectron';
import { FakeIpcMain, FakeWebContents } from './testing/fakeElectron';

const OPENED: Reply<'openFile'> = { ok: false, error: { code: 'no_session', message: 'fake: nothing opened' } };

function fakeHost() {
  const handle = vi.fn((method: string, params: unknown): Promise<Reply<Method>> => Promise.resolve({ ok: true, value: { method, params } } as unknown as Reply<Method>));
  const openPaths = vi.fn((_paths: string[]) => Promise.resolve(OPENED));
  const host: SessionHost = { handle, openPaths, onEvent: vi.fn(() => () => undefined), current: () => [], dispose: vi.fn(() => Promise.resolve()) };
  return { host, handle, openPaths };
}

let ipcMain: FakeIpcMain;
let contents: FakeWebContents;
let host: ReturnType<typeof fakeHost>;
let trusted: FakeFrame;
let dir: ReturnType<typeof tempDir>;

beforeEach(() => {
  ipcMain = new FakeIpcMain();
  contents = new FakeWebContents();
  host = fakeHost();
  trusted = contents.mainFrame;
  registerIpc(ipcMain, host.host, trustedFrameOf(() => contents as unknown as WebContents));
  dir = tempDir();
});
afterEach(() => dir.cleanup());

const untrusted = { ok: false, error: { code: 'invalid_request', message: 'untrusted sender' } };

describe('channels', () => {
  it('name one channel per contract method, si:<method>', () => {
    expect(new Set(CHANNEL_METHOD_NAMES)).toEqual(new Set(METHOD_NAMES));
    for (const method of METHOD_NAMES) expect(METHOD_CHANNELS[method]).toBe(`si:${method}`);
    expect(OPEN_DROPPED_CHANNEL).toBe('si:openDropped');
    expect(EVENT_CHANNEL).toBe('si:event');
  });
});

describe('registerIpc', () => {
  it('registers exactly one handler per contract method, plus openDropped', () => {
    expect([...ipcMain.handlers.keys()].sort()).toEqual([...METHOD_NAMES.map((m) => `si:${m}`), 'si:openDropped'].sort());
    expect(ipcMain.handle).toHaveBeenCalledTimes(METHOD_NAMES.length + 1);
    expect(new Set(IPC_CHANNELS)).toEqual(new Set(ipcMain.handlers.keys()));
  });

  it('forwards a trusted request to host.handle with its method and params, and answers the host reply', async () => {
    for (const method of METHOD_NAMES) {
      const params = { probe: method };
      expect(await ipcMain.invoke(`si:${method}`, trusted, params)).toEqual({ ok: true, value: { method, params } });
      expect(host.handle).toHaveBeenLastCalledWith(method, params);
    }
    expect(host.handle).toHaveBeenCalledTimes(METHOD_NAMES.length);
  });

  it('refuses a null sender frame', async () => {
    expect(await ipcMain.invoke('si:state', null, {})).toEqual(untrusted);
    expect(await ipcMain.invoke('si:openDropped', null, dir.path('x'))).toEqual(untrusted);
    expect(host.handle).not.toHaveBeenCalled();
  });

  it('refuses a frame of another origin, even in our window', async () => {
    for (const url of ['https://example.com/', 'file:///tmp/evil.html', 'app://evil/index.html', 'about:blank', 'devtools://devtools/x.html']) {
      contents.mainFrame = { ...trusted, url };
      expect(await ipcMain.invoke('si:expand', contents.mainFrame, { id: 'r1' }), url).toEqual(untrusted);
    }
    expect(host.handle).not.toHaveBeenCalled();
  });

  it('refuses a subframe showing the app origin', async () => {
    const subframe: FakeFrame = { url: APP_INDEX_URL, parent: trusted, processId: trusted.processId, routingId: trusted.routingId + 100, detached: false };
    expect(await ipcMain.invoke('si:state', subframe, {})).toEqual(untrusted);
    // A frame claiming our main frame's ids but having a parent is still a subframe.
    expect(await ipcMain.invoke('si:state', { ...trusted, parent: trusted }, {})).toEqual(untrusted);
    expect(host.handle).not.toHaveBeenCalled();
  });

  it('refuses the main frame of another window, a detached frame, a disposed frame, and any frame when our window is gone', async () => {
    const otherWindow = new FakeWebContents().mainFrame;
    expect(await ipcMain.invoke('si:state', otherWindow, {})).toEqual(untrusted);
    expect(await ipcMain.invoke('si:state', { ...trusted, detached: true }, {})).toEqual(untrusted);
    const disposed = Object.defineProperty({ ...trusted }, 'url', {
      get() {
        throw new Error('Render frame was disposed before WebFrameMain could be accessed');
      },
    });
    expect(await ipcMain.invoke('si:state', disposed, {})).toEqual(untrusted);
    contents.destroyed = true;
    expect(await ipcMain.invoke('si:state', trusted, {})).toEqual(untrusted);
    expect(host.handle).not.toHaveBeenCalled();
  });

  it('answers internal_error instead of rejecting if the host throws', async () => {
    host.handle.mockRejectedValueOnce(new Error('boom'));
    expect(await ipcMain.invoke('si:state', trusted, {})).toEqual({ ok: false, error: { code: 'internal_error', message: 'boom' } });
  });

  it('removes every handler it registered', () => {
    const other = new FakeIpcMain();
    const unregister = registerIpc(other, host.host, () => true);
    unregister();
    expect(other.handlers.size).toBe(0);
  });
});

describe('openDropped', () => {
  it('opens a real regular file given by absolute path', async () => {
    const file = dir.path('session.sidecar.jsonl');
    writeFileSync(file, '{}\n');
    expect(await ipcMain.invoke('si:openDropped', trusted, file)).toEqual(OPENED);
    expect(host.openPaths).toHaveBeenCalledWith([file]);
  });

  it('refuses what is not an absolute path of an existing regular file', async () => {
    mkdirSync(dir.path('folder'));
    const cases: [unknown, string][] = [
      [42, 'invalid_request'],
      [undefined, 'invalid_request'],
      [{ path: '/etc/hosts' }, 'invalid_request'],
      [['/etc/hosts'], 'invalid_request'],
      ['', 'unreadable_file'],
      ['relative/session.sidecar.jsonl', 'invalid_request'],
      ['./session.sidecar.jsonl', 'invalid_request'],
      [`${dir.path('x')}\0.jsonl`, 'invalid_request'],
      [dir.path('folder'), 'unreadable_file'],
      [dir.path('missing.sidecar.jsonl'), 'unreadable_file'],
    ];
    for (const [path, code] of cases) {
      const reply = (await ipcMain.invoke('si:openDropped', trusted, path)) as Reply<'openFile'>;
      expect(reply.ok, String(path)).toBe(false);
      if (!reply.ok) expect(reply.error.code, String(path)).toBe(code);
    }
    expect(host.openPaths).not.toHaveBeenCalled();
  });

  it('checkDroppedPath explains each refusal', () => {
    mkdirSync(dir.path('folder'));
    const folder = checkDroppedPath(dir.path('folder'));
    expect(folder.ok ? '' : folder.error.message).toContain('Not a regular file');
    const missing = checkDroppedPath(dir.path('nope'));
    expect(missing.ok ? '' : missing.error.message).toContain('No such file');
  });
});

describe('isTrustedAppFrame', () => {
  it('needs both frames, the same ids, no parent, and the app origin', () => {
    expect(isTrustedAppFrame(trusted, trusted)).toBe(true);
    expect(isTrustedAppFrame(null, trusted)).toBe(false);
    expect(isTrustedAppFrame(trusted, null)).toBe(false);
    expect(isTrustedAppFrame({ ...trusted, processId: trusted.processId + 1 }, trusted)).toBe(false);
  });
});

describe('eventSender', () => {
  const event: HostEvent = { name: 'command', payload: { name: 'focusSearch' } };

  it('sends host events to the window on si:event', () => {
    eventSender(() => contents as unknown as WebContents)(event);
    expect(contents.send).toHaveBeenCalledWith('si:event', event);
  });

  it('drops events while there is no live window', () => {
    eventSender(() => null)(event);
    contents.destroyed = true;
    eventSender(() => contents as unknown as WebContents)(event);
    expect(contents.send).not.toHaveBeenCalled();
  });
});
