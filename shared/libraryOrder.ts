/**
 * The library's one order, and a pushed change merged into its rows (docs/library.md "Scale"):
 * the host streams rows as they arrive, in any order, and a page merges them here, so the table is
 * the same whatever order they came in. Pure: no I/O.
 */
import type { EventPayload, ResultOf } from './contract';
import { MAX_LIBRARY_ENTRIES } from './listingContract';

type LibraryRow = EventPayload<'libraryChanged'>['sessions'][number];
type LibraryReply = ResultOf<'library'>;

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


/**
 * A `library` reply taken over what the page holds. While one listing runs the page both asks
 * (`library`) and hears (`libraryChanged`), so a reply made before a push can arrive after it:
 * within that listing (both incomplete) nothing the page already heard goes back — progress counts
 * only go up, a row heard is kept (a running listing removes rows only at its end, which is
 * pushed), and a row whose counts are in is not replaced by its head row. Otherwise the reply is
 * taken as it is (a new listing starts its counts again).
 */
export function mergeLibraryReply(held: LibraryReply | null, reply: LibraryReply): LibraryReply {
  if (!held || held.complete || reply.complete) return reply;
  const byPlace = new Map(reply.sessions.map((row) => [placeKey(row), row]));
  for (const row of held.sessions) {
    const now = byPlace.get(placeKey(row));
    if (!now || (row.indexed && !now.indexed)) byPlace.set(placeKey(row), row);
  }
  const progress = held.progress && reply.progress ? { found: Math.max(held.progress.found, reply.progress.found), indexed: Math.max(held.progress.indexed, reply.progress.indexed) } : reply.progress;
  return { ...reply, sessions: [...byPlace.values()].sort(byLibraryOrder).slice(0, MAX_LIBRARY_ENTRIES), ...(progress ? { progress } : {}) };
}
