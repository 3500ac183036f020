/**
 * A record's string value left in its file once the record is parsed (docs/streaming-import.md): an
 * importer that parsed a line keeps, in place of a long message text, where the value's JSON text
 * lies in the file, and reads it back (through a cache budgeted in bytes) when a view, an expand, a
 * search or a hash asks for it. The value's JSON text is found in the line as JSON.stringify writes
 * it, so the bytes read back are those exact bytes and decode to the same string whatever surrounds
 * them; a value written otherwise (other escapes) is not found and stays in memory.
 */
import type { ByteSource } from '../../../shared/index';
import { ContentUnavailableError } from '../../../shared/index';
import { isWellFormed } from '../../../shared/format/utf8';
import { createHash } from 'node:crypto';
import type { ReadSync } from '../common/lines';
import { MessageCache } from '../native/messageCache';
import type { LargeText } from './largeStrings';
import { sourceText } from './largeStrings';

/** What the kept strings of one file share: the file, whether it is still open, and the cache of values read back. */
export interface KeptStrings {
  fd: number;
  read: ReadSync;
  isOpen: () => boolean;
  /** Decoded values (UTF-8) by their offset in the file. */
  cache: MessageCache<Buffer>;
}

/** The kept strings of the file open as `fd`: read back through a cache of at most `cacheBytes` decoded bytes. */
export function keptStrings(fd: number, read: ReadSync, isOpen: () => boolean, cacheBytes: number): KeptStrings {
  return { fd, read, isOpen, cache: new MessageCache<Buffer>(cacheBytes) };
}

/** One value: its JSON text `[start, start + rawLength)` in the file (quotes included), `length` bytes of UTF-8 decoded. */
class KeptString implements ByteSource {
  private hash: string | undefined;

  constructor(
    private readonly kept: KeptStrings,
    private readonly start: number,
    private readonly rawLength: number,
    readonly length: number,
  ) {}

  get sha256(): string {
    this.hash ??= createHash('sha256').update(this.bytes()).digest('hex');
    return this.hash;
  }

  read(start: number, end: number): Uint8Array {
    const from = Math.max(0, Math.min(start, this.length));
    return this.bytes().subarray(from, Math.max(from, Math.min(end, this.length)));
  }

  /** The value's UTF-8, from the cache or read and decoded now. */
  private bytes(): Buffer {
    const { fd, read, isOpen, cache } = this.kept;
    const cached = cache.get(String(this.start));
    if (cached !== undefined) return cached;
    if (!isOpen()) throw new ContentUnavailableError('the session is closed');
    const raw = Buffer.allocUnsafe(this.rawLength);
    let filled = 0;
    while (filled < raw.length) {
      const n = read(fd, raw, filled, raw.length - filled, this.start + filled);
      if (n <= 0) throw new ContentUnavailableError('the file is shorter than when it was indexed');
      filled += n;
    }
    let value: unknown;
    try {
      value = JSON.parse(raw.toString('utf8'));
    } catch {
      value = undefined;
    }
    const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : undefined;
    if (bytes?.length !== this.length) throw new ContentUnavailableError('the content changed since it was indexed');
    cache.set(String(this.start), bytes, bytes.length);
    return bytes;
  }
}

/**
 * `value` (a string of the record on the line whose bytes are `line`, at file offset `lineOffset`)
 * as a text kept in the file, or undefined when it is shorter than `minChars`, not well-formed, or
 * not written in the line as JSON.stringify writes it.
 */
export function keepInFile(kept: KeptStrings, value: string, minChars: number, line: Buffer, lineOffset: number): LargeText | undefined {
  if (value.length < minChars || !isWellFormed(value)) return undefined;
  const raw = Buffer.from(JSON.stringify(value), 'utf8');
  const at = line.indexOf(raw);
  if (at < 0) return undefined;
  return sourceText(new KeptString(kept, lineOffset + at, raw.length, Buffer.byteLength(value, 'utf8')));
}
