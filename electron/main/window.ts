/**
 * The main window and the hardening of everything around it (Electron's security checklist):
 * fixed secure webPreferences, the app:// protocol with its CSP, navigation and window-open
 * blocked, every permission denied, no <webview>.
 */
import { join } from 'node:path';
import { BrowserWindow } from 'electron';
import type { App, BrowserWindowConstructorOptions, Session, WebContents } from 'electron';
import { APP_INDEX_URL, APP_SCHEME, createAppProtocolHandler, isAppUrl, withContentSecurityPolicy } from './appProtocol';

/**
 * The folder of the bundled main process: esbuild writes this module into dist/main.cjs, so
 * `__dirname` is dist/ (inside app.asar when packaged), beside preload.cjs and renderer/.
 */
export const DIST_DIR = __dirname;
export const PRELOAD_PATH = join(DIST_DIR, 'preload.cjs');
export const RENDERER_DIR = join(DIST_DIR, 'renderer');

/** Window backgrounds before the renderer paints, so a dark system theme gets no white flash. */
export const BACKGROUND_COLORS = { light: '#ffffff', dark: '#1e1e1e' } as const;

/**
 * Every webPreferences value that matters for security is spelled out, even where it is Electron's
 * default (`sandbox` above all: the default depends on other settings). window.test.ts fails if one
 * is loosened.
 */
export const WINDOW_OPTIONS = Object.freeze({
  title: 'Session Inspector',
  width: 1280,
  height: 860,
  minWidth: 720,
  minHeight: 480,
  // Shown on ready-to-show: no blank frame while the renderer loads.
  show: false,
  webPreferences: Object.freeze({
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
    preload: PRELOAD_PATH,
  }),
} satisfies BrowserWindowConstructorOptions);

/** WINDOW_OPTIONS plus the background of the current theme (a fresh, mutable copy). */
export function windowOptions(dark: boolean): BrowserWindowConstructorOptions {
  return {
    ...WINDOW_OPTIONS,
    backgroundColor: dark ? BACKGROUND_COLORS.dark : BACKGROUND_COLORS.light,
    webPreferences: { ...WINDOW_OPTIONS.webPreferences },
  };
}

/** Web contents already guarded: a guard is attached once, however often a contents is handed over. */
const guarded = new WeakSet<WebContents>();

/**
 * The guards every web contents gets (the window's, devtools', anything Electron creates later):
 * navigation away from the app's origin is refused — a link in session content, a dropped file
 * (Chromium's default drop action navigates to file://…), a redirect — so only the app's own
 * pages may load; no window may open; no <webview> may attach. Idempotent.
 */
export function guardWebContents(contents: WebContents): void {
  if (guarded.has(contents)) return;
  guarded.add(contents);
  contents.on('will-navigate', (event) => {
    if (!isAppUrl(event.url)) event.preventDefault();
  });
  contents.on('will-frame-navigate', (event) => {
    if (!isAppUrl(event.url)) event.preventDefault();
  });
  contents.on('will-redirect', (event) => {
    if (!isAppUrl(event.url)) event.preventDefault();
  });
  // No popups, ever; and never shell.openExternal with a URL from session content.
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

/**
 * The one permission granted (`Copy link`, `Copy bytes`): a sanitized clipboard WRITE,
 * asked by the app's own page in its main frame. Electron gates `navigator.clipboard.writeText`
 * behind it, unlike a browser; Chromium still requires a user gesture for it. Reading the
 * clipboard, and every other permission, stays denied, for every origin.
 */
export function grantsPermission(permission: string, url: string | undefined, isMainFrame: boolean | undefined): boolean {
  return permission === 'clipboard-sanitized-write' && url !== undefined && isAppUrl(url) && isMainFrame !== false;
}

/**
 * Once per session, after `app` is ready: serve dist/renderer on app://, deny every permission
 * request and check but the app's own clipboard write (grantsPermission), and put the CSP on http(s)/file responses too (app:// responses carry it
 * from the handler; webRequest does not see them).
 */
export function prepareSession(ses: Session, rendererDir: string = RENDERER_DIR): void {
  ses.protocol.handle(APP_SCHEME, createAppProtocolHandler(rendererDir));
  ses.setPermissionRequestHandler((_webContents, permission, callback, details) => callback(grantsPermission(permission, details?.requestingUrl, details?.isMainFrame)));
  ses.setPermissionCheckHandler((_webContents, permission, origin, details) => grantsPermission(permission, details?.requestingUrl ?? origin, details?.isMainFrame));
  ses.setDevicePermissionHandler(() => false);
  ses.webRequest.onHeadersReceived((details, callback) => {
    const responseHeaders = withContentSecurityPolicy(details.url, details.responseHeaders);
    callback(responseHeaders ? { responseHeaders } : {});
  });
}

/**
 * Every web contents ever created (the window, devtools, anything unexpected) gets the guards of
 * `guardWebContents`: no foreign navigation or redirect, no window, no <webview>.
 */
export function guardAllWebContents(app: App): void {
  app.on('web-contents-created', (_event, contents) => guardWebContents(contents));
}

export interface MainWindowDeps {
  /** nativeTheme.shouldUseDarkColors when the window is created. */
  dark: boolean;
  /** The page to load; the app's index unless a test says otherwise. */
  url?: string;
}

/** A hardened window loading the renderer from app://session-inspector/index.html. */
export function createMainWindow(deps: MainWindowDeps): BrowserWindow {
  const window = new BrowserWindow(windowOptions(deps.dark));
  // Already done by 'web-contents-created' when startApp runs; here too, so a window made any
  // other way is guarded as well (a no-op the second time).
  guardWebContents(window.webContents);
  window.once('ready-to-show', () => window.show());
  window.loadURL(deps.url ?? APP_INDEX_URL).catch((error: unknown) => {
    console.error(`Session Inspector: the window could not load the renderer (${error instanceof Error ? error.message : String(error)}); is dist/renderer built?`);
    // A window that never shows would leave the app running invisibly.
    if (!window.isDestroyed()) window.show();
  });
  return window;
}
