/**
 * The library's index cache (docs/library.md): what indexing learned of each session file, kept in
 * the OS cache folder (`session-inspector/library/index.json`), never beside the sessions.
 *
 * - Keyed by path, and valid only while the file's size, modification time and inode are those
 *   recorded: a changed file is indexed again.
 * - Versioned: a file of another CACHE_VERSION is ignored (and replaced at the next save).
 * - Safe to delete, and a corrupt or unreadable cache is ignored (the listing indexes again): it
 *   never makes a listing fail.
 * - Written atomically (a temporary file in the same folder, then a rename), the folder made 0700
 *   and the file 0600: it holds titles and first prompts.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync, chmodSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { SessionFileFormat } from '../../shared/index';
import { SESSION_FILE_FORMATS } from '../../shared/index';
import type { HeadInfo } from './head';
import type { IndexedCounts } from './index';

/** Bumped whenever what the cache holds, or how counts are made, changes. */
export const CACHE_VERSION = 7;
export const CACHE_FILE = 'index.json';
/** A cache file larger than this is not read (a sane library's is far smaller). */
const CACHE_MAX_BYTES = 256 * 1024 * 1024;

/** The file's identity the cached counts are valid for. */
export interface CacheKey {
  size: number;
  mtimeMs: number;
  ino: number;
}

export interface CachedEntry extends CacheKey {
  counts: IndexedCounts;
  /** The format sniffed and the head's entry fields: with them a warm listing does not open the file. */
  format?: SessionFileFormat;
  info?: HeadInfo;
}

export interface CacheContext {
  env: Readonly<Record<string, string | undefined>>;
  home: string;
  platform: NodeJS.Platform;
}

/**
 * The cache folder: `$SESSION_INSPECTOR_CACHE_DIR` when set, else the OS cache folder's
 * `session-inspector/library` (`$XDG_CACHE_HOME` or `~/.cache` on Linux, `~/Library/Caches` on
 * macOS, `%LOCALAPPDATA%` on Windows).
 */
export function cacheFolder({ env, home, platform }: CacheContext): string {
  const override = env.SESSION_INSPECTOR_CACHE_DIR;
  if (override !== undefined && override !== '') return override;
  const base =
    platform === 'darwin'
      ? join(home, 'Library', 'Caches')
      : platform === 'win32'
        ? (env.LOCALAPPDATA !== undefined && env.LOCALAPPDATA !== '' ? env.LOCALAPPDATA : join(home, 'AppData', 'Local'))
        : env.XDG_CACHE_HOME !== undefined && env.XDG_CACHE_HOME.startsWith('/')
          ? env.XDG_CACHE_HOME
          : join(home, '.cache');
  return join(base, 'session-inspector', 'library');
}

export function sameKey(a: CacheKey, b: CacheKey): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;
}

function isCounts(v: unknown): v is IndexedCounts {
  if (typeof v !== 'object' || v === null) return false;
  const c = v as Record<string, unknown>;
  const head = c.head as Record<string, unknown> | undefined;
  const headOk = head === undefined || (typeof head === 'object' && head !== null && Object.values(head).every((v) => typeof v === 'string'));
  return ['messages', 'calls', 'reductions', 'compactions'].every((k) => Number.isSafeInteger(c[k])) && Array.isArray(c.models) && c.models.every((m) => typeof m === 'string') && (c.sessions === undefined || Number.isSafeInteger(c.sessions)) && (c.tokens === null || Number.isSafeInteger(c.tokens)) && (c.firstPrompt === undefined || typeof c.firstPrompt === 'string') && headOk;
}

const orNull = (v: unknown): boolean => v === null || typeof v === 'string';
const orAbsent = (v: unknown): boolean => v === undefined || typeof v === 'string';

function isHeadInfo(v: unknown): v is HeadInfo {
  if (typeof v !== 'object' || v === null) return false;
  const h = v as Record<string, unknown>;
  return orNull(h.id) && orNull(h.title) && orNull(h.project) && orNull(h.started) && orNull(h.updated) && orAbsent(h.branch) && orAbsent(h.status) && Array.isArray(h.models) && h.models.every((m) => typeof m === 'string');
}

