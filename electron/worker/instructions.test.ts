/**
 * The worker's `instructions` reply: bounded like rows (each text cut to ROW_TEXT_MAX_BYTES on a
 * character boundary with its whole length, at most MAX_INSTRUCTIONS_PER_REQUEST entries, paged
 * by `start`), valid under the contract, and `invalid_request` for a call that is none.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MAX_INSTRUCTIONS_PER_REQUEST, ROW_TEXT_MAX_BYTES, parseReply, utf8Length } from '../../shared/index';
import { SessionBuilder } from '../loader/claudeCode/testing/build';
import { tempDir } from '../../tools/testing/files';
import { SessionService } from './service';

const tmp = tempDir('session-inspector-instructions-');
afterAll(() => tmp.cleanup());
const services: SessionService[] = [];
afterEach(() => {
  for (const s of services.splice(0)) s.close();
});

async function opened(path: string): Promise<SessionService> {
  const s = new SessionService();
  services.push(s);
  const reply = await s.open({ paths: [path], generation: 1 });
  if (!reply.ok) throw new Error(`open failed: ${reply.error.code}: ${reply.error.message}`);
  return s;
}

const T = '2026-01-01T00:00:00.000Z';
const line = (type: string, payload: unknown) => JSON.stringify({ timestamp: T, type, payload });

describe('instructions reply', () => {
  it('a Codex base prompt of 300 KB of 3-byte characters crosses cut to ROW_TEXT_MAX_BYTES, on a character boundary, with its whole length', async () => {
    const base = '指'.repeat(100_000);
    const path = tmp.path('huge-base.jsonl');
    writeFileSync(
      path,
      [
        line('session_meta', { id: 's', base_instructions: { text: base } }),
        line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }),
        line('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hello' }] }),
      ].join('\n') + '\n',
    );
    const s = await opened(path);
    for (const call of [undefined, 1]) {
      const reply = s.handle('instructions', call === undefined ? {} : { call });
      expect(parseReply('instructions', reply).ok).toBe(true);
      if (!reply.ok) throw new Error(reply.error.message);
      const [only] = reply.value.instructions;
      expect(reply.value.total).toBe(1);
      expect(only).toMatchObject({ source: 'codex_base_instructions', placement: 'instructions', index: 0, line: 1, text_bytes: 300_000 });
      expect(utf8Length(only!.text)).toBeLessThanOrEqual(ROW_TEXT_MAX_BYTES);
      expect(utf8Length(only!.text)).toBeGreaterThan(ROW_TEXT_MAX_BYTES - 3);
      expect(base.startsWith(only!.text)).toBe(true);
    }
    expect(s.handle('instructions', { call: 2 })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });

  it('more attachments than one reply holds are paged by start; total counts them all', async () => {
    const b = new SessionBuilder();
    b.user('prompt', null);
    const n = MAX_INSTRUCTIONS_PER_REQUEST + 30;
    for (let k = 0; k < n; k++) b.add({ type: 'attachment', attachment: { type: 'date_change', newDate: `day ${k}` } });
    b.assistant('msg_1', [{ type: 'text', text: 'ok' }]);
    const path = tmp.path('many.jsonl');
    writeFileSync(path, b.text());
    const s = await opened(path);
    const first = s.handle('instructions', { call: 1 });
    const rest = s.handle('instructions', { call: 1, start: MAX_INSTRUCTIONS_PER_REQUEST });
    if (!first.ok || !rest.ok) throw new Error('expected ok');
    expect(first.value.total).toBe(n);
    expect(first.value.instructions).toHaveLength(MAX_INSTRUCTIONS_PER_REQUEST);
    expect(rest.value.instructions).toHaveLength(30);
    const days = [...first.value.instructions, ...rest.value.instructions].map((i) => (JSON.parse(i.text) as { newDate: string }).newDate);
    expect(days).toEqual(Array.from({ length: n }, (_, k) => `day ${k}`));
    expect(parseReply('instructions', first).ok).toBe(true);
  });
});
