import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_MATCHES } from '../format/constants';
import { projectView, projectionLayout } from '../resolver/project';
import { fitSearchResult, sidecarSearch } from '.';
import { MAX_PAGED_MATCHES, MAX_PAGE_PASS_BYTES, pageFrom, pageSearchOptions, searchPageOf } from './searchPage';
import { makeReduction, tool, user } from '../testing/builders';
import type { ChatMessage, Reduction, SearchMode } from '../format/types';
import { utf8Decode, utf8Encode } from '../format/utf8';
import { viewSearchSteps } from './viewSearch';

function okValue<T>(r: { ok: true; value: T } | { ok: false; error: { message: string } }): T {
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

function drain<T>(steps: Generator<void, T>): T {
  for (;;) {
    const s = steps.next();
    if (s.done) return s.value;
  }
}

/** Words a session is made of: the queries below hit some of them many times, in both cases and in multi-byte text. */
const word = fc.constantFrom('needle', 'Needle', 'NEEDLE', 'hay', 'é', '\u{1F389}', ' ', '\n', 'needleneedle', 'x');
const content = fc.array(word, { maxLength: 60 }).map((w) => w.join(''));

/** A generated session: tool outputs, some elided, some truncated at a generated kept prefix, maybe a cleared range. */
const session = fc
  .record({
    contents: fc.array(content, { minLength: 1, maxLength: 8 }),
    plan: fc.array(fc.record({ kind: fc.constantFrom('tool_output_truncated', 'tool_output_elided', 'none'), kept: fc.nat(40) }), { minLength: 8, maxLength: 8 }),
    clear: fc.option(fc.tuple(fc.nat(7), fc.integer({ min: 1, max: 3 }))),
  })
  .map(({ contents, plan, clear }) => {
    const view: ChatMessage[] = [user('start'), ...contents.map((c, i) => tool(c, `c${i}`))];
    const log: Reduction[] = [];
    view.forEach((m, i) => {
      const p = plan[i % plan.length];
      if (i === 0 || !p || p.kind === 'none') return;
      const id = `r${log.length + 1}`;
      const bytes = utf8Encode(m.content);
      if (p.kind === 'tool_output_truncated') {
        // A kept prefix on a character boundary, below the content's length.
        const kept = utf8Encode(utf8Decode(bytes.subarray(0, Math.min(p.kept, Math.max(0, bytes.length - 1))))).length;
        if (kept >= bytes.length) return;
        log.push(makeReduction(view, { id, kind: p.kind, index: i, kept_bytes: kept }));
      } else log.push(makeReduction(view, { id, kind: p.kind, index: i }));
    });
    if (clear) {
      const start = Math.min(clear[0], view.length - 1);
      log.push(makeReduction(view, { id: `r${log.length + 1}`, kind: 'turns_cleared', index: start, end: Math.min(view.length, start + clear[1]) }));
    }
    return { view, log };
  });

const query = fc.record({
  text: fc.constantFrom('needle', 'Needle', 'e', 'é', '\u{1F389}', 'ee', 'needle(needle)?', 'n[a-z]+', '\\bhay\\b', 'x*'),
  mode: fc.constantFrom<SearchMode>('substring', 'regex'),
  case_sensitive: fc.boolean(),
});

describe('searchPage: every match, a page at a time', () => {
  it('the pages hold every match exactly once, in the agent search order, and each counts them all', () => {
    fc.assert(
      fc.property(session, query, fc.integer({ min: 1, max: 7 }), ({ view, log }, q, pageSize) => {
        const options = { mode: q.mode, case_sensitive: q.case_sensitive };
        const all = okValue(sidecarSearch(log, q.text, view, undefined, { ...options, max_matches: 1_000_000, max_result_bytes: MAX_PAGE_PASS_BYTES }));
        const paged = [];
        for (let page = 0; ; page++) {
          const pass = okValue(sidecarSearch(log, q.text, view, undefined, { ...options, ...pageSearchOptions(page, pageSize) }));
          const p = searchPageOf(pass, page, pageSize);
          expect(p.total_matches).toBe(all.total_matches);
          expect(p.pageable).toBe(all.total_matches);
          expect(p.first).toBe(page * pageSize);
          expect(p.matches.length).toBeLessThanOrEqual(pageSize);
          if (p.matches.length === 0) {
            expect(p.first).toBeGreaterThanOrEqual(all.total_matches);
            break;
          }
          paged.push(...p.matches);
        }
        expect(paged).toEqual(all.matches);
        expect(paged.length).toBe(all.total_matches);
      }),
      { numRuns: 150 },
    );
  });

  it("the first page of 50 is the agent's 50 whenever the agent's bounds were not hit", () => {
    let compared = 0;
    fc.assert(
      fc.property(session, query, ({ view, log }, q) => {
        const options = { mode: q.mode, case_sensitive: q.case_sensitive };
        const agent = okValue(sidecarSearch(log, q.text, view, undefined, options));
        const first = searchPageOf(okValue(sidecarSearch(log, q.text, view, undefined, { ...options, ...pageSearchOptions(0, MAX_MATCHES) })), 0, MAX_MATCHES);
        expect(first.total_matches).toBe(agent.total_matches);
        if (agent.truncated) {
          // Bounds hit: still the agent's matches, as a prefix of the page.
          expect(first.matches.slice(0, agent.matches.length)).toEqual(agent.matches);
          return;
        }
        compared++;
        expect(first.matches).toEqual(agent.matches);
      }),
      { numRuns: 200 },
    );
    expect(compared).toBeGreaterThan(0);
  });

  it("a page taken from any search that kept the page's matches is the page pass's, field for field; else none is taken", () => {
    let taken = 0;
    let refused = 0;
    fc.assert(
      fc.property(session, query, fc.integer({ min: 1, max: 7 }), fc.nat(3), fc.integer({ min: 0, max: 12 }), fc.integer({ min: 400, max: 4000 }), ({ view, log }, q, pageSize, page, maxMatches, maxBytes) => {
        const options = { mode: q.mode, case_sensitive: q.case_sensitive };
        // A search with any bounds of its own (the agent's, or one kept for the pages).
        const kept = okValue(sidecarSearch(log, q.text, view, undefined, { ...options, max_matches: maxMatches, max_result_bytes: maxBytes }));
        const pass = searchPageOf(okValue(sidecarSearch(log, q.text, view, undefined, { ...options, ...pageSearchOptions(page, pageSize) })), page, pageSize);
        const got = pageFrom(kept, page, pageSize);
        if (kept.matches.length >= Math.min(kept.total_matches, (page + 1) * pageSize)) {
          taken++;
          expect(got).toEqual(pass);
        } else {
          refused++;
          expect(got).toBeUndefined();
        }
        // A search within its bounds gives every page.
        if (!kept.truncated) expect(got).toBeDefined();
      }),
      { numRuns: 300 },
    );
    expect(taken).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });

  it('a search kept with wider bounds, fitted to narrower ones, is the search run with them, field for field', () => {
    let cut = 0;
    fc.assert(
      fc.property(session, query, fc.integer({ min: 0, max: 12 }), fc.nat(40), fc.integer({ min: 1, max: 6000 }), ({ view, log }, q, maxMatches, more, maxBytes) => {
        const options = { mode: q.mode, case_sensitive: q.case_sensitive };
        const wide = okValue(sidecarSearch(log, q.text, view, undefined, { ...options, max_matches: maxMatches + more, max_result_bytes: MAX_PAGE_PASS_BYTES }));
        const narrow = sidecarSearch(log, q.text, view, undefined, { ...options, max_matches: maxMatches, max_result_bytes: maxBytes });
        const fitted = fitSearchResult(wide, { max_matches: maxMatches, max_result_bytes: maxBytes });
        // The same result, or the same refusal (a bound too small for the result's own fields).
        expect(fitted).toEqual(narrow);
        if (narrow.ok && narrow.value.matches.length < Math.min(maxMatches, narrow.value.total_matches)) cut++;
      }),
      { numRuns: 300 },
    );
    expect(cut).toBeGreaterThan(0);
  });

  it('asks the pass for no more matches than the end of the page, and never past MAX_PAGED_MATCHES', () => {
    expect(pageSearchOptions(0, 50).max_matches).toBe(50);
    expect(pageSearchOptions(3, 50).max_matches).toBe(200);
    expect(pageSearchOptions(10_000, 50).max_matches).toBe(MAX_PAGED_MATCHES);
  });

  it('a pass cut by its byte bound pages only the prefix it kept', () => {
    const view: ChatMessage[] = [user('u'), tool('needle '.repeat(40), 'c1')];
    const log = [makeReduction(view, { id: 'r1', kind: 'tool_output_elided', index: 1 })];
    const pass = okValue(sidecarSearch(log, 'needle', view, undefined, { max_matches: 100, max_result_bytes: 2000 }));
    expect(pass.truncated).toBe(true);
    const page = searchPageOf(pass, 0, 100);
    expect(page.total_matches).toBe(40);
    expect(page.pageable).toBe(pass.matches.length);
    expect(page.pageable).toBeLessThan(40);
  });
});

describe('viewSearch: what the model saw', () => {
  it('finds exactly the occurrences of a substring in each row of the projected view, stubs included', () => {
    fc.assert(
      fc.property(session, fc.constantFrom('needle', 'e', '\u{1F389}', 'reduced', 'id=r1'), ({ view, log }, q) => {
        const layout = projectionLayout(view.length, log);
        const rows = projectView(view, log, undefined, layout);
        // A page's pass: every match kept (the view search bounds its result's bytes as the agent search does).
        const result = okValue(drain(viewSearchSteps(view, log, layout, q, { max_matches: 1_000_000, max_result_bytes: MAX_PAGE_PASS_BYTES })));
        let naive = 0;
        for (const row of rows) {
          const bytes = utf8Encode(row.text);
          const found = result.matches.filter((m) => m.row === row.row);
          for (const m of found) {
            expect(m.index).toBe(row.index);
            expect(utf8Decode(bytes.subarray(m.offset, m.offset + m.length))).toBe(q);
            expect(utf8Decode(utf8Encode(m.snippet).subarray(m.snippet_match[0], m.snippet_match[1]))).toBe(q);
          }
          naive += row.text.split(q).length - 1;
        }
        expect(result.total_matches).toBe(naive);
        expect(result.matches.length).toBe(naive);
      }),
      { numRuns: 150 },
    );
  });

  it('a case-insensitive regex finds what JavaScript finds in ASCII rows, and a bad pattern is invalid_query', () => {
    const view: ChatMessage[] = [user('Needle in the hay'), tool('NEEDLE needle nEeDlE', 'c1'), tool('hidden needle', 'c2')];
    const log = [makeReduction(view, { id: 'r1', kind: 'tool_output_elided', index: 2 })];
    const layout = projectionLayout(view.length, log);
    const found = okValue(drain(viewSearchSteps(view, log, layout, 'ne+dle', { mode: 'regex', case_sensitive: false })));
    // The elided output's bytes are not in the view: the model saw its stub.
    expect(found.matches.map((m) => [m.row, m.offset])).toEqual([
      [0, 0],
      [1, 0],
      [1, 7],
      [1, 14],
    ]);
    const bad = drain(viewSearchSteps(view, log, layout, 'a(', { mode: 'regex' }));
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_query' } });
  });

  it('keeps at most max_matches and counts every one; an aborted signal answers cancelled', () => {
    const view: ChatMessage[] = Array.from({ length: 600 }, (_, i) => user(`row ${i} needle`));
    const layout = projectionLayout(view.length, []);
    const r = okValue(drain(viewSearchSteps(view, [], layout, 'needle', { max_matches: 7 })));
    expect(r.matches).toHaveLength(7);
    expect(r.total_matches).toBe(600);
    expect(r.truncated).toBe(true);
    const aborted = drain(viewSearchSteps(view, [], layout, 'needle', { signal: { aborted: true } }));
    expect(aborted).toMatchObject({ ok: false, error: { code: 'cancelled' } });
  });
});