function isEntry(v: unknown): v is CachedEntry {
  if (typeof v !== 'object' || v === null) return false;
  const e = v as Record<string, unknown>;
  // Format and head come together or not at all (an entry of an older listing has neither).
  const known = e.format === undefined ? e.info === undefined : (SESSION_FILE_FORMATS as readonly unknown[]).includes(e.format) && isHeadInfo(e.info);
  return Number.isSafeInteger(e.size) && typeof e.mtimeMs === 'number' && Number.isFinite(e.mtimeMs) && Number.isSafeInteger(e.ino) && isCounts(e.counts) && known;
}

export class IndexCache {
  private readonly entries = new Map<string, CachedEntry>();
  /** Paths looked up or stored in this listing: the others under its roots are dropped at save. */
  private readonly seen = new Set<string>();

  constructor(readonly folder: string | undefined) {
    if (folder === undefined) return;
    let text: string;
    try {
      const path = join(folder, CACHE_FILE);
      if (statSync(path).size > CACHE_MAX_BYTES) return;
      text = readFileSync(path, 'utf8');
    } catch {
      return; // none yet, or unreadable: start empty
    }
    try {
      const doc = JSON.parse(text) as { version?: unknown; entries?: unknown };
      if (doc.version !== CACHE_VERSION || typeof doc.entries !== 'object' || doc.entries === null) return;
      for (const [path, entry] of Object.entries(doc.entries)) if (isEntry(entry)) this.entries.set(path, entry);
    } catch {
      // Corrupt: ignored, rebuilt at the next save.
    }
  }

  get(path: string, key: CacheKey): IndexedCounts | undefined {
    this.seen.add(path);
    const e = this.entries.get(path);
    return e && sameKey(e, key) ? e.counts : undefined;
  }

  /** The format and head's entry fields cached for `path`, when its entry is valid for `key` and holds them. */
  known(path: string, key: CacheKey): { format: SessionFileFormat; info: HeadInfo } | undefined {
    const e = this.entries.get(path);
    if (!e || !sameKey(e, key) || e.format === undefined || e.info === undefined) return undefined;
    this.seen.add(path);
    return { format: e.format, info: e.info };
  }

  set(path: string, key: CacheKey, counts: IndexedCounts, head?: { format: SessionFileFormat; info: HeadInfo }): void {
    this.seen.add(path);
    this.entries.set(path, { size: key.size, mtimeMs: key.mtimeMs, ino: key.ino, counts, ...(head ? { format: head.format, info: head.info } : {}) });
  }

  /**
   * Writes the cache (atomically, user-only); entries under `walkedRoots` not seen in this listing
   * are dropped (their files are gone). A failure to write loses only speed: it is returned, never thrown.
   */
  save(walkedRoots: readonly string[]): string | undefined {
    if (this.folder === undefined) return undefined;
    // Built as own properties (fromEntries): a plain `{}` assigned the path `__proto__` would set its
    // prototype instead, and the entry would not be written (found by the cache's property test).
    const entries = Object.fromEntries(
      [...this.entries].filter(([path]) => !walkedRoots.some((r) => path.startsWith(r.endsWith(sep) ? r : r + sep)) || this.seen.has(path)),
    );
    const text = JSON.stringify({ version: CACHE_VERSION, entries });
    const target = join(this.folder, CACHE_FILE);
    const temp = join(this.folder, `.${CACHE_FILE}.${process.pid}.${Date.now()}.tmp`);
    try {
      mkdirSync(this.folder, { recursive: true, mode: 0o700 });
      chmodSync(this.folder, 0o700);
      const fd = openSync(temp, 'wx', 0o600);
      try {
        writeSync(fd, text);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, target);
      return undefined;
    } catch (e) {
      rmSync(temp, { force: true });
      return e instanceof Error ? e.message : String(e);
    }
  }
}
