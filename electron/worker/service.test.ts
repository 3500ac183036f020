/** SessionService's open and close: what an open answers, a large sidecar previewed while indexed, a session picked in a file, a file newer than supported. */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChatMessage, Reduction, SessionInfo } from '../../shared/index';
import { makeHeader, makeSnapshot, messageRecord, reductionRecord, writeSidecar, writeSnapshot } from '../../tools/testing/files';
import { assistant, makeReduction, tool, user } from '../../shared/testing/builders';
import { loadSession } from '../loader/session';
import type { LoadProgressPayload } from './handlers/open';
import type { SessionService } from './service';
import { params, serviceFixture, value } from './testing/serviceTests';

const DEMO = join(import.meta.dirname, '../../samples/demo.sidecar.jsonl');
const demoPolicy = (JSON.parse(readFileSync(DEMO, 'utf8').split('\n')[0] as string) as { policy: unknown }).policy;

const { tmp, service, opened, sidecar } = serviceFixture('session-inspector-service-');

describe('SessionService without a session', () => {
  it('answers no_session to every session method, and close is fine', () => {
    const s = service();
    const asks = [
      s.handle('rows', params('rows', { start: 0, end: 10 })),
      s.handle('rowOfIndex', { index: 0 }),
      s.handle('rowText', { row: 0, range: [0, 1] }),
      s.handle('expand', { id: 'r1' }),
      s.searchAtOnce(params('search', { searchId: 'a', query: 'x' })),
      s.handle('log', {}),
      s.handle('verify', { ids: ['r1'] }),
      s.handle('check', {}),
    ];
    for (const reply of asks) expect(reply).toMatchObject({ ok: false, error: { code: 'no_session' } });
    expect(s.info).toBeNull();
    expect(s.close()).toEqual({ ok: true, value: {} });
  });

  it('keeps the loader error codes, and a failed open leaves nothing open', async () => {
    const s = await opened([DEMO]);
    const missing = await s.open({ paths: [tmp.path('missing.sidecar.jsonl')], generation: 2 });
    expect(missing).toMatchObject({ ok: false, error: { code: 'unreadable_file' } });
    expect(s.handle('rows', params('rows', { start: 0, end: 1 }))).toMatchObject({ ok: false, error: { code: 'no_session' } });
    const notSession = await s.open({ paths: [DEMO, DEMO], generation: 3 });
    expect(notSession).toMatchObject({ ok: false, error: { code: 'usage' } });
  });
});

describe('SessionService.open', () => {
  it('describes the demo session with the request generation and reports progress', async () => {
    const s = service();
    const progress: LoadProgressPayload[] = [];
    const info = value(await s.open({ paths: [DEMO], generation: 7 }, (p) => progress.push(p)));
    expect(info).toEqual({
      generation: 7,
      files: [{ path: DEMO, format: 'supercode-sidecar', bytes: statSync(DEMO).size }],
      session_id: 's-demo',
      model: 'model-a',
      gate: true,
      policy: demoPolicy,
      messages: 4,
      rows: 4,
      reductions: 1,
      reductions_by_kind: { tool_output_truncated: 1, tool_output_elided: 0, duplicate_output: 0, turns_cleared: 0, summarized: 0 },
      load_findings: 0,
      stopped: false,
      // A native sidecar holds one session, named by its header.
      format: 'supercode',
      session: '',
      sessions: [{ id: 's-demo', messages: 4 }],
      // An open session is followed unless asked otherwise (a live session).
      following: true,
    });
    expect(s.info).toEqual(info);
    expect(progress.length).toBeGreaterThan(0);
    for (const p of progress) expect(p.generation).toBe(7);
    expect(progress.at(-1)).toEqual({ generation: 7, bytesRead: statSync(DEMO).size, totalBytes: statSync(DEMO).size });
  });

  it('a snapshot has no header: gate and policy are null', async () => {
    const view = [user('hi'), assistant('ok')];
    const s = await opened([writeSnapshot(tmp.path('alone.session.json'), makeSnapshot(view))]);
    expect(s.info).toMatchObject({ gate: null, policy: null, messages: 2, rows: 2, session_id: 's-test', model: 'model-b' });
  });
});

