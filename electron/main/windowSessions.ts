/**
 * One session per window in the desktop app (SPEC §14, docs/sessions-and-links.md): each
 * BrowserWindow has a SessionHost of its own (its own resolver worker), and an IPC message is
 * answered by the host of the window whose main frame sent it — the sender frame is checked against
 * that window (its main frame, showing the app's origin), never trusted to name a window itself.
 * A window's host is disposed when the window closes; its events go to that window only.
 */
import type { BrowserWindow, WebFrameMain } from 'electron';
import type { HostEvent } from '../../shared/contract';
import type { SessionHost } from '../host/types';
import { EVENT_CHANNEL } from './channels';
import { isTrustedAppFrame } from './ipc';

export interface WindowSessions {
  /** Gives `window` its own `host`: its events go to the window; it is disposed when the window closes. */
  attach(window: BrowserWindow, host: SessionHost): void;
  /** The host of the window whose main frame `frame` is (showing the app's origin); null for any other frame. */
  hostForFrame(frame: WebFrameMain | null): SessionHost | null;
  /** The host of `window`, while it is open. */
  hostOf(window: BrowserWindow): SessionHost | undefined;
  /** Every open window's host. */
  hosts(): SessionHost[];
  /** Disposes every host (quitting). */
  disposeAll(): Promise<void>;
}

export function createWindowSessions(): WindowSessions {
  const byWindow = new Map<BrowserWindow, { host: SessionHost; unsubscribe: () => void }>();
  const disposing = new Set<Promise<void>>();

  const release = (window: BrowserWindow): void => {
    const entry = byWindow.get(window);
    if (!entry) return;
    byWindow.delete(window);
    entry.unsubscribe();
    const done = entry.host.dispose().catch(() => undefined);
    disposing.add(done);
    void done.finally(() => disposing.delete(done));
  };

  return {
    attach(window, host) {
      const contents = window.webContents;
      const unsubscribe = host.onEvent((event: HostEvent) => {
        if (!window.isDestroyed() && !contents.isDestroyed()) contents.send(EVENT_CHANNEL, event);
      });
      byWindow.set(window, { host, unsubscribe });
      window.on('closed', () => release(window));
    },
    hostForFrame(frame) {
      for (const [window, entry] of byWindow) {
        if (window.isDestroyed() || window.webContents.isDestroyed()) continue;
        if (isTrustedAppFrame(frame, window.webContents.mainFrame)) return entry.host;
      }
      return null;
    },
    hostOf: (window) => byWindow.get(window)?.host,
    hosts: () => [...byWindow.values()].map((e) => e.host),
    async disposeAll() {
      for (const window of [...byWindow.keys()]) release(window);
      await Promise.all([...disposing]);
    },
  };
}
