/**
 * One session per tab on the HTTP host (SPEC §14, docs/sessions-and-links.md): session handles,
 * the bounded cache of open sessions, requests without a handle, and links that name their file,
 * resolved against the host's own listing only. Built as `serve` builds it, with the worker's own
 * answers in-process (the fake client) and a clock the tests move.
 */
import { copyFileSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HANDLE_PATH, SESSION_HEADER, SESSION_PARAM, TOKEN_HEADER, TOKEN_PARAM, apiPath } from '../../shared/contract';
import type { Method, Reply, ResultOf } from '../../shared/index';
import { tempDir } from '../../tools/testing/files';
import { tabSession } from '../cli/serve';
import { scanFolder } from '../listing/scan';
import { serveFolder } from './folder';
import { CLOSED_SESSION, startHttpHost } from './http';
import { createSessionHost, unreachableLink } from './sessionHost';
import { createSessionPool } from './sessionPool';
import type { FakeResolverClient } from './testing/fakeClient';
import { createFakeResolverClient } from './testing/fakeClient';
import type { EventStream } from './testing/httpClient';
import { openEventStream, request } from './testing/httpClient';
import type { SessionHostOptions } from './types';

const ROOT = join(import.meta.dirname, '../..');
const DEMO = join(ROOT, 'samples/demo.sidecar.jsonl');
const SAMPLE = join(ROOT, 'samples/session.sidecar.jsonl');

const tmp = tempDir('session-inspector-tabs-test-');
let folder: string;
let outside: string;
beforeAll(() => {
  folder = tmp.path('sessions');
  outside = tmp.path('outside');
  for (const made of [tmp.path('renderer'), join(folder, 'sub'), outside]) mkdirSync(made, { recursive: true });
  // Listed: a and b. Not listed: a text file, one level down (the listing is not recursive), a link out.
  const copies: [string, string][] = [
    [DEMO, 'sessions/a.sidecar.jsonl'],
    [SAMPLE, 'sessions/b.sidecar.jsonl'],
    [DEMO, 'sessions/sub/deeper.sidecar.jsonl'],
    [DEMO, 'outside/secret.sidecar.jsonl'],
  ];
  for (const [from, to] of copies) copyFileSync(from, tmp.path(to));
  writeFileSync(join(folder, 'notes.txt'), 'not a session\n');
  symlinkSync(join(outside, 'secret.sidecar.jsonl'), join(folder, 'link-out.sidecar.jsonl'));
});
afterAll(() => tmp.cleanup());

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

interface TabbedHost {
  port: number;
  token: string;
  /** Every resolver client made, the host's own first. */
  clients: FakeResolverClient[];
  clock: { t: number };
  sweep(): Promise<void>;
  /** A new tab's handle. */
  mint(): Promise<string>;
  api<M extends Method>(method: M, params?: unknown, handle?: string): Promise<Reply<M>>;
  events(handle?: string): Promise<EventStream>;
}

