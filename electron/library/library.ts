/**
 * The session library (SPEC §14, docs/library.md): every root walked (./walk.ts), an entry made at
 * once from each file's head (./head.ts), its counts filled from the cache (./cache.ts) or by
 * indexing the whole file off the caller's thread (./pool.ts, ./index.ts), and with a query each
 * session searched (./query.ts). Host-agnostic: the command line, the HTTP host and the app call it
 * with their own roots, cache and callbacks. Entries stream out through `onEntry` as each is
 * final; the result lists them newest `updated` first.
 */
import type { Stats } from 'node:fs';
import { realpathSync, statSync } from 'node:fs';
import type { SessionFormat } from '../../shared/index';
import { SESSION_FORMAT_OF_FILE } from '../../shared/index';
import type { IndexCache } from './cache';
import type { HeadInfo } from './head';
import { headInfo } from './head';
import type { IndexedCounts } from './index';
import { APPENDING_FORMATS } from './index';
import type { IndexPool } from './pool';
import type { LibraryQuery, SessionMatches } from './query';
import { MAX_MATCHES_PER_SESSION } from './query';
import type { LibraryRoot, RootAgent } from './roots';
import type { WalkCount, WalkedFile } from './walk';
import { DEFAULT_MAX_ENTRIES, walkRoot } from './walk';

/** A file modified this recently is `live`. */
export const LIVE_MS = 60_000;
/** A query lists at most this many matching sessions (then stops searching and says so). */
export const MAX_MATCHING_SESSIONS = 200;
/** The walk lets the event loop turn once it has run this long (ms) since the last turn. */
const WALK_TURN_MS = 2;

export interface LibraryEntry {
  path: string;
  root: string;
  format: SessionFormat;
  id: string | null;
  title: string | null;
  project: string | null;
  branch?: string;
  models: string[];
  started: string;
  updated: string;
  bytes: number;
  messages: number | null;
  calls: number | null;
  reductions: number | null;
  compactions: number | null;
  /** The recorded context in tokens of the session's last call whose usage the file records (SPEC §15); null when it records none or before the file is indexed. */
  tokens: number | null;
  sessions?: number;
  status?: string;
  live: boolean;
  indexed: boolean;
  /** Why the file could not be indexed (its counts stay null). */
  error?: string;
  matches?: SessionMatches;
}

export interface LibraryRootReport {
  path: string;
  agent: RootAgent;
  exists: boolean;
  sessions: number;
}

export interface LibraryOptions {
  roots: readonly LibraryRoot[];
  /** Heads only: no indexing, counts null, `indexed: false`. */
  heads?: boolean;
  query?: LibraryQuery;
  /** Only sessions updated at or after this time (ms since the epoch). */
  since?: number;
  format?: SessionFormat;
  cache?: IndexCache;
  pool: IndexPool;
  maxEntries?: number;
  maxMatchingSessions?: number;
  /** Called with each entry once it is final (in the order they finish). */
  onEntry?: (entry: LibraryEntry) => void;
  /**
   * Called at once with the head entry of each file that will be indexed (counts null, `indexed:
   * false`; not with a query, whose entries are only those that match), before its `onEntry`: a
   * table can show the row while the file is read. Files answered from the cache, and `heads`
   * listings, go straight to `onEntry`.
   */
  onHead?: (entry: LibraryEntry) => void;
  /** Raised: the listing stops walking and indexing and returns what it has. */
  signal?: { readonly aborted: boolean };
  /**
   * Once its walk ends, the calling thread indexes the jobs still waiting (IndexPool.help) rather
   * than only waiting for the threads: for a caller with nothing else to do (the `sessions`
   * command). A host leaves it off: its thread serves the pages.
   */
  callerIndexes?: boolean;
  now?: () => number;
}

export interface LibraryListing {
  roots: LibraryRootReport[];
  sessions: LibraryEntry[];
  walk: WalkCount & { cap: number };
  /** Files read whole in this listing (not answered from the cache). */
  indexedFiles: number;
  search?: { query: string; regex: boolean; ignore_case: boolean; max_matches_per_session: number; max_sessions: number; truncated: boolean };
  cancelled: boolean;
}

