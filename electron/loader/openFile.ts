/**
 * Opening a session file for reading, whatever its format: read-only, non-blocking, a regular file
 * only, with a guard that later tells whether it changed on disk. OS errors become plain reasons.
 */
import { closeSync, statSync } from 'node:fs';
import { FileGuard } from './fileGuard';
import { openWithin } from './safeRead';
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
 * Read-only and non-blocking (safeRead.ts): a path that is (or was swapped for) a FIFO or a device
 * must never block the open; what was opened is then checked on the descriptor itself (fstat), so
 * nothing can change between the check and the open. With `roots` (the folders the host was given,
 * real paths: `serve DIR`), a link in the last component is not followed and the file must really
 * be inside one of them (docs/safe-reads.md); without, the path is as the user named it.
 */
export function openReadOnly(path: string, roots?: readonly string[]): OpenFile | LoadError {
  const opened = openWithin(path, roots, { followLast: roots === undefined });
  if ('refused' in opened) return unreadable(path, opened.refused);
  try {
    return { path, fd: opened.fd, size: opened.size, guard: new FileGuard(path, opened.fd) };
  } catch (e) {
    safeClose(opened.fd);
    return unreadable(path, osReason(e));
  }
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
