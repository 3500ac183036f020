/**
 * Walking one library root (docs/library.md, SPEC §14): recursive to MAX_DEPTH, files of a known
 * format by content (the folder listing's sniff, electron/listing/sniff.ts), read-only and bounded.
 *
 * - A symbolic link is never followed, file or folder (`lstat` before entering a folder; files are
 *   opened with `O_NOFOLLOW`), so nothing outside the root is reached through one; a folder is
 *   entered only when its real path lies inside the root's, and a file is read only when the real
 *   path of its open descriptor does (a folder swapped for a link mid-walk is refused too).
 * - Files are opened non-blocking and checked on the descriptor (`fstat`): a FIFO, socket or device
 *   is never read nor listed, whatever its name.
 * - Nothing is written anywhere.
 * - A session's companions are not sessions of their own: a Claude Code session's `subagents/` and
 *   `tool-results/` folders are not entered, an older layout's `agent-*.jsonl` beside the sessions
 *   is not listed, and of an OpenHands V1 conversation only `base_state.json` is listed (its
 *   `events/` folder is not entered).
 * - At most `maxEntries` directory entries are looked at in all; the walk says when it stopped there.
 * - A file the caller already knows (`known`: the index cache holds its format and head for its
 *   size, modification time and inode, as `lstat` gives them) is not opened at all: a warm listing
 *   costs a `lstat` per file (docs/library.md "The cache").
 */
