/**
 * Uploads: `POST /api/upload` on the HTTP host, over the SessionHost and the worker's own
 * answers (the fake client runs the worker's SessionService in-process). Each upload's private
 * folder is made under a folder of this test's, so "nothing left on disk" is a listing of it.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HostEvent, Reply, ResultOf } from '../../shared/index';
import { brokenSamples } from '../../tools/samples/brokenSamples';
import { runCli } from '../cli/testing/runCli';
import { tempDir } from '../../tools/testing/files';
import type { FakeResolverClientOptions } from './testing/fakeClient';
import { createFakeResolverClient } from './testing/fakeClient';
import type { HttpAnswer } from './testing/httpClient';
import { startTestHost } from './testing/apiClient';
import { openEventStream, request } from './testing/httpClient';
import { UPLOAD_DIR_PREFIX, uploadLabel } from './upload';

const ROOT = join(import.meta.dirname, '../..');
const DEMO = join(ROOT, 'samples/demo.sidecar.jsonl');
const SESSION = join(ROOT, 'samples/session.sidecar.jsonl');

const tmp = tempDir('session-inspector-upload-test-');
beforeAll(() => mkdirSync(tmp.path('renderer')));
afterAll(() => tmp.cleanup());

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

let nextRoot = 0;

async function serve(options: { maxUploadBytes?: number; timeouts?: { headersMs: number; requestMs: number; checkIntervalMs: number } } = {}, client: FakeResolverClientOptions = {}) {
  const uploadRoot = tmp.path(`uploads-${nextRoot++}`);
  mkdirSync(uploadRoot);
  const { http, port, api, stop } = await startTestHost(createFakeResolverClient(client), { files: [DEMO] }, { rendererDir: tmp.path('renderer'), uploadTmpRoot: uploadRoot, ...options });
  stops.push(stop);
  const headers = (extra: Record<string, string> = {}): Record<string, string> => ({ 'X-Session-Inspector-Token': http.token, ...extra });
  return {
    port,
    token: http.token,
    stop,
    /** The upload folders left under this host's temporary root. */
    left: (): string[] => readdirSync(uploadRoot),
    uploadRoot,
    upload: (body: Buffer, extra: Record<string, string> = {}): Promise<HttpAnswer> =>
      request(port, { method: 'POST', path: '/api/upload', headers: headers({ 'Content-Type': 'application/octet-stream', 'Content-Length': String(body.length), ...extra }), body }),
    api,
  };
}

function opened(answer: HttpAnswer): ResultOf<'openFile'> {
  expect(answer.status).toBe(200);
  const reply = JSON.parse(answer.body) as Reply<'openFile'>;
  if (!reply.ok) throw new Error(`upload not opened: ${reply.error.code}: ${reply.error.message}`);
  return reply.value;
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** The one regular file inside the one upload folder under `root`. */
function uploadedFile(root: string): { dir: string; file: string } {
  const dirs = readdirSync(root);
  expect(dirs).toHaveLength(1);
  const dir = join(root, dirs[0] as string);
  const files = readdirSync(dir);
  expect(files).toHaveLength(1);
  return { dir, file: join(dir, files[0] as string) };
}

/**
 * Sends a raw request over a socket: `head` (no blank line) then `body`, then either waits for the
 * answer (`end: 'answer'`) or destroys the socket at once (`end: 'abort'`). Resolves with the status
 * line's code (0 when none came).
 */
function rawUpload(port: number, head: string, body: Buffer, end: 'answer' | 'abort'): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`${head}\r\n\r\n`);
      socket.write(body, () => {
        if (end === 'abort') socket.destroy();
      });
    });
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (e: NodeJS.ErrnoException) => (e.code === 'ECONNRESET' || e.code === 'EPIPE' ? undefined : reject(e)));
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(Buffer.concat(chunks).toString('latin1'))?.[1] ?? 0)));
  });
}

function uploadHead(port: number, token: string, length: number): string {
  return [
    'POST /api/upload HTTP/1.1',
    `Host: 127.0.0.1:${port}`,
    `X-Session-Inspector-Token: ${token}`,
    'Content-Type: application/octet-stream',
    `Content-Length: ${length}`,
  ].join('\r\n');
}

