/**
 * The Electron security checklist (electron/electron docs/tutorial/security.md; SECURITY.md §5), item by
 * item, checked on what the app really sets up: `startApp` runs against the fake Electron, and each
 * test reads what it handed to Electron (the options of `new BrowserWindow`, the session's
 * handlers, the IPC handlers, what the preload put in the main world). One file for a reviewer; the
 * details are tested again next to the code (window.test.ts, appProtocol.test.ts, ipc.test.ts,
 * app.test.ts, preload.test.ts). Electronegativity (npm run test:security) scans the same code
 * statically; where it cannot see a value (webPreferences built outside `new BrowserWindow(...)`),
 * this file is the proof its allowlist points to.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import type { Session } from 'electron';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { METHOD_NAMES } from '../../shared/contract';
import type { HostEvent, Method, Reply } from '../../shared/contract';
import type { SessionHost } from '../host/types';
import type { SessionInspectorPreloadApi } from '../preload/preload';
import { tempDir } from '../../tools/testing/files';
import { startApp } from './app';
import { APP_INDEX_URL, APP_SCHEME, APP_SCHEME_PRIVILEGED, CONTENT_SECURITY_POLICY } from './appProtocol';
import { BRIDGE_GLOBAL } from './channels';
import { IPC_CHANNELS } from './ipc';
import type { FakeFrame } from './testing/fakeElectron';
import { fake, FakeBrowserWindow, fakeEvent, FakeSession, FakeWebContents } from './testing/fakeElectron';
import { createMainWindow, DIST_DIR, prepareSession, PRELOAD_PATH } from './window';

vi.mock('electron', async () => (await import('./testing/fakeElectron')).electronModule);

const ROOT = join(import.meta.dirname, '../..');

/** The checklist's webPreferences, spelled out here on purpose: loosening one in window.ts fails. */
const SECURE_WEB_PREFERENCES = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  webviewTag: false,
  experimentalFeatures: false,
} as const;

/** The only other keys webPreferences may have (anything new — enableBlinkFeatures, additionalArguments… — must be reviewed here). */
const OTHER_WEB_PREFERENCES = ['preload', 'spellcheck'];

/** URLs from outside the app: what session content, a dropped file or a redirect could aim at. */
const FOREIGN_URLS = [
  'https://example.com/',
  'http://127.0.0.1:8080/?token=x',
  'file:///etc/passwd',
  'file:///tmp/dropped.sidecar.jsonl',
  'app://evil/index.html',
  'app://session-inspector.evil/index.html',
  'app://user@session-inspector/index.html',
  'javascript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'about:blank',
  'devtools://devtools/bundled/inspector.html',
  'not a url',
];
const APP_URLS = [APP_INDEX_URL, 'app://session-inspector/', 'app://session-inspector/index.html#row-3'];

const UNTRUSTED = { ok: false, error: { code: 'invalid_request', message: 'untrusted sender' } };

function fakeHost() {
  const listeners = new Set<(event: HostEvent) => void>();
  return {
    handle: vi.fn((_method: string, _params: unknown) => Promise.resolve({ ok: true, value: {} } as unknown as Reply<Method>)),
    openPaths: vi.fn((_paths: string[]) => Promise.resolve({ ok: true, value: {} } as unknown as Reply<'openFile'>)),
    current: () => [],
    onEvent: vi.fn((listener: (event: HostEvent) => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    }),
    dispose: vi.fn(() => Promise.resolve()),
  } satisfies SessionHost;
}

/** The directives of a policy: name → source list. */
function directives(policy: string): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const part of policy.split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) map.set(name.toLowerCase(), sources);
  }
  return map;
}

/** The checklist's CSP: scripts from the app's own origin only, never inline, never eval. */
function expectStrictPolicy(policy: string | null | undefined): void {
  expect(policy).toBe(CONTENT_SECURITY_POLICY);
  const d = directives(policy ?? '');
  expect(d.get('script-src')).toEqual(["'self'"]);
  expect(d.get('default-src')).toEqual(["'self'"]);
  expect(d.get('object-src')).toEqual(["'none'"]);
  expect(d.get('base-uri')).toEqual(["'none'"]);
  for (const sources of [d.get('script-src') ?? [], d.get('default-src') ?? []]) {
    expect(sources).not.toContain("'unsafe-inline'");
    expect(sources).not.toContain("'unsafe-hashes'");
    // No wildcard and no scheme source (`https:`, `data:`, `blob:`…): 'self' means the app's files only.
    expect(sources.filter((source) => source.includes('*') || /^[a-z][a-z0-9+.-]*:$/i.test(source))).toEqual([]);
  }
  expect(policy).not.toContain('unsafe-eval');
}

