/**
 * The listing part of the contract (shared/contract.ts re-exports it and puts its methods in the one
 * table): the session files of a folder `serve DIR` serves, and the session library `serve` with no
 * FILE lists (SPEC §14, docs/library.md). Pure: no I/O.
 */
import { z } from 'zod';
import { SESSION_FORMATS } from './fileFormats';

const int = z.number().int().nonnegative();
const empty = z.object({});

// --- the sessions of a folder served by `serve DIR` (opened with `openFile` by an entry's id) ---
/** Entries a folder listing names, at most. */
export const MAX_FOLDER_ENTRIES = 2000;
export const folderEntrySchema = z.object({
  /** Opaque: `openFile` takes it; never a path. */
  id: z.string(),
  name: z.string(),
  /** Absent for a refused entry. */
  format: z.enum(SESSION_FORMATS).optional(),
  bytes: int,
  /** Why the entry cannot be opened (a symbolic link is never followed). */
  refused: z.string().optional(),
});
export const folderMethods = {
  /** The session files of the served folder, read again at each call; the desktop app answers `not_supported`. */
  folder: {
    params: empty,
    result: z.object({ name: z.string(), entries: z.array(folderEntrySchema).max(MAX_FOLDER_ENTRIES), scanned: int, truncated: z.boolean() }),
  },
} as const;
// --- the session library (SPEC §14, docs/library.md): what `serve` with no FILE lists ---
/** Sessions a library reply names, at most (the page shows the newest; the rest are counted). */
export const MAX_LIBRARY_ENTRIES = 20_000;
export const libraryEntrySchema = z.object({
  /** Its place: the path relative to its root (`/` separators) and the root's id, as a link names it (`openLink`). */
  file: z.string(),
  root: z.string(),
  format: z.enum(SESSION_FORMATS),
  title: z.string().nullable(),
  project: z.string().nullable(),
  started: z.string(),
  updated: z.string(),
  bytes: int,
  messages: int.nullable(),
  calls: int.nullable(),
  reductions: int.nullable(),
  compactions: int.nullable(),
  tokens: int.nullable(),
  live: z.boolean(),
  indexed: z.boolean(),
  error: z.string().optional(),
});
/**
 * A listing's progress: files found so far, and those whose counts are in; `listing` numbers the
 * host's listings (a later one has a larger number), so a page tells a late answer about one
 * listing from the start of the next.
 */
const libraryProgress = z.object({ found: int, indexed: int, listing: int.optional() });
export const libraryMethods = {
  /**
   * The session library as listed so far: every root looked in (its id is its place here), the
   * sessions found, newest first, and whether the listing in flight has finished. Each call starts a
   * fresh listing once the last one is 30 s old where the roots cannot be watched; where they are,
   * changes arrive as `libraryChanged` events. The desktop app started with files and
   * `serve FILE`/`serve DIR` answer `not_supported`.
   */
  library: {
    params: empty,
    result: z.object({
      roots: z.array(z.object({ id: z.string(), path: z.string(), agent: z.string(), exists: z.boolean(), sessions: int })),
      sessions: z.array(libraryEntrySchema).max(MAX_LIBRARY_ENTRIES),
      /** Sessions listed beyond MAX_LIBRARY_ENTRIES (the oldest), not in `sessions`. */
      more: int,
      /** No agent folder exists: the bundled samples are the library. */
      samples: z.boolean(),
      complete: z.boolean(),
      /** The listing in flight's (else the last one's) files found so far, and those whose counts are in (from the cache or indexed). */
      progress: libraryProgress.optional(),
    }),
  },
  /**
   * Full-text search across the library's sessions (each loaded and searched in what its latest
   * view shows and in what reductions hid, docs/library.md `--query`), case ignored. One at a time
   * per tab: a new one (or `cancelSearch` with its `searchId`) cancels the one in flight, which then
   * answers `cancelled`. Sessions with a match only, at most the engine's cap (docs/library.md).
   */
  librarySearch: {
    params: z.object({ query: z.string().min(1).max(1000), searchId: z.string().max(100) }),
    result: z.object({
      sessions: z.array(
        z.object({
          file: z.string(),
          root: z.string(),
          title: z.string().nullable(),
          visible: int,
          hidden: int,
          /**
           * The first matches (hidden ones first): a snippet, the match's UTF-8 byte range in it,
           * and the fragment that opens the session at its place.
           */
          first: z.array(z.object({ snippet: z.string(), snippet_match: z.tuple([int, int]), link: z.string(), hidden: z.boolean() })),
        }),
      ),
      truncated: z.boolean(),
    }),
  },
} as const;

/** Events of the session library (shared/contract.ts puts them in its one table of events). */
export const libraryEvents = {
  /**
   * The library changed while the page is open (docs/library.md "In the app"): `sessions` are rows
   * new or changed (a file that appeared or grew, a row whose `live` ran out, or, while a listing
   * runs, rows as they arrive: a head row first, then its counts), `removed` the places no longer
   * listed. Pushed on the session's event stream, as the live follow's updates are.
   */
  libraryChanged: z.object({
    sessions: z.array(libraryEntrySchema).max(MAX_LIBRARY_ENTRIES),
    removed: z.array(z.object({ file: z.string(), root: z.string() })).max(MAX_LIBRARY_ENTRIES),
    /** False while a listing runs and streams its rows as they arrive; true once none runs. Absent: unchanged. */
    complete: z.boolean().optional(),
    progress: libraryProgress.optional(),
  }),
} as const;
