/** The row requests over an open session: `rows`, `rowOfIndex`, `rowText` and `expand`'s slices (handlers/rows.ts, handlers/expand.ts). */
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { ChatMessage } from '../../shared/index';
import { MAX_SLICE_BYTES, ROW_TEXT_MAX_BYTES, methods, utf8Length } from '../../shared/index';
import { assistant, makeReduction, tool, user } from '../../shared/testing/builders';
import { SPEC9_EXPAND_R1_31_41 } from '../../tools/testing/files';
import type { SessionService } from './service';
import { cutToBytes } from './handlers/rows';
import { params, serviceFixture, value } from './testing/serviceTests';

const DEMO = join(import.meta.dirname, '../../samples/demo.sidecar.jsonl');

const { opened, sidecar } = serviceFixture('session-inspector-rows-');

describe('SessionService.rows', () => {
  // '€' is 3 bytes: 65536 falls inside one. '😀' is a surrogate pair of 4 bytes: after the leading
  // 'a', 65536 falls inside one too.
  const euro = '€'.repeat(30_000);
  const emoji = 'a' + '😀'.repeat(20_000);
  const view = [user('first'), user(euro), assistant(emoji), user('last')];

  it('serves windows of the projected view and clamps them to the row count', async () => {
    const s = await opened([sidecar(view, [])]);
    const middle = value(s.handle('rows', params('rows', { start: 1, end: 3 })));
    expect(middle.rowCount).toBe(4);
    expect(middle.rows.map((r) => [r.row, r.index, r.end, r.role])).toEqual([
      [1, 1, 2, 'user'],
      [2, 2, 3, 'assistant'],
    ]);
    expect(value(s.handle('rows', params('rows', { start: 3, end: 500 }))).rows.map((r) => r.text)).toEqual(['last']);
    expect(value(s.handle('rows', params('rows', { start: 10, end: 20 })))).toEqual({ rowCount: 4, rows: [] });
    expect(value(s.handle('rows', params('rows', { start: 0, end: 1 }))).rows[0]).toMatchObject({ text: 'first', text_bytes: 5 });
  });

  it('cuts a long row to ROW_TEXT_MAX_BYTES on a character boundary and says how long it is', async () => {
    const s = await opened([sidecar(view, [])]);
    const [euroRow, emojiRow] = value(s.handle('rows', params('rows', { start: 1, end: 3 }))).rows;
    expect(euroRow?.text_bytes).toBe(90_000);
    expect(utf8Length(euroRow?.text ?? '')).toBe(65_535);
    expect(euroRow?.text).toBe('€'.repeat(21_845));
    expect(emojiRow?.text_bytes).toBe(80_001);
    expect(utf8Length(emojiRow?.text ?? '')).toBe(65_533);
    expect(emojiRow?.text).toBe('a' + '😀'.repeat(16_383));
  });

  it('cutToBytes keeps short text whole and never splits a character', () => {
    expect(cutToBytes('héllo', 100)).toEqual({ text: 'héllo', bytes: 6 });
    expect(cutToBytes('héllo', 2)).toEqual({ text: 'h', bytes: 6 });
    expect(cutToBytes('h😀', 4)).toEqual({ text: 'h', bytes: 5 });
    expect(cutToBytes('h😀', 5)).toEqual({ text: 'h😀', bytes: 5 });
    expect(ROW_TEXT_MAX_BYTES).toBe(65_536);
  });
});

