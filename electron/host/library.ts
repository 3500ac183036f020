/**
 * `serve` with no FILE: the session library (SPEC §14, docs/library.md "In the app"), listed for
 * the page and opened by an entry's place (root id + root-relative path), never by a path taken
 * as given.
 *
 * Invariants:
 *  - Listing runs the library engine (electron/library/): the walk on the host's thread in turns,
 *    whole-file indexing on its threads, the cache in the OS cache folder. One listing at a time;
 *    a request made while the last one is older than `refreshMs` starts the next (files that
 *    appeared or grew are listed; files gone are dropped when it finishes).
 *  - Where no agent folder exists, the bundled samples folder is the library (`samples: true`),
 *    and every folder looked in is still reported.
 *  - `pathOf` opens only a place the latest listing named: a root id and relative path it listed,
 *    checked again now (a regular file, not a link). The caller opens it with the root's real path
 *    as the only root (docs/safe-reads.md).
 */
import { lstatSync, realpathSync, statSync } from 'node:fs';
import { relative, sep } from 'node:path';
import type { ResultOf } from '../../shared/index';
import { MAX_LIBRARY_ENTRIES } from '../../shared/index';
import { IndexCache, cacheFolder } from '../library/cache';
import type { LibraryEntry } from '../library/library';
import { listLibrary } from '../library/library';
import type { IndexPool } from '../library/pool';
import { indexPool } from '../library/pool';
import type { LibraryRoot, RootsContext } from '../library/roots';
import { libraryRoots } from '../library/roots';

export type LibraryReply = ResultOf<'library'>;
export type LibraryRow = LibraryReply['sessions'][number];
export type LibrarySearchReply = ResultOf<'librarySearch'>;

/** A listing older than this is made again at the next request. */
export const LIBRARY_REFRESH_MS = 30_000;

export interface ServedLibrary {
  /** The listing so far; starts one when none ran or the last is stale. */
  snapshot(): LibraryReply;
  /** Waits for the listing in flight, if any (tests, and `pathOf` before the first listing ends). */
  settled(): Promise<void>;
  /** The file at a listed place, checked again now, and its root's real path; else why not. */
  pathOf(root: string, file: string): Promise<{ path: string; root: string } | { refused: string }>;
  /**
   * Searches every session of the library for `query` (case ignored); `cancel(key)`, or a later
   * search of the same key, stops this one, which then answers null. Keys are the callers' own (a
   * tab's session host keys its searches by itself), so one tab never stops another's.
   */
  search(query: string, key: string): Promise<LibrarySearchReply | null>;
  /** Stops the search `key` if it is in flight; true when it was. */
  cancel(key: string): boolean;
  /** How a link names a listed file (its root-relative path and root id); undefined for a file the listing did not name. */
  placeOf(path: string): { path: string; root: string } | undefined;
  dispose(): void;
}

export interface ServeLibraryOptions {
  /** The agents' roots, in order (their ids are their places). */
  roots: readonly LibraryRoot[];
  /** The library when none of `roots` exists (the bundled samples). */
  fallback?: string;
  /** The index cache's folder; undefined keeps no cache. */
  cacheDir?: string;
  refreshMs?: number;
  /** How whole files are indexed (default: the engine's threads, made per listing). */
  pool?: () => IndexPool;
  now?: () => number;
}

