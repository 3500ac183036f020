/**
 * One folder's session files by their heads: the work of a listing (./thread.ts runs it off the
 * host's main thread). Synchronous, read-only, and bounded: at most `maxScanned` directory entries,
 * and of each regular file at most SNIFF_MAX_BYTES of its head (one buffer, reused), never the
 * whole file.
 *
 * - Only the folder's own entries are looked at (no recursion): a name from `readdir` has no
 *   separator, so every path read is `join(root, name)` directly inside the folder.
 * - A symbolic link is never followed: it is reported as a link (by `lstat`), and a file replaced by
 *   a link between the `lstat` and the open is not opened either (`O_NOFOLLOW`).
 * - Files are opened read-only and non-blocking, and what was opened is checked on the descriptor
 *   (`fstat`): a FIFO, socket or device is skipped, never waited on.
 */
import type { Stats } from 'node:fs';
import { closeSync, constants, fstatSync, lstatSync, openSync, opendirSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionFileFormat, SessionFormat } from '../../shared/index';
import { SESSION_FORMAT_OF_FILE } from '../../shared/index';
import { SNIFF_HEAD_BYTES, SNIFF_MAX_BYTES, sniffHead } from './sniff';

/** One entry of a scan: a session file with its format and size, or a symbolic link (not followed). */
export type ScannedEntry = { name: string; link: true } | { name: string; format: SessionFormat; bytes: number };

export interface FolderScan {
  entries: ScannedEntry[];
  /** Directory entries read. */
  scanned: number;
  /** True when the folder holds more than `maxScanned` entries (the rest were not read). */
  truncated: boolean;
}

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOFOLLOW ?? 0);

let buffer = Buffer.alloc(0);

/** The first `length` bytes of `fd` (fewer when the file is shorter), in this module's buffer. */
function headOf(fd: number, length: number): Buffer {
  if (buffer.length < length) buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const n = readSync(fd, buffer, filled, length - filled, filled);
    if (n === 0) break;
    filled += n;
  }
  return buffer.subarray(0, filled);
}

/** What `sniffFile` read: the file's format by its head, its stats, and its head (valid until the next read of this module). */
export interface SniffedFile {
  format: SessionFileFormat;
  stats: Stats;
  head: Buffer;
  /** The head decoded as UTF-8, when the sniff decoded it (an `.eval` archive's is not). */
  headText?: string;
  /** The file's last `tailBytes` (a copy), when asked for and the file is longer than its head. */
  tail?: Buffer;
}

/**
 * The regular file at `path`, opened read-only, non-blocking and without following a link
 * (`O_NOFOLLOW`), checked on its descriptor (`fstat`: a regular file only), with the format its
 * head gives; null when it is none (or not a regular file now). `check` sees the descriptor before
 * anything is read (the session library checks where it really is). The head returned is this
 * module's buffer: read it before the next call.
 */
export function sniffFile(path: string, options: { tailBytes?: number; check?: (fd: number, stats: Stats) => boolean } = {}): SniffedFile | null {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch {
    return null; // gone, a link swapped in, unreadable
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return null;
    if (options.check && !options.check(fd, stats)) return null;
    let head = headOf(fd, Math.min(stats.size, SNIFF_HEAD_BYTES));
    // Decoded once, when the sniff needs the text, and handed on with the head (the library's head fields read it again).
    let headText: string | undefined;
    const decode = (): string => (headText ??= head.toString('utf8'));
    let found = sniffHead(head, stats.size, path, decode);
    if (found === undefined && head.length < stats.size) {
      head = headOf(fd, Math.min(stats.size, SNIFF_MAX_BYTES));
      headText = undefined;
      found = sniffHead(head, stats.size, path, decode);
    }
    if (!found) return null;
    const tailBytes = options.tailBytes ?? 0;
    let tail: Buffer | undefined;
    if (tailBytes > 0 && stats.size > head.length) {
      const length = Math.min(tailBytes, stats.size);
      tail = Buffer.allocUnsafe(length);
      let filled = 0;
      while (filled < length) {
        const n = readSync(fd, tail, filled, length - filled, stats.size - length + filled);
        if (n === 0) break;
        filled += n;
      }
      tail = tail.subarray(0, filled);
    }
    return { format: found, stats, head, ...(headText !== undefined ? { headText } : {}), ...(tail ? { tail } : {}) };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The format of the regular file at `path` by its head; null when it is none (or not a regular file now). */
export function formatByHead(path: string): SessionFormat | null {
  try {
    const found = sniffFile(path);
    return found ? SESSION_FORMAT_OF_FILE[found.format] : null;
  } finally {
    // A large head buffer is let go: an idle listing thread holds little.
    if (buffer.length > SNIFF_HEAD_BYTES) buffer = Buffer.alloc(0);
  }
}

/** Scans the folder `root` (see the header); `beforeFile` is a test hook. Throws when the folder itself cannot be read. */
export function scanFolder(root: string, maxScanned: number, beforeFile?: () => void): FolderScan {
  const entries: ScannedEntry[] = [];
  let scanned = 0;
  let truncated = false;
  const handle = opendirSync(root);
  try {
    for (let dirent = handle.readSync(); dirent !== null; dirent = handle.readSync()) {
      if (scanned === maxScanned) {
        truncated = true;
        break;
      }
      scanned++;
      const name = dirent.name;
      const path = join(root, name);
      let stats;
      try {
        stats = lstatSync(path);
      } catch {
        continue; // gone since readdir
      }
      if (stats.isSymbolicLink()) {
        entries.push({ name, link: true });
        continue;
      }
      if (!stats.isFile()) continue;
      beforeFile?.();
      const format = formatByHead(path);
      if (format !== null) entries.push({ name, format, bytes: stats.size });
    }
  } finally {
    handle.closeSync();
  }
  return { entries, scanned, truncated };
}
