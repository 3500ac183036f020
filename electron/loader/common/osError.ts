/**
 * An error the OS gave a file operation, as a plain reason. A module of its own: every module that
 * opens files uses it, safeRead.ts (which opens them all) and openFile.ts (built on it) alike, so
 * neither imports the other for it (docs/import-cycles.md).
 */

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