describe('upload: refused requests leave nothing on disk', () => {
  it('refuses an upload without the token, with a wrong token, a foreign Origin or a foreign Host', async () => {
    const s = await serve();
    const body = readFileSync(DEMO);
    const cases: [Record<string, string>, number][] = [
      [{ 'X-Session-Inspector-Token': '' }, 403],
      [{ 'X-Session-Inspector-Token': `${s.token}x` }, 403],
      [{ Origin: 'http://evil.example' }, 403],
      [{ Origin: `http://127.0.0.1:${s.port + 1}` }, 403],
      [{ Host: 'evil.example' }, 421],
    ];
    for (const [headers, status] of cases) {
      const answer = await s.upload(body, headers);
      expect(answer.status, JSON.stringify(headers)).toBe(status);
    }
    expect(s.left()).toEqual([]);
    // Nothing was opened by any of them: the session is still none.
    const state = await s.api('state');
    expect(state.ok && state.value.session).toBeNull();
  });

  it('refuses a wrong Content-Type (415), a missing Content-Length (411) and other verbs (405)', async () => {
    const s = await serve();
    expect((await s.upload(readFileSync(DEMO), { 'Content-Type': 'application/json' })).status).toBe(415);
    const chunked = await rawUpload(
      s.port,
      ['POST /api/upload HTTP/1.1', `Host: 127.0.0.1:${s.port}`, `X-Session-Inspector-Token: ${s.token}`, 'Content-Type: application/octet-stream', 'Transfer-Encoding: chunked'].join('\r\n'),
      Buffer.from('5\r\nhello\r\n0\r\n\r\n'),
      'answer',
    );
    expect(chunked).toBe(411);
    const get = await request(s.port, { method: 'GET', path: '/api/upload', headers: { 'X-Session-Inspector-Token': s.token } });
    expect(get.status).toBe(405);
    expect(s.left()).toEqual([]);
  });

  it('refuses a body declared over the limit with 413 before reading it', async () => {
    const s = await serve({ maxUploadBytes: 1000 });
    const body = readFileSync(DEMO);
    expect(body.length).toBeGreaterThan(1000);
    const answer = await s.upload(body);
    expect(answer.status).toBe(413);
    expect(answer.body).toContain('1000 bytes');
    expect(s.left()).toEqual([]);
  });

  it('cuts a body that is longer than its Content-Length at the declared length: never more is written', async () => {
    const s = await serve({ maxUploadBytes: 4096 });
    const demo = readFileSync(DEMO);
    // The declared length is the sidecar's; the 64 KiB after it (over the limit) are not the upload.
    const status = await rawUpload(s.port, uploadHead(s.port, s.token, demo.length), Buffer.concat([demo, Buffer.alloc(64 * 1024, 0x41)]), 'answer');
    // Node's parser ends the body at the declared length; what follows is read as the next request.
    // Arriving with the body, it is a parse error (400, the connection closed, the upload aborted);
    // arriving after the upload was answered, it is a second, bad request. Either way no byte past
    // the declared length is ever written.
    expect([200, 400]).toContain(status);
    if (status === 400) {
      await expect.poll(() => s.left(), { timeout: 10_000 }).toEqual([]);
      const state = await s.api('state');
      expect(state.ok && state.value.session).toBeNull();
    } else {
      const { file } = uploadedFile(s.uploadRoot);
      expect(sha256(readFileSync(file))).toBe(sha256(demo));
    }
  });

  it('a stalled upload is cut at the whole-request bound (408) and leaves nothing', async () => {
    const s = await serve({ timeouts: { headersMs: 400, requestMs: 400, checkIntervalMs: 50 } });
    const demo = readFileSync(DEMO);
    // Half the declared bytes, then nothing: the socket stays open until the host gives up on it.
    const status = await rawUpload(s.port, uploadHead(s.port, s.token, demo.length * 2), demo, 'answer');
    expect(status).toBe(408);
    await expect.poll(() => s.left(), { timeout: 10_000 }).toEqual([]);
  });

  it('leaves nothing when the client goes away midway (fewer bytes than declared)', async () => {
    const s = await serve();
    const demo = readFileSync(DEMO);
    await rawUpload(s.port, uploadHead(s.port, s.token, demo.length * 10), demo, 'abort');
    // The server sees the close asynchronously: wait for the folder it made to be removed.
    await expect.poll(() => s.left(), { timeout: 10_000 }).toEqual([]);
    const state = await s.api('state');
    expect(state.ok && state.value.session).toBeNull();
  });
});

