/**
 * Reading a file the loader found by itself — a companion of a session file (a Claude Code
 * `tool-results/` file, a subagent transcript and its `.meta.json`, an OpenHands V1 event file or
 * `base_state.json`) — or any file that must stay inside the folders the host was given
 * (docs/safe-reads.md). One way to open, for every such read:
 *
 * - non-blocking (`O_NONBLOCK`), so a FIFO or a device never blocks the open;
 * - without following a link in the last component (`O_NOFOLLOW`, where the platform has it);
 * - checked on the descriptor (`fstat`): a regular file only;
 * - the descriptor's real path (on Linux `/proc/self/fd/N`; elsewhere the path's real path, whose
 *   file must be the one open) must lie inside one of the roots;
 * - read up to the size fstat stated, never more, and a file over `maxBytes` is not read at all.
 *
 * Nothing here throws for a file's sake: what cannot be read is a refusal, with a sentence why.
 */
import type { Stats } from 'node:fs';
import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, sep } from 'node:path';
import { osReason } from './osError';

/** A companion larger than this is not read (a tool's persisted output, a subagent transcript, an event). */
export const COMPANION_MAX_BYTES = 256 * 1024 * 1024;

/** Why a file was not read: a sentence fragment naming the reason (the caller names the file). */
export interface Refused {
  refused: string;
  /** Set when there is simply nothing at the path (ENOENT, ENOTDIR): for a companion, the usual case. */
  missing?: true;
}

export interface OpenedWithin {
  fd: number;
  size: number;
  /** The real path of the file open at `fd`. */
  real: string;
}

const READ_NONBLOCK = constants.O_RDONLY | constants.O_NONBLOCK;
/** The same, and never through a link in the last component, where the platform can say so (not Windows: 0). */
const READ_NONBLOCK_NOFOLLOW = constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOFOLLOW ?? 0);

/** What a non-regular file is, in words. */
export function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/** True when the real path `real` is `root` or lies under it (both real, absolute paths). */
export function isWithin(real: string, roots: readonly string[]): boolean {
  return roots.some((root) => real === root || real.startsWith(root.endsWith(sep) ? root : root + sep));
}

/** The real path of a folder, or undefined when it cannot be resolved (missing, unreadable). */
export function realFolder(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** The default roots of a session opened by a path the user gave: the real path of the folder it was named in. */
export function sessionFolderRoots(path: string): string[] {
  const real = realFolder(dirname(path));
  return real === undefined ? [] : [real];
}

function safeClose(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Closing a descriptor opened for reading cannot lose anything.
  }
}

