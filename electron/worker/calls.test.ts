/**
 * Model calls: the worker's `calls` (the context map's figures) and the row methods' `call`.
 * Call N's rows and figures are written by hand from small sidecars' records (the §9 demo, a
 * truncation live at one call), or read from what the rows say (a native stub states its
 * hidden_bytes, SPEC §4); no call is the latest view.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ParsedParams, ResultOf } from '../../shared/index';

type AnsweredRow = ResultOf<'rows'>['rows'][number];
import { MAX_ROWS_PER_REQUEST, methods, utf8Length } from '../../shared/index';
import { assistant, makeReduction, tool, user } from '../../shared/testing/builders';
import { rawResponses } from '../loader/codex/testing/responses';
import { loadSession } from '../loader/session';
import { rawClaudeCodeCalls, rawClaudeCodeHiding, rawClaudeCodeUsage, rawCodexHiding, type RawHiding } from '../loader/testing/rawCalls';
import { makeHeader, messageRecord, reductionRecord, tempDir, writeSidecar } from '../../tools/testing/files';
import { SessionService } from './service';
import { openedServices } from './testing/services';

const DEMO = join(import.meta.dirname, '../../samples/demo.sidecar.jsonl');
const SESSION = join(import.meta.dirname, '../../samples/session.sidecar.jsonl');

const tmp = tempDir('session-inspector-calls-');
afterAll(() => tmp.cleanup());

const opened = openedServices();

function value<T>(reply: { ok: true; value: T } | { ok: false; error: { code: string; message: string } }): T {
  if (!reply.ok) throw new Error(`expected ok, got ${reply.error.code}: ${reply.error.message}`);
  return reply.value;
}

/** Every row the worker answers for `call` (null: the latest view), a page at a time. */
function allRows(s: SessionService, call: number | null): AnsweredRow[] {
  const out: AnsweredRow[] = [];
  for (let start = 0; ; start += MAX_ROWS_PER_REQUEST) {
    const page = value(s.handle('rows', params('rows', { start, end: start + MAX_ROWS_PER_REQUEST, call })));
    out.push(...page.rows);
    if (start + MAX_ROWS_PER_REQUEST >= page.rowCount) return out;
  }
}

const params = <M extends keyof typeof methods>(method: M, raw: unknown): ParsedParams<M> => methods[method].params.parse(raw) as ParsedParams<M>;

async function loaded(path: string) {
  const l = await loadSession([path]);
  if (!l.ok) throw new Error(l.error.message);
  return l.session;
}

/** A sidecar of six messages and one truncation (kept 10 of 100 bytes) recorded after message 3: calls at messages 1, 3 and 5, the truncation live at the third. */
function truncatedSidecar(): { path: string; stub: string } {
  const view = [user('go'), assistant('', 'c1'), tool('x'.repeat(100), 'c1'), assistant('one'), user('more'), assistant('two')];
  const r1 = makeReduction(view, { id: 'r1', kind: 'tool_output_truncated', index: 2, kept_bytes: 10 });
  const path = writeSidecar(tmp.path('truncated.sidecar.jsonl'), [makeHeader(), ...view.slice(0, 4).map((m, i) => messageRecord(i, m)), reductionRecord(r1), ...view.slice(4).map((m, i) => messageRecord(i + 4, m))]);
  return { path, stub: r1.stub };
}

