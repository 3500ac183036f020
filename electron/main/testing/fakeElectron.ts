/**
 * Small fakes of the Electron main-process API for unit tests (the Electron binary never runs
 * here). A test replaces the module at its boundary:
 *
 *   vi.mock('electron', async () => (await import('./testing/fakeElectron')).electronModule);
 *
 * and drives `fake` (the same instance, reset by `fake.reset()` in beforeEach). Only what the
 * code under test uses is faked; the fakes record calls with vi.fn and let tests fire events. The
 * preload's renderer-side API (contextBridge, ipcRenderer, webUtils) is here too, as `fake.renderer`.
 */
import { EventEmitter } from 'node:events';
import { vi } from 'vitest';
import { APP_INDEX_URL } from '../appProtocol';

/** A fake Electron event: records preventDefault, carries any extra fields (`url`…). */
export function fakeEvent<T extends object>(extra: T = {} as T): T & { preventDefault: ReturnType<typeof vi.fn>; readonly defaultPrevented: boolean } {
  const event = {
    ...extra,
    defaultPrevented: false,
    preventDefault: vi.fn(() => {
      event.defaultPrevented = true;
    }),
  };
  return event;
}

export interface FakeFrame {
  url: string;
  parent: FakeFrame | null;
  processId: number;
  routingId: number;
  detached: boolean;
}

let nextRoutingId = 1;

export class FakeWebContents extends EventEmitter {
  readonly id = nextRoutingId;
  mainFrame: FakeFrame = { url: APP_INDEX_URL, parent: null, processId: 7, routingId: nextRoutingId++, detached: false };
  windowOpenHandler: ((details: { url: string }) => unknown) | undefined;
  destroyed = false;
  readonly send = vi.fn();
  readonly setWindowOpenHandler = vi.fn((handler: (details: { url: string }) => unknown) => {
    this.windowOpenHandler = handler;
  });
  readonly isDestroyed = vi.fn(() => this.destroyed);
}

export class FakeBrowserWindow extends EventEmitter {
  static instances: FakeBrowserWindow[] = [];
  /** Set, every loadURL rejects with it (a renderer that is not built). */
  static loadError: Error | undefined;
  readonly webContents = new FakeWebContents();
  destroyed = false;
  minimized = false;
  readonly loadURL = vi.fn((_url: string) => (FakeBrowserWindow.loadError ? Promise.reject(FakeBrowserWindow.loadError) : Promise.resolve()));
  readonly show = vi.fn();
  readonly focus = vi.fn();
  readonly restore = vi.fn();
  readonly setBackgroundColor = vi.fn();
  readonly isMinimized = vi.fn(() => this.minimized);
  readonly isDestroyed = vi.fn(() => this.destroyed);

  constructor(readonly options: Record<string, unknown>) {
    super();
    FakeBrowserWindow.instances.push(this);
    // As Electron does: the app hears of every new web contents, the window's included.
    fake.app.emit('web-contents-created', fakeEvent(), this.webContents);
  }

  /** What closing the window does, as far as the app sees it. */
  close(): void {
    this.destroyed = true;
    this.webContents.destroyed = true;
    this.emit('closed');
  }
}

export class FakeSession {
  readonly protocol = { handle: vi.fn() };
  readonly setPermissionRequestHandler = vi.fn();
  readonly setPermissionCheckHandler = vi.fn();
  readonly setDevicePermissionHandler = vi.fn();
  readonly webRequest = { onHeadersReceived: vi.fn() };
}

export class FakeApp extends EventEmitter {
  isPackaged = false;
  lockObtained = true;
  userData = '/nonexistent-user-data';
  private resolveReady: () => void = () => undefined;
  private readonly ready = new Promise<void>((resolve) => {
    this.resolveReady = resolve;
  });
  readonly requestSingleInstanceLock = vi.fn((_data?: Record<string, unknown>) => this.lockObtained);
  readonly quit = vi.fn();
  readonly whenReady = vi.fn(() => this.ready);
  readonly getPath = vi.fn((_name: string) => this.userData);
  readonly getVersion = vi.fn(() => '0.1.0');
  readonly addRecentDocument = vi.fn();
  readonly clearRecentDocuments = vi.fn();
  readonly setAsDefaultProtocolClient = vi.fn((_scheme: string) => true);

