import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MenuItemConstructorOptions } from 'electron';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { METHOD_NAMES } from '../../shared/contract';
import type { HostEvent, Method, Reply } from '../../shared/contract';
import type { SessionHost, SessionHostOptions } from '../host/types';
import { tempDir } from '../../tools/testing/files';
import { APP_INDEX_URL, APP_SCHEME_PRIVILEGED } from './appProtocol';
import { startApp } from './app';
import type { StartOptions } from './app';
import { OPEN_DIALOG_OPTIONS } from './openDialog';
import { fake, FakeBrowserWindow, fakeEvent } from './testing/fakeElectron';

vi.mock('electron', async () => (await import('./testing/fakeElectron')).electronModule);

/** The fake host's answer to every open (the app only logs a failed one). */
const OPENED = { ok: true, value: {} } as unknown as Reply<'openFile'>;

function fakeHost() {
  const listeners = new Set<(event: HostEvent) => void>();
  const host = {
    handle: vi.fn((_method: string, _params: unknown) => Promise.resolve({ ok: true, value: {} } as unknown as Reply<Method>)),
    openPaths: vi.fn((_paths: string[]) => Promise.resolve(OPENED)),
    current: () => [],
    onEvent: vi.fn((listener: (event: HostEvent) => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    }),
    dispose: vi.fn(() => Promise.resolve()),
    emit: (event: HostEvent) => listeners.forEach((listener) => listener(event)),
  };
  return host satisfies SessionHost;
}

let dir: ReturnType<typeof tempDir>;
let host: ReturnType<typeof fakeHost>;
let hostOptions: Omit<SessionHostOptions, 'client'> | undefined;

function start(overrides: Partial<StartOptions> = {}) {
  startApp({
    createHost: (options) => {
      hostOptions = options;
      return host;
    },
    argv: ['/opt/si/session-inspector'],
    cwd: dir.dir,
    platform: 'linux',
    samplesDir: dir.path('samples-missing'),
    libraryContext: { env: { SESSION_INSPECTOR_CACHE_DIR: dir.path('cache') }, home: dir.path('home'), cwd: dir.dir, platform: 'linux' },
    ...overrides,
  });
}

const window = () => FakeBrowserWindow.instances.at(-1);
const flush = () => new Promise((resolve) => setImmediate(resolve));

/** The menu template last set as the application menu. */
function menu(): MenuItemConstructorOptions[] {
  const template = fake.Menu.buildFromTemplate.mock.calls.at(-1)?.[0];
  if (!Array.isArray(template)) throw new Error('no menu was built');
  return template as MenuItemConstructorOptions[];
}
function menuItem(id: string): MenuItemConstructorOptions {
  const walk = (items: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] => items.flatMap((i) => [i, ...(Array.isArray(i.submenu) ? walk(i.submenu) : [])]);
  const item = walk(menu()).find((i) => i.id === id);
  if (!item) throw new Error(`no menu item ${id}`);
  return item;
}
function click(id: string): void {
  (menuItem(id).click as () => void)();
}

beforeEach(() => {
  fake.reset();
  dir = tempDir();
  fake.app.userData = dir.path('userData');
  host = fakeHost();
  hostOptions = undefined;
});
afterEach(() => dir.cleanup());

describe('startApp before ready', () => {
  it('registers app:// as a privileged scheme before the app is ready', () => {
    start();
    expect(fake.protocol.registerSchemesAsPrivileged).toHaveBeenCalledWith([APP_SCHEME_PRIVILEGED]);
  });

  it('quits at once when another instance holds the lock, handing it its files', () => {
    fake.app.lockObtained = false;
    start({ argv: ['/opt/si', 'x.sidecar.jsonl'] });
    expect(fake.app.requestSingleInstanceLock).toHaveBeenCalledWith({ files: [join(dir.dir, 'x.sidecar.jsonl')], source: {} });
    expect(fake.app.quit).toHaveBeenCalled();
    expect(fake.app.whenReady).not.toHaveBeenCalled();
  });

  it('guards every web contents created', () => {
    start();
    expect(fake.app.listenerCount('web-contents-created')).toBe(1);
  });
});

