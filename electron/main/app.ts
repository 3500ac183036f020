/**
 * The desktop app's life cycle: single instance, file arguments, the session host, IPC, menu,
 * window, recent files, quitting. main.ts calls `startApp` with the real session host factory;
 * app.test.ts calls it with a fake host and a faked `electron`.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { app, dialog, ipcMain, Menu, nativeTheme, protocol, session } from 'electron';
import type { BrowserWindow } from 'electron';
import type { HostEvent } from '../../shared/contract';
import type { ServedLibrary } from '../host/library';
import { machineLibrary } from '../host/library';
import type { SessionHost, SessionHostOptions } from '../host/types';
import type { RootsContext } from '../library/roots';
import { processRootsContext } from '../library/roots';
import { APP_SCHEME_PRIVILEGED } from './appProtocol';
import { PROTOCOL_SCHEME } from '../../shared/links/protocolLink';
import { defaultSampleFiles, filesOfSecondInstance, parseFileArguments, parseLinkArgument, parseSourceArguments, protocolUrlArgument, samplesDir, sourceOfSecondInstance } from './args';
import type { OpenSource, SecondInstanceData } from './args';
import { eventSender, registerWindowIpc } from './ipc';
import { buildMenuTemplate } from './menu';
import { OPEN_DIALOG_OPTIONS } from './openDialog';
import type { MenuActions } from './menu';
import { appUrlAt, canonicalFragment, resolveProtocolOpen } from './protocolOpen';
import { createRecentFiles, RECENT_FILE_NAME } from './recent';
import type { RecentFiles } from './recent';
import { BACKGROUND_COLORS, createMainWindow, DIST_DIR, guardAllWebContents, prepareSession } from './window';
import { createWindowSessions } from './windowSessions';

export const APP_NAME = 'Session Inspector';

/** How long quitting waits for the host (and its worker) to shut down. */
export const DISPOSE_TIMEOUT_MS = 3_000;

export interface StartOptions {
  /** Builds a window's session host (one per window, SPEC §14; main.ts adds a resolver worker's client to each). */
  createHost(options: Omit<SessionHostOptions, 'client'>): SessionHost;
  argv?: readonly string[];
  cwd?: string;
  platform?: NodeJS.Platform;
  /** Where the bundled sample is looked for (default: `samplesDir(...)` of args.ts). */
  samplesDir?: string;
  /** Where the session library looks when no file is named (default: the process's environment and home). */
  libraryContext?: RootsContext;
}

