/**
 * Opening one session of a file that holds several (§10.1) through the worker's service: the info
 * names the format, the session asked for and every session of the file (as `check`'s summary of
 * the same file lists them); an id the file does not hold is a `usage` error naming the ones it
 * does, and leaves nothing open; the listed sessions are capped, the open one always among them.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LoadedSession } from '../../shared/index';
import { MAX_LISTED_SESSIONS } from '../../shared/index';
import { loadSession } from '../loader/session';
import { SessionService } from './service';
import { listedSessions, sessionNotHeld } from './sessions';

const ROOT = join(import.meta.dirname, '../..');
const SUBAGENT = join(ROOT, 'e2e/fixtures/real/claude-code/cc-2.1.17-subagent/29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl');
const CODEX = join(ROOT, 'e2e/fixtures/synthetic/codex/local-compaction.jsonl');
const DEMO = join(ROOT, 'samples/demo.sidecar.jsonl');

const services: SessionService[] = [];
afterEach(() => {
  for (const s of services.splice(0)) s.close();
});

function service(): SessionService {
  const s = new SessionService();
  services.push(s);
  return s;
}

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

describe('listedSessions', () => {
  /** A loaded session that lists `n` sessions; only what listedSessions and sessionNotHeld read. */
  function holding(n: number): LoadedSession {
    const sessions = Array.from({ length: n }, (_, k) => ({ id: k === 0 ? 'main' : `agent-${k}`, messages: k }));
    return { sessions, sessionId: 'main', minted: { length: 0 }, files: [{ path: '/x/t.jsonl', format: 'claude-code', bytes: 1 }] } as unknown as LoadedSession;
  }

  it('lists every session up to MAX_LISTED_SESSIONS, and counts the rest', () => {
    expect(listedSessions(holding(3), '')).toEqual({ sessions: holding(3).sessions, omitted: 0 });
    const many = listedSessions(holding(MAX_LISTED_SESSIONS + 5), '');
    expect(many.sessions).toHaveLength(MAX_LISTED_SESSIONS);
    expect(many.omitted).toBe(5);
    expect(many.sessions[0]?.id).toBe('main');
  });

  it('keeps the open session listed when it is past the cap', () => {
    const open = `agent-${MAX_LISTED_SESSIONS + 2}`;
    const many = listedSessions(holding(MAX_LISTED_SESSIONS + 5), open);
    expect(many.sessions).toHaveLength(MAX_LISTED_SESSIONS);
    expect(many.sessions.map((e) => e.id)).toContain(open);
    expect(many.sessions[0]?.id).toBe('main');
  });

  it('a native session without a listing is its one session, named by its id', () => {
    const native = { sessionId: 's-1', minted: { length: 4 }, files: [] } as unknown as LoadedSession;
    expect(listedSessions(native, '')).toEqual({ sessions: [{ id: 's-1', messages: 4 }], omitted: 0 });
    expect(sessionNotHeld(native, 's-1')).toBeUndefined();
    expect(sessionNotHeld(native, '')).toBeUndefined();
    expect(sessionNotHeld(native, 's-2')).toContain('its sessions are s-1');
  });

  it('names at most 20 ids in its error, and says how many more there are', () => {
    const message = sessionNotHeld(holding(50), 'nope') ?? '';
    expect(message).toContain('agent-19');
    expect(message).not.toContain('agent-20,');
    expect(message).toContain('and 30 more');
  });
});
