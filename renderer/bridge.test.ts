import { afterEach, describe, expect, it, vi } from 'vitest';
import type { HostEvent, SessionInfo } from '../shared/contract';
import type { PreloadApi } from './bridge';
import { SESSION_HEADER, TOKEN_HEADER, UPLOAD_NAME_HEADER } from '../shared/contract';
import { createBridge, openDroppedFile, takeClosedNotice } from './bridge';

const INFO: SessionInfo = {
  generation: 1,
  files: [{ path: '/x/demo.sidecar.jsonl', format: 'supercode-sidecar', bytes: 1234 }],
  session_id: 's-demo',
  model: 'model-a',
  gate: true,
  policy: null,
  messages: 4,
  rows: 4,
  reductions: 1,
  reductions_by_kind: { tool_output_truncated: 1, tool_output_elided: 0, duplicate_output: 0, turns_cleared: 0, summarized: 0 },
  load_findings: 0,
  stopped: false,
  format: 'supercode',
  session: '',
  sessions: [{ id: 's-demo', messages: 4 }],
};

const STATE_VALUE = { host: 'http', session: INFO, files: [{ id: 'file-1', name: 'demo.sidecar.jsonl', bytes: 1234 }], loadError: null };

afterEach(() => {
  vi.unstubAllGlobals();
});

/** A preload API whose every method answers `reply` (or what `answers[method]` says). */
function fakePreload(answers: Partial<Record<string, (params: unknown) => Promise<unknown>>> = {}) {
  let emit: (event: unknown) => void = () => undefined;
  const unsubscribe = vi.fn();
  const calls: [string, unknown][] = [];
  const api = new Proxy({}, {
    get(_target, name: string) {
      if (name === 'onEvent')
        return (listener: (event: unknown) => void) => {
          emit = listener;
          return unsubscribe;
        };
      return (params: unknown) => {
        calls.push([name, params]);
        return answers[name]?.(params) ?? Promise.resolve({ ok: true, value: {} });
      };
    },
  }) as unknown as PreloadApi;
  vi.stubGlobal('window', { sessionInspector: api });
  return { api, calls, unsubscribe, emit: (event: unknown) => emit(event) };
}

describe('over the Electron preload API', () => {
  it('calls the method of the same name and validates the reply', async () => {
    const preload = fakePreload({ state: () => Promise.resolve({ ok: true, value: STATE_VALUE }) });
    const bridge = createBridge();
    expect(await bridge.state({})).toEqual({ ok: true, value: STATE_VALUE });
    expect(await bridge.close({})).toEqual({ ok: true, value: {} });
    expect(preload.calls).toEqual([
      ['state', {}],
      ['close', {}],
    ]);
  });

  it('turns a malformed reply or a rejected call into internal_error', async () => {
    fakePreload({
      state: () => Promise.resolve({ ok: true, value: { host: 'ftp' } }),
      rows: () => Promise.reject(new Error('ipc gone')),
      expand: () => Promise.resolve('not a reply'),
    });
    const bridge = createBridge();
    expect(await bridge.state({})).toMatchObject({ ok: false, error: { code: 'internal_error' } });
    expect(await bridge.rows({ start: 0, end: 1 })).toMatchObject({ ok: false, error: { code: 'internal_error', message: expect.stringContaining('ipc gone') as string } });
    expect(await bridge.expand({ id: 'r1' })).toMatchObject({ ok: false, error: { code: 'internal_error' } });
  });

  it('passes error replies through', async () => {
    fakePreload({ rows: () => Promise.resolve({ ok: false, error: { code: 'no_session', message: 'no session is open' } }) });
    expect(await createBridge().rows({ start: 0, end: 1 })).toEqual({ ok: false, error: { code: 'no_session', message: 'no session is open' } });
  });

  it('delivers valid events only, and unsubscribes when the last listener leaves', () => {
    const preload = fakePreload();
    const bridge = createBridge();
    const a: HostEvent[] = [];
    const b: HostEvent[] = [];
    const offA = bridge.onEvent((e) => a.push(e));
    const offB = bridge.onEvent((e) => b.push(e));
    preload.emit({ name: 'sessionClosed', payload: { generation: 3 } });
    preload.emit({ name: 'sessionClosed', payload: { generation: -1 } });
    preload.emit({ name: 'noSuchEvent', payload: {} });
    preload.emit('garbage');
    expect(a).toEqual([{ name: 'sessionClosed', payload: { generation: 3 } }]);
    expect(b).toEqual(a);
    offA();
    expect(preload.unsubscribe).not.toHaveBeenCalled();
    offB();
    expect(preload.unsubscribe).toHaveBeenCalledTimes(1);
  });

  it('opens a dropped file through the preload and validates the reply', async () => {
    const preload = fakePreload({ openDropped: () => Promise.resolve({ ok: true, value: INFO }) });
    const file = new File(['x'], 'dropped.sidecar.jsonl');
    expect(await openDroppedFile(file)).toEqual({ ok: true, value: INFO });
    expect(preload.calls).toEqual([['openDropped', file]]);
  });
});

