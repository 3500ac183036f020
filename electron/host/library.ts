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
import { lstatSync, realpathSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { EventPayload, ResultOf } from '../../shared/index';
import { MAX_LIBRARY_ENTRIES } from '../../shared/index';
import { byLibraryOrder } from '../../shared/libraryOrder';
import { IndexCache, cacheFolder } from '../library/cache';
import type { LibraryEntry } from '../library/library';
import { LIVE_MS, indexedEntry, isFolder, listLibrary, withSamplesWhereNone } from '../library/library';
import type { IndexPool } from '../library/pool';
import { indexPool } from '../library/pool';
import type { LibraryRoot, RootsContext } from '../library/roots';
import type { WalkedFile } from '../library/walk';
import { COMPANION_FOLDERS, DEFAULT_MAX_ENTRIES, walkFile, walkRoot } from '../library/walk';
import type { RootWatch } from '../library/watch';
import { watchRoots } from '../library/watch';
import { libraryRoots } from '../library/roots';

export type LibraryReply = ResultOf<'library'>;
/** What changed in the listing: rows new or changed, and places no longer listed (pushed as `libraryChanged`). */
export type LibraryChange = EventPayload<'libraryChanged'>;
export type LibraryRow = LibraryReply['sessions'][number];
export type LibrarySearchReply = ResultOf<'librarySearch'>;

/** A listing older than this is made again at the next request (while the roots cannot be watched). */
export const LIBRARY_REFRESH_MS = 30_000;
/** Where the roots cannot be watched, they are walked again this often (each walk reads every file's head). */
export const LIBRARY_REWALK_MS = 10_000;
/** The thread that indexes changed files holds them open (incremental indexing): it is not stopped for idleness while the host runs (an idle thread never holds the process open). */
const HELD_IDLE_MS = 2 ** 31 - 1;
/** While a listing runs, the rows that arrived are pushed to the pages this often (docs/library.md "Scale"). */
export const STREAM_MS = 100;

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
  /**
   * Hears every change of the listing: while a listing runs, the rows that arrived (head rows at
   * once, then each as it is indexed) every STREAM_MS with `complete: false` and the progress, and
   * its end (`complete: true`, the rows that went); after it, files that appeared, grew or went
   * (the roots are watched; each changed file is indexed again alone), and rows whose `live` ran
   * out. Returns the unsubscribe function.
   */
  subscribe(listener: (change: LibraryChange) => void): () => void;
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
  /** Watch the roots for changes (default true); false walks them again every `rewalkMs` instead. */
  watch?: boolean;
  rewalkMs?: number;
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

const keyOf = (root: string, file: string): string => `${root}\u0000${file}`;

interface Listed {
  row: LibraryRow;
  path: string;
  rootPath: string;
  mtimeMs: number;
}

const sameRow = (a: LibraryRow, b: LibraryRow): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The file's modification time as the listing saw it (an entry carries its size and times; its mtime is read again here). */
function mtimeOf(entry: LibraryEntry): number {
  try {
    return lstatSync(entry.path).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * The paths to index again for `paths` heard changed under `root`: a change inside a session's
 * companion folder (`<session>/subagents/…`, `…/tool-results/…`, an OpenHands `events/`) is a change
 * of that session's file (`<session>.jsonl`, or the conversation's `base_state.json`).
 */
function companionsResolved(root: string, paths: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const path of paths) {
    const parts = relative(root, path).split(sep);
    const k = parts.findIndex((p) => COMPANION_FOLDERS.has(p));
    if (k < 1) {
      out.add(path);
      continue;
    }
    const owner = join(root, ...parts.slice(0, k));
    out.add(`${owner}.jsonl`);
    out.add(join(owner, 'base_state.json'));
  }
  return out;
}

export function serveLibrary(options: ServeLibraryOptions): ServedLibrary {
  const refreshMs = options.refreshMs ?? LIBRARY_REFRESH_MS;
  const now = options.now ?? Date.now;
  const makePool = options.pool ?? (() => indexPool());
  /** Rows by place, with the absolute path each was found at and its modification time (for `live`). */
  let rows = new Map<string, Listed>();
  let reports: LibraryReply['roots'] = [];
  let samples = false;
  let running: Promise<void> | null = null;
  let finishedAt = -Infinity;
  let pool: IndexPool | null = null;
  let disposed = false;
  /** The listing in flight's (or the last one's) files found and indexed so far. */
  let progress: { found: number; indexed: number; listing: number } = { found: 0, indexed: 0, listing: 0 };
  /** What the last push said of `complete` (a listing's end is pushed even when it changed no row). */
  let lastPushedComplete = true;
  /** The listing in flight has listed everything (it is only saving and starting the watch). */
  let listed = true;

  const rootsNow = (): LibraryRoot[] => {
    if (options.fallback === undefined) return [...options.roots];
    const fallen = withSamplesWhereNone(options.roots, options.fallback);
    samples = fallen.samples;
    return fallen.roots;
  };

  const list = async (): Promise<void> => {
    const roots = rootsNow();
    const ids = new Map(roots.map((r, k) => [r.path, String(k)]));
    const seen = new Set<string>();
    const before = new Map(rows);
    /** Rows that arrived since the last push: the pages get them every STREAM_MS while the listing runs. */
    let arrived = new Map<string, LibraryRow>();
    let flushTimer: NodeJS.Timeout | undefined;
    const flush = (): void => {
      if (flushTimer !== undefined) clearTimeout(flushTimer);
      flushTimer = undefined;
      if (disposed || arrived.size === 0) return;
      const batch = [...arrived.values()];
      arrived = new Map();
      notify(batch, [], false);
    };
    /** Files whose head row came first (their final row is not found again). */
    const headed = new Set<string>();
    const put = (entry: LibraryEntry, final: boolean): void => {
      if (final) progress.indexed++;
      if (!final || !headed.has(entry.path)) progress.found++;
      if (!final) headed.add(entry.path);
      const rootId = ids.get(entry.root) ?? '';
      const row = rowOf(entry, rootId);
      const key = keyOf(rootId, row.file);
      if (final) seen.add(key);
      // A head row never replaces a row already known (an earlier listing's counts stay until this one's land).
      else if (rows.has(key)) return;
      const was = rows.get(key);
      rows.set(key, { row, path: entry.path, rootPath: entry.root, mtimeMs: mtimeOf(entry) });
      if (was === undefined || !sameRow(was.row, row)) arrived.set(key, row);
      if (flushTimer === undefined) {
        flushTimer = setTimeout(flush, STREAM_MS);
        flushTimer.unref();
      }
    };
    // Each listing is numbered: a page tells a late answer of this one from the start of the next.
    progress = { found: 0, indexed: 0, listing: progress.listing + 1 };
    listed = false;
    reports = roots.map((r, k) => ({ id: String(k), path: r.path, agent: r.agent, exists: isFolder(r.path), sessions: 0 }));
    pool = makePool();
    const signal = { get aborted() { return disposed; } };
    // Watched from the listing's start: a file written after the walk passed its folder (rows reach
    // the pages, and users act, before the listing ends) is heard, not missed until the next walk.
    startWatching(roots);
    try {
      const listing = await listLibrary({
        roots,
        pool,
        cache: new IndexCache(options.cacheDir),
        signal,
        now,
        onHead: (entry) => put(entry, false),
        onEntry: (entry) => put(entry, true),
      });
      flush();
      if (disposed) return;
      reports = listing.roots.map((r, k) => ({ id: String(k), path: r.path, agent: r.agent, exists: r.exists, sessions: r.sessions }));
      rows = new Map([...rows].filter(([key]) => seen.has(key)));
      // The rows were pushed as they arrived; what is left is what went, and that the listing ended.
      const removed = [...before].filter(([key]) => !rows.has(key)).map(([, r]) => ({ file: r.row.file, root: r.row.root }));
      // Complete from here: a page told so and asking at once hears the same.
      listed = true;
      notify([], removed);
    } finally {
      pool.close();
      pool = null;
      finishedAt = now();
    }
  };

  // --- live: the roots watched, each changed file indexed again alone, the pages told ---
  const listeners = new Set<(change: LibraryChange) => void>();
  /** The roots' watch; null before the first listing ends, or when the OS refused it (then walked again every `rewalkMs`). */
  let watching: RootWatch | null = null;
  let rewalk: NodeJS.Timeout | undefined;
  let liveTimer: NodeJS.Timeout | undefined;
  /** The indexing thread of changed files: one, kept while the host runs, so a growing file stays held (indexed on from where it stopped). */
  let livePool: IndexPool | null = null;
  let liveCache: IndexCache | null = null;
  /** Changes being indexed, one batch at a time, in order. */
  let updating: Promise<void> = Promise.resolve();

  const liveNow = (r: Listed): LibraryRow => {
    const live = now() - r.mtimeMs < LIVE_MS;
    return live === r.row.live ? r.row : { ...r.row, live };
  };

  /** `complete`: whether no listing runs once this change is made (a streamed batch says false). */
  const notify = (changed: LibraryRow[], removed: LibraryChange['removed'], complete = true): void => {
    if (complete) scheduleLiveEnd();
    if (changed.length === 0 && removed.length === 0 && complete === lastPushedComplete) return;
    lastPushedComplete = complete;
    const change: LibraryChange = { sessions: changed.slice(0, MAX_LIBRARY_ENTRIES), removed: removed.slice(0, MAX_LIBRARY_ENTRIES), complete, progress: { ...progress } };
    for (const listener of [...listeners]) {
      try {
        listener(change);
      } catch {
        // One broken listener must not starve the others.
      }
    }
  };

  /** When the earliest `live` row stops being live, its row changes: the pages are told then. */
  function scheduleLiveEnd(): void {
    if (liveTimer !== undefined) clearTimeout(liveTimer);
    liveTimer = undefined;
    let next = Infinity;
    for (const r of rows.values()) if (r.row.live) next = Math.min(next, r.mtimeMs + LIVE_MS);
    if (next === Infinity || disposed) return;
    liveTimer = setTimeout(() => {
      liveTimer = undefined;
      const ended: LibraryRow[] = [];
      for (const r of rows.values()) {
        const row = liveNow(r);
        if (row !== r.row) {
          r.row = row;
          ended.push(row);
        }
      }
      notify(ended, []);
    }, Math.max(0, next - now()) + 1);
    liveTimer.unref();
  }

  const stopWatching = (): void => {
    watching?.close();
    watching = null;
    if (rewalk !== undefined) clearInterval(rewalk);
    if (liveTimer !== undefined) clearTimeout(liveTimer);
    livePool?.close();
    livePool = null;
  };

  /** Indexes again the files `paths` name under `root` (a file, a folder that appeared or went), and tells the pages. */
  const update = async (rootPath: string, paths: readonly string[]): Promise<void> => {
    const rootId = reports.findIndex((r) => r.path === rootPath);
    if (rootId < 0 || disposed) return;
    let real: string;
    try {
      real = realpathSync(rootPath);
    } catch {
      return;
    }
    livePool ??= options.pool?.() ?? indexPool({ threads: 1, idleMs: HELD_IDLE_MS });
    liveCache ??= new IndexCache(options.cacheDir);
    const pool = livePool;
    const cache = liveCache;
    const root = { path: rootPath, real, id: String(rootId) };
    const changed: LibraryRow[] = [];
    const removed: LibraryChange['removed'] = [];
    const files = new Map<string, WalkedFile>();
    for (const path of companionsResolved(rootPath, paths)) {
      const file = walkFile(rootPath, path);
      if (file) files.set(file.path, file);
      else if (isFolder(path)) for (const inner of walkRoot(rootPath, { entries: 0, truncated: false, links: 0 }, DEFAULT_MAX_ENTRIES, path)) files.set(inner.path, { ...inner, head: Buffer.from(inner.head), ...(inner.tail ? { tail: Buffer.from(inner.tail) } : {}) });
      else {
        // Gone (or no longer a session): its row, and every row below it when it was a folder.
        for (const [key, r] of rows) {
          if (r.rootPath === rootPath && (r.path === path || r.path.startsWith(path + sep))) {
            rows.delete(key);
            removed.push({ file: r.row.file, root: r.row.root });
          }
        }
      }
    }
    const entries = await Promise.all([...files.values()].map((file) => indexedEntry(file, root, { cache, pool, now })));
    if (disposed) return;
    for (const entry of entries) {
      const row = rowOf(entry, root.id);
      const key = keyOf(root.id, row.file);
      const was = rows.get(key);
      rows.set(key, { row, path: entry.path, rootPath, mtimeMs: mtimeOf(entry) });
      if (was === undefined || !sameRow(was.row, row)) changed.push(row);
    }
    if (entries.length > 0) cache.save([]);
    const report = reports[rootId];
    if (report) report.sessions = [...rows.values()].filter((r) => r.rootPath === rootPath).length;
    notify(changed, removed);
  };

  function startWatching(roots: readonly LibraryRoot[]): void {
    if (watching !== null || rewalk !== undefined || disposed) return;
    const watched = roots.filter((r) => isFolder(r.path)).map((r) => r.path);
    const fallBack = (): void => {
      watching = null;
      rewalk = setInterval(() => start(), options.rewalkMs ?? LIBRARY_REWALK_MS);
      rewalk.unref();
    };
    if (options.watch === false) return fallBack();
    watching = watchRoots({
      roots: watched,
      onChange: (root, paths) => {
        updating = updating.then(() => update(root, paths)).catch(() => undefined);
      },
      onLost: fallBack,
    });
  }

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
            first: (entry.matches?.first ?? []).map((m) => ({ snippet: m.snippet, snippet_match: m.snippet_match, link: m.link, hidden: m.reduction !== undefined })),
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
      // Watched roots tell of every change; unwatched ones are walked again when the last walk is old.
      if (watching === null && now() - finishedAt >= refreshMs) start();
      // The pages' own order (shared/libraryOrder.ts): what they merge from the pushes lists the same.
      const all = [...rows.values()].sort((a, b) => byLibraryOrder(a.row, b.row));
      return {
        roots: reports,
        sessions: all.slice(0, MAX_LIBRARY_ENTRIES).map((r) => liveNow(r)),
        more: Math.max(0, all.length - MAX_LIBRARY_ENTRIES),
        samples,
        complete: running === null || listed,
        progress: { ...progress },
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
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    dispose() {
      disposed = true;
      pool?.close();
      for (const stop of searching.values()) stop();
      stopWatching();
      listeners.clear();
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
