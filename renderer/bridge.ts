/**
 * The one file of the renderer that talks to the host. `createBridge()` returns the contract's
 * HostApi over the Electron preload API when the window has one, else over the HTTP host; the rest
 * of the app cannot tell which. Every reply and every event is validated here: the host is another
 * process, and what it relays comes from files nobody vouched for.
 */
import type { HostApi, HostEvent, Method, Params, Reply } from '../shared/contract';
import { EVENTS_PATH, METHOD_NAMES, TOKEN_HEADER, TOKEN_PARAM, UPLOAD_NAME_HEADER, UPLOAD_PATH, apiPath, parseEvent, parseReply } from '../shared/contract';

/**
 * What the preload script exposes as `window.sessionInspector` (contextBridge): one function per
 * contract method, the event subscription, and the drop handler. Replies and events are typed
 * `unknown` on purpose: the bridge validates them.
 */
export type PreloadApi = { [M in Method]: (params: Params<M>) => Promise<unknown> } & {
  /** Subscribes to host events; returns the unsubscribe function. */
  onEvent(listener: (event: unknown) => void): () => void;
  /** Opens a file dropped on the window (the shell resolves its path itself); replies like `openFile`. */
  openDropped(file: File): Promise<unknown>;
};

/** The HTTP host's token, read from the page's URL when the bridge was made (the URL may change later). */
let httpToken: string | undefined;
function readToken(): string {
  return new URLSearchParams(globalThis.location?.search ?? '').get(TOKEN_PARAM) ?? '';
}

function preloadApi(): PreloadApi | undefined {
  if (typeof window === 'undefined') return undefined;
  const api = (window as unknown as { sessionInspector?: PreloadApi }).sessionInspector;
  return typeof api === 'object' && api !== null ? api : undefined;
}

function failed(message: string): { ok: false; error: { code: 'internal_error'; message: string } } {
  return { ok: false, error: { code: 'internal_error', message } };
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Fans one source of raw events out to listeners, dropping whatever fails validation. */
function eventHub(subscribe: (deliver: (raw: unknown) => void) => () => void): HostApi['onEvent'] {
  const listeners = new Set<(event: HostEvent) => void>();
  let unsubscribe: (() => void) | undefined;
  const deliver = (raw: unknown): void => {
    const event = parseEvent(raw);
    if (!event) return;
    for (const listener of [...listeners]) listener(event);
  };
  return (listener) => {
    listeners.add(listener);
    unsubscribe ??= subscribe(deliver);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && unsubscribe) {
        unsubscribe();
        unsubscribe = undefined;
      }
    };
  };
}

function overPreload(api: PreloadApi): HostApi {
  const call = async (method: Method, params: unknown): Promise<Reply<Method>> => {
    try {
      const fn = api[method] as (p: unknown) => Promise<unknown>;
      return parseReply(method, await fn(params));
    } catch (e) {
      return failed(`${method} failed in the desktop bridge: ${messageOf(e)}`);
    }
  };
  const methods = Object.fromEntries(METHOD_NAMES.map((m) => [m, (params: unknown) => call(m, params)]));
  return { ...methods, onEvent: eventHub((deliver) => api.onEvent(deliver)) } as unknown as HostApi;
}

function overHttp(): HostApi {
  // Read once: the app may rewrite its own URL later, the token stays.
  const token = readToken();
  httpToken = token;
  const call = async (method: Method, params: unknown): Promise<Reply<Method>> => {
    let response: Response;
    try {
      response = await fetch(apiPath(method), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', [TOKEN_HEADER]: token },
        body: JSON.stringify(params ?? {}),
      });
    } catch (e) {
      return failed(`the Session Inspector host did not answer ${method}: ${messageOf(e)}`);
    }
    let text = '';
    let body: unknown;
    try {
      text = await response.text();
      body = JSON.parse(text);
    } catch {
      // A refused token is answered in a sentence saying how to get a fresh address (http.ts tokenRefusal).
      if (response.status === 403 && text.trim() !== '') return failed(`the Session Inspector host refused ${method} (HTTP 403). ${text.trim().slice(0, 1000)}`);
      return failed(`the Session Inspector host answered ${method} with HTTP ${response.status} and no JSON reply`);
    }
    // Errors the host refuses before `handle` (a too-large body…) still carry the contract's shape.
    return parseReply(method, body);
  };
  const methods = Object.fromEntries(METHOD_NAMES.map((m) => [m, (params: unknown) => call(m, params)]));
  const onEvent = eventHub((deliver) => {
    const source = new EventSource(`${EVENTS_PATH}?${TOKEN_PARAM}=${encodeURIComponent(token)}`);
    source.onmessage = (message: MessageEvent) => {
      if (typeof message.data !== 'string') return;
      try {
        deliver(JSON.parse(message.data) as unknown);
      } catch {
        // Not JSON: not an event of ours.
      }
    };
    return () => source.close();
  });
  return { ...methods, onEvent } as unknown as HostApi;
}

/** The host API of this window: Electron's preload API when present, else the HTTP host. */
export function createBridge(): HostApi {
  const api = preloadApi();
  return api ? overPreload(api) : overHttp();
}

/**
 * Sends a file's bytes to the HTTP host (`POST /api/upload`), which keeps them in a
 * private temporary file and opens it; the reply is `openFile`'s. The browser declares the length.
 */
async function uploadFile(file: File): Promise<Reply<'openFile'>> {
  let response: Response;
  try {
    response = await fetch(UPLOAD_PATH, {
      method: 'POST',
      headers: { 'Content-Type': 'application/octet-stream', [TOKEN_HEADER]: httpToken ?? readToken(), [UPLOAD_NAME_HEADER]: encodeURIComponent(file.name) },
      body: file,
    });
  } catch (e) {
    return failed(`uploading ${file.name} failed: ${messageOf(e)}`);
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    return failed(`the Session Inspector host answered the upload of ${file.name} with HTTP ${response.status} and no JSON reply`);
  }
  return parseReply('openFile', body);
}

/**
 * Opens a file dropped on the window or picked with `Open file…`. Electron resolves the dropped
 * file's path in the preload; a browser never reveals it, so over HTTP the file is uploaded.
 */
export async function openDroppedFile(file: File): Promise<Reply<'openFile'>> {
  const api = preloadApi();
  if (!api) return uploadFile(file);
  try {
    return parseReply('openFile', await api.openDropped(file));
  } catch (e) {
    return failed(`opening the dropped file failed: ${messageOf(e)}`);
  }
}
