import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TITLE_MAX_CHARS, headInfo, oneLine } from './head';

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
});

describe('titles', () => {
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