/** The HTTP host as `serve` builds it: the host's one session, and one more per tab, each with its own client. */
async function startTabbed(options: { dir?: string; files?: string[]; max?: number; idleMs?: number; uploadTmpRoot?: string } = {}): Promise<TabbedHost> {
  const clients: FakeResolverClient[] = [];
  const shared: Omit<SessionHostOptions, 'client'> = {
    host: 'http',
    files: options.files ?? [],
    // An in-process scan: the listing thread's bundle is not what these tests are about.
    ...(options.dir !== undefined ? { folder: serveFolder(options.dir, { scanner: (root, max) => Promise.resolve(scanFolder(root, max)) }) } : {}),
  };
  const makeClient = (): FakeResolverClient => {
    const client = createFakeResolverClient();
    clients.push(client);
    return client;
  };
  const mainClient = makeClient();
  const host = createSessionHost({ ...shared, client: mainClient });
  const clock = { t: 1_000_000 };
  const sessions = createSessionPool({
    defaultHost: host,
    max: options.max ?? 8,
    idleMs: options.idleMs ?? 60_000,
    now: () => clock.t,
    sweepEveryMs: 0,
    create: () => tabSession(shared, makeClient, (options.files ?? []).length > 0 ? { paths: options.files as string[], source: {} } : undefined),
  });
  const http = await startHttpHost({ host, sessions, port: 0, rendererDir: tmp.path('renderer'), ...(options.uploadTmpRoot !== undefined ? { uploadTmpRoot: options.uploadTmpRoot } : {}) });
  if ((options.files ?? []).length > 0) await host.openPaths(options.files as string[]);
  stops.push(async () => {
    await http.close();
    await sessions.dispose();
    await host.dispose();
    await mainClient.dispose();
  });
  const port = http.port;
  const post = (path: string, body: unknown, handle?: string) =>
    request(port, {
      method: 'POST',
      path,
      headers: { 'Content-Type': 'application/json', [TOKEN_HEADER]: http.token, ...(handle !== undefined ? { [SESSION_HEADER]: handle } : {}) },
      body: JSON.stringify(body),
    });
  return {
    port,
    token: http.token,
    clients,
    clock,
    sweep: () => sessions.sweep(),
    async mint() {
      const answer = await post(HANDLE_PATH, {});
      expect(answer.status).toBe(200);
      const reply = JSON.parse(answer.body) as { ok: true; value: { handle: string } };
      expect(reply.value.handle).toMatch(/^[A-Za-z0-9_-]{32}$/);
      return reply.value.handle;
    },
    async api(method, params = {}, handle) {
      const answer = await post(apiPath(method), params, handle);
      expect(answer.status).toBe(200);
      return JSON.parse(answer.body) as Reply<typeof method>;
    },
    events: (handle) => openEventStream(port, `/api/events?${TOKEN_PARAM}=${http.token}${handle !== undefined ? `&${SESSION_PARAM}=${handle}` : ''}`),
  };
}

function ok<T>(reply: { ok: true; value: T } | { ok: false; error: { code: string; message: string } }): T {
  if (!reply.ok) throw new Error(`${reply.error.code}: ${reply.error.message}`);
  return reply.value;
}

async function entryId(h: TabbedHost, name: string, handle?: string): Promise<string> {
  const listing = ok(await h.api('folder', {}, handle));
  const entry = listing.entries.find((e) => e.name === name);
  if (!entry) throw new Error(`${name} is not listed`);
  return entry.id;
}

/** The next event named `name` on `stream` (progress events before it are skipped). */
async function nextNamed(stream: EventStream, name: string): Promise<{ name: string; payload: unknown }> {
  for (;;) {
    const event = (await stream.next()) as { name: string; payload: unknown };
    if (event.name === name) return event;
    expect(event.name).toBe('loadProgress');
  }
}

const fileNames = (state: ResultOf<'state'>): string[] => state.session?.files.map((f) => f.path.split(/[\\/]/).pop() as string) ?? [];

