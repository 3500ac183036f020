/**
 * Opening a session file for reading, whatever its format: read-only, non-blocking, a regular file
 * only, with a guard that later tells whether it changed on disk. OS errors become plain reasons
 * (osError.ts).
 */
import { closeSync, statSync } from 'node:fs';
import { FileGuard } from './fileGuard';
import { osReason } from './osError';
import { openWithin } from './safeRead';
import type { LoadError, OpenFile } from './source';

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
    // Samples are hashed only for a file read after its pass (session.ts, fileGuard.ts).
    return { path, fd: opened.fd, size: opened.size, guard: new FileGuard(path, opened.fd, undefined, false) };
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
