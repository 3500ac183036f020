import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChatMessage, HostEvent, Reduction, Reply, ResultOf, SessionInfo } from '../../shared/index';
import { makeSnapshot, tempDir, writeSidecar, writeSnapshot } from '../../tools/testing/files';
import { createSessionHost } from './sessionHost';
import type { FakeResolverClient } from './testing/fakeClient';
import { createFakeResolverClient } from './testing/fakeClient';
import type { SessionHost, SessionHostOptions } from './types';

const ROOT = join(import.meta.dirname, '../..');
const DEMO = join(ROOT, 'samples/demo.sidecar.jsonl');
const MISSING = join(ROOT, 'samples/no-such-file.sidecar.jsonl');

let hosts: SessionHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.map((h) => h.dispose()));
  hosts = [];
});

function setUp(overrides: Partial<SessionHostOptions> = {}, client: FakeResolverClient = createFakeResolverClient()) {
  const host = createSessionHost({ host: 'http', client, files: [DEMO, MISSING], ...overrides });
  hosts.push(host);
  const events: HostEvent[] = [];
  host.onEvent((e) => events.push(e));
  return { host, client, events };
}

function value<T>(reply: { ok: true; value: T } | { ok: false; error: { code: string; message: string } }): T {
  if (!reply.ok) throw new Error(`expected ok, got ${reply.error.code}: ${reply.error.message}`);
  return reply.value;
}

function errorCode(reply: Reply<never> | { ok: boolean; error?: { code: string } }): string | undefined {
  return reply.ok ? undefined : (reply as { error: { code: string } }).error.code;
}

async function stateOf(host: SessionHost): Promise<ResultOf<'state'>> {
  return value((await host.handle('state', {})) as Reply<'state'>);
}

async function openDemo(host: SessionHost): Promise<SessionInfo> {
  const { files } = await stateOf(host);
  const demo = files.find((f) => f.name === 'demo.sidecar.jsonl');
  return value((await host.handle('openFile', { id: demo?.id })) as Reply<'openFile'>);
}

describe('state and offered files', () => {
  it('offers the files by opaque id, basename and size; nothing open yet', async () => {
    const { host } = setUp();
    const state = await stateOf(host);
    expect(state.host).toBe('http');
    expect(state.session).toBeNull();
    expect(state.files).toEqual([
      { id: expect.any(String) as string, name: 'demo.sidecar.jsonl', bytes: statSync(DEMO).size },
      { id: expect.any(String) as string, name: 'no-such-file.sidecar.jsonl', bytes: null },
    ]);
    for (const f of state.files) expect(f.id).not.toContain('/');
    expect(new Set(state.files.map((f) => f.id)).size).toBe(2);
  });

  it('never opens a path named by a request: unknown ids are invalid_request', async () => {
    const { host, client } = setUp();
    for (const id of ['/etc/passwd', DEMO, '../samples/demo.sidecar.jsonl', 'demo.sidecar.jsonl', '']) {
      expect(errorCode(await host.handle('openFile', { id }))).toBe('invalid_request');
    }
    expect(errorCode(await host.handle('openFile', { path: DEMO }))).toBe('invalid_request');
    expect(client.calls.filter((c) => c.startsWith('open:'))).toEqual([]);
  });

  it('adds paths opened by the shell to the offered files', async () => {
    const tmp = tempDir();
    try {
      const other = writeSidecar(tmp.path('other.sidecar.jsonl'), readFileSync(DEMO, 'utf8').trimEnd().split('\n'));
      const { host } = setUp();
      value(await host.openPaths([other]));
      const { files } = await stateOf(host);
      expect(files.map((f) => f.name)).toEqual(['demo.sidecar.jsonl', 'no-such-file.sidecar.jsonl', 'other.sidecar.jsonl']);
      // The same file again is not offered twice.
      value(await host.openPaths([other]));
      expect((await stateOf(host)).files).toHaveLength(3);
    } finally {
      tmp.cleanup();
    }
  });
});

