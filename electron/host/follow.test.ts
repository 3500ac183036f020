/**
 * The session host pushes a followed session's growth as `sessionUpdated` over its event
 * stream (SSE here; IPC forwards the same host events), keeps `state` current, and with
 * `follow: false` (`--no-follow`) does not follow.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { EventPayload, HostEvent, Reply } from '../../shared/index';
import { tempDir } from '../../tools/testing/files';
import { liveSessionText } from '../../tools/testing/liveSession';
import { appendSteps, startWriter } from '../../tools/testing/writer';
import { startHttpHost } from './http';
import { createSessionHost } from './sessionHost';
import { createFakeResolverClient } from './testing/fakeClient';
import { openEventStream, request } from './testing/httpClient';

const tmp = tempDir('host-follow-');
const rendererDir = tmp.path('renderer');
mkdirSync(rendererDir);
writeFileSync(tmp.path('renderer/index.html'), '<!doctype html><title>t</title>');
afterAll(() => tmp.cleanup());
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

async function serve(path: string, follow?: boolean) {
  const client = createFakeResolverClient();
  const host = createSessionHost({ host: 'http', client, files: [path], ...(follow === false ? { follow: false } : {}) });
  const http = await startHttpHost({ host, port: 0, rendererDir });
  stops.push(async () => {
    await http.close();
    await host.dispose();
    await client.dispose();
  });
  const token = http.token;
  const port = Number(new URL(http.url).port);
  const api = async <T>(method: string, params: unknown = {}): Promise<T> => {
    const answer = await request(port, { method: 'POST', path: `/api/${method}`, headers: { 'X-Session-Inspector-Token': token, 'Content-Type': 'application/json' }, body: JSON.stringify(params) });
    const reply = JSON.parse(answer.body) as Reply<never>;
    if (!reply.ok) throw new Error(reply.error.message);
    return reply.value;
  };
  return { host, port, token, api };
}

describe('a followed session over the HTTP host', () => {
  it('a writer appending every 10 ms: sessionUpdated events arrive over SSE with growing counts; state shows the last', async () => {
    const lines = liveSessionText(6).split(/(?<=\n)/);
    const path = tmp.path('served.sidecar.jsonl');
    writeFileSync(path, lines.slice(0, 3).join(''));
    const s = await serve(path);
    const stream = await openEventStream(s.port, `/api/events?token=${s.token}`);
    const opened = await s.host.openPaths([path]);
    if (!opened.ok) throw new Error(opened.error.message);
    const writer = startWriter(path, appendSteps(lines.slice(3).join('')));
    stops.push(() => Promise.resolve(writer.kill()));
    await writer.done;
    const { messages: total } = await (async () => {
      const fresh = createFakeResolverClient();
      const r = await fresh.open([path], 1, { follow: false });
      await fresh.dispose();
      if (!r.ok) throw new Error(r.error.message);
      return r.value;
    })();
    // Wait on the stream itself: updates until one shows every message written.
    let last: EventPayload<'sessionUpdated'> | undefined;
    while (last?.info.messages !== total) {
      const event = (await stream.next()) as HostEvent;
      if (event.name !== 'sessionUpdated') continue;
      expect(event.payload.generation).toBe(opened.value.generation);
      if (last) expect(event.payload.info.messages).toBeGreaterThanOrEqual(last.info.messages);
      last = event.payload;
    }
    stream.close();
    const state = await s.api<{ session: { messages: number; rows: number } }>('state');
    expect(state.session.messages).toBe(total);
    const rows = await s.api<{ rowCount: number }>('rows', { start: 0, end: 1 });
    expect(rows.rowCount).toBe(state.session.rows);
  }, 60_000);

  it('with follow: false (--no-follow) an append makes no update and the content answers file_changed', async () => {
    const text = liveSessionText(3);
    const path = tmp.path('not-followed.sidecar.jsonl');
    writeFileSync(path, text);
    const s = await serve(path, false);
    const events: HostEvent[] = [];
    s.host.onEvent((e) => events.push(e));
    const opened = await s.host.openPaths([path]);
    if (!opened.ok) throw new Error(opened.error.message);
    writeFileSync(path, `${text}${JSON.stringify({ t: 'message', i: opened.value.messages, msg: { role: 'user', content: 'more' } })}\n`);
    await expect(s.api('rows', { start: 0, end: 1 })).rejects.toThrow(/changed on disk/);
    expect(events.map((e) => e.name)).toContain('fileChanged');
    expect(events.map((e) => e.name)).not.toContain('sessionUpdated');
  });

  it('setFollow (the app\'s setting) reopens the open session followed or not, and later opens keep it', async () => {
    const text = liveSessionText(3);
    const path = tmp.path('setting.sidecar.jsonl');
    writeFileSync(path, text);
    const s = await serve(path);
    const opened = await s.host.openPaths([path]);
    if (!opened.ok) throw new Error(opened.error.message);
    expect(opened.value.following).toBe(true);
    expect(await s.api('setFollow', { follow: false })).toEqual({ follow: false });
    const off = await s.api<{ session: { following?: boolean; generation: number } }>('state');
    expect(off.session.following).toBeUndefined();
    expect(off.session.generation).toBeGreaterThan(opened.value.generation);
    // Not followed now: an append makes the content answer file_changed.
    writeFileSync(path, `${text}${JSON.stringify({ t: 'message', i: opened.value.messages, msg: { role: 'user', content: 'more' } })}\n`);
    await expect(s.api('rows', { start: 0, end: 1 })).rejects.toThrow(/changed on disk/);
    // Back on: reopened followed, and the appended message is read.
    expect(await s.api('setFollow', { follow: true })).toEqual({ follow: true });
    const on = await s.api<{ session: { following?: boolean; messages: number } }>('state');
    expect(on.session.following).toBe(true);
    expect(on.session.messages).toBe(opened.value.messages + 1);
  });
});
