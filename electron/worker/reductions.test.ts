/** The requests about reductions over an open session: `verify`, `log`, `search`, `searchPage` and `check`, and the positions the renderer receives. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChatMessage, Reduction } from '../../shared/index';
import { assistant, makeReduction, tool, user } from '../../shared/testing/builders';
import { makeSnapshot, writeSnapshot } from '../../tools/testing/files';
import { params, serviceFixture, value } from './testing/serviceTests';

const DEMO = join(import.meta.dirname, '../../samples/demo.sidecar.jsonl');

const { tmp, opened, sidecar } = serviceFixture('session-inspector-reductions-');

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

describe('SessionService: the model the renderer receives (positions, never text to parse)', () => {
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

describe('SessionService searchPage (every match, a page at a time)', () => {
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

  /** A signal never raised that counts its reads: a pass reads it at every step, a page taken from a kept pass at most once. */
  function countingSignal(): { aborted: boolean; reads: number } {
    const signal = {
      reads: 0,
      get aborted() {
        signal.reads++;
        return false;
      },
    };
    return signal;
  }

  it("the search's one pass answers the agent's bounds exactly and the human view's first page with no second pass", async () => {
    const s = await opened([paged(115)]);
    const page = (searchId: string, page: number) => {
      const signal = countingSignal();
      return s.handle('searchPage', params('searchPage', { searchId, query: 'needle', page }), { signal }).then((reply) => ({ page: value(reply), reads: signal.reads }));
    };
    // The page as its own pass gives it: no search of this query kept.
    value(await s.handle('search', params('search', { searchId: 'other', query: 'elsewhere' })));
    const own = await page('own', 0);
    expect(own.reads).toBeGreaterThan(1);
    for (const bounds of [{}, { max_matches: 7 }, { max_result_bytes: 2000 }, { max_matches: 80, max_result_bytes: 100_000 }]) {
      const asked = params('search', { searchId: 'a', query: 'needle', ...bounds });
      const agent = value(await s.handle('search', asked));
      // The same result as the search run with those bounds (not kept): the agent sees no difference.
      expect(agent).toEqual(value(s.searchAtOnce(asked)));
      const first = await page('p0', 0);
      expect(first.page).toEqual(own.page);
      expect(first.reads).toBeLessThanOrEqual(1);
    }
    // Page 2 reaches match 100: past what the pass kept (80 at most), so it is a pass of its own.
    const third = await page('p2', 2);
    expect(third.reads).toBeGreaterThan(1);
    expect(third.page).toMatchObject({ first: 100, total_matches: 115 });
    expect(third.page.matches).toHaveLength(15);
  });

  it('a page is never taken from a search of another query, case or session', async () => {
    const s = await opened([paged(115)]);
    value(await s.handle('search', params('search', { searchId: 'a', query: 'needle' })));
    const other = value(await s.handle('searchPage', params('searchPage', { searchId: 'b', query: 'needle', case_sensitive: false, page: 0 })));
    expect(other).toMatchObject({ total_matches: 115, case_sensitive: false });
    expect(value(await s.handle('searchPage', params('searchPage', { searchId: 'c', query: 'line 0', page: 0 }))).total_matches).toBeLessThan(115);
    // Another session opened: its own matches, not the kept ones.
    await s.open({ paths: [paged(20)], generation: 2 });
    expect(value(await s.handle('searchPage', params('searchPage', { searchId: 'd', query: 'needle', page: 0 }))).total_matches).toBe(20);
  });

  it('answers cancelled when its signal is raised, and invalid_query for a bad pattern', async () => {
    const s = await opened([paged(20)]);
    expect(await s.handle('searchPage', params('searchPage', { searchId: 'c', query: 'needle', page: 0 }), { signal: { aborted: true } })).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    expect(await s.handle('searchPage', params('searchPage', { searchId: 'b', query: 'a(', mode: 'regex', page: 0 }))).toMatchObject({ ok: false, error: { code: 'invalid_query' } });
    expect(await s.handle('searchPage', params('searchPage', { searchId: 'b', query: 'a(', mode: 'regex', page: 0, scope: 'view' }))).toMatchObject({ ok: false, error: { code: 'invalid_query' } });
  });
});