describe('a sidecar and a snapshot opened together', () => {
  it('offers the pair as one file named by both basenames, sized by both', async () => {
    const tmp = tempDir();
    try {
      const lines = readFileSync(DEMO, 'utf8').trimEnd().split('\n');
      const records = lines.map((l) => JSON.parse(l) as { t: string; msg?: ChatMessage; r?: Reduction });
      const sidecar = writeSidecar(tmp.path('pair.sidecar.jsonl'), lines);
      const snapshot = writeSnapshot(
        tmp.path('pair.session.json'),
        makeSnapshot(
          records.flatMap((r) => (r.t === 'message' && r.msg ? [r.msg] : [])),
          records.flatMap((r) => (r.r ? [r.r] : [])),
        ),
      );
      const { host } = setUp({ files: [] });
      expect(value(await host.openPaths([sidecar, snapshot])).files.map((f) => f.format).sort()).toEqual(['supercode-sidecar', 'supercode-snapshot']);
      expect((await stateOf(host)).files).toEqual([
        { id: expect.any(String) as string, name: 'pair.sidecar.jsonl + pair.session.json', bytes: statSync(sidecar).size + statSync(snapshot).size },
      ]);
    } finally {
      tmp.cleanup();
    }
  });
});

describe('opening', () => {
  it('opens an offered id: sessionOpened, onOpened, state.session', async () => {
    const onOpened = vi.fn();
    const { host, events } = setUp({ onOpened });
    const info = await openDemo(host);
    expect(info).toMatchObject({ generation: 1, session_id: 's-demo', messages: 4, rows: 4, reductions: 1, stopped: false });
    expect(events.filter((e) => e.name === 'sessionOpened')).toEqual([{ name: 'sessionOpened', payload: info }]);
    expect(onOpened).toHaveBeenCalledWith([DEMO]);
    expect((await stateOf(host)).session).toEqual(info);
  });

  it('passes on the preview of a large sidecar, then the whole session, and state follows', async () => {
    const tmp = tempDir('session-inspector-host-preview-');
    try {
      const view: ChatMessage[] = Array.from({ length: 30_000 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `message ${i} ${'text '.repeat(60)}` }));
      const big = writeSidecar(tmp.path('big.sidecar.jsonl'), [{ t: 'header', format: 'supercode-sidecar', version: 1, session_id: 's-big', created_at: '2026-11-30T00:00:00Z', model: 'm', gate: true, policy: null }, ...view.map((msg, i) => ({ t: 'message', i, msg }))]);
      expect(statSync(big).size).toBeGreaterThan(8 * 1024 * 1024);
      const { host, events } = setUp();
      let stateDuring: SessionInfo | null | undefined;
      host.onEvent((e) => {
        if (e.name === 'sessionPreview') void stateOf(host).then((st) => (stateDuring = st.session));
      });
      const info = value(await host.openPaths([big]));
      const names = events.map((e) => e.name).filter((n) => n !== 'loadProgress');
      expect(names).toEqual(['sessionPreview', 'sessionOpened']);
      expect(events.find((e) => e.name === 'sessionPreview')?.payload).toMatchObject({ generation: info.generation, provisional: true });
      expect(stateDuring).toMatchObject({ provisional: true });
      expect((await stateOf(host)).session).toEqual(info);
      expect(info.messages).toBe(30_000);
    } finally {
      tmp.cleanup();
    }
  });

  it('says where it stands for a late subscriber: the open session, or the last failed open', async () => {
    const { host } = setUp();
    expect(host.current()).toEqual([]);
    const info = await openDemo(host);
    expect(host.current()).toEqual([{ name: 'sessionOpened', payload: info }]);
    const failed = await host.openPaths([MISSING]);
    expect(host.current()).toEqual([{ name: 'loadFailed', payload: { generation: 2, error: failed.ok ? undefined : failed.error } }]);
  });

  it('reports a file that fails as loadFailed, with a new generation each time', async () => {
    const { host, events } = setUp();
    await openDemo(host);
    const failed = await host.openPaths([MISSING]);
    expect(errorCode(failed)).toBe('unreadable_file');
    expect(events.map((e) => e.name).filter((n) => n !== 'loadProgress')).toEqual(['sessionOpened', 'sessionClosed', 'loadFailed']);
    expect(events.at(-1)).toMatchObject({ name: 'loadFailed', payload: { generation: 2, error: { code: 'unreadable_file' } } });
    expect((await stateOf(host)).session).toBeNull();
    expect((await host.openPaths([DEMO])).ok && (await stateOf(host)).session?.generation).toBe(3);
  });

  it('state reports the last failed open until something opens, for a window that connects late', async () => {
    const { host } = setUp();
    await host.openPaths([MISSING]);
    const { loadError } = await stateOf(host);
    expect(loadError).toMatchObject({ generation: 1, files: ['no-such-file.sidecar.jsonl'], error: { code: 'unreadable_file' } });
    expect(loadError?.error.message).toContain('no-such-file.sidecar.jsonl');
    await openDemo(host);
    expect((await stateOf(host)).loadError).toBeNull();
  });

  it('a later open supersedes one still in flight', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    const client = createFakeResolverClient({ beforeOpen: (_paths, generation) => (generation === 1 ? held : Promise.resolve()) });
    const { host, events } = setUp({}, client);
    const first = host.openPaths([DEMO]);
    const second = await host.openPaths([DEMO]);
    release();
    expect(errorCode(await first)).toBe('cancelled');
    expect(value(second).generation).toBe(2);
    expect(events.flatMap((e) => (e.name === 'sessionOpened' ? [e.payload.generation] : []))).toEqual([2]);
    expect((await stateOf(host)).session?.generation).toBe(2);
  });

  it('answers openDialog with not_supported without a dialog, and opens what a dialog picks', async () => {
    expect(errorCode(await setUp().host.handle('openDialog', {}))).toBe('not_supported');
    const cancelled = setUp({ host: 'electron', openDialog: () => Promise.resolve(null) });
    expect(await cancelled.host.handle('openDialog', {})).toEqual({ ok: true, value: null });
    const picked = setUp({ host: 'electron', files: [], openDialog: () => Promise.resolve([DEMO]) });
    expect(value((await picked.host.handle('openDialog', {})) as Reply<'openDialog'>)?.session_id).toBe('s-demo');
    expect((await stateOf(picked.host)).files.map((f) => f.name)).toEqual(['demo.sidecar.jsonl']);
  });

  it('closes: sessionClosed, then session requests answer no_session', async () => {
    const { host, events } = setUp();
    await openDemo(host);
    expect(await host.handle('close', {})).toEqual({ ok: true, value: {} });
    expect(events.at(-1)).toEqual({ name: 'sessionClosed', payload: { generation: 1 } });
    expect(errorCode(await host.handle('rows', { start: 0, end: 1 }))).toBe('no_session');
  });
});

