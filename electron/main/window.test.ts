import { mkdirSync, writeFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { App, Session } from 'electron';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../tools/testing/files';
import { APP_INDEX_URL, APP_SCHEME, CONTENT_SECURITY_POLICY } from './appProtocol';
import { fake, FakeApp, FakeBrowserWindow, fakeEvent, FakeSession, FakeWebContents } from './testing/fakeElectron';
import { BACKGROUND_COLORS, createMainWindow, guardAllWebContents, prepareSession, PRELOAD_PATH, WINDOW_OPTIONS, windowOptions } from './window';

vi.mock('electron', async () => (await import('./testing/fakeElectron')).electronModule);

beforeEach(() => fake.reset());

/** The secure values, spelled out again here on purpose: loosening one in window.ts fails this file. */
const SECURE_WEB_PREFERENCES = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  experimentalFeatures: false,
  webviewTag: false,
  spellcheck: false,
};

/** Fires `name` on `contents` as Electron would (event object first) and returns the event. */
function fire(contents: FakeWebContents, name: string, url: string) {
  const event = fakeEvent({ url, isMainFrame: true, isSameDocument: false });
  contents.emit(name, event, url);
  return event;
}

describe('WINDOW_OPTIONS', () => {
  it('has exactly the secure webPreferences, each set explicitly, and the bundled preload', () => {
    expect(WINDOW_OPTIONS.webPreferences).toStrictEqual({ ...SECURE_WEB_PREFERENCES, preload: PRELOAD_PATH });
    // Explicitly present (not left to Electron's defaults), sandbox above all.
    for (const key of Object.keys(SECURE_WEB_PREFERENCES)) expect(Object.hasOwn(WINDOW_OPTIONS.webPreferences, key)).toBe(true);
    expect(WINDOW_OPTIONS.webPreferences.sandbox).toBe(true);
    expect(WINDOW_OPTIONS.webPreferences.contextIsolation).toBe(true);
    expect(WINDOW_OPTIONS.webPreferences.nodeIntegration).toBe(false);
  });

  it('loads the single bundled CommonJS preload by absolute path', () => {
    expect(isAbsolute(PRELOAD_PATH)).toBe(true);
    expect(PRELOAD_PATH.endsWith('preload.cjs')).toBe(true);
  });

  it('stays hidden until ready-to-show and has a minimum size', () => {
    expect(WINDOW_OPTIONS.show).toBe(false);
    expect(WINDOW_OPTIONS.minWidth).toBeGreaterThan(0);
    expect(WINDOW_OPTIONS.minHeight).toBeGreaterThan(0);
    expect(WINDOW_OPTIONS.width).toBeGreaterThanOrEqual(WINDOW_OPTIONS.minWidth);
    expect(WINDOW_OPTIONS.height).toBeGreaterThanOrEqual(WINDOW_OPTIONS.minHeight);
  });

  it('cannot be loosened at run time', () => {
    expect(Object.isFrozen(WINDOW_OPTIONS)).toBe(true);
    expect(Object.isFrozen(WINDOW_OPTIONS.webPreferences)).toBe(true);
  });

  it('windowOptions adds the theme background and keeps the webPreferences', () => {
    expect(windowOptions(true).backgroundColor).toBe(BACKGROUND_COLORS.dark);
    expect(windowOptions(false).backgroundColor).toBe(BACKGROUND_COLORS.light);
    expect(windowOptions(true).webPreferences).toStrictEqual(WINDOW_OPTIONS.webPreferences);
  });
});

describe('createMainWindow', () => {
  it('creates the window with the secure options and loads the app URL', () => {
    createMainWindow({ dark: true });
    const [window] = FakeBrowserWindow.instances;
    expect(window?.options).toMatchObject({ show: false, backgroundColor: BACKGROUND_COLORS.dark });
    expect(window?.options.webPreferences).toStrictEqual({ ...SECURE_WEB_PREFERENCES, preload: PRELOAD_PATH });
    expect(window?.loadURL).toHaveBeenCalledWith(APP_INDEX_URL);
  });

  it('shows the window on ready-to-show, not before', () => {
    createMainWindow({ dark: false });
    const window = FakeBrowserWindow.instances[0]!;
    expect(window.show).not.toHaveBeenCalled();
    window.emit('ready-to-show');
    expect(window.show).toHaveBeenCalledTimes(1);
  });

  it.each(['will-navigate', 'will-redirect', 'will-frame-navigate'])('%s: foreign URLs are prevented, the app origin is allowed', (name) => {
    createMainWindow({ dark: false });
    const contents = FakeBrowserWindow.instances[0]!.webContents;
    expect(contents.listenerCount(name)).toBeGreaterThan(0);
    for (const url of ['https://example.com/', 'http://localhost:3000/', 'file:///tmp/dropped.sidecar.jsonl', 'app://other-host/index.html', 'javascript:alert(1)', 'data:text/html,hi', 'not a url']) {
      expect(fire(contents, name, url).preventDefault, url).toHaveBeenCalled();
    }
    for (const url of [APP_INDEX_URL, 'app://session-inspector/', 'app://session-inspector/index.html#row-3']) {
      expect(fire(contents, name, url).preventDefault, url).not.toHaveBeenCalled();
    }
  });

  it('denies every window.open', () => {
    createMainWindow({ dark: false });
    const contents = FakeBrowserWindow.instances[0]!.webContents;
    expect(contents.windowOpenHandler?.({ url: 'https://example.com/' })).toEqual({ action: 'deny' });
    expect(contents.windowOpenHandler?.({ url: APP_INDEX_URL })).toEqual({ action: 'deny' });
  });

  it('logs instead of crashing when the renderer cannot load', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    FakeBrowserWindow.loadError = new Error('ERR_FILE_NOT_FOUND');
    createMainWindow({ dark: false });
    await new Promise((resolve) => setImmediate(resolve));
    expect(error).toHaveBeenCalledWith(expect.stringContaining('ERR_FILE_NOT_FOUND'));
    expect(FakeBrowserWindow.instances[0]?.show).toHaveBeenCalled();
    error.mockRestore();
  });
});

