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
 * A `library` reply taken over what the page holds. The page both asks (`library`) and hears
 * (`libraryChanged`), so a reply made before a push can arrive after it. Listings are numbered
 * (`progress.listing`): a reply about an earlier listing than the one held is dropped, and so is an
 * unfinished reply about the listing the page already heard end. Within one running listing
 * nothing the page heard goes back: progress counts only go up, a row heard is kept (a running
 * listing removes rows only at its end, which is pushed), and a row whose counts are in is not
 * replaced by its head row. A reply about a later listing is taken as it is.
 */
export function mergeLibraryReply(held: LibraryReply | null, reply: LibraryReply): LibraryReply {
  const heldListing = held?.progress?.listing;
  const replyListing = reply.progress?.listing;
  if (!held || heldListing === undefined || replyListing === undefined || replyListing > heldListing) return reply;
  if (replyListing < heldListing || (held.complete && !reply.complete)) return held;
  if (reply.complete) return reply;
  const byPlace = new Map(reply.sessions.map((row) => [placeKey(row), row]));
  for (const row of held.sessions) {
    const now = byPlace.get(placeKey(row));
    if (!now || (row.indexed && !now.indexed)) byPlace.set(placeKey(row), row);
  }
  const progress = { found: Math.max(held.progress?.found ?? 0, reply.progress?.found ?? 0), indexed: Math.max(held.progress?.indexed ?? 0, reply.progress?.indexed ?? 0), listing: replyListing };
  return { ...reply, sessions: [...byPlace.values()].sort(byLibraryOrder).slice(0, MAX_LIBRARY_ENTRIES), progress };
}