describe('session requests', () => {
  it('answers no_session while nothing is open, without asking the worker', async () => {
    const { host, client } = setUp();
    for (const [method, params] of [
      ['rows', { start: 0, end: 10 }],
      ['expand', { id: 'r1' }],
      ['search', { searchId: 's', query: 'FAIL' }],
      ['log', {}],
      ['check', {}],
    ] as const) {
      expect(errorCode(await host.handle(method, params))).toBe('no_session');
    }
    expect(client.calls).toEqual([]);
  });

  it('forwards the worker methods: rows, expand (SPEC §9), search, log, verify, check', async () => {
    const { host } = setUp();
    await openDemo(host);
    const rows = value((await host.handle('rows', { start: 0, end: 10 })) as Reply<'rows'>);
    expect(rows.rowCount).toBe(4);
    expect(rows.rows[2]).toMatchObject({ index: 2, role: 'tool', applied: 'r1', reductions: [{ id: 'r1', kind: 'tool_output_truncated' }] });
    expect(rows.rows[2]?.text.startsWith('PASS a.test.ts\n⟦reduced⟧ id=r1')).toBe(true);
    expect(value((await host.handle('expand', { id: 'r1', range: [31, 41] })) as Reply<'expand'>)).toMatchObject({ content: '— expecte', range: [30, 41], total_bytes: 67 });
    const search = value((await host.handle('search', { searchId: 's1', query: 'FAIL' })) as Reply<'search'>);
    expect(search.matches.map((m) => [m.reduction_id, m.offset])).toEqual([['r1', 15]]);
    expect(value((await host.handle('log', {})) as Reply<'log'>).entries.map((e) => e.reduction.id)).toEqual(['r1']);
    expect(value((await host.handle('verify', { ids: ['r1'] })) as Reply<'verify'>).statuses[0]).toMatchObject({ status: 'verified', hidden_bytes: 52 });
    expect(value((await host.handle('check', {})) as Reply<'check'>).summary.errors).toBe(0);
    expect(errorCode(await host.handle('expand', { id: 'r9' }))).toBe('unknown_reduction');
  });

  it('validates every request: unknown methods and bad params are invalid_request', async () => {
    const { host, client } = setUp();
    await openDemo(host);
    expect(errorCode(await host.handle('constructor', {}))).toBe('invalid_request');
    expect(errorCode(await host.handle('__proto__', {}))).toBe('invalid_request');
    expect(errorCode(await host.handle('rows', { start: 5, end: 1 }))).toBe('invalid_request');
    expect(errorCode(await host.handle('rows', { start: 0, end: 100_000 }))).toBe('invalid_request');
    expect(errorCode(await host.handle('expand', { id: 7 }))).toBe('invalid_request');
    expect(errorCode(await host.handle('search', { searchId: 's', query: '' }))).toBe('invalid_request');
    expect(errorCode(await host.handle('rows', 'not an object'))).toBe('invalid_request');
    expect(client.calls.filter((c) => !c.startsWith('open:'))).toEqual([]);
  });

  it('passes cancelSearch to the client', async () => {
    const client = createFakeResolverClient();
    const cancel = vi.spyOn(client, 'cancelSearch').mockReturnValue(true);
    const { host } = setUp({}, client);
    expect(await host.handle('cancelSearch', { searchId: 's1' })).toEqual({ ok: true, value: { cancelled: true } });
    expect(cancel).toHaveBeenCalledWith('s1');
  });

  it('answers cancelled when the session changes while a request is answered', async () => {
    const client = createFakeResolverClient();
    const { host } = setUp({}, client);
    await openDemo(host);
    const request = client.request.bind(client);
    vi.spyOn(client, 'request').mockImplementationOnce(async (method, params) => {
      await host.handle('close', {});
      return request(method, params);
    });
    expect(errorCode(await host.handle('log', {}))).toBe('cancelled');
  });

  it('never throws: a failing client becomes internal_error', async () => {
    const client = createFakeResolverClient();
    const { host } = setUp({}, client);
    await openDemo(host);
    vi.spyOn(client, 'request').mockRejectedValueOnce(new Error('boom'));
    const reply = await host.handle('log', {});
    expect(reply).toMatchObject({ ok: false, error: { code: 'internal_error' } });
    vi.spyOn(client, 'open').mockRejectedValueOnce(new Error('worker gone'));
    expect(await host.openPaths([DEMO])).toMatchObject({ ok: false, error: { code: 'internal_error', message: expect.stringContaining('worker gone') as string } });
  });
});