describe('prepareSession', () => {
  function prepared(rendererDir = '/nonexistent-renderer') {
    const session = new FakeSession();
    prepareSession(session as unknown as Session, rendererDir);
    return session;
  }

  it('denies every permission request', () => {
    const session = prepared();
    const handler = session.setPermissionRequestHandler.mock.calls[0]?.[0] as (wc: unknown, permission: string, callback: (granted: boolean) => void) => void;
    for (const permission of ['media', 'geolocation', 'notifications', 'openExternal', 'clipboard-read', 'fullscreen']) {
      const callback = vi.fn();
      handler({}, permission, callback);
      expect(callback).toHaveBeenCalledWith(false);
    }
  });

  it('fails every permission check, and every device permission', () => {
    const session = prepared();
    const check = session.setPermissionCheckHandler.mock.calls[0]?.[0] as (wc: unknown, permission: string, origin: string) => boolean;
    for (const permission of ['media', 'clipboard-read', 'hid', 'serial']) expect(check({}, permission, 'app://session-inspector')).toBe(false);
    // The one exception: the app's own clipboard write; from elsewhere it is denied too.
    expect(check({}, 'clipboard-sanitized-write', 'app://session-inspector')).toBe(true);
    expect(check({}, 'clipboard-sanitized-write', 'https://example.com')).toBe(false);
    const device = session.setDevicePermissionHandler.mock.calls[0]?.[0] as () => boolean;
    expect(device()).toBe(false);
  });

  it('puts the CSP on http(s) and file responses, replacing any the response carried', () => {
    const session = prepared();
    const listener = session.webRequest.onHeadersReceived.mock.calls[0]?.[0] as (details: { url: string; responseHeaders?: Record<string, string[]> }, callback: (response: { responseHeaders?: Record<string, string[]> }) => void) => void;
    const callback = vi.fn();
    listener({ url: 'https://example.com/x.js', responseHeaders: { 'content-security-policy': ['script-src *'], 'Content-Type': ['text/javascript'] } }, callback);
    expect(callback).toHaveBeenCalledWith({ responseHeaders: { 'Content-Type': ['text/javascript'], 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } });
    const devtools = vi.fn();
    listener({ url: 'devtools://devtools/bundled/devtools_app.html', responseHeaders: {} }, devtools);
    expect(devtools).toHaveBeenCalledWith({});
  });

  it('serves the renderer on app:// with the CSP header on the response', async () => {
    const dir = tempDir();
    try {
      mkdirSync(dir.path('renderer'));
      writeFileSync(dir.path('renderer/index.html'), '<!doctype html><title>Session Inspector</title>');
      const session = prepared(dir.path('renderer'));
      expect(session.protocol.handle).toHaveBeenCalledTimes(1);
      const [scheme, handler] = session.protocol.handle.mock.calls[0] as [string, (request: Request) => Promise<Response>];
      expect(scheme).toBe(APP_SCHEME);
      const response = await handler(new Request(APP_INDEX_URL));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
      expect(await response.text()).toContain('Session Inspector');
      const outside = await handler(new Request('app://session-inspector/..%2f..%2fetc%2fpasswd'));
      expect(outside.status).toBe(403);
      expect(outside.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    } finally {
      dir.cleanup();
    }
  });
});

describe('guardAllWebContents', () => {
  it('refuses <webview> and window.open in every web contents created', () => {
    const app = new FakeApp();
    guardAllWebContents(app as unknown as App);
    const contents = new FakeWebContents();
    app.emit('web-contents-created', fakeEvent(), contents);
    const attach = fakeEvent();
    contents.emit('will-attach-webview', attach, {}, {});
    expect(attach.preventDefault).toHaveBeenCalled();
    expect(contents.windowOpenHandler?.({ url: 'https://example.com/' })).toEqual({ action: 'deny' });
  });

  it('refuses foreign navigation and redirects in every web contents created, and lets the app origin load', () => {
    const app = new FakeApp();
    guardAllWebContents(app as unknown as App);
    const contents = new FakeWebContents();
    app.emit('web-contents-created', fakeEvent(), contents);
    for (const name of ['will-navigate', 'will-frame-navigate', 'will-redirect']) {
      expect(fire(contents, name, 'https://example.com/').preventDefault, name).toHaveBeenCalled();
      expect(fire(contents, name, 'file:///etc/passwd').preventDefault, name).toHaveBeenCalled();
      expect(fire(contents, name, APP_INDEX_URL).preventDefault, name).not.toHaveBeenCalled();
    }
  });

  it('guards a web contents once, however often it is handed over (one listener per event)', () => {
    const app = new FakeApp();
    guardAllWebContents(app as unknown as App);
    createMainWindow({ dark: false });
    const contents = FakeBrowserWindow.instances[0]!.webContents;
    // The window's own guard and web-contents-created both reached it (and once more, by hand).
    app.emit('web-contents-created', fakeEvent(), contents);
    app.emit('web-contents-created', fakeEvent(), contents);
    for (const name of ['will-navigate', 'will-frame-navigate', 'will-redirect', 'will-attach-webview']) expect(contents.listenerCount(name), name).toBe(1);
    expect(contents.setWindowOpenHandler).toHaveBeenCalledTimes(1);
  });
});
