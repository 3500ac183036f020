import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ChatMessage, ParsedParams, Reduction, SessionInfo } from '../../shared/index';
import { MAX_SLICE_BYTES, ROW_TEXT_MAX_BYTES, methods, utf8Length } from '../../shared/index';
import { assistant, makeReduction, tool, user } from '../../shared/testing/builders';
import { makeHeader, makeSnapshot, messageRecord, reductionRecord, tempDir, writeSidecar, writeSnapshot, SPEC9_EXPAND_R1_31_41 } from '../testing/files';
import { loadSession } from '../loader/session';
import type { LoadProgressPayload } from './handlers/open';
import { cutToBytes } from './handlers/rows';
import { SessionService } from './service';

const DEMO = join(import.meta.dirname, '../../samples/demo.sidecar.jsonl');
const demoPolicy = (JSON.parse(readFileSync(DEMO, 'utf8').split('\n')[0] as string) as { policy: unknown }).policy;

const tmp = tempDir('session-inspector-service-');
afterAll(() => tmp.cleanup());

const services: SessionService[] = [];
afterEach(() => {
  for (const s of services.splice(0)) s.close();
});

function service(): SessionService {
  const s = new SessionService();
  services.push(s);
  return s;
}

/** A service with `paths` open; fails the test when the open does. */
async function opened(paths: string[], generation = 1): Promise<SessionService> {
  const s = service();
  const reply = await s.open({ paths, generation });
  if (!reply.ok) throw new Error(`open failed: ${reply.error.code}: ${reply.error.message}`);
  return s;
}

/** The value of an ok reply; fails the test with the error otherwise. */
function value<T>(reply: { ok: true; value: T } | { ok: false; error: { code: string; message: string } }): T {
  if (!reply.ok) throw new Error(`expected ok, got ${reply.error.code}: ${reply.error.message}`);
  return reply.value;
}

/** Params as the contract parses them (defaults filled in). */
function params<M extends keyof typeof methods>(method: M, raw: unknown): ParsedParams<M> {
  return methods[method].params.parse(raw) as ParsedParams<M>;
}

let fileCount = 0;
function sidecar(view: ChatMessage[], log: Reduction[], header = makeHeader()): string {
  return writeSidecar(tmp.path(`s${++fileCount}.sidecar.jsonl`), [header, ...view.map((m, i) => messageRecord(i, m)), ...log.map(reductionRecord)]);
}

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
      // Issue 14: an open session is followed unless asked otherwise.
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
  // Issue 15: 21 rows of tool calls were a 96.8 MB `rows` reply. 8 MB of arguments each, with a
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
    // The reply is §9's outcome plus what the model saw of it (part C): r1 kept 15 bytes of 67.
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