describe('SessionService rows of a call', () => {
  it('§9 demo, by hand from its records: call 1 is the user`s message; call 2 adds the tool call and its whole output; the latest view cuts the output to its kept prefix and r1`s stub', async () => {
    const s = await opened(DEMO);
    const records = readFileSync(DEMO, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { t: string; msg?: { content: string }; r?: { stub: string } });
    const [m0, m1, m2, m3] = records.filter((r) => r.t === 'message').map((r) => r.msg?.content ?? '');
    const stub = records.find((r) => r.t === 'reduction')?.r?.stub ?? '';
    const rowsOf = (call: number | null) => value(s.handle('rows', params('rows', { start: 0, end: 10, call }))).rows.map((r) => [r.index, r.text, r.reductions.map((x) => x.id)]);
    expect(rowsOf(1)).toEqual([[0, m0, []]]);
    expect(rowsOf(2)).toEqual([
      [0, m0, []],
      [1, m1, []],
      [2, m2, []],
    ]);
    // kept_bytes 15: "PASS a.test.ts\n".
    expect(rowsOf(null)).toEqual([
      [0, m0, []],
      [1, m1, []],
      [2, `PASS a.test.ts\n${stub}`, ['r1']],
      [3, m3, []],
    ]);
    expect(m2?.startsWith('PASS a.test.ts\n')).toBe(true);
  });

  it('a truncation recorded after message 3 is in the rows of the third call only, its kept prefix then its stub', async () => {
    const { path, stub } = truncatedSidecar();
    const s = await opened(path);
    const rowsOf = (call: number | null) => value(s.handle('rows', params('rows', { start: 0, end: 10, call }))).rows.map((r) => r.text);
    expect(rowsOf(1)).toEqual(['go']);
    expect(rowsOf(2)).toEqual(['go', '', 'x'.repeat(100)]);
    expect(rowsOf(3)).toEqual(['go', '', `${'x'.repeat(10)}${stub}`, 'one', 'more']);
    expect(rowsOf(null)).toEqual(['go', '', `${'x'.repeat(10)}${stub}`, 'one', 'more', 'two']);
    for (const [call, index] of [
      [3, 2],
      [null, 5],
    ] as const)
      expect(value(s.handle('rowOfIndex', { index, call })).row).toBe(index);
  });

  it('§9 demo: call 2 shows message 2 whole, without r1; the latest view shows r1 stub', async () => {
    const s = await opened(DEMO);
    const call2 = value(s.handle('rows', params('rows', { start: 0, end: 10, call: 2 })));
    const msg2 = call2.rows.find((r) => r.index === 2);
    expect(msg2?.text).toBe('PASS a.test.ts\nFAIL b.test.ts — expected 3, got 4\nPASS c.test.ts\n');
    expect(msg2?.reductions).toEqual([]);
    const latest = value(s.handle('rows', params('rows', { start: 0, end: 10 })));
    expect(latest.rows.find((r) => r.index === 2)?.applied).toBe('r1');
    // rowText pages the call's text, not the latest's.
    const row = call2.rows.indexOf(msg2 as never);
    expect(value(s.handle('rowText', { row, range: [0, 1000], call: 2 })).total_bytes).toBe(utf8Length(msg2?.text ?? ''));
    expect(value(s.handle('rowText', { row, range: [0, 1000] })).text.startsWith('PASS a.test.ts\n⟦reduced⟧')).toBe(true);
    // verify reads the call's log: r1 is no reduction of call 2.
    expect(value(s.handle('verify', { ids: ['r1'], call: 2 })).statuses[0]?.status).toBe('unknown_reduction');
    expect(value(s.handle('verify', { ids: ['r1'] })).statuses[0]?.status).toBe('verified');
  });

  it.each([0, 0.5, -1])('a call that is not a positive integer (%s) is refused by the contract', (call) => {
    expect(methods.rows.params.safeParse({ start: 0, end: 1, call }).success).toBe(false);
  });

  it.each([3, 999])('a call past the last (%s) is a clear error naming the calls', async (call) => {
    const s = await opened(DEMO);
    const reply = s.handle('rows', params('rows', { start: 0, end: 1, call }));
    expect(reply.ok).toBe(false);
    if (!reply.ok) expect(reply.error).toEqual({ code: 'invalid_request', message: `call ${call} is not a model call of this session: it has 2 calls (1…2)` });
    expect(s.handle('rowOfIndex', { index: 0, call }).ok).toBe(false);
    expect(s.handle('verify', { ids: [], call }).ok).toBe(false);
  });
});

