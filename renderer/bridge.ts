/**
 * The one file of the renderer that talks to the host. `createBridge()` returns the contract's
 * HostApi over the Electron preload API when the window has one, else over the HTTP host; the rest
 * of the app cannot tell which. Every reply and every event is validated here: the host is another
 * process, and what it relays comes from files nobody vouched for.
 */
import type { HostApi, HostEvent, Method, Params, Reply } from '../shared/contract';
import { EVENTS_PATH, HANDLE_PATH, METHOD_NAMES, SESSION_HEADER, SESSION_PARAM, TOKEN_HEADER, TOKEN_PARAM, UPLOAD_NAME_HEADER, UPLOAD_PATH, apiPath, parseEvent, parseReply } from '../shared/contract';

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

/**
 * This tab's session on the HTTP host (SPEC §14, docs/sessions-and-links.md): a handle the host
 * drew, kept in the tab's sessionStorage so a reload finds its session open; every request and
 * the event stream carry it. When the host has closed it, the tab forgets it, keeps the reason to
 * show, and reloads: the page starts again on a session of its own, from its link.
 */
const HANDLE_KEY = 'session-inspector-session';
const CLOSED_NOTICE_KEY = 'session-inspector-session-closed';

/** The tab's storage; undefined outside a browser (or where it is refused), where no handle is kept. */
function tabStorage(): Storage | undefined {
  try {
    return typeof sessionStorage === 'undefined' ? undefined : sessionStorage;
  } catch {
    return undefined;
  }
}

interface TabSession {
  /** The tab's handle, drawn from the host at the first request; undefined when the host keeps one session only. */
  handle(): Promise<string | undefined>;
  /** The host closed the tab's session: start again from the link. */
  closed(reason: string): void;
}

function tabSession(token: string): TabSession | undefined {
  const storage = tabStorage();
  if (!storage) return undefined;
  let handle: string | undefined = storage.getItem(HANDLE_KEY) ?? undefined;
  let drawing: Promise<string | undefined> | undefined;
  let closing = false;
  const draw = async (): Promise<string | undefined> => {
    try {
      const response = await fetch(HANDLE_PATH, { method: 'POST', headers: { 'Content-Type': 'application/json', [TOKEN_HEADER]: token }, body: '{}' });
      const body = (await response.json()) as { ok?: unknown; value?: { handle?: unknown } };
      const drawn = body.ok === true && typeof body.value?.handle === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(body.value.handle) ? body.value.handle : undefined;
      if (drawn !== undefined) storage.setItem(HANDLE_KEY, drawn);
      return drawn;
    } catch {
      // A host that keeps one session (or did not answer): requests go without a handle, as before.
      return undefined;
    }
  };
  return {
    async handle() {
      if (handle !== undefined) return handle;
      drawing ??= draw();
      handle = await drawing;
      return handle;
    },
    closed(reason) {
      if (closing) return;
      closing = true;
      storage.removeItem(HANDLE_KEY);
      storage.setItem(CLOSED_NOTICE_KEY, reason);
      globalThis.location?.reload();
    },
  };
}

/** Why this tab's previous session was closed, once, after the reload that followed; null when it was not. */
export function takeClosedNotice(): string | null {
  const storage = tabStorage();
  const notice = storage?.getItem(CLOSED_NOTICE_KEY) ?? null;
  if (notice !== null) storage?.removeItem(CLOSED_NOTICE_KEY);
  return notice;
}
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

/** This tab's session, for uploads (made with the bridge). */
let httpTab: TabSession | undefined;