class FakeEventSource {
  static instances: FakeEventSource[] = [];
  onmessage: ((message: { data: unknown }) => void) | null = null;
  closed = false;
  constructor(readonly url: string) {
    FakeEventSource.instances.push(this);
  }
  close(): void {
    this.closed = true;
  }
  push(data: unknown): void {
    this.onmessage?.({ data });
  }
}

function httpGlobals(search = '?token=t0k3n&other=1') {
  const location = { search };
  const fetch = vi.fn<(url: string, init: RequestInit) => Promise<Response>>();
  FakeEventSource.instances = [];
  vi.stubGlobal('window', {});
  vi.stubGlobal('location', location);
  vi.stubGlobal('fetch', fetch);
  vi.stubGlobal('EventSource', FakeEventSource);
  return { location, fetch };
}

function jsonResponse(status: number, body: unknown): Response {
  return new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

describe('over the HTTP host', () => {
  it('POSTs /api/<method> with the token header and validates the reply', async () => {
    const g = httpGlobals();
    g.fetch.mockResolvedValue(jsonResponse(200, { ok: true, value: { rowCount: 0, rows: [] } }));
    const bridge = createBridge();
    // The token is read once, when the bridge is made.
    g.location.search = '';
    expect(await bridge.rows({ start: 0, end: 10 })).toEqual({ ok: true, value: { rowCount: 0, rows: [] } });
    expect(g.fetch).toHaveBeenCalledWith('/api/rows', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [TOKEN_HEADER]: 't0k3n' },
      body: '{"start":0,"end":10}',
    });
  });

  it('passes the contract error of a refused request through, and makes anything else internal_error', async () => {
    const g = httpGlobals();
    const bridge = createBridge();
    g.fetch.mockResolvedValueOnce(jsonResponse(413, { ok: false, error: { code: 'invalid_request', message: 'too large' } }));
    expect(await bridge.search({ searchId: 's', query: 'x' })).toEqual({ ok: false, error: { code: 'invalid_request', message: 'too large' } });
    g.fetch.mockResolvedValueOnce(new Response('Forbidden', { status: 403 }));
    expect(await bridge.state({})).toMatchObject({ ok: false, error: { code: 'internal_error', message: expect.stringContaining('403') as string } });
    // The host's sentence on a refused token (how to get a fresh address) reaches the page.
    g.fetch.mockResolvedValueOnce(new Response('Forbidden: this address carries no access token. Open the address the host printed.\n', { status: 403 }));
    expect(await bridge.state({})).toMatchObject({
      ok: false,
      error: { code: 'internal_error', message: 'the Session Inspector host refused state (HTTP 403). Forbidden: this address carries no access token. Open the address the host printed.' },
    });
    g.fetch.mockRejectedValueOnce(new TypeError('Failed to fetch'));
    expect(await bridge.state({})).toMatchObject({ ok: false, error: { code: 'internal_error', message: expect.stringContaining('Failed to fetch') as string } });
    g.fetch.mockResolvedValueOnce(jsonResponse(200, { ok: true, value: { host: 'http' } }));
    expect(await bridge.state({})).toMatchObject({ ok: false, error: { code: 'internal_error' } });
  });

  it('streams events from /api/events?token=, one EventSource for all listeners, closed with the last', () => {
    httpGlobals('?token=a%2Bb');
    const bridge = createBridge();
    expect(FakeEventSource.instances).toHaveLength(0);
    const seen: HostEvent[] = [];
    const offA = bridge.onEvent((e) => seen.push(e));
    const offB = bridge.onEvent(() => undefined);
    expect(FakeEventSource.instances.map((s) => s.url)).toEqual(['/api/events?token=a%2Bb']);
    const source = FakeEventSource.instances[0] as FakeEventSource;
    source.push(JSON.stringify({ name: 'workerRestarted', payload: { reason: 'crash' } }));
    source.push(JSON.stringify({ name: 'workerRestarted', payload: {} }));
    source.push('{not json');
    source.push(JSON.stringify({ name: 'sessionOpened', payload: INFO }));
    expect(seen).toEqual([
      { name: 'workerRestarted', payload: { reason: 'crash' } },
      { name: 'sessionOpened', payload: INFO },
    ]);
    offA();
    expect(source.closed).toBe(false);
    offB();
    expect(source.closed).toBe(true);
    bridge.onEvent(() => undefined);
    expect(FakeEventSource.instances).toHaveLength(2);
  });

  it('uploads a dropped file: POST /api/upload with the token, as octet-stream, its name percent-encoded as a label', async () => {
    const g = httpGlobals();
    createBridge();
    g.location.search = '';
    g.fetch.mockResolvedValue(jsonResponse(200, { ok: true, value: INFO }));
    const file = new File(['x'], 'a b/é.sidecar.jsonl');
    expect(await openDroppedFile(file)).toEqual({ ok: true, value: INFO });
    expect(g.fetch).toHaveBeenCalledWith('/api/upload', {
      method: 'POST',
      headers: { 'Content-Type': 'application/octet-stream', [TOKEN_HEADER]: 't0k3n', [UPLOAD_NAME_HEADER]: 'a%20b%2F%C3%A9.sidecar.jsonl' },
      body: file,
      signal: expect.any(AbortSignal) as AbortSignal,
    });
    // A refusal keeps its contract error; an answer without JSON is internal_error.
    g.fetch.mockResolvedValueOnce(jsonResponse(413, { ok: false, error: { code: 'invalid_request', message: 'too large' } }));
    expect(await openDroppedFile(file)).toEqual({ ok: false, error: { code: 'invalid_request', message: 'too large' } });
    g.fetch.mockResolvedValueOnce(new Response('Forbidden', { status: 403 }));
    expect(await openDroppedFile(file)).toMatchObject({ ok: false, error: { code: 'internal_error', message: expect.stringContaining('403') as string } });
  });
});