describe('events', () => {
  it("forwards the client's loadProgress and workerRestarted, not its session events", async () => {
    const { host, client, events } = setUp();
    await openDemo(host);
    expect(events[0]).toMatchObject({ name: 'loadProgress', payload: { generation: 1, totalBytes: statSync(DEMO).size } });
    client.emit({ name: 'workerRestarted', payload: { reason: 'the worker exited with code 1' } });
    client.emit({ name: 'sessionOpened', payload: (await stateOf(host)).session as SessionInfo });
    expect(events.at(-1)).toEqual({ name: 'workerRestarted', payload: { reason: 'the worker exited with code 1' } });
    expect(events.filter((e) => e.name === 'sessionOpened')).toHaveLength(1);
  });

  it("forwards the worker's fileChanged about the session shown, not about an earlier one", async () => {
    const { host, client, events } = setUp();
    const info = await openDemo(host);
    const change = { generation: info.generation, path: DEMO, message: `${DEMO} changed on disk since it was opened` };
    client.emit({ name: 'fileChanged', payload: { ...change, generation: info.generation - 1 } });
    client.emit({ name: 'fileChanged', payload: change });
    expect(events.filter((e) => e.name === 'fileChanged')).toEqual([{ name: 'fileChanged', payload: change }]);
  });

  it('keeps delivering when a listener throws, and stops after unsubscribe and dispose', async () => {
    const { host, client } = setUp();
    host.onEvent(() => {
      throw new Error('listener bug');
    });
    const seen: string[] = [];
    const off = host.onEvent((e) => seen.push(e.name));
    client.emit({ name: 'workerRestarted', payload: { reason: 'x' } });
    off();
    client.emit({ name: 'workerRestarted', payload: { reason: 'y' } });
    expect(seen).toEqual(['workerRestarted']);
    await host.dispose();
    expect(errorCode(await host.handle('state', {}))).toBe('internal_error');
    expect(client.disposed).toBe(false);
  });
});