describe('one session per tab: handles', () => {
  it('two handles hold two sessions of serve DIR, and neither disturbs the other', async () => {
    const h = await startTabbed({ dir: folder });
    const first = await h.mint();
    const second = await h.mint();
    expect(second).not.toBe(first);
    const firstEvents = await h.events(first);
    const secondEvents = await h.events(second);
    const a = ok(await h.api('openFile', { id: await entryId(h, 'a.sidecar.jsonl', first) }, first));
    await nextNamed(firstEvents, 'sessionOpened');
    const b = ok(await h.api('openFile', { id: await entryId(h, 'b.sidecar.jsonl', second) }, second));
    await nextNamed(secondEvents, 'sessionOpened');
    expect(fileNames(ok(await h.api('state', {}, first)))).toEqual(['a.sidecar.jsonl']);
    expect(fileNames(ok(await h.api('state', {}, second)))).toEqual(['b.sidecar.jsonl']);
    // Each tab's reads answer from its own session.
    expect(ok(await h.api('rows', { start: 0, end: 1 }, first)).rowCount).toBe(a.rows);
    expect(ok(await h.api('rows', { start: 0, end: 1 }, second)).rowCount).toBe(b.rows);
    expect(a.rows).not.toBe(b.rows);
    // Closing one leaves the other open; each stream heard only its own session.
    ok(await h.api('close', {}, second));
    await nextNamed(secondEvents, 'sessionClosed');
    expect(fileNames(ok(await h.api('state', {}, first)))).toEqual(['a.sidecar.jsonl']);
    ok(await h.api('close', {}, first));
    expect(await nextNamed(firstEvents, 'sessionClosed')).toEqual({ name: 'sessionClosed', payload: { generation: a.generation } });
    // Two workers: one per session.
    expect(h.clients).toHaveLength(2);
    expect(h.clients[0]?.calls.filter((c) => c.startsWith('open:'))).toEqual([`open:${join(folder, 'a.sidecar.jsonl')}`]);
    expect(h.clients[1]?.calls.filter((c) => c.startsWith('open:'))).toEqual([`open:${join(folder, 'b.sidecar.jsonl')}`]);
    firstEvents.close();
    secondEvents.close();
  });

  it('a request without a handle is the host’s one session (serve FILE), as before handles; a tab’s own session does not change it', async () => {
    const h = await startTabbed({ files: [DEMO, SAMPLE].slice(0, 1) });
    const before = ok(await h.api('state'));
    expect(fileNames(before)).toEqual(['demo.sidecar.jsonl']);
    // The first tab is handed the host's one session; the next gets its own, which opens the host's files too.
    const first = await h.mint();
    expect(fileNames(ok(await h.api('state', {}, first)))).toEqual(['demo.sidecar.jsonl']);
    const second = await h.mint();
    const stream = await h.events(second);
    await nextNamed(stream, 'sessionOpened');
    const own = ok(await h.api('state', {}, second));
    expect(fileNames(own)).toEqual(['demo.sidecar.jsonl']);
    expect(own.files.map((f) => f.id)).toEqual(before.files.map((f) => f.id));
    expect(h.clients[1]?.calls.filter((c) => c.startsWith('open:'))).toEqual([`open:${DEMO}`]);
    ok(await h.api('close', {}, second));
    stream.close();
    expect(fileNames(ok(await h.api('state')))).toEqual(['demo.sidecar.jsonl']);
    expect(ok(await h.api('rows', { start: 0, end: 2 })).rows).toHaveLength(2);
  });

  it('a handle the host did not draw, or drew in another run, answers session_closed; the event stream says so and ends', async () => {
    const h = await startTabbed({ dir: folder });
    const other = await startTabbed({ dir: folder });
    const foreign = await other.mint();
    for (const handle of [foreign, 'x'.repeat(32), '', '../../etc/passwd', `${foreign}x`]) {
      const reply = await h.api('state', {}, handle);
      expect(reply).toEqual({ ok: false, error: { code: 'session_closed', message: CLOSED_SESSION } });
    }
    const stream = await h.events(foreign);
    expect(await stream.next()).toEqual({ name: 'handleClosed', payload: { reason: CLOSED_SESSION } });
    stream.close();
    // A handle is no key without the token.
    const mine = await h.mint();
    const refused = await request(h.port, { method: 'POST', path: apiPath('state'), headers: { 'Content-Type': 'application/json', [SESSION_HEADER]: mine }, body: '{}' });
    expect(refused.status).toBe(403);
    const noToken = await request(h.port, { method: 'POST', path: HANDLE_PATH, headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(noToken.status).toBe(403);
  });
});

describe('one session per tab: uploads', () => {
  it('each tab owns its upload: another tab’s upload, open or close never removes it', async () => {
    const uploads = tmp.path('uploads');
    mkdirSync(uploads);
    const h = await startTabbed({ dir: folder, uploadTmpRoot: uploads });
    const upload = async (handle: string, file: string): Promise<Reply<'openFile'>> => {
      const body = readFileSync(file);
      const answer = await request(h.port, {
        method: 'POST',
        path: '/api/upload',
        headers: { [TOKEN_HEADER]: h.token, [SESSION_HEADER]: handle, 'Content-Type': 'application/octet-stream', 'Content-Length': String(body.length) },
        body,
      });
      expect(answer.status).toBe(200);
      return JSON.parse(answer.body) as Reply<'openFile'>;
    };
    const first = await h.mint();
    const second = await h.mint();
    const mine = ok(await upload(first, DEMO));
    expect(readdirSync(uploads)).toHaveLength(1);
    ok(await upload(second, SAMPLE));
    expect(readdirSync(uploads)).toHaveLength(2);
    // The second tab replaces and closes its own upload: the first tab's stays, and still answers.
    ok(await h.api('openFile', { id: await entryId(h, 'a.sidecar.jsonl', second) }, second));
    ok(await h.api('close', {}, second));
    expect(readdirSync(uploads)).toHaveLength(1);
    expect(ok(await h.api('rows', { start: 0, end: 1 }, first)).rowCount).toBe(mine.rows);
    ok(await h.api('close', {}, first));
    expect(readdirSync(uploads)).toHaveLength(0);
  });
});

describe('one session per tab: the bounded cache', () => {
  it('keeps at most max sessions: the least recently used that no stream holds is closed (its worker too), and its tab is told', async () => {
    const h = await startTabbed({ dir: folder, max: 3 });
    const first = await h.mint(); // the host's one session
    const second = await h.mint();
    h.clock.t += 10;
    const third = await h.mint();
    const held = await h.events(second);
    h.clock.t += 10;
    // No room for a fourth: `third` is the least recently used that nothing holds (`second` is held by its stream).
    const fourth = await h.mint();
    expect((await h.api('state', {}, third)) as unknown).toEqual({ ok: false, error: { code: 'session_closed', message: CLOSED_SESSION } });
    expect(h.clients[2]?.disposed).toBe(true);
    for (const handle of [first, second]) expect(ok(await h.api('state', {}, handle)).host).toBe('http');
    h.clock.t += 5;
    expect(ok(await h.api('state', {}, fourth)).host).toBe('http');
    // With every other session held, the least recently used is closed anyway, and its stream told why.
    const heldFourth = await h.events(fourth);
    h.clock.t += 10;
    await h.mint();
    const told = (await held.next()) as { name: string; payload: { reason: string } };
    expect(told.name).toBe('handleClosed');
    expect(told.payload.reason).toMatch(/to make room: the host keeps 3 sessions open/);
    expect(h.clients[1]?.disposed).toBe(true);
    expect(ok(await h.api('state', {}, first)).host).toBe('http');
    heldFourth.close();
  });

  it('closes a session unused for idleMs, never one a stream or a request holds; the host’s one stays for requests without a handle', async () => {
    const h = await startTabbed({ dir: folder, idleMs: 60_000 });
    const first = await h.mint();
    const idle = await h.mint();
    const watched = await h.mint();
    ok(await h.api('openFile', { id: await entryId(h, 'a.sidecar.jsonl', idle) }, idle));
    const stream = await h.events(watched);
    h.clock.t += 59_000;
    await h.sweep();
    expect(ok(await h.api('state', {}, idle)).session).not.toBeNull();
    h.clock.t += 60_000;
    await h.sweep();
    expect(await h.api('state', {}, idle)).toMatchObject({ ok: false, error: { code: 'session_closed' } });
    expect(h.clients[1]?.disposed).toBe(true);
    expect(ok(await h.api('state', {}, watched)).host).toBe('http');
    // The first tab's handle (the host's one session) is retired; the session itself stays.
    expect(await h.api('state', {}, first)).toMatchObject({ ok: false, error: { code: 'session_closed' } });
    expect(h.clients[0]?.disposed).toBe(false);
    expect(ok(await h.api('state')).host).toBe('http');
    // …and the next tab is handed it, under a new handle.
    const next = await h.mint();
    expect(next).not.toBe(first);
    expect(h.clients).toHaveLength(3);
    stream.close();
  });
});

describe('links that name their file (openLink)', () => {
  it('opens a file of the served folder by its name there, and the session says how a link names it', async () => {
    const h = await startTabbed({ dir: folder });
    const tab = await h.mint();
    const info = ok(await h.api('openLink', { file: 'b.sidecar.jsonl' }, tab));
    expect(info.link_file).toEqual({ path: 'b.sidecar.jsonl' });
    expect(ok(await h.api('state', {}, tab)).session?.link_file).toEqual({ path: 'b.sidecar.jsonl' });
    // Opened by entry id, the same name.
    const byId = ok(await h.api('openFile', { id: await entryId(h, 'a.sidecar.jsonl', tab) }, tab));
    expect(byId.link_file).toEqual({ path: 'a.sidecar.jsonl' });
    // The served folder is root 0, as `sessions` numbers roots in its links.
    expect(ok(await h.api('openLink', { file: 'a.sidecar.jsonl', root: '0' }, tab)).link_file).toEqual({ path: 'a.sidecar.jsonl' });
    expect(await h.api('openLink', { file: 'a.sidecar.jsonl', root: '1' }, tab)).toMatchObject({ ok: false, error: { code: 'unreadable_file' } });
  });

  it('opens a file named at start (serve FILE) by its file name', async () => {
    const h = await startTabbed({ files: [DEMO] });
    const tab = await h.mint();
    expect(ok(await h.api('state', {}, tab)).session?.link_file).toEqual({ path: 'demo.sidecar.jsonl' });
    const own = await h.mint();
    expect(ok(await h.api('openLink', { file: 'demo.sidecar.jsonl' }, own)).link_file).toEqual({ path: 'demo.sidecar.jsonl' });
  });

  it('a file the host does not list is refused with the file it names and the command that would serve it', async () => {
    const h = await startTabbed({ dir: folder });
    const reply = await h.api('openLink', { file: 'elsewhere/s.jsonl', root: 'logs' });
    expect(reply).toEqual({ ok: false, error: { code: 'unreadable_file', message: unreachableLink('elsewhere/s.jsonl', 'logs', 'sessions') } });
    if (!reply.ok) {
      expect(reply.error.message).toContain('"elsewhere/s.jsonl"');
      expect(reply.error.message).toContain('npx session-inspector serve DIR');
    }
  });

  it('a path from the page never opens anything the host did not list (fast-check over hostile paths)', async () => {
    const h = await startTabbed({ dir: folder });
    const client = h.clients[0] as FakeResolverClient;
    const listed = ['a.sidecar.jsonl', 'b.sidecar.jsonl'];
    const piece = fc.oneof(
      fc.constantFrom('..', '.', '', 'sessions', 'outside', 'sub', 'deeper.sidecar.jsonl', 'secret.sidecar.jsonl', 'link-out.sidecar.jsonl', 'notes.txt', 'a.sidecar.jsonl', '%2e%2e', 'C:', '?', 'UNC', 'host', 'share', '\u0000', '\u202e'),
      fc.string({ maxLength: 8 }),
    );
    const hostile = fc.oneof(
      fc.tuple(fc.array(piece, { minLength: 1, maxLength: 6 }), fc.constantFrom('/', '\\', '//', '\\\\'), fc.constantFrom('', '/', '\\\\', '\\\\?\\', '//', 'file://', tmp.dir + '/')).map(([parts, sep, lead]) => lead + parts.join(sep)),
      fc.constantFrom(join(outside, 'secret.sidecar.jsonl'), join(folder, 'a.sidecar.jsonl'), '../outside/secret.sidecar.jsonl', 'sub/deeper.sidecar.jsonl', 'link-out.sidecar.jsonl', '\\\\host\\share\\a.sidecar.jsonl', '//host/share/a.sidecar.jsonl', 'a.sidecar.jsonl/', './a.sidecar.jsonl', 'notes.txt'),
    );
    await fc.assert(
      fc.asyncProperty(hostile, fc.option(fc.constantFrom('0', '1', 'sessions', 'outside', '..', '/'), { nil: undefined }), async (file, root) => {
        const opensBefore = client.calls.filter((c) => c.startsWith('open:')).length;
        const reply = await h.api('openLink', { file, ...(root !== undefined ? { root } : {}) });
        const opens = client.calls.filter((c) => c.startsWith('open:')).slice(opensBefore);
        if (listed.includes(file) && (root === undefined || root === '0')) {
          expect(reply.ok).toBe(true);
          expect(opens).toEqual([`open:${join(folder, file)}`]);
        } else {
          expect(reply.ok).toBe(false);
          expect(opens).toEqual([]);
        }
      }),
      { numRuns: 300 },
    );
  });
});