describe('SessionService expand in a past call', () => {
  it('a reduction inverted since expands in a call it was live at, and is unknown in the latest view', async () => {
    const view = [user('go'), assistant('', 'c1'), tool('x'.repeat(100), 'c1'), assistant('one'), user('more'), assistant('two'), user('again'), assistant('three')];
    const r1 = makeReduction(view, { id: 'r1', kind: 'tool_output_truncated', index: 2, kept_bytes: 10 });
    const path = writeSidecar(tmp.path('inverted.sidecar.jsonl'), [
      makeHeader(),
      ...view.slice(0, 4).map((m, i) => messageRecord(i, m)),
      reductionRecord(r1),
      ...view.slice(4, 6).map((m, i) => messageRecord(i + 4, m)),
      { t: 'invert', id: 'r1' },
      ...view.slice(6).map((m, i) => messageRecord(i + 6, m)),
    ]);
    const s = await opened(path);
    // Calls: index 1, 3, 5, 7; r1 is live at the third only.
    const then = value(s.handle('expand', { id: 'r1', range: [0, 100], call: 3 }));
    expect([then.reduction_id, then.content]).toEqual(['r1', 'x'.repeat(100)]);
    expect(value(s.handle('rows', params('rows', { start: 0, end: 10, call: 3 }))).rows.find((r) => r.index === 2)?.applied).toBe('r1');
    for (const call of [2, 4, null]) {
      const reply = s.handle('expand', { id: 'r1', range: [0, 100], call });
      expect(reply.ok ? null : reply.error.code).toBe('unknown_reduction');
    }
  });
});