describe('sessions of a file (SPEC §10.1)', () => {
  const SUBAGENT = join(ROOT, 'e2e/fixtures/real/claude-code/cc-2.1.17-subagent/29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl');
  const CODEX = join(ROOT, 'e2e/fixtures/synthetic/codex/local-compaction.jsonl');

  async function offeredId(host: SessionHost, name: string): Promise<string> {
    const file = (await stateOf(host)).files.find((f) => f.name === name);
    if (!file) throw new Error(`${name} is not offered`);
    return file.id;
  }

  it('openFile with a session opens that session of the offered file, and without one the main one again', async () => {
    const { host, events } = setUp({ files: [SUBAGENT] });
    const id = await offeredId(host, '29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl');
    const main = value((await host.handle('openFile', { id })) as Reply<'openFile'>);
    const sub = main.sessions[1];
    if (!sub) throw new Error('the fixture holds a subagent');
    const opened = value((await host.handle('openFile', { id, session: sub.id })) as Reply<'openFile'>);
    expect(opened).toMatchObject({ session: sub.id, messages: sub.messages, sessions: main.sessions, format: 'claude-code' });
    expect((await stateOf(host)).session).toEqual(opened);
    const back = value((await host.handle('openFile', { id, session: '' })) as Reply<'openFile'>);
    expect(back).toMatchObject({ session: '', messages: main.messages });
    expect(events.filter((e) => e.name === 'sessionOpened')).toHaveLength(3);
  });

  it('an id the file does not hold: the reply and a loadFailed event carry the usage error naming the sessions; nothing stays open', async () => {
    const { host, events } = setUp({ files: [SUBAGENT] });
    const id = await offeredId(host, '29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl');
    const main = value((await host.handle('openFile', { id })) as Reply<'openFile'>);
    const reply = await host.handle('openFile', { id, session: 'no-such-agent' });
    expect(reply).toMatchObject({ ok: false, error: { code: 'usage' } });
    for (const s of main.sessions) expect(!reply.ok && reply.error.message).toContain(s.id);
    const failed = events.find((e) => e.name === 'loadFailed');
    expect(failed?.payload).toMatchObject({ error: { code: 'usage', message: !reply.ok ? reply.error.message : '' } });
    const state = await stateOf(host);
    expect(state.session).toBeNull();
    expect(state.loadError?.error.code).toBe('usage');
  });

  it('refuses a session id longer than 200 characters before opening anything', async () => {
    const { host, client } = setUp({ files: [SUBAGENT] });
    const id = await offeredId(host, '29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl');
    expect(errorCode(await host.handle('openFile', { id, session: 'x'.repeat(201) }))).toBe('invalid_request');
    expect(client.calls.filter((c) => c.startsWith('open:'))).toEqual([]);
  });

  it('a format forced at start (--format) stays with the file: opening it by id again reads it as that format', async () => {
    const { host } = setUp({ files: [CODEX], format: 'claude-code' });
    const first = await host.openPaths([CODEX], { format: 'claude-code' });
    expect(first).toMatchObject({ ok: false, error: { code: 'unrecognized_file' } });
    const again = await host.handle('openFile', { id: await offeredId(host, 'local-compaction.jsonl') });
    expect(again).toMatchObject({ ok: false, error: { code: 'unrecognized_file' } });
    const right = createSessionHost({ host: 'http', client: createFakeResolverClient(), files: [CODEX], format: 'codex' });
    hosts.push(right);
    const opened = await right.handle('openFile', { id: value((await right.handle('state', {})) as Reply<'state'>).files[0]?.id });
    expect(opened.ok && (opened.value as SessionInfo).format).toBe('codex');
  });
});