describe('startApp when ready', () => {
  it('creates the host, registers IPC for every method, builds the menu, opens the window and the named files', async () => {
    const file = dir.path('s.sidecar.jsonl');
    start({ argv: ['/opt/si', '--enable-logging', 's.sidecar.jsonl'] });
    await fake.app.becomeReady();
    expect(hostOptions).toMatchObject({ host: 'electron', files: [file] });
    expect([...fake.ipcMain.handlers.keys()].sort()).toEqual([...METHOD_NAMES.map((m) => `si:${m}`), 'si:openDropped'].sort());
    expect(fake.Menu.setApplicationMenu).toHaveBeenCalled();
    expect(FakeBrowserWindow.instances).toHaveLength(1);
    expect(host.openPaths).toHaveBeenCalledWith([file], {});
    expect(fake.defaultSession.protocol.handle).toHaveBeenCalledWith('app', expect.any(Function));
    expect(fake.defaultSession.setPermissionRequestHandler).toHaveBeenCalled();
  });

  it('opens the named file on the session and format of --session=ID --format=F (what `open --session` passes on)', async () => {
    const file = dir.path('t.jsonl');
    start({ argv: ['/opt/si', '--session=agent-1', 't.jsonl', '--format=claude-code'] });
    await fake.app.becomeReady();
    expect(hostOptions).toMatchObject({ files: [file] });
    expect(host.openPaths).toHaveBeenCalledWith([file], { session: 'agent-1', format: 'claude-code' });
    // A second instance's files open on its own session, not on the first one's.
    fake.app.emit('second-instance', fakeEvent(), ['/opt/si'], '/there', { files: ['/a/two.jsonl'], source: { session: 'b' } });
    expect(host.openPaths).toHaveBeenLastCalledWith(['/a/two.jsonl'], { session: 'b' });
  });

  it('opens nothing and gives every window the session library when no file is named (windowLibrary.test.ts drives it)', async () => {
    const samples = dir.path('');
    writeFileSync(dir.path('demo.sidecar.jsonl'), '');
    start({ samplesDir: samples });
    await fake.app.becomeReady();
    expect(host.openPaths).not.toHaveBeenCalled();
    expect(hostOptions?.library).toBeDefined();
  });

  it('opens the bundled sample when no file is named but --session or --format is', async () => {
    const samples = dir.path('');
    writeFileSync(dir.path('demo.sidecar.jsonl'), '');
    start({ samplesDir: samples, argv: ['/opt/si', '--session=s-demo'] });
    await fake.app.becomeReady();
    expect(host.openPaths).toHaveBeenCalledWith([join(samples, 'demo.sidecar.jsonl')], { session: 's-demo' });
    expect(hostOptions?.library).toBeUndefined();
  });

  it('answers IPC only from the main frame of its window', async () => {
    start();
    await fake.app.becomeReady();
    const frame = window()!.webContents.mainFrame;
    await fake.ipcMain.invoke('si:state', frame, {});
    expect(host.handle).toHaveBeenCalledWith('state', {});
    expect(await fake.ipcMain.invoke('si:state', { ...frame, url: 'https://example.com/' }, {})).toEqual({ ok: false, error: { code: 'invalid_request', message: 'untrusted sender' } });
  });

  it('forwards host events to the window on si:event', async () => {
    start();
    await fake.app.becomeReady();
    const event: HostEvent = { name: 'sessionClosed', payload: { generation: 3 } };
    host.emit(event);
    expect(window()!.webContents.send).toHaveBeenCalledWith('si:event', event);
  });

  it('offers the open dialog with session filters; cancel gives null', async () => {
    start();
    await fake.app.becomeReady();
    expect(await hostOptions!.openDialog!()).toBeNull();
    expect(fake.dialog.showOpenDialog).toHaveBeenCalledWith(window(), OPEN_DIALOG_OPTIONS);
    expect(OPEN_DIALOG_OPTIONS.filters).toEqual([
      { name: 'Sessions', extensions: ['jsonl', 'json', 'traj', 'eval'] },
      { name: 'All Files', extensions: ['*'] },
    ]);
    fake.dialog.showOpenDialog.mockResolvedValueOnce({ canceled: false, filePaths: ['/a/s.sidecar.jsonl'] });
    expect(await hostOptions!.openDialog!()).toEqual(['/a/s.sidecar.jsonl']);
  });

  it('remembers opened files in <userData>/recent.json and lists them in Open Recent', async () => {
    const file = dir.path('r.sidecar.jsonl');
    writeFileSync(file, '');
    start();
    await fake.app.becomeReady();
    hostOptions!.onOpened!([file]);
    expect(menuItem('recent-0').label).toContain(file);
    expect(fake.app.addRecentDocument).toHaveBeenCalledWith(file);
    click('recent-0');
    expect(host.openPaths).toHaveBeenLastCalledWith([file], {});
    click('clear-recent');
    expect(() => menuItem('recent-0')).toThrow();
  });

  it('menu: Open… runs the host open dialog; Toggle Dark Mode flips the theme and tells the renderer', async () => {
    start();
    await fake.app.becomeReady();
    click('open');
    expect(host.handle).toHaveBeenCalledWith('openDialog', {});
    click('toggle-dark-mode');
    expect(fake.nativeTheme.themeSource).toBe('dark');
    expect(window()!.webContents.send).toHaveBeenCalledWith('si:event', { name: 'command', payload: { name: 'toggleTheme' } });
    expect(window()!.setBackgroundColor).toHaveBeenCalled();
    click('toggle-dark-mode');
    expect(fake.nativeTheme.themeSource).toBe('light');
    click('find');
    expect(window()!.webContents.send).toHaveBeenCalledWith('si:event', { name: 'command', payload: { name: 'focusSearch' } });
    click('about');
    expect(fake.dialog.showMessageBox).toHaveBeenCalledWith(window(), expect.objectContaining({ detail: 'Version 0.1.0' }));
  });
});

