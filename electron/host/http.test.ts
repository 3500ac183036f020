import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HostEvent, Method, Reply, ResultOf } from '../../shared/index';
import { tempDir, SPEC9_EXPAND_R1_31_41 } from '../../tools/testing/files';
import type { HttpHost } from './http';
import { CONTENT_SECURITY_POLICY, MAX_BODY_BYTES, startHttpHost } from './http';
import { createSessionHost } from './sessionHost';
import { createFakeResolverClient } from './testing/fakeClient';
import type { HttpAnswer } from './testing/httpClient';
import { openEventStream, rawRequest, request } from './testing/httpClient';
import type { SessionHost } from './types';

const ROOT = join(import.meta.dirname, '../..');
const DEMO = join(ROOT, 'samples/demo.sidecar.jsonl');
const SECRET = 'top secret: never served';

const tmp = tempDir();
const rendererDir = tmp.path('renderer');
const emptyRendererDir = tmp.path('not-built');
beforeAll(() => {
  mkdirSync(join(rendererDir, 'assets'), { recursive: true });
  mkdirSync(emptyRendererDir);
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>app</title><script type="module" src="./assets/app.js"></script>');
  writeFileSync(join(rendererDir, 'assets/app.js'), 'console.log("app");');
  // Beside rendererDir, and reachable from it only by climbing out or by a symbolic link.
  writeFileSync(tmp.path('secret.txt'), SECRET);
  symlinkSync(tmp.path('secret.txt'), join(rendererDir, 'assets/link.txt'));
});
afterAll(() => tmp.cleanup());

interface Running {
  http: HttpHost;
  host: SessionHost;
  port: number;
  token: string;
  /** POST /api/<method> with the token header. */
  api<M extends string>(method: M, params?: unknown, headers?: Record<string, string>): Promise<HttpAnswer>;
}

let running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(running.map((r) => r.close()));
  running = [];
});

async function start(options: { rendererDir?: string; heartbeatMs?: number; files?: string[] } = {}): Promise<Running> {
  const client = createFakeResolverClient();
  const host = createSessionHost({ host: 'http', client, files: options.files ?? [DEMO] });
  const http = await startHttpHost({ host, port: 0, rendererDir: options.rendererDir ?? rendererDir, ...(options.heartbeatMs ? { heartbeatMs: options.heartbeatMs } : {}) });
  running.push({
    close: async () => {
      await http.close();
      await host.dispose();
      await client.dispose();
    },
  });
  const port = Number(new URL(http.url).port);
  return {
    http,
    host,
    port,
    token: http.token,
    api: (method, params = {}, headers = {}) =>
      request(port, {
        method: 'POST',
        path: `/api/${method}`,
        headers: { 'Content-Type': 'application/json', 'X-Session-Inspector-Token': http.token, ...headers },
        body: JSON.stringify(params),
      }),
  };
}

/** The reply in a 200 answer (ok:false replies are 200 too: the body carries the error). */
function reply<M extends Method>(answer: HttpAnswer, _method?: M): Reply<M> {
  expect(answer.status).toBe(200);
  return JSON.parse(answer.body) as Reply<M>;
}

function value<M extends Method>(answer: HttpAnswer, method: M): ResultOf<M> {
  const r = reply(answer, method);
  if (!r.ok) throw new Error(`expected ok, got ${r.error.code}: ${r.error.message}`);
  return r.value;
}