describe('uploads one after another over the HTTP host', () => {
  it('a file dropped while another uploads aborts that upload and is sent once it settled: the file dropped last reaches the host last', async () => {
    const g = httpGlobals();
    createBridge();
    g.location.search = '';
    const sent: { name: string; abortedWhenNextSent?: boolean }[] = [];
    const signals: AbortSignal[] = [];
    g.fetch.mockImplementation((_url, init) => {
      const name = decodeURIComponent((init.headers as Record<string, string>)[UPLOAD_NAME_HEADER] ?? '');
      const previous = sent.at(-1);
      if (previous) previous.abortedWhenNextSent = signals.at(-1)?.aborted;
      sent.push({ name });
      signals.push(init.signal as AbortSignal);
      // The first upload is still on its way when the second file is dropped: it ends only when aborted.
      if (name === 'first.sidecar.jsonl') return new Promise<Response>((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))));
      return Promise.resolve(jsonResponse(200, { ok: true, value: INFO }));
    });
    const first = openDroppedFile(new File(['a'.repeat(1000)], 'first.sidecar.jsonl'));
    await vi.waitFor(() => expect(g.fetch).toHaveBeenCalledTimes(1));
    const second = openDroppedFile(new File(['b'], 'second.sidecar.jsonl'));
    expect(await first).toEqual({ ok: false, error: { code: 'cancelled', message: 'uploading first.sidecar.jsonl was superseded by a file dropped after it' } });
    expect(await second).toEqual({ ok: true, value: INFO });
    expect(sent).toEqual([{ name: 'first.sidecar.jsonl', abortedWhenNextSent: true }, { name: 'second.sidecar.jsonl' }]);
    // Three dropped at once: only the last is sent, the others answer that they were superseded.
    sent.length = 0;
    const replies = await Promise.all(['x', 'y', 'z'].map((n) => openDroppedFile(new File([n], `${n}.sidecar.jsonl`))));
    expect(replies.map((r) => (r.ok ? 'opened' : r.error.code))).toEqual(['cancelled', 'cancelled', 'opened']);
    expect(sent.map((s) => s.name)).toEqual(['z.sidecar.jsonl']);
  });
});