describe('upload: the private temporary file', () => {
  it('is a random name, mode 0600, in a folder of its own (mode 0700) under the temporary root; the name sent is only a label', async () => {
    const s = await serve();
    const info = opened(await s.upload(readFileSync(DEMO), { 'X-Session-Inspector-File-Name': encodeURIComponent('../../etc/evil\u202e.sidecar.jsonl') }));
    const { dir, file } = uploadedFile(s.uploadRoot);
    expect(dir.slice(s.uploadRoot.length + 1).startsWith(UPLOAD_DIR_PREFIX)).toBe(true);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(file.slice(dir.length + 1)).toMatch(/^upload-[0-9a-f]{24}$/);
    // The page sees the label (its last segment, without the override), never the temporary path.
    expect(info.files.map((f) => f.path)).toEqual(['evil.sidecar.jsonl']);
    const state = await s.api('state');
    expect(state.ok && state.value.files.map((f) => f.name)).toContain('evil.sidecar.jsonl');
    expect(JSON.stringify(state)).not.toContain(s.uploadRoot);
  });

  it('holds exactly the bytes sent (SHA-256), and expands every reduction as the command line does on the original', async () => {
    const s = await serve();
    const original = readFileSync(SESSION);
    const info = opened(await s.upload(original, { 'X-Session-Inspector-File-Name': 'session.sidecar.jsonl' }));
    expect(info.files[0]?.bytes).toBe(original.length);
    expect(sha256(readFileSync(uploadedFile(s.uploadRoot).file))).toBe(sha256(original));
    const log = await s.api('log');
    if (!log.ok) throw new Error(log.error.message);
    const ids = log.value.entries.map((e) => e.reduction.id).slice(0, 12);
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) {
      const viaUpload = await s.api('expand', { id });
      const cli = await runCli(['expand', '--id', id, SESSION]);
      expect(cli.code, cli.stderr).toBe(0);
      // Every field the command line prints, equal (the host adds the hidden spans beside them).
      expect(viaUpload, id).toMatchObject({ ok: true, value: JSON.parse(cli.stdout) as object });
    }
  });
});

describe('upload: kept while it is the session shown, no longer', () => {
  it('is removed when another upload replaces it, when the session is closed, and when its open fails', async () => {
    const s = await serve();
    opened(await s.upload(readFileSync(DEMO), { 'X-Session-Inspector-File-Name': 'a.sidecar.jsonl' }));
    const first = uploadedFile(s.uploadRoot).dir;
    opened(await s.upload(readFileSync(SESSION), { 'X-Session-Inspector-File-Name': 'b.sidecar.jsonl' }));
    const second = uploadedFile(s.uploadRoot).dir;
    expect(second).not.toBe(first);
    // The first is offered no more; the second is, under its label.
    const state = await s.api('state');
    expect(state.ok && state.value.files.map((f) => f.name)).toEqual(['demo.sidecar.jsonl', 'b.sidecar.jsonl']);

    expect((await s.api('close')).ok).toBe(true);
    expect(s.left()).toEqual([]);

    const failed = JSON.parse((await s.upload(Buffer.from('not a session\n'), { 'X-Session-Inspector-File-Name': 'notes.txt' })).body) as Reply<'openFile'>;
    expect(failed.ok || failed.error.code).toBe('unrecognized_file');
    // Its error names the file by its label, never by the temporary path.
    expect(failed.ok || failed.error.message).toMatch(/^notes\.txt is neither a sidecar/);
    expect(JSON.stringify(failed)).not.toContain(s.uploadRoot);
    expect(s.left()).toEqual([]);
  });

  it('an upload that is no session leaves the session shown open, an upload or an offered file: the reply says why, and its own copy goes', async () => {
    const s = await serve();
    const shownNow = async (): Promise<{ name: string | undefined; rows: number }> => {
      const state = await s.api('state');
      const rows = await s.api('rows', { start: 0, end: 1 });
      return { name: state.ok ? state.value.session?.files[0]?.path.split(/[\\/]/).pop() : undefined, rows: rows.ok ? rows.value.rows.length : -1 };
    };
    const notes = async (): Promise<string> => {
      const failed = JSON.parse((await s.upload(Buffer.from('not a session\n'), { 'X-Session-Inspector-File-Name': 'notes.txt' })).body) as Reply<'openFile'>;
      return failed.ok ? 'opened' : failed.error.code;
    };
    const state = await s.api('state');
    const demo = state.ok ? state.value.files.find((f) => f.name === 'demo.sidecar.jsonl') : undefined;
    expect((await s.api('openFile', { id: demo?.id })).ok).toBe(true);
    expect(await notes()).toBe('unrecognized_file');
    expect(await shownNow()).toEqual({ name: 'demo.sidecar.jsonl', rows: 1 });
    expect(s.left()).toEqual([]);

    opened(await s.upload(readFileSync(SESSION), { 'X-Session-Inspector-File-Name': 'b.sidecar.jsonl' }));
    expect(await notes()).toBe('unrecognized_file');
    // The upload shown before is shown again, read from its copy, which stays (the failed one's is gone).
    expect(await shownNow()).toEqual({ name: 'b.sidecar.jsonl', rows: 1 });
    expect(s.left()).toHaveLength(1);
  });

  it('is removed when a file the host offers is opened instead, and when the host stops', async () => {
    const s = await serve();
    opened(await s.upload(readFileSync(SESSION)));
    const state = await s.api('state');
    const demo = state.ok ? state.value.files.find((f) => f.name === 'demo.sidecar.jsonl') : undefined;
    expect((await s.api('openFile', { id: demo?.id })).ok).toBe(true);
    expect(s.left()).toEqual([]);
    opened(await s.upload(readFileSync(SESSION)));
    expect(s.left()).toHaveLength(1);
    await s.stop();
    expect(s.left()).toEqual([]);
  });

  it('an upload reopened on its session stays while shown', async () => {
    const s = await serve();
    const info = opened(await s.upload(readFileSync(DEMO), { 'X-Session-Inspector-File-Name': 'demo copy.sidecar.jsonl' }));
    const state = await s.api('state');
    const mine = state.ok ? state.value.files.find((f) => f.name === 'demo copy.sidecar.jsonl') : undefined;
    expect(mine).toBeDefined();
    const again = await s.api('openFile', { id: mine?.id });
    expect(again.ok && again.value.files).toEqual(info.files);
    expect(s.left()).toHaveLength(1);
  });
});