function overHttp(): HostApi {
  // Read once: the app may rewrite its own URL later, the token stays.
  const token = readToken();
  httpToken = token;
  const tab = tabSession(token);
  httpTab = tab;
  const call = async (method: Method, params: unknown): Promise<Reply<Method>> => {
    let response: Response;
    try {
      const handle = await tab?.handle();
      response = await fetch(apiPath(method), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', [TOKEN_HEADER]: token, ...(handle !== undefined ? { [SESSION_HEADER]: handle } : {}) },
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
    const reply = parseReply(method, body);
    if (!reply.ok && reply.error.code === 'session_closed') tab?.closed(reply.error.message);
    return reply;
  };
  const methods = Object.fromEntries(METHOD_NAMES.map((m) => [m, (params: unknown) => call(m, params)]));
  const onEvent = eventHub((deliver) => {
    let source: EventSource | undefined;
    let stopped = false;
    const open = (handle: string | undefined): void => {
      source = new EventSource(`${EVENTS_PATH}?${TOKEN_PARAM}=${encodeURIComponent(token)}${handle !== undefined ? `&${SESSION_PARAM}=${encodeURIComponent(handle)}` : ''}`);
      source.onmessage = (message: MessageEvent) => {
        if (typeof message.data !== 'string') return;
        let raw: unknown;
        try {
          raw = JSON.parse(message.data) as unknown;
        } catch {
          // Not JSON: not an event of ours.
          return;
        }
        const event = parseEvent(raw);
        if (event?.name === 'handleClosed') {
          source?.close();
          tab?.closed(event.payload.reason);
          return;
        }
        deliver(raw);
      };
    };
    // A tab with a session of its own streams that session's events, once its handle is drawn.
    if (!tab) open(undefined);
    else
      void tab.handle().then((handle) => {
        if (!stopped) open(handle);
      });
    return () => {
      stopped = true;
      source?.close();
    };
  });
  return { ...methods, onEvent } as unknown as HostApi;
}

/** The host API of this window: Electron's preload API when present, else the HTTP host. */
export function createBridge(): HostApi {
  const api = preloadApi();
  return api ? overPreload(api) : overHttp();
}

/** The header naming this tab's session, when it has one. */
async function tabHeader(): Promise<Record<string, string>> {
  const handle = await httpTab?.handle();
  return handle !== undefined ? { [SESSION_HEADER]: handle } : {};
}

/**
 * The upload in flight, if any. A file dropped while another uploads aborts that upload and is sent
 * once it has settled, so the file dropped last is the last the host receives: the host orders
 * uploads as they arrive (a later one supersedes), and two sent at once on two connections can
 * arrive in either order (docs/sessions-and-links.md "Uploads").
 */
let uploadInFlight: { abort: AbortController; settled: Promise<void> } | undefined;

function superseded(file: File): { ok: false; error: { code: 'cancelled'; message: string } } {
  return { ok: false, error: { code: 'cancelled', message: `uploading ${file.name} was superseded by a file dropped after it` } };
}

/**
 * Sends a file's bytes to the HTTP host (`POST /api/upload`), which keeps them in a
 * private temporary file and opens it; the reply is `openFile`'s. The browser declares the length.
 */
async function uploadFile(file: File): Promise<Reply<'openFile'>> {
  const previous = uploadInFlight;
  const abort = new AbortController();
  let settle = (): void => undefined;
  const mine = { abort, settled: new Promise<void>((resolve) => (settle = resolve)) };
  uploadInFlight = mine;
  try {
    if (previous) {
      previous.abort.abort();
      await previous.settled;
    }
    // Another file was dropped while this one waited: that one is sent instead.
    if (abort.signal.aborted) return superseded(file);
    return await sendUpload(file, abort.signal);
  } finally {
    settle();
    if (uploadInFlight === mine) uploadInFlight = undefined;
  }
}

async function sendUpload(file: File, signal: AbortSignal): Promise<Reply<'openFile'>> {
  const headers = {
    'Content-Type': 'application/octet-stream',
    [TOKEN_HEADER]: httpToken ?? readToken(),
    [UPLOAD_NAME_HEADER]: encodeURIComponent(file.name),
    ...(await tabHeader()),
  };
  // A file dropped while the tab's handle was awaited: this one is not sent at all.
  if (signal.aborted) return superseded(file);
  let response: Response;
  try {
    response = await fetch(UPLOAD_PATH, { method: 'POST', headers, body: file, signal });
  } catch (e) {
    return signal.aborted ? superseded(file) : failed(`uploading ${file.name} failed: ${messageOf(e)}`);
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    if (signal.aborted) return superseded(file);
    return failed(`the Session Inspector host answered the upload of ${file.name} with HTTP ${response.status} and no JSON reply`);
  }
  const reply = parseReply('openFile', body);
  if (!reply.ok && reply.error.code === 'session_closed') httpTab?.closed(reply.error.message);
  return reply;
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