/** A tab's sessionStorage, and a page that can be reloaded. */
function tabGlobals(stored: Record<string, string> = {}) {
  const g = httpGlobals();
  const items = new Map(Object.entries(stored));
  const storage = {
    getItem: (k: string) => items.get(k) ?? null,
    setItem: (k: string, v: string) => void items.set(k, v),
    removeItem: (k: string) => void items.delete(k),
  };
  const reload = vi.fn();
  vi.stubGlobal('sessionStorage', storage);
  (g.location as { reload?: () => void }).reload = reload;
  return { ...g, items, reload };
}

const HANDLE = 'h'.repeat(32);

describe('one session per tab over the HTTP host', () => {
  it('draws a handle once, keeps it in the tab, and sends it with every request, the event stream and uploads', async () => {
    const g = tabGlobals();
    g.fetch.mockImplementation((url: string) => Promise.resolve(url === '/api/handle' ? jsonResponse(200, { ok: true, value: { handle: HANDLE } }) : jsonResponse(200, { ok: true, value: {} })));
    const bridge = createBridge();
    bridge.onEvent(() => undefined);
    await Promise.all([bridge.close({}), bridge.close({})]);
    expect(g.fetch.mock.calls.filter(([url]) => url === '/api/handle')).toHaveLength(1);
    expect(g.items.get('session-inspector-session')).toBe(HANDLE);
    expect(g.fetch).toHaveBeenCalledWith('/api/close', { method: 'POST', headers: { 'Content-Type': 'application/json', [TOKEN_HEADER]: 't0k3n', [SESSION_HEADER]: HANDLE }, body: '{}' });
    expect(FakeEventSource.instances.map((s) => s.url)).toEqual([`/api/events?token=t0k3n&session=${HANDLE}`]);
    await openDroppedFile(new File(['x'], 'a.jsonl'));
    expect(g.fetch.mock.calls.at(-1)?.[1].headers).toMatchObject({ [SESSION_HEADER]: HANDLE });
  });

  it('a reload keeps the tab’s handle: no new one is drawn', async () => {
    const g = tabGlobals({ 'session-inspector-session': HANDLE });
    g.fetch.mockResolvedValue(jsonResponse(200, { ok: true, value: {} }));
    await createBridge().close({});
    expect(g.fetch.mock.calls.map(([url]) => url)).toEqual(['/api/close']);
    expect(g.fetch.mock.calls[0]?.[1].headers).toMatchObject({ [SESSION_HEADER]: HANDLE });
  });

  it('a session the host closed: the tab forgets its handle, keeps the reason to show once, and starts again (reload)', async () => {
    const g = tabGlobals({ 'session-inspector-session': HANDLE });
    g.fetch.mockResolvedValue(jsonResponse(200, { ok: false, error: { code: 'session_closed', message: 'closed: unused' } }));
    const bridge = createBridge();
    expect(await bridge.state({})).toEqual({ ok: false, error: { code: 'session_closed', message: 'closed: unused' } });
    expect(g.items.has('session-inspector-session')).toBe(false);
    expect(g.reload).toHaveBeenCalledTimes(1);
    expect(takeClosedNotice()).toBe('closed: unused');
    expect(takeClosedNotice()).toBeNull();
    // Told on the event stream instead: the same, and the stream is closed rather than reconnecting.
    const h = tabGlobals({ 'session-inspector-session': HANDLE });
    const seen: HostEvent[] = [];
    createBridge().onEvent((e) => seen.push(e));
    await vi.waitFor(() => expect(FakeEventSource.instances).toHaveLength(1));
    const source = FakeEventSource.instances[0] as FakeEventSource;
    source.push(JSON.stringify({ name: 'handleClosed', payload: { reason: 'made room' } }));
    expect(source.closed).toBe(true);
    expect(seen).toEqual([]);
    expect(h.reload).toHaveBeenCalledTimes(1);
    expect(takeClosedNotice()).toBe('made room');
  });

  it('a host that keeps one session (no handles): requests go without one, as before', async () => {
    const g = tabGlobals();
    g.fetch.mockImplementation((url: string) => Promise.resolve(url === '/api/handle' ? jsonResponse(404, { ok: false, error: { code: 'not_supported', message: 'one session' } }) : jsonResponse(200, { ok: true, value: {} })));
    await createBridge().close({});
    expect(g.fetch).toHaveBeenLastCalledWith('/api/close', { method: 'POST', headers: { 'Content-Type': 'application/json', [TOKEN_HEADER]: 't0k3n' }, body: '{}' });
    expect(g.items.size).toBe(0);
  });
});