describe('more files arriving', () => {
  it('a second instance focuses the window and opens its files', async () => {
    start();
    await fake.app.becomeReady();
    const win = window()!;
    win.minimized = true;
    fake.app.emit('second-instance', fakeEvent(), ['/opt/si', 'ignored'], '/there', { files: ['/a/two.sidecar.jsonl'] });
    expect(win.restore).toHaveBeenCalled();
    expect(win.focus).toHaveBeenCalled();
    expect(host.openPaths).toHaveBeenLastCalledWith(['/a/two.sidecar.jsonl'], {});
  });

  it('macOS open-file before ready replaces the sample; after ready it opens at once', async () => {
    writeFileSync(dir.path('demo.sidecar.jsonl'), '');
    start({ platform: 'darwin', samplesDir: dir.dir });
    const early = fakeEvent();
    fake.app.emit('open-file', early, '/a/early.sidecar.jsonl');
    expect(early.preventDefault).toHaveBeenCalled();
    await fake.app.becomeReady();
    expect(host.openPaths).toHaveBeenCalledTimes(1);
    expect(host.openPaths).toHaveBeenCalledWith(['/a/early.sidecar.jsonl'], {});
    fake.app.emit('open-file', fakeEvent(), '/a/late.sidecar.jsonl');
    expect(host.openPaths).toHaveBeenLastCalledWith(['/a/late.sidecar.jsonl'], {});
  });
});

describe('windows and quitting', () => {
  it('quits when the last window closes, except on macOS', async () => {
    start();
    await fake.app.becomeReady();
    fake.app.emit('window-all-closed');
    expect(fake.app.quit).toHaveBeenCalled();

    fake.reset();
    start({ platform: 'darwin' });
    await fake.app.becomeReady();
    fake.app.emit('window-all-closed');
    expect(fake.app.quit).not.toHaveBeenCalled();
  });

  it('macOS: activate re-creates a closed window', async () => {
    start({ platform: 'darwin' });
    await fake.app.becomeReady();
    window()!.close();
    fake.app.emit('activate');
    expect(FakeBrowserWindow.instances).toHaveLength(2);
  });

  it('disposes the host before quitting', async () => {
    start();
    await fake.app.becomeReady();
    const quit = fakeEvent();
    fake.app.emit('will-quit', quit);
    expect(quit.preventDefault).toHaveBeenCalled();
    expect(host.dispose).toHaveBeenCalledTimes(1);
    await flush();
    expect(fake.app.quit).toHaveBeenCalledTimes(1);
    // The second will-quit (from that quit) goes through.
    const again = fakeEvent();
    fake.app.emit('will-quit', again);
    expect(again.preventDefault).not.toHaveBeenCalled();
    expect(host.dispose).toHaveBeenCalledTimes(1);
  });
});

