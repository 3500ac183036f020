/**
 * A file found beside a session (a Claude Code `tool-results/` output) read back by range when asked,
 * instead of held whole as a string for the session's life (docs/streaming-import.md). Each read
 * opens the file as it was first read (`openWithin`, electron/loader/common/safeRead.ts: inside the
 * roots, never through a last link, non-blocking, a regular file) and finds it as long as it was,
 * else the content can no longer be read. Its hash is never known ahead: whoever verifies it hashes
 * what it reads, so a file rewritten since is a hash mismatch, never served as verified.
 */
import { basename } from 'node:path';
import type { ByteSource } from '../../../shared/index';
import { ContentUnavailableError } from '../../../shared/index';
import { findAllOf } from './findBytes';
import { readExactly } from '../common/lines';
import { safeClose } from '../common/openFile';
import { openWithin } from '../common/safeRead';

/** A companion file this long or longer is read back when asked rather than held (each read opens it again). */
export const COMPANION_READ_BACK_BYTES = 4096;

/** The source of the `length` bytes of the file at `path`, read within `roots` at each read. */
export function companionSource(path: string, roots: readonly string[], length: number): ByteSource {
  const name = basename(path);
  const readInto = (start: number, end: number, target: Uint8Array, at: number): void => {
    const from = Math.max(0, Math.min(start, length));
    const to = Math.max(from, Math.min(end, length));
    const opened = openWithin(path, roots);
    if ('refused' in opened) throw new ContentUnavailableError(`${name} can no longer be read: ${opened.refused}`);
    try {
      if (opened.size !== length) throw new ContentUnavailableError(`${name} is ${opened.size} bytes now, not the ${length} it was when read`);
      if (!readExactly(opened.fd, from, to - from, undefined, Buffer.from(target.buffer, target.byteOffset + at, to - from))) {
        throw new ContentUnavailableError(`${name} is shorter than when it was read`);
      }
    } finally {
      safeClose(opened.fd);
    }
  };
  return {
    length,
    read(start, end) {
      const from = Math.max(0, Math.min(start, length));
      const to = Math.max(from, Math.min(end, length));
      const out = Buffer.allocUnsafe(to - from);
      readInto(from, to, out, 0);
      return out;
    },
    readInto,
    findAll: findAllOf(readInto, length),
  };
}
