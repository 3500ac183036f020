/**
 * The library's one order, and a pushed change merged into its rows (docs/library.md "Scale"):
 * the host streams rows as they arrive, in any order, and a page merges them here, so the table is
 * the same whatever order they came in. Pure: no I/O.
 */
import type { EventPayload } from './contract';

type LibraryRow = EventPayload<'libraryChanged'>['sessions'][number];

const placeKey = (row: { file: string; root: string }): string => `${row.root}\u0000${row.file}`;

/** The library's own order: newest `updated` first, equal times by root and path (a total order, so rows that arrive in any order list the same). */
export function byLibraryOrder(a: LibraryRow, b: LibraryRow): number {
  if (a.updated !== b.updated) return a.updated < b.updated ? 1 : -1;
  const x = placeKey(a);
  const y = placeKey(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** `rows` with a pushed change merged: rows new or changed replace theirs (by place), removed ones go; in the library's order. */
export function mergeLibraryChange(rows: readonly LibraryRow[], change: Pick<EventPayload<'libraryChanged'>, 'sessions' | 'removed'>): LibraryRow[] {
  const byPlace = new Map(rows.map((row) => [placeKey(row), row]));
  for (const gone of change.removed) byPlace.delete(placeKey(gone));
  for (const row of change.sessions) byPlace.set(placeKey(row), row);
  return [...byPlace.values()].sort(byLibraryOrder);
}