describe('SessionService.verify', () => {
  const view = [user('u0'), assistant('a1', 'c1'), tool('same output', 'c1'), assistant('a3', 'c2'), tool('same output', 'c2'), assistant('a5', 'c3'), tool('PASS a\nFAIL b\n', 'c3')];
  const log = [
    makeReduction(view, { id: 'rdup', kind: 'duplicate_output', index: 4, canonical: 2 }),
    makeReduction(view, { id: 'rtrunc', kind: 'tool_output_truncated', index: 6, kept_bytes: 7 }),
    makeReduction(view, { id: 'rbad', kind: 'tool_output_elided', index: 2 }, { ptr: { index: 2, hash: `sha256:${'0'.repeat(64)}`, bytes: 11 } }),
    makeReduction(view, { id: 'rfar', kind: 'tool_output_elided', index: 2 }, { ptr: { index: 99, hash: `sha256:${'0'.repeat(64)}`, bytes: 11 } }),
  ];

  it('answers verified with source and sizes, or the error code as status with its message', async () => {
    const s = await opened([sidecar(view, log)]);
    const { statuses } = value(s.handle('verify', { ids: ['rtrunc', 'rbad', 'rfar', 'nope', 'rdup'] }));
    expect(statuses[0]).toEqual({ id: 'rtrunc', status: 'verified', source: 'minted', total_bytes: 14, hidden_bytes: 7, provenance: 'recorded', hash_origin: 'recorded' });
    expect(statuses[1]).toMatchObject({ id: 'rbad', status: 'hash_mismatch', message: expect.stringContaining(`sha256:${'0'.repeat(64)}`) as unknown });
    expect(statuses[2]).toMatchObject({ id: 'rfar', status: 'address_out_of_range', message: expect.stringContaining('99') as unknown });
    expect(statuses[3]).toMatchObject({ id: 'nope', status: 'unknown_reduction', message: expect.stringContaining('"nope"') as unknown });
    // rbad addresses the canonical too, so the duplicate's canonical is not fully visible: all hidden.
    expect(statuses[4]).toEqual({ id: 'rdup', status: 'verified', source: 'minted', total_bytes: 11, hidden_bytes: 11, provenance: 'recorded', hash_origin: 'recorded', canonical: { index: 2, visible: false } });
  });

  it('§10.1: an original not in the file is original_unavailable with its stated size; provenance and hash_origin are reported', async () => {
    const more = [
      ...log.slice(0, 2),
      makeReduction(view, { id: 'rgone', kind: 'tool_output_truncated', index: 2, kept_bytes: 4, unavailable: true }, { provenance: 'derived', origin: { line: 3 } }),
      makeReduction(view, { id: 'rsum', kind: 'summarized', index: 0, end: 2 }, { provenance: 'recorded', hash_origin: 'import', origin: { event: 'c-1' } }),
    ];
    const s = await opened([sidecar(view, more)]);
    const { statuses } = value(s.handle('verify', { ids: ['rgone', 'rsum'] }));
    // 11 bytes stated, 4 kept: 7 hidden; no hash, so no hash_origin.
    expect(statuses[0]).toEqual({ id: 'rgone', status: 'original_unavailable', hidden_bytes: 7, provenance: 'derived', message: expect.stringContaining('11 bytes') as unknown });
    expect(statuses[1]).toMatchObject({ id: 'rsum', status: 'verified', source: 'minted', provenance: 'recorded', hash_origin: 'import' });
  });

  it('rows of a compaction: the first run shows the summary, the other names it; both carry their chip', async () => {
    const runs = [
      makeReduction(view, { id: 's1', kind: 'summarized', index: 0, end: 2, group: 'g', summary: 'what happened' }),
      makeReduction(view, { id: 's2', kind: 'summarized', index: 3, end: 5, group: 'g', summary: '' }),
    ];
    const s = await opened([sidecar(view, runs)]);
    const { rows } = value(s.handle('rows', params('rows', { start: 0, end: 10 })));
    expect(rows.map((r) => [r.index, r.end, r.text, r.applied ?? null, r.compaction?.summary ?? null])).toEqual([
      [0, 2, 'what happened', 's1', 's1'],
      [2, 3, 'same output', null, null],
      [3, 5, '', 's2', 's1'],
      [5, 6, 'a5', null, null],
      [6, 7, 'PASS a\nFAIL b\n', null, null],
    ]);
  });

  it('a duplicate whose canonical is visible hides nothing', async () => {
    const s = await opened([sidecar(view, [log[0] as Reduction])]);
    expect(value(s.handle('verify', { ids: ['rdup'] })).statuses).toEqual([{ id: 'rdup', status: 'verified', source: 'minted', total_bytes: 11, hidden_bytes: 0, provenance: 'recorded', hash_origin: 'recorded', canonical: { index: 2, visible: true } }]);
  });
});

