/**
 * A link with a wrong or expired token (SPEC §12): the host says how to get a fresh
 * address instead of a bare 403 — still 403, never the token, plain text.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpHost, tokenRefusal } from './http';
import type { HttpHost } from './http';
import { createSessionHost } from './sessionHost';
import { createFakeResolverClient } from './testing/fakeClient';
import { request } from './testing/httpClient';

const DEMO = join(import.meta.dirname, '../../samples/demo.sidecar.jsonl');

let running: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(running.map((close) => close()));
  running = [];
});

async function start(): Promise<{ http: HttpHost; port: number }> {
  const client = createFakeResolverClient();
  const host = createSessionHost({ host: 'http', client, files: [DEMO] });
  const http = await startHttpHost({ host, port: 0, rendererDir: join(import.meta.dirname, 'no-renderer-here') });
  running.push(async () => {
    await http.close();
    await host.dispose();
    await client.dispose();
  });
  return { http, port: http.port };
}

describe('a refused token says how to get a fresh address', () => {
  it('an expired token (another run’s) on the page, the API and the event stream: 403, the way back, never the token', async () => {
    const earlier = await start();
    const s = await start();
    const old = earlier.http.token;
    const answers = [
      await request(s.port, { path: `/?token=${old}` }),
      await request(s.port, { path: `/index.html?token=${old}#call=2` }),
      await request(s.port, { path: `/api/events?token=${old}` }),
      await request(s.port, { method: 'POST', path: '/api/state', headers: { 'Content-Type': 'application/json', 'X-Session-Inspector-Token': old }, body: '{}' }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(403);
      expect(answer.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(answer.body).toBe(`${tokenRefusal(true)}\n`);
      expect(answer.body).not.toContain(old);
      expect(answer.body).not.toContain(s.http.token);
    }
  });

  it('no token at all: 403 and the same way back', async () => {
    const s = await start();
    for (const answer of [await request(s.port, { path: '/' }), await request(s.port, { method: 'POST', path: '/api/state', headers: { 'Content-Type': 'application/json' }, body: '{}' })]) {
      expect(answer.status).toBe(403);
      expect(answer.body).toBe(`${tokenRefusal(false)}\n`);
      expect(answer.body).not.toContain(s.http.token);
    }
  });

  it('names where the fresh address comes from and how to keep the place', () => {
    for (const text of [tokenRefusal(true), tokenRefusal(false)]) {
      expect(text).toMatch(/^Forbidden: /);
      expect(text).toContain('Session Inspector listening on http://…/?token=…');
      expect(text).toContain('session-inspector serve FILE');
      expect(text).toContain('after #');
    }
    expect(tokenRefusal(true)).toContain('from an earlier run');
    expect(tokenRefusal(false)).toContain('carries no access token');
  });
});