/** Starts the app. Call once, synchronously at startup (the app:// scheme must be registered before `ready`). */
export function startApp(options: StartOptions): void {
  const platform = options.platform ?? process.platform;
  const defaultApp = process.defaultApp === true;
  const argv = options.argv ?? process.argv;
  const argvFiles = parseFileArguments(argv, { defaultApp, cwd: options.cwd ?? process.cwd() });
  const argvSource = parseSourceArguments(argv);
  // SPEC §12: `open --link '#…'`, or a protocol link the OS started this instance with.
  const argvLink = parseLinkArgument(argv);
  const argvProtocolUrl = protocolUrlArgument(argv);

  protocol.registerSchemesAsPrivileged([APP_SCHEME_PRIVILEGED]);

  // A second launch hands its files to this instance (see 'second-instance') and quits.
  const secondInstanceData: SecondInstanceData = { files: argvFiles, source: argvSource, ...(argvLink !== undefined ? { link: argvLink } : {}) };
  if (!app.requestSingleInstanceLock(secondInstanceData)) {
    app.quit();
    return;
  }

  /** The window the app acts on (menu, files from the OS): the last focused or created. */
  let mainWindow: BrowserWindow | null = null;
  /** One session per window: each window's own host (docs/sessions-and-links.md). */
  const windows = createWindowSessions();
  /** What every window's host is made with, once the app is ready; null before. */
  let hostOptions: ((window: BrowserWindow) => Omit<SessionHostOptions, 'client'>) | null = null;
  let recent: RecentFiles | null = null;
  /** The session library every window lists when no file was named at start (docs/library.md "In the app"). */
  let library: ServedLibrary | null = null;
  /** Files asked for before the host exists (macOS `open-file` before `ready`). */
  let pendingFiles: string[] = [];
  /** The place the first window opens at (`#…`, or '' for none). */
  let pendingFragment = canonicalFragment(argvLink);
  let disposed = false;

  const liveWindow = () => (mainWindow !== null && !mainWindow.isDestroyed() ? mainWindow : null);
  const webContents = () => liveWindow()?.webContents ?? null;
  const send: (event: HostEvent) => void = eventSender(webContents);

  /** The host of the window the app acts on. */
  const currentHost = (): SessionHost | null => {
    const window = liveWindow();
    return window ? (windows.hostOf(window) ?? null) : null;
  };

  const createWindow = (fragment = ''): BrowserWindow => {
    const window = createMainWindow({ dark: nativeTheme.shouldUseDarkColors, ...(fragment !== '' ? { url: appUrlAt(fragment) } : {}) });
    // Its own session: opening a file in one window never replaces another window's.
    if (hostOptions !== null) windows.attach(window, options.createHost(hostOptions(window)));
    window.on('focus', () => {
      mainWindow = window;
    });
    window.on('closed', () => {
      if (mainWindow === window) mainWindow = null;
    });
    mainWindow = window;
    return window;
  };
  const ensureWindow = (): BrowserWindow => liveWindow() ?? createWindow();
  const focusWindow = () => {
    const window = ensureWindow();
    if (window.isMinimized()) window.restore();
    window.focus();
  };

  /**
   * Opens `paths`, then shows `fragment`'s place (SPEC §12): a new window is created at it; an open
   * one is moved to it once the files are open (a same-page fragment change: its `hashchange`).
   */
  const openPaths = (paths: string[], source: OpenSource = {}, fragment = '') => {
    if (paths.length === 0) return;
    if (hostOptions === null) {
      pendingFiles = [...pendingFiles, ...paths];
      if (fragment !== '') pendingFragment = fragment;
      return;
    }
    const existing = liveWindow();
    const host = windows.hostOf(existing ?? createWindow(fragment));
    if (!host) return;
    // Failures reach the renderer as `loadFailed` events; the log is for whoever started the app.
    host.openPaths(paths, source).then(
      (reply) => {
        if (!reply.ok) console.warn(`Session Inspector: could not open ${paths.join(', ')}: ${reply.error.message}`);
        else if (existing !== null && fragment !== '' && !existing.isDestroyed()) void existing.loadURL(appUrlAt(fragment)).catch(() => undefined);
      },
      (error: unknown) => console.warn(`Session Inspector: could not open ${paths.join(', ')}: ${String(error)}`),
    );
  };

  /** A protocol link from the OS: checked (protocolOpen.ts), then opened at its place; refused with a sentence. */
  const openProtocolUrl = (url: string) => {
    const opened = resolveProtocolOpen(url);
    if (!opened.ok) {
      console.warn(`Session Inspector: ${opened.message}`);
      void app.whenReady().then(() => dialog.showMessageBox({ type: 'warning', title: APP_NAME, message: opened.message, buttons: ['OK'] }));
      return;
    }
    for (const problem of opened.problems) console.warn(`Session Inspector: ${problem}`);
    openPaths(opened.files, {}, opened.fragment);
  };

  const rebuildMenu = () => {
    const actions: MenuActions = {
      open: () => {
        ensureWindow();
        void currentHost()?.handle('openDialog', {});
      },
      newWindow: () => void createWindow(),
      openRecent: (path) => openPaths([path]),
      clearRecent: () => {
        recent?.clear();
        rebuildMenu();
      },
      toggleDarkMode: () => {
        nativeTheme.themeSource = nativeTheme.shouldUseDarkColors ? 'light' : 'dark';
        send({ name: 'command', payload: { name: 'toggleTheme' } });
      },
      command: (name) => send({ name: 'command', payload: { name } }),
      about: () => {
        const details = { type: 'info' as const, title: `About ${APP_NAME}`, message: APP_NAME, detail: `Version ${app.getVersion()}`, buttons: ['OK'] };
        const window = liveWindow();
        void (window ? dialog.showMessageBox(window, details) : dialog.showMessageBox(details));
      },
    };
    const template = buildMenuTemplate({ appName: APP_NAME, platform, isPackaged: app.isPackaged, recent: recent?.list() ?? [], actions });
    Menu.setApplicationMenu(Menu.buildFromTemplate(template));
  };

  /** The native open dialog, over `window` (the one whose session opens the chosen files). */
  const openDialogOver = (owner: BrowserWindow) => async (): Promise<string[] | null> => {
    const window = owner.isDestroyed() ? liveWindow() : owner;
    const result = window ? await dialog.showOpenDialog(window, OPEN_DIALOG_OPTIONS) : await dialog.showOpenDialog(OPEN_DIALOG_OPTIONS);
    return result.canceled || result.filePaths.length === 0 ? null : result.filePaths;
  };

  guardAllWebContents(app);

  // macOS: a file dropped on the dock icon or opened from Finder; may arrive before `ready`.
  app.on('open-file', (event, path) => {
    event.preventDefault();
    openPaths([path]);
  });

  // macOS: a session-inspector:// link; may arrive before `ready`.
  app.on('open-url', (event, url) => {
    event.preventDefault();
    openProtocolUrl(url);
  });

  app.on('second-instance', (_event, secondArgv, workingDirectory, additionalData) => {
    if (hostOptions !== null) focusWindow();
    // Windows and Linux: a protocol link starts a second instance with the URL as an argument.
    const url = protocolUrlArgument(secondArgv);
    if (url !== undefined) {
      openProtocolUrl(url);
      return;
    }
    const link = typeof additionalData === 'object' && additionalData !== null ? (additionalData as { link?: unknown }).link : undefined;
    openPaths(
      filesOfSecondInstance(secondArgv, workingDirectory, additionalData, defaultApp),
      sourceOfSecondInstance(secondArgv, additionalData),
      canonicalFragment(typeof link === 'string' ? link : parseLinkArgument(secondArgv)),
    );
  });

  nativeTheme.on('updated', () => {
    liveWindow()?.setBackgroundColor(nativeTheme.shouldUseDarkColors ? BACKGROUND_COLORS.dark : BACKGROUND_COLORS.light);
  });

  app.on('window-all-closed', () => {
    if (platform !== 'darwin') app.quit();
  });

  app.on('activate', () => {
    if (hostOptions !== null && liveWindow() === null) createWindow();
  });

  app.on('will-quit', (event) => {
    if (disposed || hostOptions === null) return;
    event.preventDefault();
    disposed = true;
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, DISPOSE_TIMEOUT_MS).unref());
    library?.dispose();
    void Promise.race([windows.disposeAll(), timeout]).then(() => app.quit());
  });

  void app.whenReady().then(() => {
    recent = createRecentFiles({
      file: join(app.getPath('userData'), RECENT_FILE_NAME),
      addRecentDocument: (path) => app.addRecentDocument(path),
      clearRecentDocuments: () => app.clearRecentDocuments(),
    });
    prepareSession(session.defaultSession);
    // Started by a protocol link (Windows, Linux): its files are the ones named, at its place.
    if (argvProtocolUrl !== undefined) openProtocolUrl(argvProtocolUrl);

    const named = pendingFiles.length > 0 ? pendingFiles : argvFiles;
    // `--session`/`--format` are about the files of the command line, not about files opened from the OS.
    const namedSource = pendingFiles.length > 0 ? {} : argvSource;
    pendingFiles = [];
    const samples = options.samplesDir ?? samplesDir(app.isPackaged, process.resourcesPath, DIST_DIR);
    // No file named (and no --session/--format to apply to one): every window starts on the session
    // library (SPEC §14), one listing shared by all; with --session/--format, the bundled sample.
    const noSource = namedSource.session === undefined && namedSource.format === undefined;
    if (named.length === 0 && noSource) library = machineLibrary(options.libraryContext ?? processRootsContext(homedir()), samples);
    const initial = named.length > 0 || library !== null ? named : defaultSampleFiles(samples);
    const recentFiles = recent;
    const served = library;
    hostOptions = (window) => ({
      host: 'electron',
      ...(served !== null ? { library: served } : {}),
      files: [...new Set([...initial, ...recentFiles.list()])],
      openDialog: openDialogOver(window),
      onOpened: (paths) => {
        recentFiles.add(paths);
        rebuildMenu();
      },
    });
    // Each message is answered by the host of the window whose main frame sent it.
    registerWindowIpc(ipcMain, (frame) => windows.hostForFrame(frame));
    // The packaged app handles session-inspector:// links (electron-builder.yml `protocols` for macOS).
    if (app.isPackaged) app.setAsDefaultProtocolClient(PROTOCOL_SCHEME);
    rebuildMenu();
    const fragment = pendingFragment;
    pendingFragment = '';
    createWindow(fragment);
    openPaths(initial, namedSource);
  });
}