function expectSecurityHeaders(answer: { headers: Record<string, unknown> }): void {
  expect(answer.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  expect(answer.headers['referrer-policy']).toBe('no-referrer');
}

describe('startHttpHost', () => {
  it('listens on 127.0.0.1 with a fresh 32-character token in the URL', async () => {
    const a = await start();
    const b = await start();
    expect(a.http.url).toBe(`http://127.0.0.1:${a.port}/?token=${a.token}`);
    expect(a.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(a.token).not.toBe(b.token);
  });
});

describe('access control', () => {
  it('refuses every route without the token', async () => {
    const s = await start();
    for (const answer of [
      await request(s.port, { path: '/' }),
      await request(s.port, { path: '/index.html' }),
      await request(s.port, { path: '/assets/app.js' }),
      await request(s.port, { path: '/api/events' }),
      await request(s.port, { method: 'POST', path: '/api/state', headers: { 'Content-Type': 'application/json' }, body: '{}' }),
    ]) {
      expect(answer.status).toBe(403);
      expect(answer.body).not.toContain('app');
      expectSecurityHeaders(answer);
    }
  });

  it('refuses a wrong token, in the header, the query or a cookie', async () => {
    const s = await start();
    const wrong = `${s.token.slice(0, -1)}${s.token.endsWith('A') ? 'B' : 'A'}`;
    expect((await s.api('state', {}, { 'X-Session-Inspector-Token': wrong })).status).toBe(403);
    expect((await s.api('state', {}, { 'X-Session-Inspector-Token': '' })).status).toBe(403);
    expect((await s.api('state', {}, { 'X-Session-Inspector-Token': `${s.token}x` })).status).toBe(403);
    expect((await request(s.port, { path: `/?token=${wrong}` })).status).toBe(403);
    expect((await request(s.port, { path: `/api/events?token=${wrong}` })).status).toBe(403);
    expect((await request(s.port, { path: '/assets/app.js', headers: { Cookie: `si-static-${s.port}=${wrong}` } })).status).toBe(403);
    // Another instance's token opens nothing here.
    const other = await start();
    expect((await s.api('state', {}, { 'X-Session-Inspector-Token': other.token })).status).toBe(403);
  });

  it('accepts the token as a header or a query parameter on the API', async () => {
    const s = await start();
    expect(value(await s.api('state'), 'state').host).toBe('http');
    const viaQuery = await request(s.port, { method: 'POST', path: `/api/state?token=${s.token}`, headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(value(viaQuery, 'state').host).toBe('http');
  });

  it('refuses a foreign Host header (DNS rebinding) even with the right token', async () => {
    const s = await start();
    for (const host of [`evil.example:${s.port}`, 'evil.example', `127.0.0.1:${s.port + 1}`, `127.0.0.1.evil.example:${s.port}`, '']) {
      const answer = await s.api('state', {}, { Host: host });
      expect(answer.status).toBe(421);
      expect(answer.body).not.toContain('"ok"');
      expectSecurityHeaders(answer);
    }
    const raw = await rawRequest(s.port, `GET /?token=${s.token} HTTP/1.1\r\nHost: evil.example:${s.port}`);
    expect(raw.status).toBe(421);
    for (const host of [`127.0.0.1:${s.port}`, `localhost:${s.port}`, `LOCALHOST:${s.port}`, `[::1]:${s.port}`]) {
      expect((await s.api('state', {}, { Host: host })).status).toBe(200);
    }
  });

  it('refuses a POST from a foreign Origin', async () => {
    const s = await start();
    for (const origin of ['http://evil.example', `http://evil.example:${s.port}`, 'null', `https://127.0.0.1:${s.port}`, `http://localhost:${s.port}`]) {
      const answer = await s.api('state', {}, { Origin: origin });
      expect(answer.status).toBe(403);
      expect(answer.body).not.toContain('"ok"');
    }
    expect((await s.api('state', {}, { Origin: `http://127.0.0.1:${s.port}` })).status).toBe(200);
    expect((await s.api('state', {}, { Origin: `http://localhost:${s.port}`, Host: `localhost:${s.port}` })).status).toBe(200);
  });

  it('lets the page opened with ?token= load its static files by cookie, which opens nothing else', async () => {
    const s = await start();
    const page = await request(s.port, { path: `/?token=${s.token}` });
    expect(page.status).toBe(200);
    const setCookie = page.headers['set-cookie']?.[0] ?? '';
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    const cookie = setCookie.split(';')[0] as string;
    const asset = await request(s.port, { path: '/assets/app.js', headers: { Cookie: cookie } });
    expect(asset.status).toBe(200);
    expect(asset.headers['content-type']).toMatch(/^text\/javascript/);
    expect(asset.body).toBe('console.log("app");');
    expect((await s.api('state', {}, { 'X-Session-Inspector-Token': '', Cookie: cookie })).status).toBe(403);
    expect((await request(s.port, { path: '/api/events', headers: { Cookie: cookie } })).status).toBe(403);
  });

  // Browsers do not separate cookies by port: every server on 127.0.0.1 the browser visits gets
  // this cookie. So its value must be worth nothing but the renderer's (public) static files.
  it('sets a cookie that is not the token: its value, as a header, ?token= or cookie, opens neither the API nor the event stream', async () => {
    const s = await start();
    const page = await request(s.port, { path: `/?token=${s.token}` });
    const cookie = (page.headers['set-cookie']?.[0] ?? '').split(';')[0] as string;
    const eq = cookie.indexOf('=');
    expect(eq).toBeGreaterThan(0);
    const secret = cookie.slice(eq + 1);
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect(secret).not.toBe(s.token);
    expect(secret).not.toContain(s.token);
    expect(s.token).not.toContain(secret);
    // Each page load hands out the same static-only secret, never the token.
    const again = await request(s.port, { path: `/index.html?token=${s.token}` });
    expect((again.headers['set-cookie']?.[0] ?? '').split(';')[0]).toBe(cookie);

    const json = { 'Content-Type': 'application/json' };
    const refused = [
      // As the token header.
      await s.api('state', {}, { 'X-Session-Inspector-Token': secret }),
      await request(s.port, { path: '/api/events', headers: { 'X-Session-Inspector-Token': secret } }),
      // As ?token= (the API, the event stream, and the page: a page opened with it gets no token to use).
      await request(s.port, { method: 'POST', path: `/api/state?token=${encodeURIComponent(secret)}`, headers: json, body: '{}' }),
      await request(s.port, { path: `/api/events?token=${encodeURIComponent(secret)}` }),
      // As the cookie, alone or beside a wrong header, and under the token's own name.
      await s.api('state', {}, { 'X-Session-Inspector-Token': '', Cookie: cookie }),
      await request(s.port, { method: 'POST', path: '/api/state', headers: { ...json, Cookie: cookie }, body: '{}' }),
      await request(s.port, { path: '/api/events', headers: { Cookie: cookie } }),
      await request(s.port, { method: 'POST', path: '/api/openFile', headers: { ...json, Cookie: `${cookie}; si-token-${s.port}=${secret}` }, body: '{"id":"x"}' }),
    ];
    for (const answer of refused) {
      expect([401, 403]).toContain(answer.status);
      expect(answer.body).not.toContain('"ok"');
    }
    // The cookie still opens the static files, and only by cookie.
    expect((await request(s.port, { path: '/assets/app.js', headers: { Cookie: cookie } })).status).toBe(200);
    expect((await request(s.port, { path: '/', headers: { Cookie: cookie } })).status).toBe(200);
    expect((await request(s.port, { path: `/assets/app.js?token=${encodeURIComponent(secret)}` })).status).toBe(403);
    // And the token itself in the cookie opens nothing: the token travels by URL or header only.
    expect((await request(s.port, { path: '/assets/app.js', headers: { Cookie: `${cookie.slice(0, eq)}=${s.token}` } })).status).toBe(403);
  });
});

describe('static files', () => {
  it('serves index.html for / with the security headers', async () => {
    const s = await start();
    const page = await request(s.port, { path: `/?token=${s.token}` });
    expect(page.body).toContain('<title>app</title>');
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expectSecurityHeaders(page);
    const head = await request(s.port, { method: 'HEAD', path: `/?token=${s.token}` });
    expect([head.status, head.body]).toEqual([200, '']);
    expect((await request(s.port, { method: 'POST', path: `/index.html?token=${s.token}` })).status).toBe(405);
    expect((await request(s.port, { path: `/missing.js?token=${s.token}` })).status).toBe(404);
    expect((await request(s.port, { path: `/assets?token=${s.token}` })).status).toBe(404);
  });

  it('never serves a file outside rendererDir: .., %2e%2e, encoded slashes, backslashes, symbolic links', async () => {
    const s = await start();
    const t = `?token=${s.token}`;
    const targets = [
      `/../secret.txt${t}`,
      `/assets/../../secret.txt${t}`,
      `/%2e%2e/secret.txt${t}`,
      `/%2E%2E/secret.txt${t}`,
      `/..%2fsecret.txt${t}`,
      `/%2e%2e%2fsecret.txt${t}`,
      `/assets/%2e%2e%2f%2e%2e%2fsecret.txt${t}`,
      `/..%5csecret.txt${t}`,
      `/%2e%2e%5c%2e%2e%5csecret.txt${t}`,
      `/../../../../../../etc/passwd${t}`,
      `/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd${t}`,
      `//etc/passwd${t}`,
      `/${encodeURIComponent(tmp.path('secret.txt'))}${t}`,
      `/assets/link.txt${t}`,
      `/secret.txt%00.html${t}`,
      `/%${t}`,
    ];
    for (const target of targets) {
      const answer = await rawRequest(s.port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${s.port}`);
      expect([target, answer.status]).toEqual([target, expect.toSatisfy((code: number) => code === 400 || code === 404)]);
      expect(answer.text).not.toContain(SECRET);
      expect(answer.text).not.toContain('root:');
    }
    // An absolute-form target is refused before any file is looked at.
    expect((await rawRequest(s.port, `GET http://127.0.0.1:${s.port}/../secret.txt${t} HTTP/1.1\r\nHost: 127.0.0.1:${s.port}`)).status).toBe(400);
  });

  it('answers an honest page when the renderer is not built', async () => {
    const s = await start({ rendererDir: emptyRendererDir });
    const page = await request(s.port, { path: `/?token=${s.token}` });
    expect(page.status).toBe(200);
    expect(page.body).toContain('The Session Inspector renderer is not built. Run <code>npm run build</code>.');
    expect(page.body).toContain('/api/');
    expect(page.body).not.toMatch(/<script/i);
    expect(page.body).not.toContain('demo.sidecar.jsonl');
    expectSecurityHeaders(page);
    expect((await request(s.port, { path: `/assets/app.js?token=${s.token}` })).status).toBe(404);
  });
});

describe('the API', () => {
  it('round-trips the contract on SPEC §9: state, openFile, rows, expand, search', async () => {
    const s = await start();
    const state = await s.api('state');
    expect(state.headers['cache-control']).toBe('no-store');
    expect(state.headers['content-type']).toBe('application/json; charset=utf-8');
    expectSecurityHeaders(state);
    const { files, session } = value(state, 'state');
    expect(session).toBeNull();
    expect(files).toEqual([{ id: expect.any(String) as string, name: 'demo.sidecar.jsonl', bytes: readFileSync(DEMO).length }]);

    const opened = value(await s.api('openFile', { id: files[0]?.id }), 'openFile');
    expect(opened).toMatchObject({ generation: 1, session_id: 's-demo', rows: 4, reductions: 1 });

    const rows = value(await s.api('rows', { start: 0, end: 4 }), 'rows');
    expect(rows.rows.map((r) => r.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(rows.rows[2]?.text).toMatch(/^PASS a\.test\.ts\n⟦reduced⟧ id=r1 kind=tool_output_truncated hidden_bytes=52/);

    // SPEC §9's outcome, plus the span hidden from the model (what the model saw inside the expansion).
    expect(value(await s.api('expand', { id: 'r1', range: [31, 41] }), 'expand')).toEqual({ ...SPEC9_EXPAND_R1_31_41, hidden: [[15, 67]] });

    const search = value(await s.api('search', { searchId: 's1', query: 'FAIL' }), 'search');
    expect(search).toMatchObject({ query: 'FAIL', total_matches: 1, truncated: false, reductions_searched: 1, hidden_bytes_searched: 52 });
    expect(search.matches[0]).toMatchObject({ reduction_id: 'r1', index: 2, offset: 15, length: 4 });
  });

  it('never opens a path named in a request: openFile {id: "/etc/passwd"} is invalid_request', async () => {
    const s = await start();
    for (const id of ['/etc/passwd', DEMO, '../../etc/passwd']) {
      expect(reply(await s.api('openFile', { id }))).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    }
    expect(reply(await s.api('openFile', { path: '/etc/passwd' }))).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(value(await s.api('state'), 'state').session).toBeNull();
  });

  it('openFile takes a session over HTTP (SPEC §10.1): that session opens, an unknown one is a usage error, a path is never a session', async () => {
    const file = join(import.meta.dirname, '../../e2e/fixtures/real/claude-code/cc-2.1.17-subagent/29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl');
    const s = await start({ files: [file] });
    const id = value(await s.api('state'), 'state').files[0]?.id;
    const main = value(await s.api('openFile', { id }), 'openFile');
    const sub = main.sessions[1];
    if (!sub) throw new Error('the fixture holds a subagent');
    expect(value(await s.api('openFile', { id, session: sub.id }), 'openFile')).toMatchObject({ session: sub.id, messages: sub.messages });
    expect(reply(await s.api('openFile', { id, session: '/etc/passwd' }))).toMatchObject({ ok: false, error: { code: 'usage' } });
    expect(reply(await s.api('openFile', { id, session: 42 }))).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });

  it('answers ok:false replies with 200, and no_session before anything is open', async () => {
    const s = await start();
    expect(reply(await s.api('rows', { start: 0, end: 1 }))).toMatchObject({ ok: false, error: { code: 'no_session' } });
    expect(reply(await s.api('openDialog'))).toMatchObject({ ok: false, error: { code: 'not_supported' } });
    expect(reply(await s.api('noSuchMethod'))).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(reply(await s.api('rows', { start: 'x' }))).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });

  it('refuses an oversized body with 413, invalid JSON with 400, other verbs with 405', async () => {
    const s = await start();
    const big = JSON.stringify({ searchId: 's', query: 'x'.repeat(MAX_BODY_BYTES) });
    const answer = await request(s.port, {
      method: 'POST',
      path: '/api/search',
      headers: { 'Content-Type': 'application/json', 'X-Session-Inspector-Token': s.token },
      body: big,
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    // Without a declared length (chunked), the limit still holds.
    const chunked = await request(s.port, {
      method: 'POST',
      path: '/api/search',
      headers: { 'Content-Type': 'application/json', 'X-Session-Inspector-Token': s.token, 'Transfer-Encoding': 'chunked' },
      body: big,
    });
    expect(chunked.status).toBe(413);

    const bad = await request(s.port, { method: 'POST', path: '/api/state', headers: { 'Content-Type': 'application/json', 'X-Session-Inspector-Token': s.token }, body: '{"oops' });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body)).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    const form = await request(s.port, { method: 'POST', path: '/api/state', headers: { 'Content-Type': 'text/plain', 'X-Session-Inspector-Token': s.token }, body: '{}' });
    expect(form.status).toBe(415);
    expect((await request(s.port, { path: `/api/state?token=${s.token}` })).status).toBe(405);
    // Still serving afterwards.
    expect(value(await s.api('state'), 'state').host).toBe('http');
  });
});

describe('the event stream', () => {
  it('delivers sessionOpened after an open, as data: {"name","payload"}', async () => {
    const s = await start();
    const stream = await openEventStream(s.port, `/api/events?token=${s.token}`);
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(stream.headers['cache-control']).toBe('no-store');
    const { files } = value(await s.api('state'), 'state');
    const opened = value(await s.api('openFile', { id: files[0]?.id }), 'openFile');
    let event = (await stream.next()) as HostEvent;
    while (event.name === 'loadProgress') event = (await stream.next()) as HostEvent;
    expect(event).toEqual({ name: 'sessionOpened', payload: opened });
    stream.close();
  });

  it('replays where the host stands to a stream that connects after an open, so no page misses it', async () => {
    const s = await start();
    const { files } = value(await s.api('state'), 'state');
    const opened = value(await s.api('openFile', { id: files[0]?.id }), 'openFile');
    // Opened before this stream existed: its first event still says so.
    const stream = await openEventStream(s.port, `/api/events?token=${s.token}`);
    expect(await stream.next()).toEqual({ name: 'sessionOpened', payload: opened });
    stream.close();
  });

  it('sends heartbeat comments and unsubscribes when the stream closes', async () => {
    const s = await start({ heartbeatMs: 10 });
    let listeners = 0;
    let unsubscribed: () => void = () => undefined;
    const gone = new Promise<void>((resolve) => (unsubscribed = resolve));
    const onEvent = s.host.onEvent.bind(s.host);
    s.host.onEvent = (listener) => {
      listeners++;
      const off = onEvent(listener);
      return () => {
        listeners--;
        off();
        unsubscribed();
      };
    };
    const stream = await openEventStream(s.port, `/api/events?token=${s.token}`);
    expect(await stream.comments(3)).toEqual(['connected', 'heartbeat', 'heartbeat']);
    expect(listeners).toBe(1);
    stream.close();
    await gone;
    expect(listeners).toBe(0);
  });

  it('an event sent to a stream that has ended is dropped: the host never writes after the end (the process would die of it)', async () => {
    const s = await start();
    const listeners: ((event: HostEvent) => void)[] = [];
    const onEvent = s.host.onEvent.bind(s.host);
    s.host.onEvent = (listener) => {
      listeners.push(listener);
      return onEvent(listener);
    };
    const stream = await openEventStream(s.port, `/api/events?token=${s.token}`);
    expect(await stream.comments(1)).toEqual(['connected']);
    expect(listeners).toHaveLength(1);
    const errors: unknown[] = [];
    const onUncaught = (e: unknown): void => void errors.push(e);
    process.on('uncaughtException', onUncaught);
    try {
      // The host stops (its streams end) while a listing still pushes: the push comes after the end.
      const closed = s.http.close();
      for (const listener of listeners) listener({ name: 'libraryChanged', payload: { sessions: [], removed: [], complete: false, progress: { found: 1, indexed: 0 } } });
      await closed;
      await new Promise<void>((resolve) => setImmediate(resolve));
    } finally {
      process.off('uncaughtException', onUncaught);
      stream.close();
    }
    expect(errors).toEqual([]);
  });

  it('close() ends open streams and resolves', async () => {
    const s = await start();
    const stream = await openEventStream(s.port, `/api/events?token=${s.token}`);
    await s.http.close();
    stream.close();
    await expect(request(s.port, { path: '/' })).rejects.toThrow();
  });
});
