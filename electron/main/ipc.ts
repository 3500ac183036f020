/**
 * The Electron IPC adapter of the SessionHost: one `ipcMain.handle` per contract method, plus
 * `openDropped`. Every message's sender frame is checked before anything else (it must be the main
 * frame of our window, showing the app's own origin); params are validated by the host against
 * the contract. Handlers always answer a `Reply`, never throw.
 */
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { IpcMain, IpcMainInvokeEvent, WebContents, WebFrameMain } from 'electron';
import { METHOD_NAMES } from '../../shared/contract';
import type { HostError, HostEvent, Method, Reply } from '../../shared/contract';
import type { SessionHost } from '../host/types';
import { isAppUrl } from './appProtocol';
import { EVENT_CHANNEL, METHOD_CHANNELS, OPEN_DROPPED_CHANNEL } from './channels';

/** Decides whether an IPC message's `event.senderFrame` may talk to the host. */
export type FrameCheck = (frame: WebFrameMain | null) => boolean;

/** The parts of a frame the check reads (a WebFrameMain; a plain object in tests). */
export interface FrameFacts {
  readonly url: string;
  /** Only compared with null: a frame with a parent is a subframe. */
  readonly parent: object | null;
  readonly processId: number;
  readonly routingId: number;
  readonly detached: boolean;
}

/**
 * True only for the main frame of our window (`mainFrame`: `window.webContents.mainFrame`, or null
 * when there is no window) while it shows the app's own origin. A null frame (navigated away or
 * destroyed before the message was handled), a subframe, another window's frame, or a foreign
 * origin is refused. Reading a disposed frame throws: that is a refusal too.
 */
export function isTrustedAppFrame(frame: FrameFacts | null, mainFrame: FrameFacts | null): boolean {
  if (frame === null || mainFrame === null) return false;
  try {
    if (frame.detached || frame.parent !== null) return false;
    if (frame.processId !== mainFrame.processId || frame.routingId !== mainFrame.routingId) return false;
    return isAppUrl(frame.url);
  } catch {
    return false;
  }
}

/** The FrameCheck of the app: the current main window's main frame. */
export function trustedFrameOf(getWebContents: () => WebContents | null): FrameCheck {
  return (frame) => {
    const contents = getWebContents();
    if (contents === null || contents.isDestroyed()) return false;
    return isTrustedAppFrame(frame, contents.mainFrame);
  };
}

const UNTRUSTED_SENDER: HostError = { code: 'invalid_request', message: 'untrusted sender' };

function failure(error: HostError): { ok: false; error: HostError } {
  return { ok: false, error: { ...error } };
}

/** Longest path accepted from a drop (far above any real OS limit). */
const MAX_DROPPED_PATH = 32_768;

/**
 * A dropped file's path as the preload resolved it: an absolute path naming an existing regular
 * file, or the reason it is refused. The empty string is what `webUtils.getPathForFile` gives for
 * a File that is not on disk (dragged from a browser, say).
 */
export function checkDroppedPath(path: unknown): { ok: true; path: string } | { ok: false; error: HostError } {
  if (typeof path !== 'string') return failure({ code: 'invalid_request', message: 'openDropped: expected the path of the dropped file' });
  if (path === '') return failure({ code: 'unreadable_file', message: 'The dropped item is not a file on this computer.' });
  if (path.length > MAX_DROPPED_PATH || path.includes('\0')) return failure({ code: 'invalid_request', message: 'openDropped: not a valid path' });
  if (!isAbsolute(path)) return failure({ code: 'invalid_request', message: 'openDropped: the path must be absolute' });
  let isFile: boolean;
  try {
    const stats = statSync(path, { throwIfNoEntry: false });
    if (stats === undefined) return failure({ code: 'unreadable_file', message: `No such file: ${path}` });
    isFile = stats.isFile();
  } catch (error) {
    return failure({ code: 'unreadable_file', message: `Cannot read ${path}: ${error instanceof Error ? error.message : String(error)}` });
  }
  if (!isFile) return failure({ code: 'unreadable_file', message: `Not a regular file: ${path}` });
  return { ok: true, path };
}

/** Runs a host call; a throw (which SessionHost promises not to do) still becomes a reply. */
async function answer<T>(call: () => Promise<T>): Promise<T | { ok: false; error: HostError }> {
  try {
    return await call();
  } catch (error) {
    return failure({ code: 'internal_error', message: error instanceof Error ? error.message : String(error) });
  }
}

/** Every channel registerIpc handles. */
export const IPC_CHANNELS: readonly string[] = [...METHOD_NAMES.map((method) => METHOD_CHANNELS[method]), OPEN_DROPPED_CHANNEL];

/**
 * Registers the handlers; returns the function that removes them. `ipcMain` is Electron's (or a
 * fake with `handle`/`removeHandler`). Every message is answered by `host`, once its sender frame passed `isTrustedFrame`.
 */
export function registerIpc(ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>, host: SessionHost, isTrustedFrame: FrameCheck): () => void {
  return registerWindowIpc(ipcMain, (frame) => (isTrustedFrame(frame) ? host : null));
}

/**
 * The handlers of a desktop app with one session per window (./windowSessions.ts): `hostForFrame`
 * gives the host of the window whose main frame sent the message, or null (refused as an untrusted
 * sender) for any other frame.
 */
export function registerWindowIpc(ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>, hostForFrame: (frame: WebFrameMain | null) => SessionHost | null): () => void {
  for (const method of METHOD_NAMES) {
    ipcMain.handle(METHOD_CHANNELS[method], (event: IpcMainInvokeEvent, params: unknown): Promise<Reply<Method>> | Reply<Method> => {
      const host = hostForFrame(event.senderFrame);
      if (!host) return failure(UNTRUSTED_SENDER);
      return answer(() => host.handle(method, params));
    });
  }
  ipcMain.handle(OPEN_DROPPED_CHANNEL, (event: IpcMainInvokeEvent, path: unknown): Promise<Reply<'openFile'>> | Reply<'openFile'> => {
    const host = hostForFrame(event.senderFrame);
    if (!host) return failure(UNTRUSTED_SENDER);
    const checked = checkDroppedPath(path);
    if (!checked.ok) return failure(checked.error);
    return answer(() => host.openPaths([checked.path]));
  });
  return () => {
    for (const channel of IPC_CHANNELS) ipcMain.removeHandler(channel);
  };
}

/**
 * Sends host events (and the menu's commands) to the window on EVENT_CHANNEL; dropped while there
 * is no live window (the renderer asks `state` when it loads).
 */
export function eventSender(getWebContents: () => WebContents | null): (event: HostEvent) => void {
  return (event) => {
    const contents = getWebContents();
    if (contents === null || contents.isDestroyed()) return;
    contents.send(EVENT_CHANNEL, event);
  };
}
