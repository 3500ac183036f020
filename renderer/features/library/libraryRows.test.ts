import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLink } from '../../../shared/links/link';
import type { LibraryRow } from './libraryRows';
import { DEFAULT_SORT, SORT_KEYS, filterRows, isLibraryFragment, nextSort, rowFragment, sortRows } from './libraryRows';

function row(over: Partial<LibraryRow>): LibraryRow {
  return {
    file: 'a.jsonl',
    root: '0',
    format: 'claude-code',
    title: null,
    project: null,
    started: '2026-01-01T00:00:00.000Z',
    updated: '2026-01-01T00:00:00.000Z',
    bytes: 1,
    messages: null,
    calls: null,
    reductions: null,
    compactions: null,
    tokens: null,
    live: false,
    indexed: false,
    ...over,
  };
}

const ROWS: LibraryRow[] = [
  row({ file: 'x/one.jsonl', title: 'Fix the Parser', project: '/home/u/app', updated: '2026-03-01T00:00:00.000Z', calls: 12, compactions: 2, bytes: 900 }),
  row({ file: 'two.jsonl', root: '1', format: 'codex', title: 'add tests', project: '/home/u/parser-lib', updated: '2026-02-01T00:00:00.000Z', calls: 3, compactions: 0, bytes: 50_000 }),
  row({ file: 'three.eval', root: '3', format: 'inspect', title: null, project: null, updated: '2026-04-01T00:00:00.000Z', bytes: 10 }),
];

describe('library rows: filtering as one types', () => {
  it('keeps the rows whose title or project holds the text, case ignored, in their order', () => {
    expect(filterRows(ROWS, 'parser').map((r) => r.file)).toEqual(['x/one.jsonl', 'two.jsonl']);
    expect(filterRows(ROWS, '  APP ').map((r) => r.file)).toEqual(['x/one.jsonl']);
    expect(filterRows(ROWS, 'nothing like it')).toEqual([]);
    expect(filterRows(ROWS, ' ')).toEqual(ROWS);
  });
  it('never keeps a row that holds the text in neither title nor project', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 4 }), (text) => {
        for (const r of filterRows(ROWS, text)) expect(`${r.title ?? ''}\n${r.project ?? ''}`.toLocaleLowerCase()).toContain(text.trim().toLocaleLowerCase());
      }),
    );
  });
});

describe('library rows: sorting by any column', () => {
  it('sorts numbers and times by value, text by locale, unknown values last in both directions', () => {
    expect(sortRows(ROWS, { key: 'calls', descending: true }).map((r) => r.calls)).toEqual([12, 3, null]);
    expect(sortRows(ROWS, { key: 'calls', descending: false }).map((r) => r.calls)).toEqual([3, 12, null]);
    expect(sortRows(ROWS, { key: 'title', descending: false }).map((r) => r.title)).toEqual(['add tests', 'Fix the Parser', null]);
    expect(sortRows(ROWS, DEFAULT_SORT).map((r) => r.updated)).toEqual(['2026-04-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z']);
    expect(sortRows(ROWS, { key: 'bytes', descending: false }).map((r) => r.bytes)).toEqual([10, 900, 50_000]);
  });
  it('is a permutation, ordered by the key, for every column and direction', () => {
    const arbRow = fc.record({ calls: fc.option(fc.nat(50)), title: fc.option(fc.string({ maxLength: 3 })), bytes: fc.nat(100) }).map((o) => row(o));
    fc.assert(
      fc.property(fc.array(arbRow, { maxLength: 30 }), fc.constantFrom(...SORT_KEYS), fc.boolean(), (rows, key, descending) => {
        const sorted = sortRows(rows, { key, descending });
        expect([...sorted].sort((a, b) => rows.indexOf(a) - rows.indexOf(b))).toEqual(rows);
        const known = sorted.filter((r) => r[key] !== null);
        expect(sorted.slice(0, known.length)).toEqual(known);
        for (let k = 1; k < known.length; k++) {
          const a = known[k - 1]?.[key] as string | number;
          const b = known[k]?.[key] as string | number;
          const c = typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b));
          expect(descending ? c >= 0 : c <= 0).toBe(true);
        }
      }),
    );
  });
  it('pressing a column again turns its direction; a new column starts largest first for numbers and times', () => {
    expect(nextSort(DEFAULT_SORT, 'updated')).toEqual({ key: 'updated', descending: false });
    expect(nextSort(DEFAULT_SORT, 'calls')).toEqual({ key: 'calls', descending: true });
    expect(nextSort(DEFAULT_SORT, 'title')).toEqual({ key: 'title', descending: false });
  });
});

describe('library rows: links', () => {
  it('a row opens by a link naming its file and root, which parses back to them', () => {
    for (const r of ROWS) expect(parseLink(rowFragment(r))).toEqual({ link: { file: r.file, root: r.root }, problems: [] });
    expect(isLibraryFragment('#library')).toBe(true);
    expect(isLibraryFragment(rowFragment(ROWS[0] as LibraryRow))).toBe(false);
  });
});