/** Whether `path` is a folder now (following links, as a root named by the user is followed). */
export function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * SPEC §14: where none of the agents' folders exists, the bundled samples are the library, so a
 * first run still shows something and says where it looked. `roots` with `samples` after them (a
 * folder given) when none of them is a folder and the samples folder is one (an install may leave
 * it out); `samples` says whether it was added.
 */
export function withSamplesWhereNone(roots: readonly LibraryRoot[], samples: string): { roots: LibraryRoot[]; samples: boolean } {
  const fall = !roots.some((r) => isFolder(r.path)) && isFolder(samples);
  return fall ? { roots: [...roots, { path: samples, agent: 'given' }], samples: true } : { roots: [...roots], samples: false };
}

function isoOr(time: string | null, fallbackMs: number): string {
  return time ?? new Date(fallbackMs).toISOString();
}

function headEntry(info: HeadInfo, path: string, root: string, format: SessionFormat, size: number, mtimeMs: number, now: number): LibraryEntry {
  return {
    path,
    root,
    format,
    id: info.id,
    title: info.title,
    project: info.project,
    ...(info.branch !== undefined ? { branch: info.branch } : {}),
    models: info.models,
    started: isoOr(info.started, mtimeMs),
    updated: isoOr(info.updated, mtimeMs),
    bytes: size,
    messages: null,
    calls: null,
    reductions: null,
    compactions: null,
    tokens: null,
    ...(info.status !== undefined ? { status: info.status } : {}),
    live: now - mtimeMs < LIVE_MS,
    indexed: false,
  };
}

function withCounts(entry: LibraryEntry, counts: IndexedCounts): LibraryEntry {
  const models = [...entry.models];
  for (const m of counts.models) if (!models.includes(m)) models.push(m);
  const h = counts.head ?? {};
  // The agent's own title (an archive's header), else the head's, else the session's first prompt.
  const title = h.title ?? entry.title ?? counts.firstPrompt ?? null;
  return { ...entry, title, ...(h.id !== undefined ? { id: h.id } : {}), ...(h.status !== undefined ? { status: h.status } : {}), ...(h.started !== undefined ? { started: h.started } : {}), ...(h.updated !== undefined ? { updated: h.updated } : {}), models, messages: counts.messages, calls: counts.calls, reductions: counts.reductions, compactions: counts.compactions, tokens: counts.tokens, ...(counts.sessions !== undefined ? { sessions: counts.sessions } : {}), indexed: true };
}

/**
 * One file's entry, as a watcher heard it change (docs/library.md "In the app"): its head at once,
 * then its counts from the cache or by indexing it — held open when its format only appends, so
 * its next growth is indexed from where this stopped (./index.ts). The head is read before the
 * first await (a walk's buffer is reused by its next file).
 */
export async function indexedEntry(file: WalkedFile, root: { path: string; real: string; id: string }, options: { cache?: IndexCache; pool: IndexPool; now?: () => number }): Promise<LibraryEntry> {
  const format = SESSION_FORMAT_OF_FILE[file.format];
  const { size, mtimeMs, ino } = file.stats;
  const info = file.known ?? headInfo(file.format, file.path, size, file.head, file.tail, file.headText);
  const entry = headEntry(info, file.path, root.path, format, size, mtimeMs, (options.now ?? Date.now)());
  const key = { size, mtimeMs, ino };
  const cached = options.cache?.get(file.path, key);
  if (cached) return withCounts(entry, cached);
  const reply = await options.pool.index({ path: file.path, root: root.real, place: { rel: file.rel, rootId: root.id }, format: file.format, ...(APPENDING_FORMATS.has(format) ? { hold: true } : {}), ...(info.title === null ? { untitled: true } : {}) });
  if (!reply.ok) return { ...entry, error: reply.message };
  options.cache?.set(file.path, key, reply.counts, { format: file.format, info });
  return withCounts(entry, reply.counts);
}