describe('SessionService calls (context map)', () => {
  it('by hand: the demo hides nothing at its two calls; a truncation of 90 hidden bytes counts at the third call only, given its kept prefix and stub', async () => {
    const demo = value((await opened(DEMO)).handle('calls', {}));
    // Call 1 is given "Find the failing test" (21 bytes); call 2 adds "" and the 67-byte output (88).
    expect([demo.calls, demo.index, demo.given, demo.hidden]).toEqual([2, [1, 3], [21, 88], [0, 0]]);
    const { path, stub } = truncatedSidecar();
    const map = value((await opened(path)).handle('calls', {}));
    // "go" 2, "" 0, the output 100 (10 kept + the stub at the third call), "one" 3, "more" 4.
    const stubBytes = Buffer.byteLength(stub, 'utf8');
    expect([map.calls, map.index, map.given, map.hidden]).toEqual([3, [1, 3, 5], [2, 102, 2 + 10 + stubBytes + 3 + 4], [0, 0, 90]]);
  });

  it('per call of the generated sample: hidden is what the stubs of its rows say they hide (SPEC §4 hidden_bytes), given the bytes of its rows', async () => {
    const s = await opened(SESSION);
    const session = await loaded(SESSION);
    try {
      const map = value(s.handle('calls', {}));
      expect(map.calls).toBe(session.calls.length);
      for (const c of session.calls) {
        const k = c.call - 1;
        const rows = allRows(s, c.call);
        const given = rows.reduce((n, r) => n + r.text_bytes, 0);
        // Each stub of a native sidecar states what it hides; a row cut by the reply carries its stub at its end.
        const stated = rows.flatMap((r) => [...r.text.matchAll(/⟦reduced⟧ id=\S+ kind=\S+ hidden_bytes=(\d+)/g)].map((m) => Number(m[1])));
        expect([c.call, map.index[k], map.hidden[k], map.given[k]]).toEqual([c.call, c.index, stated.reduce((a, b) => a + b, 0), given]);
      }
      // Every logged reduction is minted before some call or after the last one.
      expect(map.minted.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(session.callTimeline.spans.length);
      // The sample's rewind to 35 and its switch to swift-coder-3 are marked at the first call after them.
      expect(map.rewinds).toHaveLength(1);
      expect(map.rewinds[0]?.to).toBe(35);
      expect(map.model_switches).toEqual([expect.objectContaining({ from: 'deepthink-r2', to: 'swift-coder-3' })]);
      const switchCall = map.model_switches[0]?.call ?? 0;
      expect(map.index[switchCall - 1]).toBeGreaterThanOrEqual(63);
      if (switchCall > 1) expect(map.index[switchCall - 2]).toBeLessThan(63);
    } finally {
      session.close();
    }
  });

  const REAL = join(import.meta.dirname, '../../e2e/fixtures/real');
  /** Each call's line and what the file says was hidden from it, read from the raw records (loader/testing/rawCalls.ts). */
  const rawFigures: Record<string, (path: string) => { calls: number[]; hiding: RawHiding[] }> = {
    claude: (path) => ({ calls: rawClaudeCodeCalls(path).map((c) => c.line), hiding: rawClaudeCodeHiding(path) }),
    codex: (path) => ({ calls: rawResponses(path).map((r) => r.line), hiding: rawCodexHiding(path) }),
  };
  it.each([
    // A compaction at line 31: the calls after it are given its summary for the 30 lines before it.
    ['claude-code/cc-2.0.76-compact-boundary.jsonl', 'claude', true],
    // A rewind, no compaction or cleared or persisted output: nothing is hidden.
    ['claude-code/cc-2.1.42-rewind.jsonl', 'claude', false],
    // No compaction, no cut output: nothing is hidden.
    ['codex/rollout-0.126-desktop-websearch-customtool-ENTIRE.jsonl', 'codex', false],
    // A shell output of 68,343 tokens cut at line 17: the calls after it.
    ['codex/rollout-0.139-review-cut-output-ENTIRE.jsonl', 'codex', true],
  ] as const)('an imported session (%s): one figure per call, hidden what the raw file says was hidden from it, given its projected bytes', async (name, format, hides) => {
    const path = join(REAL, name);
    const s = await opened(path);
    const session = await loaded(path);
    try {
      const map = value(s.handle('calls', {}));
      const raw = rawFigures[format]!(path);
      expect(map.calls).toBe(raw.calls.length);
      expect(map.calls).toBeGreaterThan(0);
      expect([map.index.length, map.given.length, map.hidden.length, map.minted.length]).toEqual(Array(4).fill(map.calls));
      // The file hides something from some call, and the raw records say what: each call is
      // given every hiding recorded on a line before its own.
      expect(raw.hiding.length > 0 && raw.calls.some((line) => line > raw.hiding[0]!.line)).toBe(hides);
      expect(map.hidden).toEqual(raw.calls.map((line) => raw.hiding.filter((h) => h.line < line).reduce((n, h) => n + h.bytes, 0)));
      for (const c of session.calls) {
        // Given: the bytes of the rows the worker answers for that call (its rows method, not the map's code).
        const answered = allRows(s, c.call);
        expect(map.given[c.call - 1]).toBe(answered.reduce((n, r) => n + r.text_bytes, 0));
      }
    } finally {
      session.close();
    }
  });

  // Where the map's reductions minted before a call and the latest view's live ones differ: one
  // minted after the last call (SWE-agent: 7 before a call, 8 live), one superseded by a later
  // compaction (Claude Code: 5 before a call, 4 live).
  it.each(['swe-agent/marshmallow-1867-function-calling-replace-from-source.traj', 'claude-code/cc-2.1.14-two-compactions.jsonl'])(
    '%s: the map`s figures add up to the live reductions the open says (the status bar`s count)',
    async (name) => {
      const s = new SessionService();
      try {
        const opened = value(await s.open({ paths: [join(REAL, name)], generation: 1 }));
        const map = value(s.handle('calls', {}));
        const minted = map.minted.reduce((a, b) => a + b, 0);
        expect(minted).not.toBe(opened.reductions);
        expect(minted + map.minted_after_last + map.unplaced - map.ended).toBe(opened.reductions);
        expect(map.minted_after_last + map.ended).toBeGreaterThan(0);
      } finally {
        s.close();
      }
    },
  );

  it('answers no_session without a session', () => {
    const s = new SessionService();
    const reply = s.handle('calls', {});
    expect(reply.ok ? null : reply.error.code).toBe('no_session');
  });
});

describe('calls: the recorded usage of each call (SPEC §15)', () => {
  it('a Claude Code transcript: the reply carries each call’s recorded context as the raw records state it, and the window of its model', async () => {
    const path = join(import.meta.dirname, '../../e2e/fixtures/real/claude-code/cc-2.1.17-persisted-bash.jsonl');
    const s = await opened(path);
    const reply = value(s.handle('calls', params('calls', {})));
    const usage = rawClaudeCodeUsage(path);
    expect(reply.recorded?.context).toEqual(rawClaudeCodeCalls(path).map((c) => usage.get(c.line)?.context ?? null));
    expect(reply.recorded?.window.every((w) => w === 200_000)).toBe(true);
  });

  it('a native session records none: no recorded columns', async () => {
    const s = await opened(SESSION);
    expect(value(s.handle('calls', params('calls', {}))).recorded).toBeUndefined();
  });
});
