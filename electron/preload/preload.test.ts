import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { METHOD_NAMES } from '../../shared/contract';
import type { HostEvent } from '../../shared/contract';
import type { SessionInspectorPreloadApi } from './preload';

/** The renderer-side Electron API, faked; `exposed` is what contextBridge received. */
const electron = vi.hoisted(() => {
  const listeners = new Map<string, Set<(...args: unknown[]) => void>>();
  return {
    exposed: new Map<string, unknown>(),
    listeners,
    contextBridge: {
      exposeInMainWorld: (key: string, api: unknown) => {
        electron.exposed.set(key, api);
      },
    },
    ipcRenderer: {
      invoke: vi.fn((channel: string, ...args: unknown[]) => Promise.resolve({ channel, args })),
      on: vi.fn((channel: string, listener: (...args: unknown[]) => void) => {
        if (!listeners.has(channel)) listeners.set(channel, new Set());
        listeners.get(channel)?.add(listener);
      }),
      removeListener: vi.fn((channel: string, listener: (...args: unknown[]) => void) => {
        listeners.get(channel)?.delete(listener);
      }),
    },
    webUtils: { getPathForFile: vi.fn((file: { path?: string }) => file.path ?? '') },
  };
});

vi.mock('electron', () => ({ contextBridge: electron.contextBridge, ipcRenderer: electron.ipcRenderer, webUtils: electron.webUtils }));

let api: SessionInspectorPreloadApi;

beforeAll(async () => {
  await import('./preload');
  api = electron.exposed.get('sessionInspector') as SessionInspectorPreloadApi;
});

beforeEach(() => {
  electron.ipcRenderer.invoke.mockClear();
  electron.webUtils.getPathForFile.mockClear();
});

/** Delivers `payload` on `channel` as Electron does: the IpcRendererEvent first. */
function emit(channel: string, payload: unknown) {
  const ipcEvent = { sender: electron.ipcRenderer, senderId: 0 };
  for (const listener of electron.listeners.get(channel) ?? []) listener(ipcEvent, payload);
}

describe('preload', () => {
  it('exposes one object, window.sessionInspector, and nothing else', () => {
    expect([...electron.exposed.keys()]).toEqual(['sessionInspector']);
  });

  it('exposes exactly the contract methods, openDropped and onEvent, each a function of its own', () => {
    expect(Object.keys(api).sort()).toEqual([...METHOD_NAMES, 'openDropped', 'onEvent'].sort());
    const functions = Object.values(api);
    for (const value of functions) expect(typeof value).toBe('function');
    expect(new Set(functions).size).toBe(functions.length);
    expect(api).not.toHaveProperty('ipcRenderer');
    expect(api).not.toHaveProperty('invoke');
    expect(api).not.toHaveProperty('send');
  });

  it('each method invokes its own si:<method> channel with the params as given', async () => {
    for (const method of METHOD_NAMES) {
      const params = { probe: method };
      const call = api[method] as (params: unknown) => Promise<unknown>;
      expect(await call(params)).toEqual({ channel: `si:${method}`, args: [params] });
    }
    expect(electron.ipcRenderer.invoke).toHaveBeenCalledTimes(METHOD_NAMES.length);
  });

  it('openDropped resolves the path with webUtils.getPathForFile and invokes si:openDropped with it', async () => {
    const file = { name: 'session.sidecar.jsonl', path: '/home/me/session.sidecar.jsonl' } as unknown as File;
    expect(await api.openDropped(file)).toEqual({ channel: 'si:openDropped', args: ['/home/me/session.sidecar.jsonl'] });
    expect(electron.webUtils.getPathForFile).toHaveBeenCalledWith(file);
  });

  it('openDropped sends the empty path when the item has no path (main then refuses it)', async () => {
    electron.webUtils.getPathForFile.mockImplementationOnce(() => {
      throw new TypeError('not a File');
    });
    expect(await api.openDropped('not a file' as unknown as File)).toEqual({ channel: 'si:openDropped', args: [''] });
  });

  it('onEvent hands the listener only the host event, and unsubscribes', () => {
    const received: unknown[][] = [];
    const unsubscribe = api.onEvent((...args: unknown[]) => received.push(args));
    const event: HostEvent = { name: 'command', payload: { name: 'showShortcuts' } };
    emit('si:event', event);
    expect(received).toEqual([[event]]);
    unsubscribe();
    emit('si:event', event);
    expect(received).toHaveLength(1);
    expect(electron.listeners.get('si:event')?.size).toBe(0);
  });

  it('onEvent refuses a listener that is not a function', () => {
    expect(() => api.onEvent('nope' as unknown as () => void)).toThrow(TypeError);
  });
});
