import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TITLE_MAX_CHARS, headInfo, oneLine, promptTitle } from './head';

const lines = (...records: unknown[]) => Buffer.from(`${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
const user = (content: unknown, extra: Record<string, unknown> = {}) => ({ type: 'user', sessionId: 's1', cwd: '/w', timestamp: '2026-01-01T00:00:00Z', message: { role: 'user', content }, ...extra });

describe('a Claude Code head', () => {
  it("takes the agent's own title over the first prompt: custom-title, then ai-title, then summary", () => {
    const prompt = user('fix the build');
    const head = (...extra: unknown[]) => {
      const b = lines(prompt, ...extra);
      return headInfo('claude-code', 'x.jsonl', b.length, b).title;
    };
    expect(head()).toBe('fix the build');
    expect(head({ type: 'summary', summary: 'S' })).toBe('S');
    expect(head({ type: 'summary', summary: 'S' }, { type: 'ai-title', aiTitle: 'A' })).toBe('A');
    expect(head({ type: 'custom-title', customTitle: 'C' }, { type: 'ai-title', aiTitle: 'A' }, { type: 'summary', summary: 'S' })).toBe('C');
  });

  it('skips command wrappers, meta records, compact summaries and tool results for the first prompt', () => {
    const b = lines(user('<command-message>init</command-message>'), user('meta', { isMeta: true }), user('summary of before', { isCompactSummary: true }), user([{ type: 'tool_result', content: 'out' }]), user([{ type: 'text', text: 'the real\nprompt' }]));
    expect(headInfo('claude-code', 'x.jsonl', b.length, b).title).toBe('the real prompt');
  });

  it('reads a title appended late from the tail, and the last time from it', () => {
    const head = lines(user('first'));
    const tail = Buffer.concat([Buffer.from('cut line}\n'), lines({ type: 'custom-title', customTitle: 'Renamed', timestamp: '2026-02-01T00:00:00Z' })]);
    const info = headInfo('claude-code', 'x.jsonl', 10 * 1024 * 1024, head, tail);
    expect(info).toMatchObject({ title: 'Renamed', started: '2026-01-01T00:00:00.000Z', updated: '2026-02-01T00:00:00.000Z', project: '/w', id: 's1' });
  });

  it('starts at the earliest time of its records and was updated at the latest, whatever their order and spelling', () => {
    // A time is an ISO string, milliseconds, or seconds (a number below 1e12); some records carry none or a bad one.
    const when = fc.integer({ min: Date.UTC(1971, 0, 1), max: Date.UTC(9999, 11, 31) });
    const spelled = fc.tuple(when, fc.constantFrom('iso', 'ms', 's', 'offset')).map(([ms, how]) => {
      // Milliseconds below 1e12 would be read as seconds (before 2001-09-09): those are spelled in seconds.
      if (how === 'ms' && ms >= 1e12) return { ms, value: ms };
      if (how === 's' || how === 'ms') return { ms: Math.floor(ms / 1000) * 1000, value: Math.floor(ms / 1000) };
      // An ISO time with an offset: the same instant as UTC.
      if (how === 'offset') return { ms, value: new Date(ms + 2 * 3600_000).toISOString().replace('Z', '+02:00') };
      return { ms, value: new Date(ms).toISOString() };
    });
    const stamp = fc.oneof(spelled, fc.constantFrom({ ms: undefined, value: 'not a time' }, { ms: undefined, value: undefined }));
    fc.assert(
      fc.property(fc.array(stamp, { maxLength: 12 }), (stamps) => {
        const b = lines(...stamps.map((s) => user('p', { timestamp: s.value })));
        const info = headInfo('claude-code', 'x.jsonl', b.length, b);
        const times = stamps.flatMap((s) => (s.ms === undefined ? [] : [s.ms]));
        const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());
        expect(info.started).toBe(iso(times.length > 0 ? Math.min(...times) : undefined));
        expect(info.updated).toBe(iso(times.length > 0 ? Math.max(...times) : undefined));
      }),
      { numRuns: 300 },
    );
  });
});

describe('titles', () => {
  it("leave out Codex's tags around an attached image, and only those", () => {
    expect(promptTitle('add this image <image name=[Image #1]>\n</image> to the README')).toBe('add this image to the README');
    expect(promptTitle('## My request for Codex:\nfix it <image name=[Image #2]></image>')).toBe('fix it');
    // Text that only looks like a tag, as a user may type it, is kept.
    expect(promptTitle('render <image> and <image name=x> here')).toBe('render <image> and <image name=x> here');
  });

  it('are one line of at most 120 characters', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), (text) => {
        const t = oneLine(text);
        if (t === null) return;
        expect(t).not.toMatch(/[\n\r\t]/);
        expect(Array.from(t).length).toBeLessThanOrEqual(TITLE_MAX_CHARS);
      }),
    );
  });

  it('are the text’s white space runs made one space, trimmed, cut to 119 characters and `…` when longer (any text, any length)', () => {
    const model = (text: string): string | null => {
      const line = text.replace(/\s+/g, ' ').trim();
      if (line === '') return null;
      const chars = Array.from(line);
      return chars.length <= TITLE_MAX_CHARS ? line : `${chars.slice(0, TITLE_MAX_CHARS - 1).join('')}…`;
    };
    const piece = fc.oneof(fc.string({ unit: 'binary', maxLength: 30 }), fc.constantFrom(' ', '\n\t ', '\u00a0', '\u2028', '\ufeff', '\ud83d\ude00', '\ud83d', 'x'.repeat(119), 'y'.repeat(121)));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join('');
        expect(oneLine(text)).toBe(model(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('of a Codex session from the IDE are the request, not the editor context', () => {
    const b = lines({ timestamp: '2026-01-01T00:00:00Z', type: 'session_meta', payload: { id: 'c', cwd: '/w' } }, { timestamp: '2026-01-01T00:00:01Z', type: 'event_msg', payload: { type: 'user_message', message: '# Context from my IDE setup:\n\n## Active file: a.ts\n\n## My request for Codex:\nrename the helper\n' } });
    expect(headInfo('codex-rollout', 'r.jsonl', b.length, b).title).toBe('rename the helper');
  });
});

describe('a native sidecar head', () => {
  const header = { t: 'header', format: 'supercode-sidecar', version: 1, session_id: 's-9', created_at: '2026-03-01T10:00:00Z', model: 'model-a', gate: true, policy: null };
  const message = (i: number, role: string, content: unknown) => ({ t: 'message', i, msg: { role, content } });

  it('is titled by its first user message, not the system prompt, and names the session, its models and when it began', () => {
    const b = lines(header, { t: 'system', msg: { role: 'system', content: 'You are supercode.' } }, message(0, 'user', 'Find the\nfailing test'), message(1, 'assistant', 'On it.'), { t: 'model_change', at: 2, from: 'model-a', to: 'model-b', reasoning_artifacts_filtered: 0 }, message(2, 'user', 'a later prompt'));
    expect(headInfo('supercode-sidecar', 'x.sidecar.jsonl', b.length, b)).toEqual({ id: 's-9', title: 'Find the failing test', project: null, models: ['model-a', 'model-b'], started: '2026-03-01T10:00:00.000Z', updated: null });
  });

  it("leaves `updated` to the file's modification time: the header's time is when the session began", () => {
    const b = lines(header, message(0, 'user', [{ type: 'text', text: 'parts' }, { type: 'text', text: 'too' }]));
    const info = headInfo('supercode-sidecar', 'x.sidecar.jsonl', b.length, b);
    expect(info.title).toBe('parts too');
    expect(info.started).toBe('2026-03-01T10:00:00.000Z');
    expect(info.updated).toBeNull();
  });

  it('of every bundled sample sidecar is its first user message, one line', () => {
    const dir = join(import.meta.dirname, '..', '..', 'samples');
    const sidecars = readdirSync(dir).filter((n) => n.endsWith('.sidecar.jsonl'));
    expect(sidecars.length).toBeGreaterThan(0);
    for (const name of sidecars) {
      const bytes = readFileSync(join(dir, name));
      const first = bytes
        .toString('utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as { t?: string; msg?: { role?: string; content?: unknown } })
        .find((r) => r.t === 'message' && r.msg?.role === 'user');
      expect(typeof first?.msg?.content).toBe('string');
      expect(headInfo('supercode-sidecar', name, bytes.length, bytes).title).toBe(oneLine(first?.msg?.content as string));
    }
  });

  it('is titled by the first message of role user whatever comes before it, and untitled without one (any order of roles)', () => {
    const role = fc.constantFrom('user', 'assistant', 'tool', 'system');
    const word = fc.stringMatching(/^[a-z]{1,12}$/);
    fc.assert(
      fc.property(fc.array(fc.tuple(role, fc.array(word, { minLength: 1, maxLength: 5 })), { maxLength: 8 }), (msgs) => {
        const b = lines(header, ...msgs.map(([r, words], i) => message(i, r, words.join(' '))));
        const firstUser = msgs.find(([r]) => r === 'user');
        expect(headInfo('supercode-sidecar', 'x.sidecar.jsonl', b.length, b).title).toBe(firstUser ? firstUser[1].join(' ') : null);
      }),
      { numRuns: 300 },
    );
  });
});
