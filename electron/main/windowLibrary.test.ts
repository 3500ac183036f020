/**
 * The desktop window with no file named starts on the session library (SPEC §14, docs/library.md
 * "In the app"), through `startApp` over the fake Electron (no Electron binary runs here) with the
 * real session host: the library's requests go through the same contract handler table as the HTTP
 * host's, answered per window, and a listed entry opens by its place in the window that asked only.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { MenuItemConstructorOptions } from 'electron';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ResultOf } from '../../shared/contract';
import { createSessionHost } from '../host/sessionHost';
import { createFakeResolverClient } from '../host/testing/fakeClient';
import type { SessionHostOptions } from '../host/types';
import { tempDir } from '../../tools/testing/files';
import { startApp } from './app';
import { METHOD_CHANNELS } from './channels';
import { fake, FakeBrowserWindow } from './testing/fakeElectron';

vi.mock('electron', async () => (await import('./testing/fakeElectron')).electronModule);

const DEMO = join(import.meta.dirname, '../../samples/demo.sidecar.jsonl');

let dir: ReturnType<typeof tempDir>;
let made: Omit<SessionHostOptions, 'client'>[];

beforeEach(() => {
  fake.reset();
  dir = tempDir();
  fake.app.userData = dir.path('userData');
  made = [];
});
afterEach(() => dir.cleanup());

/** Starts the app with `argv`'s switches, an empty HOME (no agent folder) and a samples folder holding the demo. */
async function started(argv: string[] = []): Promise<{ home: string; samples: string }> {
  const home = dir.path('home');
  const samples = dir.path('samples');
  mkdirSync(home, { recursive: true });
  mkdirSync(samples, { recursive: true });
  copyFileSync(DEMO, join(samples, 'demo.sidecar.jsonl'));
  startApp({
    createHost: (options) => {
      made.push(options);
      return createSessionHost({ ...options, client: createFakeResolverClient() });
    },
    argv: ['/opt/si/session-inspector', ...argv],
    cwd: home,
    platform: 'linux',
    samplesDir: samples,
    libraryContext: { env: { SESSION_INSPECTOR_CACHE_DIR: dir.path('cache') }, home, cwd: home, platform: 'linux' },
  });
  await fake.app.becomeReady();
  return { home, samples };
}

function newWindow(): FakeBrowserWindow {
  const template = fake.Menu.buildFromTemplate.mock.calls.at(-1)?.[0] as MenuItemConstructorOptions[];
  const file = template.find((i) => i.id === 'file')?.submenu as MenuItemConstructorOptions[];
  (file.find((i) => i.id === 'new-window')?.click as () => void)();
  return FakeBrowserWindow.instances.at(-1) as FakeBrowserWindow;
}

const call = (window: FakeBrowserWindow, method: keyof typeof METHOD_CHANNELS, params: unknown = {}) => fake.ipcMain.invoke(METHOD_CHANNELS[method], window.webContents.mainFrame, params);

type Listing = { ok: true; value: ResultOf<'library'> };

async function listed(window: FakeBrowserWindow): Promise<ResultOf<'library'>> {
  let reply = (await call(window, 'library')) as Listing;
  await expect.poll(async () => (reply = (await call(window, 'library')) as Listing).value.complete, { timeout: 20_000 }).toBe(true);
  return reply.value;
}

afterEach(async () => {
  for (const w of FakeBrowserWindow.instances) if (!w.destroyed) w.close();
  await new Promise((resolve) => setImmediate(resolve));
});

describe('the desktop window with no file named', () => {
  it('opens nothing and lists the library: the bundled samples where no agent folder exists, each folder looked in named', async () => {
    const { home, samples } = await started();
    const window = FakeBrowserWindow.instances[0] as FakeBrowserWindow;
    expect(made[0]?.library).toBeDefined();
    expect(await call(window, 'state')).toMatchObject({ ok: true, value: { session: null } });
    const library = await listed(window);
    expect(library).toMatchObject({ samples: true, sessions: [{ file: 'demo.sidecar.jsonl', format: 'supercode' }] });
    expect(library.roots).toEqual(expect.arrayContaining([{ id: expect.any(String) as string, path: join(home, '.claude', 'projects'), agent: 'claude-code', exists: false, sessions: 0 }, expect.objectContaining({ path: samples, exists: true, sessions: 1 })]));
  });

  it("opens a listed entry by its place in the window that asked, and another window's session stays its own", async () => {
    await started();
    const first = FakeBrowserWindow.instances[0] as FakeBrowserWindow;
    const second = newWindow();
    const library = await listed(first);
    const row = library.sessions[0] as ResultOf<'library'>['sessions'][number];
    expect(await call(first, 'openLink', { file: row.file, root: row.root })).toMatchObject({ ok: true, value: { session_id: 's-demo', link_file: { path: 'demo.sidecar.jsonl' } } });
    expect(await call(first, 'state')).toMatchObject({ ok: true, value: { session: { session_id: 's-demo' } } });
    expect(await call(second, 'state')).toMatchObject({ ok: true, value: { session: null } });
    // The same listing for both windows; a path the listing did not name opens nothing.
    expect((await listed(second)).sessions).toEqual(library.sessions);
    expect(await call(second, 'openLink', { file: '../demo.sidecar.jsonl', root: row.root })).toMatchObject({ ok: false });
    expect(await call(second, 'state')).toMatchObject({ ok: true, value: { session: null } });
  });

  it('answers the library only to a main frame of the app', async () => {
    await started();
    const window = FakeBrowserWindow.instances[0] as FakeBrowserWindow;
    const sub = { ...window.webContents.mainFrame, parent: window.webContents.mainFrame };
    expect(await fake.ipcMain.invoke(METHOD_CHANNELS.library, sub, {})).toEqual({ ok: false, error: { code: 'invalid_request', message: 'untrusted sender' } });
  });

  it('opens the bundled sample instead when --format or --session is given without a file', async () => {
    const { samples } = await started(['--format=supercode']);
    expect(made[0]?.library).toBeUndefined();
    const window = FakeBrowserWindow.instances[0] as FakeBrowserWindow;
    await expect.poll(async () => call(window, 'state'), { timeout: 20_000 }).toMatchObject({ ok: true, value: { session: { files: [{ path: join(samples, 'demo.sidecar.jsonl') }] } } });
  });
});