describe('SessionService.rows: tool-call arguments', () => {
  // Unbounded, 21 rows of tool calls were a 96.8 MB `rows` reply. 8 MB of arguments each, with a
  // multi-byte character at every cut a bound might make.
  const ARGS_BYTES = 8 * 1024 * 1024;
  const argumentsOf = (k: number): string => JSON.stringify({ call: k, data: `é${'x'.repeat(ARGS_BYTES - 40)}€` });
  const call = (k: number) => ({ id: `call_${k}`, name: 'write_file', arguments: argumentsOf(k) });
  // Ten calls: five messages of one call each, and one message of five calls.
  const view: ChatMessage[] = [
    user('write the files'),
    ...Array.from({ length: 5 }, (_, k): ChatMessage => ({ role: 'assistant', content: '', tool_calls: [call(k)] })),
    { role: 'assistant', content: 'and again', tool_calls: Array.from({ length: 5 }, (_, k) => call(5 + k)) },
  ];
  let path = '';
  const session = async (): Promise<SessionService> => opened([(path ||= sidecar(view, []))]);

  it('bounds a rows reply like row text: each row carries at most ROW_TEXT_MAX_BYTES of arguments, with their full size', async () => {
    const s = await session();
    const reply = value(s.handle('rows', params('rows', { start: 0, end: 7 })));
    expect(reply.rows).toHaveLength(7);
    const serialized = utf8Length(JSON.stringify(reply));
    // 7 rows of at most 64 KiB of arguments each, and a little JSON around them (it was 84 MB).
    expect(serialized).toBeLessThan(7 * ROW_TEXT_MAX_BYTES + 64 * 1024);
    for (const row of reply.rows.slice(1)) {
      const calls = row.tool_calls ?? [];
      expect(calls.reduce((n, c) => n + utf8Length(c.arguments), 0)).toBeLessThanOrEqual(ROW_TEXT_MAX_BYTES);
      for (const c of calls) {
        const whole = argumentsOf(Number(c.id.slice('call_'.length)));
        expect(c.arguments_bytes).toBe(utf8Length(whole));
        expect(whole.startsWith(c.arguments)).toBe(true);
        expect(utf8Length(c.arguments)).toBeGreaterThan(0);
      }
    }
    // The contract accepts what the worker sends.
    expect(methods.rows.result.safeParse(reply).success).toBe(true);
    // 84 MB of arguments are written, indexed and cut: seconds here, longer on a loaded machine.
  }, 120_000);

  it('a page of rows reads and parses each of its messages once, more than the message cache holds', async () => {
    const s = await session();
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const reply = value(s.handle('rows', params('rows', { start: 0, end: 7 })));
      expect(reply.rows).toHaveLength(7);
      // Six records of 8 MB or more (five of one call, one of five): 80 MB, over the 64 MiB cache.
      const records = parse.mock.calls.filter(([text]) => typeof text === 'string' && text.length > ARGS_BYTES);
      expect(records).toHaveLength(6);
    } finally {
      parse.mockRestore();
    }
  });

  it('rowText pages through the whole arguments of one tool call', async () => {
    const s = await session();
    const whole = argumentsOf(8);
    let text = '';
    let at = 0;
    for (;;) {
      const page = value(s.handle('rowText', { row: 6, tool_call: 3, range: [at, at + MAX_SLICE_BYTES] }));
      expect(page.total_bytes).toBe(utf8Length(whole));
      expect(page.range[0]).toBe(at);
      text += page.text;
      at = page.range[1];
      if (at >= page.total_bytes) break;
    }
    expect(text).toBe(whole);
    expect(s.handle('rowText', { row: 6, tool_call: 5, range: [0, 1] })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(s.handle('rowText', { row: 0, tool_call: 0, range: [0, 1] })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });
});

describe('SessionService.rowOfIndex and a cleared range', () => {
  const view = [user('u0'), assistant('a1', 'c1'), tool('t2', 'c1'), assistant('a3'), user('u4'), assistant('a5')];
  const cleared = makeReduction(view, { id: 'rc', kind: 'turns_cleared', index: 1, end: 4 });

  it('maps every index of a cleared range to its one stub row', async () => {
    const s = await opened([sidecar(view, [cleared])]);
    expect(s.info?.rows).toBe(4);
    expect([0, 1, 2, 3, 4, 5, 6].map((index) => value(s.handle('rowOfIndex', { index })).row)).toEqual([0, 1, 1, 1, 2, 3, -1]);
    const [row] = value(s.handle('rows', params('rows', { start: 1, end: 2 }))).rows;
    expect(row).toMatchObject({ row: 1, index: 1, end: 4, text: cleared.stub, applied: 'rc', reductions: [{ id: 'rc', kind: 'turns_cleared' }] });
    expect(row?.role).toBeUndefined();
  });
});

describe('SessionService.rowText and expand: slices', () => {
  const bigText = 'abcdefghij'.repeat(500_000); // 5 MB, more than MAX_SLICE_BYTES
  const view = [user(bigText), assistant('run', 'c1'), tool(bigText, 'c1'), user('€uro')];
  const big = makeReduction(view, { id: 'rbig', kind: 'tool_output_elided', index: 2 });

  it('expand clamps a range longer than MAX_SLICE_BYTES, and without a range answers the first MAX_SLICE_BYTES', async () => {
    const s = await opened([sidecar(view, [big])]);
    const whole = value(s.handle('expand', { id: 'rbig' }));
    expect(whole.range).toEqual([0, MAX_SLICE_BYTES]);
    expect(whole.total_bytes).toBe(5_000_000);
    expect(whole.content).toBe(bigText.slice(0, MAX_SLICE_BYTES));
    const long = value(s.handle('expand', { id: 'rbig', range: [10, 10 + MAX_SLICE_BYTES + 100] }));
    expect(long.range).toEqual([10, 10 + MAX_SLICE_BYTES]);
    const tail = value(s.handle('expand', { id: 'rbig', range: [4_999_990, 6_000_000] }));
    expect(tail).toMatchObject({ range: [4_999_990, 5_000_000], content: 'abcdefghij' });
    expect(s.handle('expand', { id: 'rbig', range: [5_000_001, 5_000_002] })).toMatchObject({ ok: false, error: { code: 'invalid_byte_range', message: expect.stringContaining('5000000') as unknown } });
    expect(s.handle('expand', { id: 'nope' })).toMatchObject({ ok: false, error: { code: 'unknown_reduction' } });
  });

  it('expand floors both ends to character boundaries (SPEC §9)', async () => {
    const s = await opened([DEMO]);
    // The reply is §9's outcome plus what the model saw of it (its hidden span): r1 kept 15 bytes of 67.
    expect(value(s.handle('expand', { id: 'r1', range: [31, 41] }))).toEqual({ ...SPEC9_EXPAND_R1_31_41, hidden: [[15, 67]] });
    expect(value(s.handle('expand', { id: 'r1' })).range).toEqual([0, 67]);
    const bad = s.handle('expand', { id: 'r1', range: [68, 70] });
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_byte_range' } });
    // The contract's error carries only code and message.
    expect(Object.keys(bad.ok ? {} : bad.error)).toEqual(['code', 'message']);
  });

  it('rowText pages through a row, floored to characters, clamped to MAX_SLICE_BYTES', async () => {
    const s = await opened([sidecar(view, [big])]);
    expect(value(s.handle('rowText', { row: 0, range: [0, 10] }))).toEqual({ text: 'abcdefghij', range: [0, 10], total_bytes: 5_000_000 });
    expect(value(s.handle('rowText', { row: 0, range: [0, 6_000_000] })).range).toEqual([0, MAX_SLICE_BYTES]);
    expect(value(s.handle('rowText', { row: 0, range: [4_999_995, 6_000_000] }))).toMatchObject({ text: 'fghij', range: [4_999_995, 5_000_000] });
    // Row 3 is '€uro': the euro sign covers bytes [0, 3).
    expect(value(s.handle('rowText', { row: 3, range: [1, 3] }))).toEqual({ text: '€', range: [0, 3], total_bytes: 6 });
    expect(value(s.handle('rowText', { row: 3, range: [2, 5] }))).toEqual({ text: '€ur', range: [0, 5], total_bytes: 6 });
    expect(value(s.handle('rowText', { row: 3, range: [0, 2] }))).toEqual({ text: '', range: [0, 0], total_bytes: 6 });
    // The stub row shows only the stub.
    expect(value(s.handle('rowText', { row: 2, range: [0, 1000] })).text).toBe(big.stub);
    expect(s.handle('rowText', { row: 3, range: [7, 9] })).toMatchObject({ ok: false, error: { code: 'invalid_byte_range', message: expect.stringContaining('total_bytes is 6') as unknown } });
    expect(s.handle('rowText', { row: 4, range: [0, 1] })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });

  it('rowText ranges of ROW_TEXT_MAX_BYTES tile a multi-byte row exactly', async () => {
    const text = 'x€😀'.repeat(40_000);
    const s = await opened([sidecar([user(text)], [])]);
    const [row] = value(s.handle('rows', params('rows', { start: 0, end: 1 }))).rows;
    let out = '';
    let start = 0;
    while (start < (row?.text_bytes ?? 0)) {
      const page = value(s.handle('rowText', { row: 0, range: [start, start + ROW_TEXT_MAX_BYTES] }));
      expect(page.range[0]).toBe(start);
      out += page.text;
      start = page.range[1];
    }
    expect(out).toBe(text);
  });
});