  /** Fires `ready`: resolves whenReady and lets its continuations run. */
  async becomeReady(): Promise<void> {
    this.resolveReady();
    await this.ready;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

export class FakeIpcMain {
  readonly handlers = new Map<string, (event: unknown, ...args: unknown[]) => unknown>();
  readonly handle = vi.fn((channel: string, handler: (event: unknown, ...args: unknown[]) => unknown) => {
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, handler);
  });
  readonly removeHandler = vi.fn((channel: string) => {
    this.handlers.delete(channel);
  });

  /** What `ipcRenderer.invoke(channel, ...args)` from `frame` would get back. */
  async invoke(channel: string, frame: FakeFrame | null, ...args: unknown[]): Promise<unknown> {
    const handler = this.handlers.get(channel);
    if (!handler) throw new Error(`No handler registered for '${channel}'`);
    return await handler({ senderFrame: frame }, ...args);
  }
}

export class FakeNativeTheme extends EventEmitter {
  shouldUseDarkColors = false;
  private source: 'system' | 'light' | 'dark' = 'system';
  get themeSource(): 'system' | 'light' | 'dark' {
    return this.source;
  }
  set themeSource(value: 'system' | 'light' | 'dark') {
    this.source = value;
    if (value !== 'system') this.shouldUseDarkColors = value === 'dark';
    this.emit('updated');
  }
}

/**
 * The renderer-side API the preload uses (contextBridge, ipcRenderer, webUtils): `exposed` is what
 * the preload put in the main world.
 */
export class FakeRendererApi {
  readonly exposed = new Map<string, unknown>();
  readonly contextBridge = {
    exposeInMainWorld: vi.fn((key: string, api: unknown) => {
      this.exposed.set(key, api);
    }),
  };
  readonly ipcRenderer = {
    invoke: vi.fn((channel: string, ...args: unknown[]) => Promise.resolve({ channel, args })),
    send: vi.fn(),
    sendSync: vi.fn(),
    on: vi.fn(),
    once: vi.fn(),
    removeListener: vi.fn(),
  };
  readonly webUtils = { getPathForFile: vi.fn((_file: unknown) => '') };
}

function createFakes() {
  return {
    renderer: new FakeRendererApi(),
    app: new FakeApp(),
    ipcMain: new FakeIpcMain(),
    nativeTheme: new FakeNativeTheme(),
    defaultSession: new FakeSession(),
    protocol: { registerSchemesAsPrivileged: vi.fn(), handle: vi.fn() },
    dialog: {
      showOpenDialog: vi.fn((..._args: unknown[]) => Promise.resolve({ canceled: true, filePaths: [] as string[] })),
      showMessageBox: vi.fn((..._args: unknown[]) => Promise.resolve({ response: 0, checkboxChecked: false })),
    },
    Menu: {
      buildFromTemplate: vi.fn((template: unknown[]) => ({ template })),
      setApplicationMenu: vi.fn(),
    },
  };
}

type Fakes = ReturnType<typeof createFakes>;

/** The current fakes; `reset()` replaces them all (and forgets every window). */
export const fake: Fakes & { reset(): void } = {
  ...createFakes(),
  reset() {
    Object.assign(fake, createFakes());
    FakeBrowserWindow.instances = [];
    FakeBrowserWindow.loadError = undefined;
  },
};

/** The `electron` module as the code under test imports it; every export reads the current fake. */
export const electronModule = {
  get app() {
    return fake.app;
  },
  get ipcMain() {
    return fake.ipcMain;
  },
  get nativeTheme() {
    return fake.nativeTheme;
  },
  get protocol() {
    return fake.protocol;
  },
  get dialog() {
    return fake.dialog;
  },
  get Menu() {
    return fake.Menu;
  },
  get session() {
    return { defaultSession: fake.defaultSession };
  },
  BrowserWindow: FakeBrowserWindow,
  // The preload's side (see FakeRendererApi).
  get contextBridge() {
    return fake.renderer.contextBridge;
  },
  get ipcRenderer() {
    return fake.renderer.ipcRenderer;
  },
  get webUtils() {
    return fake.renderer.webUtils;
  },
};