let dir: ReturnType<typeof tempDir>;
let host: ReturnType<typeof fakeHost>;
let window: FakeBrowserWindow;

beforeEach(async () => {
  fake.reset();
  dir = tempDir();
  fake.app.userData = dir.path('userData');
  host = fakeHost();
  startApp({ createHost: () => host, argv: ['/opt/si/session-inspector'], cwd: dir.dir, platform: 'linux', samplesDir: dir.path('no-samples') });
  await fake.app.becomeReady();
  expect(FakeBrowserWindow.instances).toHaveLength(1);
  window = FakeBrowserWindow.instances[0]!;
});
afterEach(() => dir.cleanup());

describe('the window the app creates', () => {
  it('webPreferences: contextIsolation, sandbox (explicit), no Node anywhere, webSecurity, no insecure content, no <webview>, no experimental features', () => {
    const webPreferences = window.options.webPreferences as Record<string, unknown>;
    for (const [key, value] of Object.entries(SECURE_WEB_PREFERENCES)) {
      // Present, not left to Electron's defaults (sandbox's default depends on other settings).
      expect(Object.hasOwn(webPreferences, key), `${key} is set explicitly`).toBe(true);
      expect(webPreferences[key], key).toBe(value);
    }
    expect(Object.keys(webPreferences).sort()).toEqual([...Object.keys(SECURE_WEB_PREFERENCES), ...OTHER_WEB_PREFERENCES].sort());
    // Either theme, the same preferences (createMainWindow is what startApp calls).
    for (const dark of [true, false]) {
      createMainWindow({ dark });
      expect(FakeBrowserWindow.instances.at(-1)?.options.webPreferences).toStrictEqual(webPreferences);
    }
  });

  it('loads only the app origin, app://session-inspector/index.html', () => {
    expect(window.loadURL).toHaveBeenCalledTimes(1);
    expect(window.loadURL).toHaveBeenCalledWith(APP_INDEX_URL);
  });

  describe('the preload is the bundled dist/preload.cjs', () => {
    beforeAll(() => {
      // The bundle exactly as `npm run build` writes it (the same script, only this bundle), rebuilt
      // only when stale: npm test's e2e lane may be running the desktop app from it meanwhile.
      execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale', 'preload'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    });

    it('is preload.cjs beside the main bundle (package.json "main"), by absolute path', () => {
      const preload = (window.options.webPreferences as { preload: string }).preload;
      expect(preload).toBe(PRELOAD_PATH);
      expect(isAbsolute(preload)).toBe(true);
      expect(basename(preload)).toBe('preload.cjs');
      // DIST_DIR is the folder of the running main module: dist/ once bundled into dist/main.cjs.
      expect(dirname(preload)).toBe(DIST_DIR);
      const main = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { main: string }).main;
      expect(main).toBe('dist/main.cjs');
    });

    it('is one self-contained CommonJS file that requires nothing but electron (a sandboxed preload can require nothing else)', () => {
      const bundle = readFileSync(join(ROOT, 'dist/preload.cjs'), 'utf8');
      const required = [...bundle.matchAll(/\brequire\(\s*(["'`])([^"'`]+)\1\s*\)/g)].map((m) => m[2]);
      expect(new Set(required)).toEqual(new Set(['electron']));
      expect(bundle).not.toMatch(/^\s*(import|export)\s/m);
    });
  });
});

describe('Content Security Policy', () => {
  it('is on every app:// response, files and errors alike, and allows scripts only from the app itself', async () => {
    const [scheme, handler] = fake.defaultSession.protocol.handle.mock.calls[0] as [string, (request: Request) => Promise<Response>];
    expect(scheme).toBe(APP_SCHEME);
    // The app's own handler (its renderer folder is not built next to the sources: a 404, with the CSP).
    const missing = await handler(new Request(APP_INDEX_URL));
    expect(missing.status).toBe(404);
    expectStrictPolicy(missing.headers.get('content-security-policy'));

    // The same handler over a built renderer.
    mkdirSync(dir.path('renderer/assets'), { recursive: true });
    writeFileSync(dir.path('renderer/index.html'), '<!doctype html><title>Session Inspector</title>');
    writeFileSync(dir.path('renderer/assets/app.js'), 'export {};');
    const session = new FakeSession();
    prepareSession(session as unknown as Session, dir.path('renderer'));
    const served = session.protocol.handle.mock.calls[0]?.[1] as (request: Request) => Promise<Response>;
    for (const url of [APP_INDEX_URL, 'app://session-inspector/assets/app.js', 'app://session-inspector/..%2f..%2fetc%2fpasswd', 'app://session-inspector/missing.js']) {
      const response = await served(new Request(url));
      expectStrictPolicy(response.headers.get('content-security-policy'));
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    }
    expect((await served(new Request(APP_INDEX_URL))).status).toBe(200);
  });

  it('is put on http(s) and file responses by onHeadersReceived, replacing any policy they carried', () => {
    const listener = fake.defaultSession.webRequest.onHeadersReceived.mock.calls[0]?.[0] as (
      details: { url: string; responseHeaders?: Record<string, string[]> },
      callback: (response: { responseHeaders?: Record<string, string[]> }) => void,
    ) => void;
    expect(listener).toBeTypeOf('function');
    for (const url of ['http://127.0.0.1:5173/', 'https://example.com/x.js', 'file:///tmp/page.html']) {
      const callback = vi.fn();
      listener({ url, responseHeaders: { 'content-security-policy': ["script-src * 'unsafe-inline' 'unsafe-eval'"], 'Content-Type': ['text/html'] } }, callback);
      const headers = (callback.mock.calls[0]?.[0] as { responseHeaders: Record<string, string[]> }).responseHeaders;
      const policies = Object.entries(headers).filter(([name]) => name.toLowerCase() === 'content-security-policy');
      expect(policies, url).toHaveLength(1);
      expect(policies[0]?.[1], url).toHaveLength(1);
      expectStrictPolicy(policies[0]?.[1][0]);
    }
  });
});

describe('navigation and new windows', () => {
  it.each(['will-navigate', 'will-frame-navigate', 'will-redirect'])('%s is handled and refuses every foreign URL', (name) => {
    const contents = window.webContents;
    expect(contents.listenerCount(name)).toBeGreaterThan(0);
    for (const url of FOREIGN_URLS) {
      const event = fakeEvent({ url, isMainFrame: true, isSameDocument: false });
      contents.emit(name, event, url);
      expect(event.preventDefault, `${name} ${url}`).toHaveBeenCalled();
    }
    for (const url of APP_URLS) {
      const event = fakeEvent({ url, isMainFrame: true, isSameDocument: false });
      contents.emit(name, event, url);
      expect(event.preventDefault, `${name} ${url}`).not.toHaveBeenCalled();
    }
  });

  it('setWindowOpenHandler denies every window.open, in the window and in any web contents created', () => {
    expect(window.webContents.setWindowOpenHandler).toHaveBeenCalled();
    const other = new FakeWebContents();
    fake.app.emit('web-contents-created', fakeEvent(), other);
    for (const contents of [window.webContents, other]) {
      for (const url of [...FOREIGN_URLS, ...APP_URLS]) {
        expect(contents.windowOpenHandler?.({ url }), url).toEqual({ action: 'deny' });
      }
    }
  });

  // Devtools, a webview that slipped through, anything Electron creates later: each is guarded
  // like the main window, not only the window the app made itself.
  it('a web contents created after start, not the main window\'s, refuses every foreign navigation, window.open and <webview>', () => {
    const other = new FakeWebContents();
    expect(other).not.toBe(window.webContents);
    fake.app.emit('web-contents-created', fakeEvent(), other);
    for (const name of ['will-navigate', 'will-frame-navigate', 'will-redirect']) {
      expect(other.listenerCount(name), name).toBeGreaterThan(0);
      for (const url of FOREIGN_URLS) {
        const event = fakeEvent({ url, isMainFrame: true, isSameDocument: false });
        other.emit(name, event, url);
        expect(event.preventDefault, `${name} ${url}`).toHaveBeenCalled();
      }
      for (const url of APP_URLS) {
        const event = fakeEvent({ url, isMainFrame: true, isSameDocument: false });
        other.emit(name, event, url);
        expect(event.preventDefault, `${name} ${url}`).not.toHaveBeenCalled();
      }
    }
    for (const url of [...FOREIGN_URLS, ...APP_URLS]) expect(other.windowOpenHandler?.({ url }), url).toEqual({ action: 'deny' });
    const attach = fakeEvent();
    other.emit('will-attach-webview', attach, { preload: '/tmp/evil.js' }, { src: 'https://example.com/' });
    expect(attach.preventDefault).toHaveBeenCalled();
  });

  it('will-attach-webview is prevented in every web contents (the window\'s included)', () => {
    for (const contents of [window.webContents, new FakeWebContents()]) {
      fake.app.emit('web-contents-created', fakeEvent(), contents);
      const event = fakeEvent();
      contents.emit('will-attach-webview', event, { preload: '/tmp/evil.js' }, { src: 'https://example.com/' });
      expect(event.preventDefault).toHaveBeenCalled();
    }
  });
});

describe('permissions', () => {
  it('the permission request handler denies every request but the app page’s own clipboard write (Copy bytes)', () => {
    const handler = fake.defaultSession.setPermissionRequestHandler.mock.calls[0]?.[0] as (wc: unknown, permission: string, callback: (granted: boolean) => void, details: unknown) => void;
    expect(handler).toBeTypeOf('function');
    for (const permission of ['media', 'geolocation', 'notifications', 'midi', 'pointerLock', 'fullscreen', 'openExternal', 'clipboard-read', 'display-capture', 'window-management', 'unknown']) {
      const callback = vi.fn();
      handler(window.webContents, permission, callback, { requestingUrl: APP_INDEX_URL, isMainFrame: true });
      expect(callback, permission).toHaveBeenCalledWith(false);
    }
    const asked = (details: unknown): unknown => {
      const callback = vi.fn();
      handler(window.webContents, 'clipboard-sanitized-write', callback, details);
      return callback.mock.calls[0]?.[0];
    };
    expect(asked({ requestingUrl: APP_INDEX_URL, isMainFrame: true })).toBe(true);
    // Not from another origin, a subframe, or a request that does not say where it comes from.
    expect(asked({ requestingUrl: 'https://example.com/', isMainFrame: true })).toBe(false);
    expect(asked({ requestingUrl: 'file:///etc/passwd', isMainFrame: true })).toBe(false);
    expect(asked({ requestingUrl: APP_INDEX_URL, isMainFrame: false })).toBe(false);
    expect(asked({})).toBe(false);
    expect(asked(undefined)).toBe(false);
  });

  it('the permission check handler answers false but for the app’s clipboard write, and so does the device permission handler', () => {
    const check = fake.defaultSession.setPermissionCheckHandler.mock.calls[0]?.[0] as (wc: unknown, permission: string, origin: string, details: unknown) => boolean;
    for (const permission of ['media', 'clipboard-read', 'hid', 'serial', 'usb', 'background-sync', 'fullscreen']) {
      expect(check(window.webContents, permission, 'app://session-inspector', {}), permission).toBe(false);
    }
    expect(check(window.webContents, 'clipboard-sanitized-write', 'app://session-inspector', { isMainFrame: true })).toBe(true);
    expect(check(window.webContents, 'clipboard-sanitized-write', 'https://example.com', { isMainFrame: true })).toBe(false);
    expect(check(window.webContents, 'clipboard-sanitized-write', 'app://session-inspector', { requestingUrl: 'https://example.com/', isMainFrame: true })).toBe(false);
    expect(check(window.webContents, 'clipboard-sanitized-write', 'app://session-inspector', { isMainFrame: false })).toBe(false);
    const device = fake.defaultSession.setDevicePermissionHandler.mock.calls[0]?.[0] as (details: unknown) => boolean;
    expect(device({ deviceType: 'usb', origin: 'app://session-inspector' })).toBe(false);
  });
});

describe('the app:// scheme', () => {
  it('is privileged as standard and secure only: no bypassCSP, no CORS, no service workers', () => {
    expect(fake.protocol.registerSchemesAsPrivileged).toHaveBeenCalledWith([APP_SCHEME_PRIVILEGED]);
    expect(APP_SCHEME_PRIVILEGED.privileges).toStrictEqual({ standard: true, secure: true, supportFetchAPI: true });
  });
});

describe('IPC', () => {
  it('every handler validates the sender frame: an untrusted frame gets invalid_request and reaches nothing', async () => {
    const channels = [...fake.ipcMain.handlers.keys()];
    expect(new Set(channels)).toEqual(new Set(IPC_CHANNELS));
    const main = window.webContents.mainFrame;
    const untrusted: [string, FakeFrame | null][] = [
      ['no frame (navigated away or destroyed)', null],
      ['a foreign origin in our main frame', { ...main, url: 'https://evil.example/' }],
      ['a local file in our main frame', { ...main, url: 'file:///tmp/evil.html' }],
      ['another app:// host', { ...main, url: 'app://evil/index.html' }],
      ['a subframe showing the app origin', { url: APP_INDEX_URL, parent: main, processId: main.processId, routingId: main.routingId + 1, detached: false }],
      ['the main frame of another window', new FakeWebContents().mainFrame],
      ['a detached frame', { ...main, detached: true }],
    ];
    for (const channel of channels) {
      for (const [what, frame] of untrusted) {
        expect(await fake.ipcMain.invoke(channel, frame, channel === 'si:openDropped' ? '/etc/passwd' : {}), `${channel} from ${what}`).toEqual(UNTRUSTED);
      }
    }
    expect(host.handle).not.toHaveBeenCalled();
    expect(host.openPaths).not.toHaveBeenCalled();
    // The same handlers do answer the app's own main frame.
    await fake.ipcMain.invoke('si:state', main, {});
    expect(host.handle).toHaveBeenCalledWith('state', {});
  });

  it('the preload exposes one contextBridge object of functions, each on its own fixed channel, and never ipcRenderer', async () => {
    vi.resetModules();
    await import('../preload/preload');
    const { contextBridge, ipcRenderer } = fake.renderer;
    expect(contextBridge.exposeInMainWorld).toHaveBeenCalledTimes(1);
    const [key, api] = contextBridge.exposeInMainWorld.mock.calls[0] as [string, SessionInspectorPreloadApi];
    expect(key).toBe(BRIDGE_GLOBAL);
    expect(Object.keys(api).sort()).toEqual([...METHOD_NAMES, 'openDropped', 'onEvent'].sort());
    const rendererFunctions = new Set<unknown>(Object.values(ipcRenderer));
    for (const [name, value] of Object.entries(api)) {
      expect(typeof value, name).toBe('function');
      expect(rendererFunctions.has(value), `${name} is not an ipcRenderer function`).toBe(false);
      expect(value, name).not.toBe(ipcRenderer);
    }
    // A caller cannot choose the channel: whatever it passes, each method invokes si:<method>.
    for (const method of METHOD_NAMES) {
      ipcRenderer.invoke.mockClear();
      await (api[method] as (params: unknown) => Promise<unknown>)('si:openDropped');
      expect(ipcRenderer.invoke).toHaveBeenCalledWith(`si:${method}`, 'si:openDropped');
    }
    expect(ipcRenderer.send).not.toHaveBeenCalled();
    expect(ipcRenderer.sendSync).not.toHaveBeenCalled();
  });
});

describe('shell.openExternal', () => {
  it('is never reachable: no main-process or preload source imports shell from electron', () => {
    for (const folder of ['electron/main', 'electron/preload']) {
      for (const name of readdirSync(join(ROOT, folder))) {
        if (!name.endsWith('.ts') || name.endsWith('.test.ts')) continue;
        const source = readFileSync(join(ROOT, folder, name), 'utf8');
        for (const match of source.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+'electron'/g)) {
          if (match[1]) continue;
          const names = (match[2] ?? '').split(',').map((n) => n.trim().split(/\s+as\s+/)[0]);
          expect(names, `${folder}/${name}`).not.toContain('shell');
        }
        expect(source, `${folder}/${name}`).not.toMatch(/require\(\s*['"]electron['"]\s*\)\.shell|\.openExternal\(/);
      }
    }
  });
});