import type { Dir, Stats } from 'node:fs';
import { lstatSync, opendirSync, realpathSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import type { SessionFileFormat } from '../../shared/index';
import { sniffFile } from '../listing/scan';
import { SNIFF_HEAD_BYTES } from '../listing/sniff';
import { isWithin, realOfDescriptor } from '../loader/common/safeRead';
import type { HeadInfo } from './head';

/** Folders below the root entered at most this deep (the root's own files are depth 1). */
export const MAX_DEPTH = 8;
/** Directory entries looked at in one listing, over every root (a home folder of millions is cut here). */
export const DEFAULT_MAX_ENTRIES = 200_000;
/** The tail read besides the head: where appended titles and the last timestamps are. */
export const TAIL_BYTES = SNIFF_HEAD_BYTES;

/** Folders that hold a session's companions, never sessions of their own. */
export const COMPANION_FOLDERS: ReadonlySet<string> = new Set(['subagents', 'tool-results', 'events']);

export interface WalkedFile {
  /** The path as walked (root + relative path). */
  path: string;
  /** Relative to the root, with `/` separators. */
  rel: string;
  format: SessionFileFormat;
  stats: Stats;
  /** The head (valid only until the walk goes on: read it before asking for the next file); empty when `known`. */
  head: Buffer;
  /** The head decoded as UTF-8, when the sniff decoded it. */
  headText?: string;
  /** The last TAIL_BYTES when the file is longer than its head. */
  tail?: Buffer;
  /** The head's entry fields as the caller knew them: the file was not read. */
  known?: HeadInfo;
}

/** What the caller knows of a file from an earlier listing, for the size, modification time and inode `stats` give. */
export type KnownFile = (path: string, stats: Stats) => { format: SessionFileFormat; info: HeadInfo } | undefined;

const NOTHING_READ = Buffer.alloc(0);

export interface WalkCount {
  /** Directory entries looked at. */
  entries: number;
  /** True when the walk stopped at its cap. */
  truncated: boolean;
  /** Symbolic links seen and not followed. */
  links: number;
}

function isCompanionFile(name: string, format: SessionFileFormat): boolean {
  if (format === 'claude-code') return /^agent-[^/\\]*\.jsonl$/.test(name);
  if (format === 'openhands-v1') return name !== 'base_state.json';
  return false;
}

/**
 * The session files under `root` (see the header), depth first in directory order. `count` is
 * updated as the walk goes (shared across roots, so one cap bounds a whole listing).
 */
export function* walkRoot(root: string, count: WalkCount, maxEntries = DEFAULT_MAX_ENTRIES, from?: string, known?: KnownFile): Generator<WalkedFile> {
  let rootReal: string;
  try {
    rootReal = realpathSync(root);
  } catch {
    return;
  }
  const within = [rootReal];
  // `from`: only the folder below the root that changed (a watcher's event), at its depth.
  const start = from === undefined ? { dir: root, depth: 1 } : startBelow(root, from);
  if (start === undefined) return;
  const stack: { dir: string; depth: number }[] = [start];
  while (stack.length > 0) {
    const { dir, depth } = stack.pop() as { dir: string; depth: number };
    let handle: Dir;
    try {
      // The root itself may be a link the user named (it was resolved above); any folder below is
      // entered only where it really is inside the root.
      if (dir !== root && !isWithin(realpathSync(dir), within)) continue;
      handle = opendirSync(dir);
    } catch {
      continue;
    }
    const subfolders: string[] = [];
    try {
      for (let dirent = handle.readSync(); dirent !== null; dirent = handle.readSync()) {
        if (count.entries >= maxEntries) {
          count.truncated = true;
          return;
        }
        count.entries++;
        const path = join(dir, dirent.name);
        let stats: Stats;
        try {
          stats = lstatSync(path);
        } catch {
          continue;
        }
        if (stats.isSymbolicLink()) {
          count.links++;
          continue;
        }
        if (stats.isDirectory()) {
          if (depth < MAX_DEPTH && !COMPANION_FOLDERS.has(dirent.name)) subfolders.push(path);
          continue;
        }
        if (!stats.isFile()) continue;
        const knew = known?.(path, stats);
        if (knew !== undefined) {
          if (!isCompanionFile(dirent.name, knew.format)) yield { path, rel: relative(root, path).split(sep).join('/'), format: knew.format, stats, head: NOTHING_READ, known: knew.info };
          continue;
        }
        const found = sniffWalked(root, path, within);
        if (found) yield found;
      }
    } finally {
      handle.closeSync();
    }
    // Depth first, in directory order.
    for (let k = subfolders.length - 1; k >= 0; k--) stack.push({ dir: subfolders[k] as string, depth: depth + 1 });
  }
}

/** The folder `from` below `root` as a walk's start, at its depth; undefined when it is not below the root (or too deep, or a companion). */
function startBelow(root: string, from: string): { dir: string; depth: number } | undefined {
  const parts = relative(root, from).split(sep);
  if (parts[0] === '' || parts[0] === '..' || parts.length >= MAX_DEPTH || parts.some((p) => COMPANION_FOLDERS.has(p))) return undefined;
  return { dir: from, depth: parts.length + 1 };
}

/** A regular file found at `path` under `root` as the walk reads it (its head and tail), or undefined when it is not a session the walk would list. */
function sniffWalked(root: string, path: string, within: readonly string[]): WalkedFile | undefined {
  const found = sniffFile(path, {
    tailBytes: TAIL_BYTES,
    check: (fd, opened) => {
      const real = realOfDescriptor(fd, path, opened);
      return real !== undefined && isWithin(real, within);
    },
  });
  if (!found || isCompanionFile(basename(path), found.format)) return undefined;
  return { path, rel: relative(root, path).split(sep).join('/'), format: found.format, stats: found.stats, head: found.head, ...(found.headText !== undefined ? { headText: found.headText } : {}), ...(found.tail ? { tail: found.tail } : {}) };
}

/**
 * One file under `root` as a walk would list it (a watcher named it): below the root at most
 * MAX_DEPTH deep, not in a companion folder, reached through no link (its folder's real path is
 * inside the root's, the file opened with `O_NOFOLLOW` and checked on its descriptor), a regular
 * file of a known format. Undefined for anything else (gone, a folder, a link, not a session).
 */
export function walkFile(root: string, path: string): WalkedFile | undefined {
  const parts = relative(root, path).split(sep);
  if (parts[0] === '' || parts[0] === '..' || parts.length > MAX_DEPTH || parts.slice(0, -1).some((p) => COMPANION_FOLDERS.has(p))) return undefined;
  try {
    const within = [realpathSync(root)];
    if (!isWithin(realpathSync(dirname(path)), within)) return undefined;
    // As the walk: no folder on the way is a link, even one pointing inside the root.
    for (let k = 1; k < parts.length; k++) if (lstatSync(join(root, ...parts.slice(0, k))).isSymbolicLink()) return undefined;
    const stats = lstatSync(path);
    if (!stats.isFile()) return undefined;
    return sniffWalked(root, path, within);
  } catch {
    return undefined;
  }
}