describe('links (SPEC §12)', () => {
  it('open --link: the first window opens at the place', async () => {
    const file = dir.path('s.jsonl');
    start({ argv: ['/opt/si', '--link=#q=b&call=2', 's.jsonl'] });
    await fake.app.becomeReady();
    expect(window()!.loadURL).toHaveBeenCalledWith(`${APP_INDEX_URL}#call=2&q=b`);
    expect(host.openPaths).toHaveBeenCalledWith([file], {});
  });

  it('a second instance hands over its --link with its files', () => {
    fake.app.lockObtained = false;
    start({ argv: ['/opt/si', '--link=#call=2', 'x.jsonl'] });
    expect(fake.app.requestSingleInstanceLock).toHaveBeenCalledWith({ files: [join(dir.dir, 'x.jsonl')], source: {}, link: '#call=2' });
  });

  it('registers the protocol only in the packaged app', async () => {
    start();
    await fake.app.becomeReady();
    expect(fake.app.setAsDefaultProtocolClient).not.toHaveBeenCalled();
    fake.reset();
    fake.app.isPackaged = true;
    start();
    await fake.app.becomeReady();
    expect(fake.app.setAsDefaultProtocolClient).toHaveBeenCalledWith('session-inspector');
  });

  it('macOS open-url: opens the file, then moves the open window to the place', async () => {
    const file = dir.path('u.jsonl');
    writeFileSync(file, '');
    start({ platform: 'darwin' });
    await fake.app.becomeReady();
    const win = window()!;
    const event = fakeEvent();
    fake.app.emit('open-url', event, `session-inspector://open?file=${encodeURIComponent(file)}#reduction=r4&range=1:9`);
    expect(event.preventDefault).toHaveBeenCalled();
    expect(host.openPaths).toHaveBeenLastCalledWith([file], {});
    await flush();
    expect(win.loadURL).toHaveBeenLastCalledWith(`${APP_INDEX_URL}#reduction=r4&range=1:9`);
  });

  it('open-url before ready: the first window opens the link’s file at its place', async () => {
    const file = dir.path('early.jsonl');
    writeFileSync(file, '');
    start({ platform: 'darwin' });
    fake.app.emit('open-url', fakeEvent(), `session-inspector://open?file=${encodeURIComponent(file)}#call=4`);
    await fake.app.becomeReady();
    expect(host.openPaths).toHaveBeenCalledTimes(1);
    expect(host.openPaths).toHaveBeenCalledWith([file], {});
    expect(window()!.loadURL).toHaveBeenCalledWith(`${APP_INDEX_URL}#call=4`);
  });

  it('Windows and Linux: a protocol link as the argument of the first or a second instance', async () => {
    const file = dir.path('w.jsonl');
    writeFileSync(file, '');
    const url = `session-inspector://open?file=${encodeURIComponent(file)}#call=2`;
    start({ argv: ['/opt/si', url] });
    await fake.app.becomeReady();
    expect(host.openPaths).toHaveBeenCalledTimes(1);
    expect(host.openPaths).toHaveBeenCalledWith([file], {});
    expect(window()!.loadURL).toHaveBeenCalledWith(`${APP_INDEX_URL}#call=2`);
    fake.app.emit('second-instance', fakeEvent(), ['/opt/si', `session-inspector://open?file=${encodeURIComponent(file)}#call=3`], '/there', { files: [] });
    await flush();
    expect(host.openPaths).toHaveBeenLastCalledWith([file], {});
    expect(window()!.loadURL).toHaveBeenLastCalledWith(`${APP_INDEX_URL}#call=3`);
  });

  it('refuses a link to a missing file or of another action with a message, opening nothing', async () => {
    start();
    await fake.app.becomeReady();
    const opened = host.openPaths.mock.calls.length;
    fake.app.emit('open-url', fakeEvent(), `session-inspector://open?file=${encodeURIComponent(dir.path('nope.jsonl'))}`);
    fake.app.emit('open-url', fakeEvent(), 'session-inspector://exec?file=/bin/sh');
    await flush();
    expect(host.openPaths).toHaveBeenCalledTimes(opened);
    const messages = fake.dialog.showMessageBox.mock.calls.map((c) => (c[0] as { message: string }).message);
    expect(messages).toEqual([
      expect.stringMatching(/^This Session Inspector link cannot be opened: .*nope\.jsonl" is not a file on this computer\.$/),
      'This Session Inspector link cannot be opened: it names "exec"; the only action is open.',
    ]);
  });
});
