/**
 * The view search (what the model saw) runs through the hidden search's bounded machinery: the
 * same matches as a plain search of each row's text, and the same bounds on what a search costs.
 */
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { projectView, projectionLayout } from '../resolver/project';
import { SEARCH_STEP_WORK } from '.';
import { MAX_PAGE_PASS_BYTES } from './searchPage';
import { countingSignal, makeReduction, tool, user } from '../testing/builders';
import type { ChatMessage, Reduction, SearchMode } from '../format/types';
import { utf8Decode, utf8Encode, utf8Length, wellFormed } from '../format/utf8';
import type { ViewSearchResult } from './viewSearch';
import { viewSearchSteps } from './viewSearch';

function drain<T>(steps: Generator<void, T>): { value: T; yields: number } {
  for (let yields = 0; ; yields++) {
    const s = steps.next();
    if (s.done) return { value: s.value, yields };
  }
}

function okValue(r: { ok: true; value: ViewSearchResult } | { ok: false; error: { message: string } }): ViewSearchResult {
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

function search(view: ChatMessage[], log: Reduction[], query: string, options: Parameters<typeof viewSearchSteps>[4] = {}) {
  return drain(viewSearchSteps(view, log, projectionLayout(view.length, log), query, options));
}

/**
 * The plain search of one row's text, as the view search did before it was bounded: the whole row
 * given to one call of the engine per match. UTF-16 [start, end) of leftmost-first, non-overlapping
 * matches; an empty match abutting the previous one is not reported.
 */
function plainMatches(text: string, query: string, mode: SearchMode, caseSensitive: boolean): [number, number][] {
  const found: [number, number][] = [];
  if (mode === 'substring' && caseSensitive) {
    for (let i = text.indexOf(query); i !== -1; i = text.indexOf(query, i + query.length)) found.push([i, i + query.length]);
    return found;
  }
  const m = RE2JS.compile(mode === 'substring' ? RE2JS.quote(query) : query, caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE).matcher(text);
  let pos = 0;
  let lastEnd = -1;
  while (pos <= text.length && m.find(pos)) {
    const [s, e] = [m.start(), m.end()];
    const step = s < text.length && (text.codePointAt(s) ?? 0) > 0xffff ? 2 : 1;
    if (!(s === e && s === lastEnd)) {
      found.push([s, e]);
      lastEnd = e;
    }
    pos = e > s ? e : s + step;
  }
  return found;
}

/** Pieces of rows: ASCII, two- three- and four-byte characters, the letters RE2 folds oddly (İ, ſ, the Kelvin sign), a lone surrogate. */
const piece = fc.constantFrom('x', 'Q', 'a', 'A', 's', 'k', ' ', '\n', 'é', 'É', '\u{1F389}', '\u0130', '\u017F', '\u212A', '\uD800', 'xa');
const text = fc.array(piece, { maxLength: 30 }).map((p) => p.join(''));
const regexPiece = fc.constantFrom('x', 'Q', 'a', 's', 'k', 'é', '\u{1F389}', '.', '[\\s\\S]*', 'a+', 'x?', '|', '\\b', '$', '^', '(?:x|é)', '[^a]', '\\n', 'x[\\s\\S]*Q');
const query = fc.oneof(
  fc.record({ mode: fc.constant<SearchMode>('regex'), text: fc.array(regexPiece, { minLength: 1, maxLength: 4 }).map((p) => p.join('')) }),
  fc.record({ mode: fc.constant<SearchMode>('substring'), text: fc.array(piece, { minLength: 1, maxLength: 3 }).map((p) => p.join('')) }),
);
/** A view of tool outputs, some elided (their row shows the stub). */
const view = fc.array(fc.record({ content: text, elided: fc.boolean() }), { minLength: 1, maxLength: 6 }).map((outputs) => {
  const messages: ChatMessage[] = [user('start'), ...outputs.map((o, i) => tool(o.content, `c${i}`))];
  const log = outputs.flatMap((o, i) => (o.elided ? [makeReduction(messages, { id: `r${i}`, kind: 'tool_output_elided', index: i + 1 })] : []));
  return { messages, log };
});

describe('the view search finds what a plain search of each row finds', () => {
  it('the same matches (row, view index, byte offset and length) and count, whatever the text; each snippet is the row bytes around its match', () => {
    fc.assert(
      fc.property(view, query, fc.boolean(), fc.integer({ min: 1, max: 40 }), ({ messages, log }, q, caseSensitive, snippetMax) => {
        const layout = projectionLayout(messages.length, log);
        const { value: result } = drain(viewSearchSteps(messages, log, layout, q.text, { mode: q.mode, case_sensitive: caseSensitive, max_matches: 1_000_000, max_result_bytes: MAX_PAGE_PASS_BYTES, snippet_max_bytes: snippetMax }));
        const expected: [number, number, number, number][] = [];
        for (const row of projectView(messages, log, undefined, layout)) {
          const t = wellFormed(row.text);
          for (const [s, e] of plainMatches(t, wellFormed(q.text), q.mode, caseSensitive)) {
            const offset = utf8Length(t.slice(0, s));
            expected.push([row.row, row.index, offset, utf8Length(t.slice(s, e))]);
          }
        }
        const found = okValue(result);
        expect(found.matches.map((m) => [m.row, m.index, m.offset, m.length])).toEqual(expected);
        expect(found.total_matches).toBe(expected.length);
        expect(found.truncated).toBe(false);
        const rows = projectView(messages, log, undefined, layout);
        for (const m of found.matches) {
          const bytes = utf8Encode(wellFormed((rows[m.row] as { text: string }).text));
          const snippet = utf8Encode(m.snippet);
          expect(snippet.length).toBeLessThanOrEqual(snippetMax);
          const at = m.offset - m.snippet_match[0];
          expect(utf8Decode(bytes.subarray(at, at + snippet.length))).toBe(m.snippet);
          // The whole match, or its first snippetMax bytes (cut on a character) when it is longer.
          const shown = m.snippet_match[1] - m.snippet_match[0];
          if (m.length <= snippetMax) expect(shown).toBe(m.length);
          else expect(shown).toBeGreaterThan(snippetMax - 4);
        }
      }),
      { numRuns: 400 },
    );
  });
});

describe('the view search is bounded as the hidden search is', () => {
  /** Each x looks to the end of the row for a Q that never comes: quadratic in the row. */
  const QUADRATIC = 'x[\\s\\S]*Q|x';
  const longRow = (): ChatMessage[] => [user('start'), tool('x'.repeat(8000), 'c')];

  it('a pattern quadratic in one row looks at the signal and yields as it goes, at least once per SEARCH_STEP_WORK of engine work', () => {
    const signal = countingSignal();
    const { value, yields } = search(longRow(), [], QUADRATIC, { mode: 'regex', max_matches: 0, signal });
    expect(okValue(value).total_matches).toBe(8000);
    // The first 4,000 x each looked at least 4,000 characters ahead.
    const work = RE2JS.compile(QUADRATIC).programSize() * 4000 * 4000;
    expect(signal.looks).toBeGreaterThanOrEqual(Math.floor(work / SEARCH_STEP_WORK));
    expect(yields).toBeGreaterThanOrEqual(Math.floor(work / SEARCH_STEP_WORK));
  });

  it('a signal raised while one long row is searched stops the search at the next look: cancelled', () => {
    const signal = countingSignal(3);
    const { value } = search(longRow(), [], QUADRATIC, { mode: 'regex', signal, step_work: 1 << 21 });
    expect(value).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    expect(signal.looks).toBeLessThanOrEqual(4);
  });

  it('refuses a pattern over the program limit up front, naming the limit, before any row is searched', () => {
    const signal = countingSignal();
    const { value, yields } = search(longRow(), [], '[\\s\\S]{1000}'.repeat(10) + '[QZ]', { mode: 'regex', signal });
    expect(value).toMatchObject({ ok: false, error: { code: 'invalid_query', message: expect.stringContaining('limit of 2048') as unknown } });
    expect([yields, signal.looks]).toEqual([0, 0]);
  });

  it('keeps its result within max_result_bytes: whole matches dropped from the end, truncated saying so', () => {
    const messages = [user('start'), ...Array.from({ length: 300 }, (_, i) => tool(`needle ${i} `.repeat(20), `c${i}`))];
    const all = okValue(search(messages, [], 'needle', { max_matches: 100_000, max_result_bytes: MAX_PAGE_PASS_BYTES }).value);
    expect(all.total_matches).toBe(6000);
    expect(all.matches).toHaveLength(6000);
    const bound = 20_000;
    const cut = okValue(search(messages, [], 'needle', { max_matches: 100_000, max_result_bytes: bound }).value);
    expect(utf8Length(JSON.stringify(cut))).toBeLessThanOrEqual(bound);
    expect(cut.matches.length).toBeGreaterThan(0);
    expect(cut.matches).toEqual(all.matches.slice(0, cut.matches.length));
    expect(cut).toMatchObject({ total_matches: 6000, truncated: true });
  });
});