describe('SessionService.log, search and check', () => {
  it('gives each log entry its sidecar line', async () => {
    const s = await opened([DEMO]);
    const { entries } = value(s.handle('log', {}));
    expect(entries).toHaveLength(1);
    expect(entries[0]?.line).toBe(7);
    expect(entries[0]?.reduction.id).toBe('r1');
  });

  it("a snapshot's log has no lines", async () => {
    const view = [user('u'), assistant('a', 'c1'), tool('output', 'c1')];
    const r = makeReduction(view, { id: 'rs', kind: 'tool_output_elided', index: 2 });
    const s = await opened([writeSnapshot(tmp.path('logged.session.json'), makeSnapshot(view, [r]))]);
    expect(value(s.handle('log', {})).entries).toEqual([{ reduction: r, stated_hidden_bytes: 6 }]);
  });

  it('searches hidden content, and a raised signal answers cancelled', async () => {
    const s = await opened([DEMO]);
    const found = value(s.searchAtOnce(params('search', { searchId: 's1', query: 'FAIL' })));
    expect(found).toMatchObject({ total_matches: 1, hidden_bytes_searched: 52, matches: [{ reduction_id: 'r1', offset: 15, length: 4 }] });
    expect(value(s.searchAtOnce(params('search', { searchId: 's2', query: 'pass', case_sensitive: false }))).matches.map((m) => m.offset)).toEqual([52]);
    expect(s.searchAtOnce(params('search', { searchId: 's3', query: 'FAIL' }), { signal: { aborted: true } })).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    expect(s.searchAtOnce(params('search', { searchId: 's4', query: '(', mode: 'regex' }))).toMatchObject({ ok: false, error: { code: 'invalid_query' } });
    expect(await s.handle('search', params('search', { searchId: 's5', query: 'FAIL' }))).toMatchObject({ ok: true, value: { total_matches: 1 } });
  });

  it('checks the session', async () => {
    const s = await opened([DEMO]);
    expect(value(s.handle('check', {}))).toMatchObject({ findings: [], summary: { session_id: 's-demo', errors: 0, warnings: 0, reductions: 1 } });
  });

  it('turns an unexpected exception into internal_error', async () => {
    const s = await opened([DEMO]);
    const current = (s as unknown as { state: { current: { session: { check(): unknown } } } }).state.current;
    current.session.check = () => {
      throw new Error('boom');
    };
    expect(s.handle('check', {})).toEqual({ ok: false, error: { code: 'internal_error', message: expect.stringContaining('boom') as unknown } });
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

describe('SessionService: the model the renderer receives (issue 12, part C)', () => {
  const SAMPLE = join(import.meta.dirname, '../../samples/session.sidecar.jsonl');

  it("each row with a stub says where it stands in the row's text, in bytes, and the hidden bytes the stub states", async () => {
    const s = await opened([DEMO]);
    const { rows } = value(s.handle('rows', params('rows', { start: 0, end: 10 })));
    const r1 = rows.find((r) => r.applied === 'r1');
    if (!r1?.stub) throw new Error('expected the row of r1 with its stub');
    const bytes = new TextEncoder().encode(r1.text);
    expect(new TextDecoder().decode(bytes.subarray(0, r1.stub.start))).toBe('PASS a.test.ts\n');
    expect(new TextDecoder().decode(bytes.subarray(r1.stub.start, r1.stub.end))).toMatch(/^⟦reduced⟧ id=r1 /);
    expect(r1.stub).toMatchObject({ id: 'r1', end: bytes.length, hidden_bytes: 52 });
    expect(rows.filter((r) => r.applied === undefined).every((r) => r.stub === undefined)).toBe(true);
  });

  it("a cleared range's expand lists its messages; each content sits at its boundaries in the transcript", async () => {
    const s = await opened([SAMPLE]);
    const out = value(s.handle('expand', { id: 'r10' }));
    expect(out.hidden).toEqual([[0, out.total_bytes]]);
    const messages = out.messages ?? [];
    expect(messages.map((m) => m.index)).toEqual([8, 9, 10, 11, 12, 13, 14, 15, 16]);
    expect(messages[0]?.start).toBe(0);
    expect(messages.at(-1)?.end).toBe(out.total_bytes);
    const bytes = new TextEncoder().encode(out.content);
    for (const m of messages) {
      expect(new TextDecoder().decode(bytes.subarray(m.start, m.content_start))).toBe(`⟨${m.role}${m.tool_call_id !== undefined ? ` ${m.tool_call_id}` : ''}⟩\n`);
    }
  });

  it("a search match inside a cleared range carries its offset in the range's transcript", async () => {
    const s = await opened([SAMPLE]);
    const found = value(s.searchAtOnce(params('search', { searchId: 's', query: 'e' })));
    const ranged = found.matches.filter((m) => m.kind === 'turns_cleared');
    expect(ranged.length).toBeGreaterThan(0);
    for (const m of ranged.slice(0, 50)) {
      expect(m.transcript_offset).toBeDefined();
      const out = value(s.handle('expand', { id: m.reduction_id, range: [m.transcript_offset!, m.transcript_offset! + m.length] }));
      expect(new TextEncoder().encode(out.content)).toEqual(new TextEncoder().encode(m.snippet).subarray(m.snippet_match[0], m.snippet_match[1]));
    }
    expect(found.matches.filter((m) => m.kind !== 'turns_cleared' && m.kind !== 'summarized').every((m) => m.transcript_offset === undefined)).toBe(true);
  });

  it("a duplicate's status names its canonical and whether the model could still see it", async () => {
    const s = await opened([SAMPLE]);
    const { statuses } = value(s.handle('verify', { ids: ['r8', 'r9', 'r1'] }));
    expect(statuses[0]?.canonical).toEqual({ index: 15, visible: false });
    expect(statuses[0]?.hidden_bytes).toBeGreaterThan(0);
    expect(statuses[1]?.canonical?.index).toBe(19);
    expect(statuses[2]?.canonical).toBeUndefined();
  });
});

describe('SessionService.searchPageInSlices (issue 13: every match, a page at a time)', () => {
  /** A session whose hidden content holds `n` matches of `word`, over several elided outputs, and one visible occurrence. */
  function paged(n: number): string {
    const view: ChatMessage[] = [user(`find the needle`)];
    const log: Reduction[] = [];
    for (let left = n, k = 1; left > 0; k++) {
      const here = Math.min(left, 1 + (k % 7));
      left -= here;
      view.push(assistant('look', `c${k}`), tool(Array.from({ length: here }, (_, j) => `line ${j}: needle`).join('\n'), `c${k}`));
      log.push(makeReduction(view, { id: `r${k}`, kind: 'tool_output_elided', index: view.length - 1 }));
    }
    return sidecar(view, log);
  }

  it('pages through all 115 hidden matches exactly once, in order, each page counting 115', async () => {
    const s = await opened([paged(115)]);
    const seen: string[] = [];
    for (let page = 0; page < 3; page++) {
      const p = value(await s.handle('searchPage', params('searchPage', { searchId: `p${page}`, query: 'needle', page })));
      expect(p).toMatchObject({ scope: 'hidden', total_matches: 115, pageable: 115, first: page * 50, page_size: 50 });
      expect(p.matches).toHaveLength(page < 2 ? 50 : 15);
      seen.push(...p.matches.map((m) => `${m.index}:${m.offset}`));
    }
    expect(new Set(seen).size).toBe(115);
    const agent = value(s.searchAtOnce(params('search', { searchId: 'a', query: 'needle', max_matches: 1000, max_result_bytes: 1_000_000 })));
    expect(seen).toEqual(agent.matches.map((m) => `${m.index}:${m.offset}`));
  });

  it('scope "view" searches what the model saw: the visible row and the stubs, not the hidden bytes', async () => {
    const s = await opened([paged(115)]);
    const p = value(await s.handle('searchPage', params('searchPage', { searchId: 'v', query: 'needle', page: 0, scope: 'view' })));
    expect(p).toMatchObject({ scope: 'view', total_matches: 1, matches: [] });
    expect(p.view_matches).toMatchObject([{ row: 0, index: 0, offset: 9, length: 6 }]);
    const stubs = value(await s.handle('searchPage', params('searchPage', { searchId: 'w', query: 'expand_reduction', page: 0, scope: 'view', page_size: 5 })));
    expect(stubs.total_matches).toBe(stubs.pageable);
    expect(stubs.view_matches).toHaveLength(5);
  });

  it('answers cancelled when its signal is raised, and invalid_query for a bad pattern', async () => {
    const s = await opened([paged(20)]);
    expect(await s.handle('searchPage', params('searchPage', { searchId: 'c', query: 'needle', page: 0 }), { signal: { aborted: true } })).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    expect(await s.handle('searchPage', params('searchPage', { searchId: 'b', query: 'a(', mode: 'regex', page: 0 }))).toMatchObject({ ok: false, error: { code: 'invalid_query' } });
    expect(await s.handle('searchPage', params('searchPage', { searchId: 'b', query: 'a(', mode: 'regex', page: 0, scope: 'view' }))).toMatchObject({ ok: false, error: { code: 'invalid_query' } });
  });
});