/** Where a reply or event body names an upload's temporary file or folder (empty when it names none). */
function temporaryPaths(body: string, uploadRoot: string): string[] {
  const found = [uploadRoot, UPLOAD_DIR_PREFIX].filter((needle) => body.includes(needle));
  return [...found, ...(body.match(/upload-[0-9a-f]{24}/g) ?? [])];
}

/** A promise and the function that settles it. */
function signal(): { promise: Promise<void>; fire: () => void } {
  let fire: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => (fire = resolve));
  return { promise, fire };
}

describe('upload: each upload owns its copy until its session closes', () => {
  it('A then B before A\'s open ends: B is shown and every read of B succeeds; no reply or event names a temporary path', async () => {
    // A's open is held until B's has begun, then answers (superseded) before B's goes on.
    const aHeld = signal();
    const bBegun = signal();
    const aAnswered = signal();
    let opens = 0;
    const s = await serve({}, {
      beforeOpen: async () => {
        const nth = ++opens;
        if (nth === 1) await aHeld.promise;
        if (nth === 2) {
          bBegun.fire();
          await aAnswered.promise;
        }
      },
    });
    const stream = await openEventStream(s.port, `/api/events?token=${s.token}`);
    const demo = readFileSync(DEMO);
    const session = readFileSync(SESSION);
    const a = s.upload(demo, { 'X-Session-Inspector-File-Name': 'a.sidecar.jsonl' });
    await expect.poll(() => opens).toBe(1);
    const b = s.upload(session, { 'X-Session-Inspector-File-Name': 'b.sidecar.jsonl' });
    await bBegun.promise;
    aHeld.fire();
    const aAnswer = await a;
    aAnswered.fire();
    const bAnswer = await b;
    const bodies: string[] = [aAnswer.body, bAnswer.body];

    // A was superseded (its copy is gone); B is the session shown, from its own copy.
    const aReply = JSON.parse(aAnswer.body) as Reply<'openFile'>;
    expect(aReply.ok || aReply.error.code).toBe('cancelled');
    expect(aReply.ok || aReply.error.message).toContain('a.sidecar.jsonl');
    const info = opened(bAnswer);
    expect(info.files.map((f) => f.path)).toEqual(['b.sidecar.jsonl']);
    const { file } = uploadedFile(s.uploadRoot);
    expect(sha256(readFileSync(file))).toBe(sha256(session));
    const state = await s.api('state');
    expect(state.ok && state.value.session?.generation).toBe(info.generation);
    expect(state.ok && state.value.files.map((f) => f.name)).toEqual(['demo.sidecar.jsonl', 'b.sidecar.jsonl']);
    bodies.push(JSON.stringify(state));

    // Every read of B succeeds (none answers file_changed).
    const log = await s.api('log');
    if (!log.ok) throw new Error(`${log.error.code}: ${log.error.message}`);
    const ids = log.value.entries.map((e) => e.reduction.id);
    expect(ids.length).toBeGreaterThan(0);
    const reads = [
      log,
      await s.api('rows', { start: 0, end: 50 }),
      await s.api('check'),
      await s.api('calls'),
      await s.api('search', { searchId: 's1', query: 'the' }),
      ...(await Promise.all(ids.slice(0, 20).map((id) => s.api('expand', { id })))),
    ];
    for (const reply of reads) {
      expect(reply.ok || `${reply.error.code}: ${reply.error.message}`).toBe(true);
      bodies.push(JSON.stringify(reply));
    }

    // Closing removes B's copy; the stream saw everything up to then.
    expect((await s.api('close')).ok).toBe(true);
    expect(s.left()).toEqual([]);
    for (let event = (await stream.next()) as HostEvent; ; event = (await stream.next()) as HostEvent) {
      bodies.push(JSON.stringify(event));
      if (event.name === 'sessionClosed') break;
    }
    stream.close();
    for (const body of bodies) expect(temporaryPaths(body, s.uploadRoot), body.slice(0, 300)).toEqual([]);
  });

  it('A begun first but arrived last is superseded by B, dropped after it and opened already: B stays shown, A leaves nothing', async () => {
    const s = await serve();
    const a = readFileSync(SESSION);
    // A's head and half its body arrive; B arrives whole and opens; then the rest of A.
    const socket = connect(s.port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(`${uploadHead(s.port, s.token, a.length)}\r\nX-Session-Inspector-File-Name: first.sidecar.jsonl\r\nConnection: close\r\n\r\n`);
    socket.write(a.subarray(0, a.length >> 1));
    // A's request head has reached the host once its body is being written to its private folder.
    await expect.poll(() => s.left().length, { timeout: 10_000 }).toBe(1);
    const b = opened(await s.upload(readFileSync(DEMO), { 'X-Session-Inspector-File-Name': 'second.sidecar.jsonl' }));
    socket.write(a.subarray(a.length >> 1));
    await closed;
    const answer = Buffer.concat(chunks).toString('utf8');
    const reply = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Reply<'openFile'>;
    expect(!reply.ok && reply.error.code).toBe('cancelled');
    const state = await s.api('state');
    expect(state.ok && state.value.session?.session_id).toBe(b.session_id);
    expect(state.ok && state.value.files.map((f) => f.name)).toContain('second.sidecar.jsonl');
    // Only B's copy is left.
    expect(s.left()).toHaveLength(1);
    expect((await s.api('check')).ok).toBe(true);
  });

  it('a repro bundle of an upload names its label in the command, README.md and bundle.json, never the temporary path', async () => {
    const sample = brokenSamples().find((x) => x.code === 'duplicate_bytes_differ');
    if (!sample) throw new Error('no duplicate_bytes_differ sample');
    const [[name, content]] = Object.entries(sample.files) as [[string, string]];
    const s = await serve();
    opened(await s.upload(Buffer.from(content), { 'X-Session-Inspector-File-Name': `my ${name}` }));
    const reply = await s.api('reproBundle', { codes: ['duplicate_bytes_differ'] });
    if (!reply.ok) throw new Error(`${reply.error.code}: ${reply.error.message}`);
    const files = new Map(reply.value.files.map((f) => [f.name, Buffer.from(f.base64, 'base64').toString('utf8')]));
    expect([...files.keys()].sort()).toEqual(['README.md', 'bundle.json', 'bundle.spec.ts', `my ${name}`].sort());
    expect(reply.value.command).toMatch(/^npx session-inspector bundle --out repro-duplicate_bytes_differ --finding duplicate_bytes_differ /);
    expect(reply.value.command.endsWith(` 'my ${name}'`), reply.value.command).toBe(true);
    expect(files.get('README.md')).toContain(`\`my ${name}\``);
    const manifest = JSON.parse(files.get('bundle.json') ?? '') as { sources: { path: string }[] };
    expect(manifest.sources.map((x) => x.path)).toEqual([`my ${name}`]);
    for (const body of [JSON.stringify(reply), ...files.values()]) expect(temporaryPaths(body, s.uploadRoot), body.slice(0, 300)).toEqual([]);
  }, 60_000);
});

describe('uploadLabel', () => {
  it('keeps the last path segment, without controls, bidi or zero-width characters, at most 200 characters', () => {
    expect(uploadLabel('a%2Fb%5Cc.jsonl')).toBe('c.jsonl');
    expect(uploadLabel('x\u001b]52;c;aGk=\u0007y.jsonl')).toBe('x]52;c;aGk=y.jsonl');
    expect(uploadLabel('..')).toBe('upload');
    expect(uploadLabel(undefined)).toBe('upload');
    expect(uploadLabel('%E0%A4%A')).toBe('%E0%A4%A');
    expect(Array.from(uploadLabel('é'.repeat(500)))).toHaveLength(200);
  });
});