describe('SessionService and a file newer than supported', () => {
  it('opens as stopped; content methods answer unsupported_version, check says why', async () => {
    const s = await opened([sidecar([user('u')], [], makeHeader({ version: 2 }))]);
    expect(s.info).toMatchObject({ stopped: true, messages: 0, rows: 0, reductions: 0, load_findings: 1 });
    const content = [
      s.handle('rows', params('rows', { start: 0, end: 10 })),
      s.handle('rowOfIndex', { index: 0 }),
      s.handle('rowText', { row: 0, range: [0, 1] }),
      s.handle('expand', { id: 'r1' }),
      s.searchAtOnce(params('search', { searchId: 'a', query: 'u' })),
      s.handle('verify', { ids: ['r1'] }),
    ];
    for (const reply of content) expect(reply).toMatchObject({ ok: false, error: { code: 'unsupported_version', message: expect.stringContaining('version 2') as unknown } });
    expect(value(s.handle('log', {}))).toEqual({ entries: [] });
    expect(value(s.handle('check', {})).findings.map((f) => f.code)).toEqual(['unsupported_version']);
  });
});

describe('SessionService.open: a large sidecar previewed while it is indexed', () => {
  /** 30,000 messages (about 12 MB), message 0 elided by a reduction recorded at the very end. */
  function bigSidecar(): { path: string; first: ChatMessage; reduction: Reduction } {
    const view: ChatMessage[] = Array.from({ length: 30_000 }, (_, i) =>
      i % 2 === 0 ? tool(`output ${i} ${'log line with some text\n'.repeat(16)}`, `call_${i}`) : assistant(`step ${i}`),
    );
    const reduction = makeReduction(view, { id: 'r-end', kind: 'tool_output_elided', index: 0 });
    const path = writeSidecar(tmp.path('big.sidecar.jsonl'), [makeHeader(), ...view.map((m, i) => messageRecord(i, m)), reductionRecord(reduction)]);
    return { path, first: view[0] as ChatMessage, reduction };
  }

  it('answers rows over the records read so far, then replaces them with the whole session', async () => {
    const { path, first, reduction } = bigSidecar();
    expect(statSync(path).size).toBeGreaterThan(8 * 1024 * 1024);
    const s = service();
    const previews: { info: SessionInfo; row0?: string }[] = [];
    const reply = await s.open({ paths: [path], generation: 7 }, undefined, (info) => {
      const rows = s.handle('rows', { start: 0, end: 2 });
      previews.push({ info, ...(rows.ok ? { row0: rows.value.rows[0]?.text } : {}) });
    });
    expect(previews).toHaveLength(1);
    const preview = previews[0];
    expect(preview?.info).toMatchObject({ generation: 7, provisional: true, reductions: 0 });
    expect(preview?.info.messages).toBeGreaterThan(0);
    expect(preview?.info.messages).toBeLessThan(30_000);
    // Before the reduction at the end was read, row 0 shows the original.
    expect(preview?.row0).toBe(first.content);
    const info = value(reply);
    expect(info.provisional).toBeUndefined();
    expect(info).toMatchObject({ generation: 7, messages: 30_000, reductions: 1 });
    expect(value(s.handle('rows', { start: 0, end: 1 })).rows[0]?.text).toBe(reduction.stub);
  });

  it('is superseded by an open that comes while it is indexed: it answers cancelled, the later one wins', async () => {
    const { path } = bigSidecar();
    const small = writeSidecar(tmp.path('small.sidecar.jsonl'), [makeHeader(), messageRecord(0, user('hello'))]);
    const s = service();
    let second: Promise<unknown> | undefined;
    const first = s.open({ paths: [path], generation: 1 }, undefined, () => {
      second = s.open({ paths: [small], generation: 2 });
    });
    expect(await first).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    expect(value((await second) as Awaited<ReturnType<SessionService['open']>>)).toMatchObject({ generation: 2, messages: 1 });
    expect(s.info?.generation).toBe(2);
  });

  it('does not preview a small sidecar', async () => {
    const small = writeSidecar(tmp.path('small2.sidecar.jsonl'), [makeHeader(), messageRecord(0, user('hello'))]);
    const s = service();
    let previewed = false;
    value(await s.open({ paths: [small], generation: 1 }, undefined, () => (previewed = true)));
    expect(previewed).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// Opening one session of a file that holds several (§10.1): the info names the format, the session
// asked for and every session of the file (as `check`'s summary of the same file lists them); an id
// the file does not hold is a `usage` error naming the ones it does, and leaves nothing open.

const SUBAGENT = join(import.meta.dirname, '../../e2e/fixtures/real/claude-code/cc-2.1.17-subagent/29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl');
const CODEX = join(import.meta.dirname, '../../e2e/fixtures/synthetic/codex/local-compaction.jsonl');

/** `check`'s summary of `path` opened by the loader directly: the oracle of what the worker says. */
async function summaryOf(path: string, session?: string) {
  const loaded = await loadSession([path], session !== undefined ? { session } : {});
  if (!loaded.ok) throw new Error(loaded.error.message);
  try {
    return loaded.session.check().summary;
  } finally {
    loaded.session.close();
  }
}

describe('SessionService.open with a session', () => {
  it('without one opens the main session and lists every session of the file, with the format', async () => {
    const summary = await summaryOf(SUBAGENT);
    expect(summary.sessions.length).toBeGreaterThan(1);
    const reply = await service().open({ paths: [SUBAGENT], generation: 1 });
    expect(reply.ok && reply.value).toMatchObject({ format: 'claude-code', session: '', sessions: summary.sessions, messages: summary.messages });
    expect(reply.ok && reply.value.sessions_omitted).toBeUndefined();
  });

  it("with a subagent's id opens that one: its messages, its log, the same list", async () => {
    const all = (await summaryOf(SUBAGENT)).sessions;
    const sub = all[1];
    if (!sub) throw new Error('no subagent');
    const own = await summaryOf(SUBAGENT, sub.id);
    const s = service();
    const reply = await s.open({ paths: [SUBAGENT], generation: 2, session: sub.id });
    expect(reply.ok && reply.value).toMatchObject({ session: sub.id, messages: sub.messages, reductions: own.reductions, sessions: all });
    expect(s.handle('rows', { start: 0, end: 1 })).toMatchObject({ ok: true, value: { rowCount: reply.ok ? reply.value.rows : -1 } });
  });

  it("'' is the main session, as no session at all", async () => {
    const reply = await service().open({ paths: [SUBAGENT], generation: 1, session: '' });
    expect(reply.ok && reply.value).toMatchObject({ session: '', messages: (await summaryOf(SUBAGENT)).messages });
  });

  it.each([
    ['a Claude Code transcript (the loader checks)', SUBAGENT],
    ['a Codex rollout (one session)', CODEX],
    ['a native sidecar (one session)', DEMO],
  ])('an id %s does not hold is a usage error naming the sessions it holds; nothing is open after', async (_what, path) => {
    const ids = (await summaryOf(path)).sessions.map((e) => e.id);
    const s = service();
    const reply = await s.open({ paths: [path], generation: 1, session: 'no-such-session' });
    expect(reply.ok).toBe(false);
    if (reply.ok) return;
    expect(reply.error.code).toBe('usage');
    expect(reply.error.message).toContain('"no-such-session"');
    for (const id of ids) expect(reply.error.message).toContain(id || '(main)');
    expect(s.info).toBeNull();
    expect(s.handle('rows', { start: 0, end: 1 })).toMatchObject({ ok: false, error: { code: 'no_session' } });
  });

  it("the one session of a single-session file may be named by its own id", async () => {
    const [only] = (await summaryOf(CODEX)).sessions;
    const reply = await service().open({ paths: [CODEX], generation: 1, session: only?.id ?? '' });
    expect(reply.ok && reply.value).toMatchObject({ format: 'codex', session: only?.id });
  });

  it('a forced format is used: an unknown one is a usage error listing the formats, another one refuses the file', async () => {
    const unknown = await service().open({ paths: [CODEX], generation: 1, format: 'no-such-format' });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'usage' } });
    expect(!unknown.ok && unknown.error.message).toContain('codex');
    const wrong = await service().open({ paths: [CODEX], generation: 1, format: 'claude-code' });
    expect(wrong).toMatchObject({ ok: false, error: { code: 'unrecognized_file' } });
    const right = await service().open({ paths: [CODEX], generation: 1, format: 'codex' });
    expect(right.ok && right.value.format).toBe('codex');
  });
});
