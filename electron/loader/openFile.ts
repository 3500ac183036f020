/**
 * Opening a session file for reading, whatever its format: read-only, non-blocking, a regular file
 * only, with a guard that later tells whether it changed on disk. OS errors become plain reasons.
 */
import type { Stats } from 'node:fs';
import { closeSync, constants, fstatSync, openSync, statSync } from 'node:fs';
import { FileGuard } from './fileGuard';
import type { LoadError } from './source';

export interface OpenFile {
  path: string;
  fd: number;
  size: number;
  /** The file as it was when opened: whatever is served from it later is checked against this. */
  guard: FileGuard;
}

export function osReason(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  const code = typeof err.code === 'string' ? err.code : undefined;
  const reasons: Record<string, string> = {
    ENOENT: 'no such file or directory',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EISDIR: 'it is a directory',
    ENOTDIR: 'a component of the path is not a directory',
    ELOOP: 'too many symbolic links',
    ENAMETOOLONG: 'the name is too long',
    EMFILE: 'too many open files',
  };
  if (code && reasons[code]) return `${reasons[code]} (${code})`;
  return err.message ?? String(e);
}

export function isSystemError(e: unknown): e is NodeJS.ErrnoException {
  return e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string' && typeof (e as NodeJS.ErrnoException).syscall === 'string';
}

export function unreadable(path: string, reason: string): LoadError {
  return { code: 'unreadable_file', message: `cannot read ${path}: ${reason}` };
}

/**
 * Read-only and non-blocking: a path that is (or was swapped for) a FIFO or a device must never
 * block the open; what was opened is then checked on the descriptor itself (fstat), so nothing can
 * change between the check and the open.
 */
const READ_ONLY_NONBLOCK = constants.O_RDONLY | constants.O_NONBLOCK;

export function openReadOnly(path: string): OpenFile | LoadError {
  let fd: number;
  try {
    fd = openSync(path, READ_ONLY_NONBLOCK);
  } catch (e) {
    return unreadable(path, osReason(e));
  }
  let stats: Stats;
  try {
    stats = fstatSync(fd);
  } catch (e) {
    safeClose(fd);
    return unreadable(path, osReason(e));
  }
  if (stats.isFile()) {
    try {
      return { path, fd, size: stats.size, guard: new FileGuard(path, fd) };
    } catch (e) {
      safeClose(fd);
      return unreadable(path, osReason(e));
    }
  }
  safeClose(fd);
  if (stats.isDirectory()) return unreadable(path, 'it is a directory (EISDIR)');
  const what = stats.isFIFO() ? 'a FIFO (named pipe)' : stats.isSocket() ? 'a socket' : stats.isCharacterDevice() || stats.isBlockDevice() ? 'a device' : 'not a regular file';
  return unreadable(path, `it is ${what}, not a regular file`);
}

export function isLoadError(v: OpenFile | LoadError): v is LoadError {
  return 'code' in v;
}

export function safeClose(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already closed: nothing to release.
  }
}

export function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}
