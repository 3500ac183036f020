/**
 * The library page's rows, pure (docs/library.md "In the app"): filtering as one types, sorting by
 * any column, the link a row opens, and the fragment the library view has of its own.
 */
import type { ResultOf } from '../../../shared/contract';
export { byLibraryOrder, mergeLibraryChange } from '../../../shared/libraryOrder';
import { formatLink } from '../../../shared/links/link';

export type LibraryRow = ResultOf<'library'>['sessions'][number];

/** The fragment of the library view: a link to the library, and what a reload of it restores. */
export const LIBRARY_FRAGMENT = '#library';

/** Rows rendered at first, and added by each `more` (the rest are counted, not rendered). */
export const ROWS_PER_PAGE = 200;

export const SORT_KEYS = ['format', 'title', 'project', 'updated', 'calls', 'compactions', 'tokens', 'bytes'] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export interface Sort {
  key: SortKey;
  descending: boolean;
}
/** Newest first, as the library lists. */
export const DEFAULT_SORT: Sort = { key: 'updated', descending: true };

export function isLibraryFragment(hash: string): boolean {
  return hash === LIBRARY_FRAGMENT;
}

/** The fragment that opens `row` in this tab (`#file=…&root=…`, SPEC §14). */
export function rowFragment(row: Pick<LibraryRow, 'file' | 'root'>): string {
  return formatLink({ file: row.file, root: row.root });
}

/** Rows whose title or project holds `text` (case and surrounding spaces ignored); all for an empty text. */
export function filterRows(rows: readonly LibraryRow[], text: string): LibraryRow[] {
  const needle = text.trim().toLocaleLowerCase();
  if (needle === '') return [...rows];
  return rows.filter((r) => (r.title ?? '').toLocaleLowerCase().includes(needle) || (r.project ?? '').toLocaleLowerCase().includes(needle));
}

function compareValues(a: string | number | null, b: string | number | null): number {
  if (a === b) return 0;
  // Unknown values (not indexed yet, no title) go last whichever the direction.
  if (a === null) return 1;
  if (b === null) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b));
}

/** `rows` sorted by `sort` (stable: equal rows keep the library's order); unknown values last. */
export function sortRows(rows: readonly LibraryRow[], sort: Sort): LibraryRow[] {
  return rows
    .map((row, k) => ({ row, k }))
    .sort((x, y) => {
      const a = x.row[sort.key];
      const b = y.row[sort.key];
      if (a === null || b === null) return compareValues(a, b) || x.k - y.k;
      const c = compareValues(a, b);
      return (sort.descending ? -c : c) || x.k - y.k;
    })
    .map((e) => e.row);
}

/** The next sort when a column's header is pressed: the other direction of the same column, else the new column (numbers and times largest first). */
export function nextSort(current: Sort, key: SortKey): Sort {
  if (current.key === key) return { key, descending: !current.descending };
  return { key, descending: key !== 'format' && key !== 'title' && key !== 'project' };
}

/** What the progress count says while a listing runs (and nothing once it is complete). */
export function progressText(progress: { found: number; indexed: number } | undefined, complete: boolean): string {
  if (complete) return '';
  if (!progress) return ' so far: indexing…';
  return ` so far: ${progress.indexed} of ${progress.found} indexed…`;
}