function rowOf(entry: LibraryEntry, rootId: string): LibraryRow {
  return {
    file: relative(entry.root, entry.path).split(sep).join('/'),
    root: rootId,
    format: entry.format,
    title: entry.title,
    project: entry.project,
    started: entry.started,
    updated: entry.updated,
    bytes: entry.bytes,
    messages: entry.messages,
    calls: entry.calls,
    reductions: entry.reductions,
    compactions: entry.compactions,
    tokens: entry.tokens,
    live: entry.live,
    indexed: entry.indexed,
    ...(entry.error !== undefined ? { error: entry.error } : {}),
  };
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

const keyOf = (root: string, file: string): string => `${root}\u0000${file}`;

export function serveLibrary(options: ServeLibraryOptions): ServedLibrary {
  const refreshMs = options.refreshMs ?? LIBRARY_REFRESH_MS;
  const now = options.now ?? Date.now;
  const makePool = options.pool ?? (() => indexPool());
  /** Rows by place, with the absolute path each was found at. */
  let rows = new Map<string, { row: LibraryRow; path: string; rootPath: string }>();
  let reports: LibraryReply['roots'] = [];
  let samples = false;
  let running: Promise<void> | null = null;
  let finishedAt = -Infinity;
  let pool: IndexPool | null = null;
  let disposed = false;

  const rootsNow = (): LibraryRoot[] => {
    const roots = [...options.roots];
    samples = options.fallback !== undefined && !roots.some((r) => isFolder(r.path));
    if (samples && options.fallback !== undefined) roots.push({ path: options.fallback, agent: 'given' });
    return roots;
  };

  const list = async (): Promise<void> => {
    const roots = rootsNow();
    const ids = new Map(roots.map((r, k) => [r.path, String(k)]));
    const seen = new Set<string>();
    const put = (entry: LibraryEntry): void => {
      const rootId = ids.get(entry.root) ?? '';
      const row = rowOf(entry, rootId);
      const key = keyOf(rootId, row.file);
      seen.add(key);
      rows.set(key, { row, path: entry.path, rootPath: entry.root });
    };
    reports = roots.map((r, k) => ({ id: String(k), path: r.path, agent: r.agent, exists: isFolder(r.path), sessions: 0 }));
    pool = makePool();
    const signal = { get aborted() { return disposed; } };
    try {
      const listing = await listLibrary({ roots, pool, cache: new IndexCache(options.cacheDir), signal, onEntry: put });
      if (disposed) return;
      reports = listing.roots.map((r, k) => ({ id: String(k), path: r.path, agent: r.agent, exists: r.exists, sessions: r.sessions }));
      rows = new Map([...rows].filter(([key]) => seen.has(key)));
    } finally {
      pool.close();
      pool = null;
      finishedAt = now();
    }
  };

  const start = (): void => {
    if (running !== null || disposed) return;
    running = list()
      .catch(() => undefined)
      .finally(() => {
        running = null;
      });
  };

  /** The searches in flight (one per tab: the caller cancels its own before its next), by key. */
  const searching = new Map<string, () => void>();

  const search = async (query: string, searchId: string): Promise<LibrarySearchReply | null> => {
    searching.get(searchId)?.();
    const signal = { aborted: false };
    const searchPool = makePool();
    const stop = (): void => {
      signal.aborted = true;
      searchPool.close();
    };
    searching.set(searchId, stop);
    const roots = rootsNow();
    try {
      const listing = await listLibrary({ roots, pool: searchPool, signal: { get aborted() { return signal.aborted || disposed; } }, query: { query, regex: false, ignoreCase: true } });
      if (listing.cancelled || signal.aborted) return null;
      const ids = new Map(roots.map((r, k) => [r.path, String(k)]));
      return {
        sessions: listing.sessions.map((entry) => {
          const row = rowOf(entry, ids.get(entry.root) ?? '');
          return {
            file: row.file,
            root: row.root,
            title: row.title,
            visible: entry.matches?.visible ?? 0,
            hidden: entry.matches?.hidden ?? 0,
            first: (entry.matches?.first ?? []).map((m) => ({ snippet: m.snippet, link: m.link, hidden: m.reduction !== undefined })),
          };
        }),
        truncated: listing.search?.truncated ?? false,
      };
    } finally {
      searchPool.close();
      if (searching.get(searchId) === stop) searching.delete(searchId);
    }
  };

  return {
    search,
    cancel(searchId) {
      const stop = searching.get(searchId);
      stop?.();
      return stop !== undefined;
    },
    snapshot() {
      if (now() - finishedAt >= refreshMs) start();
      const all = [...rows.values()].sort((a, b) => (a.row.updated < b.row.updated ? 1 : a.row.updated > b.row.updated ? -1 : a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      return {
        roots: reports,
        sessions: all.slice(0, MAX_LIBRARY_ENTRIES).map((r) => r.row),
        more: Math.max(0, all.length - MAX_LIBRARY_ENTRIES),
        samples,
        complete: running === null,
      };
    },
    async settled() {
      while (running !== null) await running;
    },
    async pathOf(root, file) {
      if (running === null && rows.size === 0 && finishedAt === -Infinity) start();
      let found = rows.get(keyOf(root, file));
      if (found === undefined && running !== null) {
        await this.settled();
        found = rows.get(keyOf(root, file));
      }
      if (found === undefined) return { refused: `the library lists no session ${JSON.stringify(file.slice(0, 200))} in root ${JSON.stringify(root.slice(0, 20))}` };
      try {
        const stats = lstatSync(found.path);
        if (stats.isSymbolicLink()) return { refused: `${found.row.file} is now a symbolic link: not followed` };
        if (!stats.isFile()) return { refused: `${found.row.file} is no longer a regular file` };
        return { path: found.path, root: realpathSync(found.rootPath) };
      } catch {
        return { refused: `${found.row.file} is no longer in its folder` };
      }
    },
    placeOf(path) {
      for (const found of rows.values()) if (found.path === path) return { path: found.row.file, root: found.row.root };
      return undefined;
    },
    dispose() {
      disposed = true;
      pool?.close();
      for (const stop of searching.values()) stop();
    },
  };
}

/**
 * The library a host serves when started with no FILE (`serve`, and the desktop window): the
 * agents' default folders as `context` gives them, else the bundled `samples` folder; the index
 * cache in the OS cache folder. One for the whole host: every tab or window lists the same.
 */
export function machineLibrary(context: RootsContext, samples: string): ServedLibrary {
  return serveLibrary({
    roots: libraryRoots([], false, context),
    fallback: samples,
    cacheDir: cacheFolder({ env: context.env, home: context.home, platform: context.platform }),
  });
}
