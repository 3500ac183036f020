/**
 * Model calls: the worker's `calls` (the context map's figures) and the row methods' `call`.
 * Call N's rows are `projectView(callInput(N))` of the session; no call is the latest view.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ParsedParams } from '../../shared/index';
import { methods, projectView, statedHiddenBytes, utf8Length } from '../../shared/index';
import { assistant, makeReduction, tool, user } from '../../shared/testing/builders';
import { loadSession } from '../loader/session';
import { makeHeader, messageRecord, reductionRecord, tempDir, writeSidecar } from '../testing/files';
import { cutToBytes } from './handlers/rows';
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

const params = <M extends keyof typeof methods>(method: M, raw: unknown): ParsedParams<M> => methods[method].params.parse(raw) as ParsedParams<M>;

async function loaded(path: string) {
  const l = await loadSession([path]);
  if (!l.ok) throw new Error(l.error.message);
  return l.session;
}

describe('SessionService rows of a call', () => {
  it.each([DEMO, SESSION])('call N rows are projectView(callInput(N)); no call is the latest view (%s)', async (path) => {
    const s = await opened(path);
    const session = await loaded(path);
    try {
      expect(session.calls.length).toBeGreaterThan(0);
      for (const c of [...session.calls.map((c) => c.call), null]) {
        const input = session.callInput(c);
        if (!input) throw new Error(`no input for ${c}`);
        const expected = projectView(input.minted, input.log);
        const got = value(s.handle('rows', params('rows', { start: 0, end: 500, call: c })));
        expect(got.rowCount).toBe(expected.length);
        expect(got.rows.map((r) => [r.index, r.end, r.text, r.reductions.map((x) => x.id)])).toEqual(expected.map((r) => [r.index, r.end, cutToBytes(r.text, 64 * 1024).text, r.reductions.map((x) => x.id)]));
        for (const r of expected) expect(value(s.handle('rowOfIndex', { index: r.index, call: c })).row).toBe(r.row);
      }
      // Absent and null are the latest view, the plain rows.
      expect(value(s.handle('rows', params('rows', { start: 0, end: 500 })))).toEqual(value(s.handle('rows', params('rows', { start: 0, end: 500, call: null }))));
    } finally {
      session.close();
    }
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
  it('per call, hidden is the stated bytes its rows hide and given the bytes of its projected rows', async () => {
    const s = await opened(SESSION);
    const session = await loaded(SESSION);
    try {
      const map = value(s.handle('calls', {}));
      expect(map.calls).toBe(session.calls.length);
      for (const c of session.calls) {
        const input = session.callInput(c.call);
        if (!input) throw new Error('no input');
        const k = c.call - 1;
        const given = projectView(input.minted, input.log).reduce((n, r) => n + utf8Length(r.text), 0);
        // A row's reductions are the ones it applies (a range covering a truncation applies the range).
        const rows = projectView(input.minted, input.log);
        const applied = new Set(rows.flatMap((r) => (r.applied !== undefined ? [r.applied] : [])));
        const hidden = input.log.filter((r) => applied.has(r.id)).reduce((n, r) => n + (statedHiddenBytes(r) ?? 0), 0);
        expect([c.call, map.index[k], map.hidden[k], map.given[k]]).toEqual([c.call, c.index, hidden, given]);
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
  it.each(['claude-code/cc-2.0.76-compact-boundary.jsonl', 'claude-code/cc-2.1.42-rewind.jsonl', 'codex/rollout-0.126-desktop-websearch-customtool-ENTIRE.jsonl', 'codex/rollout-0.139-review-cut-output-ENTIRE.jsonl'])(
    'an imported session (%s): one figure per call, hidden the stated bytes its rows apply, given its projected bytes',
    async (name) => {
      const path = join(REAL, name);
      const s = await opened(path);
      const session = await loaded(path);
      try {
        const map = value(s.handle('calls', {}));
        expect(map.calls).toBe(session.calls.length);
        expect(map.calls).toBeGreaterThan(0);
        expect([map.index.length, map.given.length, map.hidden.length, map.minted.length]).toEqual(Array(4).fill(map.calls));
        for (const c of session.calls) {
          const input = session.callInput(c.call);
          if (!input) throw new Error('no input');
          const rows = projectView(input.minted, input.log);
          const applied = new Set(rows.flatMap((r) => (r.applied !== undefined ? [r.applied] : [])));
          expect(map.hidden[c.call - 1]).toBe(input.log.filter((r) => applied.has(r.id)).reduce((n, r) => n + (statedHiddenBytes(r) ?? 0), 0));
          expect(map.given[c.call - 1]).toBe(rows.reduce((n, r) => n + utf8Length(r.text), 0));
        }
      } finally {
        session.close();
      }
    },
  );

  it('answers no_session without a session', () => {
    const s = new SessionService();
    const reply = s.handle('calls', {});
    expect(reply.ok ? null : reply.error.code).toBe('no_session');
  });
});