/** Newest `updated` first; equal times by path, so the order is stable. */
export function byUpdated(a: LibraryEntry, b: LibraryEntry): number {
  return a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

const turn = (): Promise<void> => new Promise((resolveTurn) => setImmediate(resolveTurn));

/** Lists the library (see the header). Never throws for a file's sake: a file that cannot be indexed keeps its head entry with `error`. */
export async function listLibrary(options: LibraryOptions): Promise<LibraryListing> {
  const now = (options.now ?? Date.now)();
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const maxSessions = options.maxMatchingSessions ?? MAX_MATCHING_SESSIONS;
  const aborted = (): boolean => options.signal?.aborted === true;
  const count: WalkCount = { entries: 0, truncated: false, links: 0 };
  const roots: LibraryRootReport[] = [];
  const walked: string[] = [];
  const done: LibraryEntry[] = [];
  const jobs: Promise<void>[] = [];
  let indexedFiles = 0;
  let matching = 0;
  let searchTruncated = false;
  const finish = (entry: LibraryEntry, report: LibraryRootReport): void => {
    if (options.query && !entry.matches) return;
    if (options.query) {
      if (matching >= maxSessions) {
        searchTruncated = true;
        return;
      }
      matching++;
    }
    report.sessions++;
    done.push(entry);
    options.onEntry?.(entry);
  };

  for (const [rootIndex, root] of options.roots.entries()) {
    let exists = false;
    let real = root.path;
    try {
      exists = statSync(root.path).isDirectory();
      real = realpathSync(root.path);
    } catch {
      exists = false;
    }
    const report: LibraryRootReport = { path: root.path, agent: root.agent, exists, sessions: 0 };
    roots.push(report);
    if (!exists || aborted()) continue;
    walked.push(root.path);
    let lastTurn = performance.now();
    // A file the cache knows for its size, time and inode is not opened: its format and head come from the cache.
    const known = options.cache ? (path: string, stats: Stats) => options.cache?.known(path, { size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino }) : undefined;
    for (const file of walkRoot(root.path, count, maxEntries, undefined, known)) {
      const format = SESSION_FORMAT_OF_FILE[file.format];
      if (options.format !== undefined && format !== options.format) continue;
      const { size, mtimeMs, ino } = file.stats;
      const info = file.known ?? headInfo(file.format, file.path, size, file.head, file.tail, file.headText);
      const entry = headEntry(info, file.path, root.path, format, size, mtimeMs, now);
      if (options.since !== undefined && Date.parse(entry.updated) < options.since) continue;
      const key = { size, mtimeMs, ino };
      const head = { format: file.format, info };
      const cached = options.cache?.get(file.path, key);
      // An entry of an older listing learns its head now: the next listing does not open the file.
      if (cached && !file.known) options.cache?.set(file.path, key, cached, head);
      if (options.heads) finish(entry, report);
      else if (cached && !options.query) finish(withCounts(entry, cached), report);
      else {
        const place = { rel: file.rel, rootId: String(rootIndex) };
        // The answer's closure keeps the path, not the walked file (its head's text and tail stay behind).
        const path = file.path;
        if (!options.query) options.onHead?.(entry);
        jobs.push(
          options.pool.index({ path, root: real, place, format: file.format, bytes: size, ...(options.query ? { query: options.query } : {}), ...(info.title === null ? { untitled: true } : {}) }).then((reply) => {
            if (!reply.ok) {
              if (reply.message !== 'cancelled' && !options.query) finish({ ...entry, error: reply.message }, report);
              return;
            }
            if (!cached) indexedFiles++;
            options.cache?.set(path, key, reply.counts, head);
            const full = withCounts(entry, reply.counts);
            const matched = reply.matches && reply.matches.visible + reply.matches.hidden > 0 ? { ...full, matches: reply.matches } : full;
            finish(matched, report);
            if (options.query && matching >= maxSessions) {
              searchTruncated = true;
              options.pool.close();
            }
          }),
        );
      }
      if (performance.now() - lastTurn >= WALK_TURN_MS) {
        await turn();
        lastTurn = performance.now();
      }
      if (aborted()) break;
    }
  }
  if (options.callerIndexes === true && !aborted()) await options.pool.help();
  await Promise.all(jobs);
  options.cache?.save(walked);
  return {
    roots,
    sessions: done.sort(byUpdated),
    walk: { ...count, cap: maxEntries },
    indexedFiles,
    ...(options.query ? { search: { query: options.query.query, regex: options.query.regex, ignore_case: options.query.ignoreCase, max_matches_per_session: MAX_MATCHES_PER_SESSION, max_sessions: maxSessions, truncated: searchTruncated } } : {}),
    cancelled: aborted(),
  };
}
