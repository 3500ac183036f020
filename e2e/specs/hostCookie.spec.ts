/**
 * The HTTP host's cookie, seen from another local server. Browsers do not separate cookies by
 * port: whatever cookie the app's page sets on 127.0.0.1 is sent to every other server on
 * 127.0.0.1 the browser visits. So such a server — any local process that gets the browser to
 * load one URL — must receive nothing that opens the API: no value it received may work as the
 * token, in the header, in `?token=` or as a cookie. (The cookie may still open the renderer's
 * static files, which are the public build.)
 */
import { once } from 'node:events';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '../fixtures';

/** One request to 127.0.0.1:`port`; resolves on the answer's head (an event stream would never end) and drops the rest. */
function requestHead(port: number, options: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers: options.headers ?? {} }, (res) => {
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
      res.destroy();
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** `name=value` pairs of a Cookie header. */
function cookiePairs(header: string): { name: string; value: string }[] {
  return header
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part.includes('='))
    .map((part) => ({ name: part.slice(0, part.indexOf('=')), value: part.slice(part.indexOf('=') + 1) }));
}

let other: Server | undefined;
test.afterEach(async () => {
  if (!other) return;
  other.closeAllConnections();
  await new Promise((resolve) => other?.close(resolve));
  other = undefined;
});

test.describe('the HTTP host cookie', () => {
  test('a second local server receives the cookie, and nothing it received opens the API', async ({ inspector, inspectorApp }) => {
    test.skip(inspectorApp.target !== 'http', 'the cookie is the HTTP host’s; the desktop app has no HTTP API');
    await inspector.waitLoaded();
    const hostUrl = new URL(inspectorApp.url ?? '');
    const hostPort = Number(hostUrl.port);
    const token = hostUrl.searchParams.get('token') ?? '';
    expect(token).not.toBe('');

    // Another server on 127.0.0.1, another port: it records the Cookie header of every request.
    const received: string[] = [];
    other = createServer((req, res) => {
      received.push(req.headers.cookie ?? '');
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('another local server\n');
    });
    other.listen(0, '127.0.0.1');
    await once(other, 'listening');
    const otherPort = (other.address() as AddressInfo).port;
    expect(otherPort).not.toBe(hostPort);

    // The same browser visits it.
    const visit = await inspectorApp.page.context().newPage();
    await visit.goto(`http://127.0.0.1:${otherPort}/`);
    await expect(visit.locator('body')).toHaveText('another local server');
    await visit.close();

    // It did receive the cookie the app's page got (which is why this matters).
    const jar = await inspectorApp.page.context().cookies(hostUrl.origin);
    expect(jar.length).toBeGreaterThan(0);
    const pairs = received.flatMap(cookiePairs);
    for (const { name, value } of jar) expect(pairs, `the other server received ${name}`).toContainEqual({ name, value });
    const cookieHeaders = [...new Set(received.filter((header) => header !== ''))];

    // The API does answer the real token (so the refusals below are not malformed requests)…
    const json = { 'Content-Type': 'application/json' };
    expect((await requestHead(hostPort, { method: 'POST', path: '/api/state', headers: { ...json, 'X-Session-Inspector-Token': token }, body: '{}' })).status).toBe(200);

    // …and refuses every value the other server received, wherever it is presented as the token.
    const refused = async (what: string, answer: Promise<{ status: number }>): Promise<void> => {
      expect([401, 403], what).toContain((await answer).status);
    };
    for (const { name, value } of pairs) {
      const q = encodeURIComponent(value);
      await refused(`${name} as the token header on /api/state`, requestHead(hostPort, { method: 'POST', path: '/api/state', headers: { ...json, 'X-Session-Inspector-Token': value }, body: '{}' }));
      await refused(`${name} as the token header on /api/events`, requestHead(hostPort, { path: '/api/events', headers: { 'X-Session-Inspector-Token': value } }));
      await refused(`${name} as ?token= on /api/state`, requestHead(hostPort, { method: 'POST', path: `/api/state?token=${q}`, headers: json, body: '{}' }));
      await refused(`${name} as ?token= on /api/events`, requestHead(hostPort, { path: `/api/events?token=${q}` }));
    }
    for (const cookie of cookieHeaders) {
      await refused(`the cookie on /api/state`, requestHead(hostPort, { method: 'POST', path: '/api/state', headers: { ...json, Cookie: cookie }, body: '{}' }));
      await refused(`the cookie on /api/events`, requestHead(hostPort, { path: '/api/events', headers: { Cookie: cookie } }));
      // What the cookie is for: the page's own static files.
      const page = await requestHead(hostPort, { path: '/', headers: { Cookie: cookie } });
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
    }
  });
});
