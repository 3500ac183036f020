/**
 * The sandboxed preload (bundled to the single CommonJS file dist/preload.cjs): exposes one object,
 * `window.sessionInspector`, with one function per contract method, `openDropped` and `onEvent`.
 * `ipcRenderer` itself is never exposed, and no function takes a channel name: each one invokes
 * its own fixed channel. Only types come from shared/, so the bundle holds nothing but this file
 * and the channel names.
 */
import { contextBridge, ipcRenderer, webUtils } from 'electron';
import type { IpcRendererEvent } from 'electron';
import type { HostEvent, Method, Params, Reply } from '../../shared/contract';
import { BRIDGE_GLOBAL, CHANNEL_METHOD_NAMES, EVENT_CHANNEL, METHOD_CHANNELS, OPEN_DROPPED_CHANNEL } from '../main/channels';

/** What the preload puts on `window.sessionInspector` (the renderer's bridge declares the same shape). */
export type SessionInspectorPreloadApi = { [M in Method]: (params?: Params<M>) => Promise<Reply<M>> } & {
  /** Opens a file dropped on the window; main checks that it is an existing regular file. */
  openDropped(file: File): Promise<Reply<'openFile'>>;
  /** Subscribes to host events; returns the unsubscribe function. */
  onEvent(listener: (event: HostEvent) => void): () => void;
};

/** A function invoking `method`'s own channel. */
function invoker<M extends Method>(method: M): (params?: Params<M>) => Promise<Reply<M>> {
  const channel = METHOD_CHANNELS[method];
  return (params) => ipcRenderer.invoke(channel, params) as Promise<Reply<M>>;
}

export function createPreloadApi(): SessionInspectorPreloadApi {
  const methods = Object.fromEntries(CHANNEL_METHOD_NAMES.map((method) => [method, invoker(method)])) as {
    [M in Method]: (params?: Params<M>) => Promise<Reply<M>>;
  };
  return {
    ...methods,
    openDropped: (file) => {
      // The path of a File only exists here: the renderer (contextIsolation) never sees it, and
      // main accepts nothing but this resolved path. Not a File: '' (main answers unreadable_file).
      let path = '';
      try {
        path = webUtils.getPathForFile(file);
      } catch {
        path = '';
      }
      return ipcRenderer.invoke(OPEN_DROPPED_CHANNEL, path) as Promise<Reply<'openFile'>>;
    },
    onEvent: (listener) => {
      if (typeof listener !== 'function') throw new TypeError('onEvent expects a function');
      // The renderer gets the event object only, never the IpcRendererEvent (its `sender` is ipcRenderer).
      const forward = (_event: IpcRendererEvent, hostEvent: HostEvent) => listener(hostEvent);
      ipcRenderer.on(EVENT_CHANNEL, forward);
      return () => {
        ipcRenderer.removeListener(EVENT_CHANNEL, forward);
      };
    },
  };
}

contextBridge.exposeInMainWorld(BRIDGE_GLOBAL, createPreloadApi());
