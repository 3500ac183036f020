/**
 * One session per window in the desktop app (SPEC §14, docs/sessions-and-links.md), through
 * `startApp` over the fake Electron (no Electron binary runs here): each window has its own host,
 * an IPC message is answered by the host of the window whose main frame sent it, events go to their
 * own window only, and closing a window disposes its host.
 */
import type { MenuItemConstructorOptions } from 'electron';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { HostEvent, Method, Reply } from '../../shared/contract';
import type { SessionHost, SessionHostOptions } from '../host/types';
import { tempDir } from '../../tools/testing/files';
import { startApp } from './app';
import { fake, FakeBrowserWindow } from './testing/fakeElectron';
import type { FakeFrame } from './testing/fakeElectron';

vi.mock('electron', async () => (await import('./testing/fakeElectron')).electronModule);

/** A host that answers every method with its own name, and records what it was asked. */
function fakeHost(name: string) {
  const listeners = new Set<(event: HostEvent) => void>();
  return {
    name,
    handle: vi.fn((method: string) => Promise.resolve({ ok: true, value: { answeredBy: name, method } } as unknown as Reply<Method>)),
    openPaths: vi.fn((_paths: string[]) => Promise.resolve({ ok: true, value: {} } as unknown as Reply<'openFile'>)),
    current: () => [],
    onEvent: vi.fn((listener: (event: HostEvent) => void) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    }),
    dispose: vi.fn(() => Promise.resolve()),
    emit: (event: HostEvent) => listeners.forEach((l) => l(event)),
  };
}

let dir: ReturnType<typeof tempDir>;
let hosts: ReturnType<typeof fakeHost>[];
let made: Omit<SessionHostOptions, 'client'>[];

beforeEach(() => {
  fake.reset();
  dir = tempDir();
  fake.app.userData = dir.path('userData');
  hosts = [];
  made = [];
});
afterEach(() => dir.cleanup());

async function started(): Promise<void> {
  startApp({
    createHost: (options) => {
      made.push(options);
      const host = fakeHost(`host-${hosts.length + 1}`);
      hosts.push(host);
      const asHost: SessionHost = host;
      return asHost;
    },
    argv: ['/opt/si/session-inspector'],
    cwd: dir.dir,
    platform: 'linux',
    samplesDir: dir.path('samples-missing'),
  });
  await fake.app.becomeReady();
}

function newWindow(): FakeBrowserWindow {
  const template = fake.Menu.buildFromTemplate.mock.calls.at(-1)?.[0] as MenuItemConstructorOptions[];
  const file = template.find((i) => i.id === 'file')?.submenu as MenuItemConstructorOptions[];
  (file.find((i) => i.id === 'new-window')?.click as () => void)();
  return FakeBrowserWindow.instances.at(-1) as FakeBrowserWindow;
}

const untrusted = { ok: false, error: { code: 'invalid_request', message: 'untrusted sender' } };

describe('one session per window', () => {
  it('each window has a host of its own; a message is answered by the host of the window that sent it', async () => {
    await started();
    const first = FakeBrowserWindow.instances[0] as FakeBrowserWindow;
    const second = newWindow();
    expect(FakeBrowserWindow.instances).toHaveLength(2);
    expect(hosts.map((h) => h.name)).toEqual(['host-1', 'host-2']);
    expect(made.every((o) => o.host === 'electron')).toBe(true);
    expect(await fake.ipcMain.invoke('si:state', first.webContents.mainFrame, {})).toEqual({ ok: true, value: { answeredBy: 'host-1', method: 'state' } });
    expect(await fake.ipcMain.invoke('si:openFile', second.webContents.mainFrame, { id: 'file-1' })).toEqual({ ok: true, value: { answeredBy: 'host-2', method: 'openFile' } });
    expect(hosts[0]?.handle.mock.calls.map((c) => c[0])).toEqual(['state']);
    expect(hosts[1]?.handle.mock.calls.map((c) => c[0])).toEqual(['openFile']);
  });

  it('refuses a frame that is no window’s main frame showing the app: another origin, a subframe, a detached or unknown frame', async () => {
    await started();
    const first = FakeBrowserWindow.instances[0] as FakeBrowserWindow;
    newWindow();
    const main = first.webContents.mainFrame;
    const frames: (FakeFrame | null)[] = [
      null,
      { ...main, url: 'https://example.com/' },
      { ...main, parent: main },
      { ...main, detached: true },
      { ...main, routingId: 9_999 },
      { ...main, processId: 9_999 },
    ];
    for (const frame of frames) expect(await fake.ipcMain.invoke('si:state', frame, {})).toEqual(untrusted);
    expect(await fake.ipcMain.invoke('si:openDropped', { ...main, url: 'https://example.com/' }, '/etc/passwd')).toEqual(untrusted);
    for (const host of hosts) expect(host.handle).not.toHaveBeenCalled();
  });

  it('a host’s events go to its own window only', async () => {
    await started();
    const first = FakeBrowserWindow.instances[0] as FakeBrowserWindow;
    const second = newWindow();
    const event: HostEvent = { name: 'sessionClosed', payload: { generation: 4 } };
    hosts[1]?.emit(event);
    expect(second.webContents.send).toHaveBeenCalledWith('si:event', event);
    expect(first.webContents.send).not.toHaveBeenCalledWith('si:event', event);
  });

  it('closing a window disposes its host, and its frame is refused after; the other window keeps its session', async () => {
    await started();
    const first = FakeBrowserWindow.instances[0] as FakeBrowserWindow;
    const second = newWindow();
    const frame = second.webContents.mainFrame;
    second.close();
    expect(hosts[1]?.dispose).toHaveBeenCalledTimes(1);
    expect(hosts[0]?.dispose).not.toHaveBeenCalled();
    expect(await fake.ipcMain.invoke('si:state', frame, {})).toEqual(untrusted);
    expect(await fake.ipcMain.invoke('si:state', first.webContents.mainFrame, {})).toEqual({ ok: true, value: { answeredBy: 'host-1', method: 'state' } });
  });
});
