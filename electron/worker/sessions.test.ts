/**
 * The sessions an open session's info lists (§10.1): capped, the open one always among them; an id
 * a file does not hold is named in a usage error with the ones it does. (Opening a session through
 * the service: service.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import type { LoadedSession } from '../../shared/index';
import { MAX_LISTED_SESSIONS } from '../../shared/index';
import { sessionNotHeld } from '../loader/heldSessions';
import { MAX_LISTED_TITLE_CHARS, listedSessions } from './sessions';

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

  it('cuts a title past MAX_LISTED_TITLE_CHARS code points (a description from the file can be any length), never inside a pair', () => {
    const long = `${'a'.repeat(MAX_LISTED_TITLE_CHARS - 1)}\u{1F600}${'b'.repeat(10_000)}`;
    const one = { sessions: [{ id: 'main', title: long, messages: 1 }, { id: 'x', title: 'short', messages: 2 }], sessionId: 'main', minted: { length: 1 }, files: [] } as unknown as LoadedSession;
    const [first, second] = listedSessions(one, '').sessions;
    expect(first?.title).toBe(`${'a'.repeat(MAX_LISTED_TITLE_CHARS - 1)}\u{1F600}…`);
    expect(second?.title).toBe('short');
  });

  it('names at most 20 ids in its error, and says how many more there are', () => {
    const message = sessionNotHeld(holding(50), 'nope') ?? '';
    expect(message).toContain('agent-19');
    expect(message).not.toContain('agent-20,');
    expect(message).toContain('and 30 more');
  });
});