/** The real path of what is open at `fd` (opened as `path`); undefined when it cannot be told. */
export function realOfDescriptor(fd: number, path: string, opened: Stats): string | undefined {
  try {
    const link = readlinkSync(`/proc/self/fd/${fd}`);
    if (isAbsolute(link) && !link.endsWith(' (deleted)')) return link;
  } catch {
    // No /proc (macOS, Windows): the path's real path, if it is still the file that is open.
  }
  try {
    const real = realpathSync(path);
    const now = statSync(real);
    return now.ino === opened.ino && now.dev === opened.dev ? real : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Opens `path` for reading as described above. `followLast` lets a link in the last component be
 * followed (a main file the user named: the real path is still checked when `roots` is given).
 * `roots` undefined: no folder bound (the path was vouched for). The caller closes `fd`.
 */
export function openWithin(path: string, roots: readonly string[] | undefined, options: { followLast?: boolean } = {}): OpenedWithin | Refused {
  let fd: number;
  try {
    fd = options.followLast === true ? openSync(path, READ_NONBLOCK) : openSync(path, READ_NONBLOCK_NOFOLLOW);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // O_NOFOLLOW on a link: ELOOP (Linux, macOS) or EMLINK (FreeBSD).
    if (options.followLast !== true && (code === 'ELOOP' || code === 'EMLINK')) return { refused: 'it is a symbolic link: not followed' };
    return { refused: osReason(e), ...(code === 'ENOENT' || code === 'ENOTDIR' ? { missing: true as const } : {}) };
  }
  let stats: Stats;
  try {
    stats = fstatSync(fd);
  } catch (e) {
    safeClose(fd);
    return { refused: osReason(e) };
  }
  if (!stats.isFile()) {
    safeClose(fd);
    return { refused: stats.isDirectory() ? 'it is a directory (EISDIR)' : `it is ${kindOf(stats)}, not a regular file` };
  }
  const real = realOfDescriptor(fd, path, stats);
  if (roots !== undefined) {
    if (real === undefined) {
      safeClose(fd);
      return { refused: 'where it really is cannot be told (it was moved or removed while it was opened)' };
    }
    if (!isWithin(real, roots)) {
      safeClose(fd);
      return { refused: 'it resolves outside the folder it was found in: not followed' };
    }
  }
  return { fd, size: stats.size, real: real ?? path };
}

/** Reads at most `size` bytes from the start of `fd` (fewer if the file shrank meanwhile). */
export function readBounded(fd: number, size: number): Buffer {
  const buf = Buffer.allocUnsafe(size);
  let filled = 0;
  while (filled < size) {
    const n = readSync(fd, buf, filled, size - filled, filled);
    if (n <= 0) break;
    filled += n;
  }
  return buf.subarray(0, filled);
}

/**
 * A file's bytes: opened as `openWithin` does (a companion never through a last link), at most
 * `maxBytes` of them (a larger file is refused, not cut), else why it was not read.
 */
export function readWithin(path: string, roots: readonly string[] | undefined, options: { maxBytes?: number; followLast?: boolean } = {}): { bytes: Buffer } | Refused {
  const maxBytes = options.maxBytes ?? COMPANION_MAX_BYTES;
  const opened = openWithin(path, roots, options.followLast === true ? { followLast: true } : {});
  if ('refused' in opened) return opened;
  try {
    if (opened.size > maxBytes) return { refused: `it is ${opened.size} bytes, more than the ${maxBytes} a file found beside a session may be` };
    return { bytes: readBounded(opened.fd, opened.size) };
  } catch (e) {
    return { refused: osReason(e) };
  } finally {
    safeClose(opened.fd);
  }
}

/**
 * A companion folder, when it resolves inside the roots: its real path and its stats (taken before
 * anything in it is read); `missing` when there is no such folder, else why it is not looked into.
 */
export function folderWithin(dir: string, roots: readonly string[]): { real: string; stats: Stats } | { missing: true } | Refused {
  let real: string;
  try {
    // The usual case, no such folder, answered by one lstat without an error thrown (realpath
    // looks at every component of the path and throws).
    if (lstatSync(dir, { throwIfNoEntry: false }) === undefined) return { missing: true };
    real = realpathSync(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { missing: true };
    return { refused: osReason(e) };
  }
  if (!isWithin(real, roots)) return { refused: 'it resolves outside the folder it was found in: not followed' };
  try {
    const stats = statSync(real);
    return stats.isDirectory() ? { real, stats } : { missing: true };
  } catch (e) {
    return { refused: osReason(e) };
  }
}

/** The names in a folder whose real path `folderWithin` gave, or why they cannot be listed. */
export function namesIn(real: string): { names: string[] } | Refused {
  try {
    return { names: readdirSync(real) };
  } catch (e) {
    return { refused: osReason(e) };
  }
}

/**
 * The names in a companion folder, when the folder resolves inside the roots; `missing` when there
 * is no such folder (the usual case: nothing to list), else why it was not listed.
 */
export function listWithin(dir: string, roots: readonly string[]): { names: string[] } | { missing: true } | Refused {
  const folder = folderWithin(dir, roots);
  return 'real' in folder ? namesIn(folder.real) : folder;
}
