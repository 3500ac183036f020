/**
 * Reading an Inspect AI `.eval` (a zip) through yauzl, never a hand-written reader, and never the
 * whole archive: the central directory is listed, and only the entries asked for are read and
 * inflated, each under a size cap. Whatever is wrong with the archive (truncated, a lying or huge
 * entry, a path-traversal name, an unsupported method, a bad CRC) is a finding, never a throw
 * out of these functions, a hang or a write.
 *
 * Inspect AI writes zstd entries (zip method 93) since 2025: yauzl hands their raw bytes over
 * (`decompress: false`) and a zstd decoder inflates them — Node's own where it has one (Node ≥ 22.15,
 * so the desktop app), else fzstd, a pure-JS decoder (the command line on Node 20).
 *
 * Invariants: bytes are read from the descriptor only through `FdReader` (so `ZipCounter` sees
 * every byte range asked of the file); an entry's inflated bytes never exceed `ZipCaps.maxEntryBytes`
 * in memory (its declared size is checked against the cap before any of its data is read, a deflate
 * entry is inflated with node:zlib's `maxOutputLength` set to that size, a zstd entry is decoded into
 * a buffer of its declared size), nor its compressed bytes; the entries read from one archive never inflate to
 * more than `ZipCaps.maxTotalBytes` together; no byte of the file is inflated for two entries
 * (entries whose local header or data overlap another's are not read); a zstd frame's header is
 * checked before a decoder allocates anything for it (zstdFrames.ts).
 */
import { read, readSync } from 'node:fs';
import { Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import { decompress as fzstdDecompress } from 'fzstd';
import yauzl from 'yauzl';
import type { Entry, ZipFile } from 'yauzl';
import type { Finding } from '../../../shared/format/types';
import type { ZstdFrame } from './zstdFrames';
import { ZSTD_WINDOW_FLOOR, zstdFrames } from './zstdFrames';

/** Counts what a load reads of an archive (tests and the bench inject one). */
export interface ZipCounter {
  /** Bytes read from the file (central directory, local headers, entry data). */
  bytesRead: number;
  /** Names of the entries whose data streams were opened, in order. */
  entriesOpened: string[];
}

export interface ZipCaps {
  /** An entry declaring more inflated bytes than this is not read. */
  maxEntryBytes: number;
  /** An entry inflating more than `maxRatio` × its compressed size … */
  maxRatio: number;
  /** … and more than this many bytes looks like a zip bomb and is not read. */
  ratioFloorBytes: number;
  /** The entries read from one archive inflate to at most this many bytes together; an entry that would pass it is not read. */
  maxTotalBytes: number;
  /** Entries listed from the central directory; the ones after are not listed (nor read). */
  maxEntries: number;
  /**
   * Counting a log's samples (each read once, one at a time) inflates at most this many times the
   * archive's own size, and at least `maxTotalBytes`: a real log's JSON compresses some 5–20×.
   */
  maxCountedRatio: number;
  /**
   * An archive of at most this many bytes is read whole in one read, and an entry that inflates to
   * at most this many is inflated on the calling thread: a library of thousands of small `.eval`
   * files otherwise waits on dozens of thread-pool round trips per file, each longer than the work
   * it does (docs/library.md "Scale"). Larger ones are read by ranges and inflated off the thread.
   * Either way reads the same bytes and gives the same answers (0 reads every archive by ranges).
   */
  smallArchiveBytes: number;
}

/**
 * The default caps. 100,000 entries: a log of 10,000 samples run for 5 epochs lists some 50,000
 * (one per sample and epoch, plus the journal); a zip without zip64 holds at most 65,535.
 */
export const DEFAULT_ZIP_CAPS: ZipCaps = { maxEntryBytes: 512 * 1024 * 1024, maxRatio: 200, ratioFloorBytes: 64 * 1024 * 1024, maxTotalBytes: 1024 * 1024 * 1024, maxEntries: 100_000, maxCountedRatio: 100, smallArchiveBytes: 1024 * 1024 };

/** Compression methods by number, for findings (Inspect AI writes deflate, and zstd since 2025). */
const METHOD_NAMES: Record<number, string> = { 0: 'stored', 8: 'deflate', 9: 'deflate64', 12: 'bzip2', 14: 'lzma', 93: 'zstd', 95: 'xz' };

/** One listed entry: its (validated) name and yauzl's entry. */
export interface ZipEntry {
  name: string;
  entry: Entry;
  /** Where the next listed entry's local header starts in the file (by offset): this entry's data must end before it. */
  next?: number;
}

/**
 * A cap on what a run of entry reads inflates to together, other than the archive's own
 * (`ZipCaps.maxTotalBytes` over `OpenedZip.inflated`): counting a log's samples reads each once,
 * under a budget of its own (source.ts).
 */
export interface InflateBudget {
  inflated: number;
  readonly max: number;
  /** What the reads are, in a finding's words ("the samples counted"). */
  readonly what: string;
}

/** Reads an entry's compressed data (the listing's reader, counted like every other read). */
export interface RangeReader {
  readRange(start: number, length: number): Promise<Buffer>;
}

export interface OpenedZip {
  zip: ZipFile;
  reader: RangeReader;
  entries: ZipEntry[];
  findings: Finding[];
  /** The bytes the entries read so far inflated to (against `ZipCaps.maxTotalBytes`). */
  inflated: number;
}

/**
 * A yauzl reader over an open descriptor that counts what it reads; closing it leaves the
 * descriptor open. The class is made when first needed: its base class is yauzl's, and a cold
 * command line that reads no archive loads neither yauzl nor Node's streams.
 */
const makeFdReader = () =>
  class FdReader extends yauzl.RandomAccessReader {
    constructor(
      private readonly fd: number,
      private readonly counter: ZipCounter | undefined,
      /** A small archive's bytes, all of it, read once (`wholeArchive`): every read is served from them. */
      private readonly whole?: Buffer,
    ) {
      super();
      if (whole) this.ahead = { start: 0, bytes: whole };
    }

    /** The bytes of the last small read and those after it: yauzl reads the central directory 46 bytes and a name at a time. */
    private ahead: { start: number; bytes: Buffer } | undefined;

    /** A read of a few bytes (a directory record, a local header), served from the bytes read ahead when they hold it. */
    override read(buffer: Buffer, offset: number, length: number, position: number, callback: (err: Error | null) => void): void {
      const ahead = this.ahead;
      if (ahead && position >= ahead.start && position + length <= ahead.start + ahead.bytes.length) {
        ahead.bytes.copy(buffer, offset, position - ahead.start, position - ahead.start + length);
        // Never synchronously: yauzl lists the next entry from this callback, and 65,535 of them would nest.
        setImmediate(callback, null);
        return;
      }
      const chunk = Buffer.allocUnsafe(Math.max(length, READ_AHEAD_BYTES));
      read(this.fd, chunk, 0, chunk.length, position, (err, got) => {
        if (err) return callback(err);
        if (this.counter) this.counter.bytesRead += got;
        if (got < length) return callback(new Error(`unexpected end of file at byte ${position + got}`));
        chunk.copy(buffer, offset, 0, length);
        this.ahead = { start: position, bytes: chunk.subarray(0, got) };
        callback(null);
      });
    }

    /** The `length` bytes at `start`, in one read (an entry's compressed data: inflated in one call). */
    readRange(start: number, length: number): Promise<Buffer> {
      const { fd, counter, whole } = this;
      if (whole) return start + length <= whole.length ? Promise.resolve(Buffer.from(whole.subarray(start, start + length))) : Promise.reject(new Error(`unexpected end of file at byte ${Math.max(start, whole.length)}`));
      const bytes = Buffer.allocUnsafe(length);
      return new Promise((resolve, reject) => {
        const more = (filled: number): void => {
          if (filled === length) return resolve(bytes);
          read(fd, bytes, filled, length - filled, start + filled, (err, got) => {
            if (err) return reject(err);
            if (counter) counter.bytesRead += got;
            if (got === 0) return reject(new Error(`unexpected end of file at byte ${start + filled}`));
            more(filled + got);
          });
        };
        more(0);
      });
    }

    override _readStreamForRange(start: number, end: number): Readable {
      // Not fs.createReadStream: destroying one closes its descriptor, and yauzl destroys the streams it is done with.
      const { fd, counter } = this;
      let pos = start;
      return new Readable({
        highWaterMark: 1024 * 1024,
        read(size) {
          const n = Math.min(size, end - pos);
          if (n <= 0) {
            this.push(null);
            return;
          }
          const buf = Buffer.allocUnsafe(n);
          read(fd, buf, 0, n, pos, (err, got) => {
            if (err) this.destroy(err);
            else if (got === 0) this.destroy(new Error(`unexpected end of file at byte ${pos}`));
            else {
              pos += got;
              if (counter) counter.bytesRead += got;
              this.push(buf.subarray(0, got));
            }
          });
        },
      });
    }
  };

/** How much a small read reads ahead: a central directory of 65,535 entries is then some 300 reads, not 131,070. */
const READ_AHEAD_BYTES = 16 * 1024;

let fdReaderClass: ReturnType<typeof makeFdReader> | undefined;

function newFdReader(fd: number, counter: ZipCounter | undefined, whole?: Buffer): InstanceType<ReturnType<typeof makeFdReader>> {
  fdReaderClass ??= makeFdReader();
  return new fdReaderClass(fd, counter, whole);
}

/** The whole of a small archive (ZipCaps.smallArchiveBytes), or undefined when it is larger or cannot be read so (the ranged reads then say why). */
function wholeArchive(fd: number, size: number, counter: ZipCounter | undefined, caps: ZipCaps): Buffer | undefined {
  if (size > caps.smallArchiveBytes) return undefined;
  const bytes = Buffer.allocUnsafe(size);
  let filled = 0;
  try {
    while (filled < size) {
      const got = readSync(fd, bytes, filled, size - filled, filled);
      if (got === 0) return undefined;
      filled += got;
    }
  } catch {
    return undefined;
  } finally {
    if (counter) counter.bytesRead += filled;
  }
  return bytes;
}

const inflateRawAsync = (raw: Buffer, options: zlib.ZlibOptions): Promise<Buffer> => new Promise((resolve, reject) => zlib.inflateRaw(raw, options, (err, out) => (err ? reject(err) : resolve(out))));
/**
 * An entry stating at most this many bytes is inflated at once on the calling thread; a larger one
 * on the thread pool. By the entry's size, not by how its archive was read (whole or by ranges,
 * ZipCaps.smallArchiveBytes): the two inflaters can name a damaged stream's fault differently (one
 * that runs past its stated size and ends early: "unexpected end of file" at once, "too many bytes"
 * on the pool), and an entry gets one answer whichever way its archive is read.
 */
const SYNC_INFLATE_BYTES = 1024 * 1024;
/**
 * On the pool, the whole entry is inflated in one trip: an output buffer of its stated size and one
 * byte more (`chunkSize`; node:zlib's default of 16 KiB made one trip to the pool and back per 16
 * KiB, and the calling thread waited on them: docs/formats/inspect.md "Counting every sample").
 */
export const inflateRaw = (raw: Buffer, stated: number): Promise<Buffer> | Buffer =>
  stated <= SYNC_INFLATE_BYTES ? zlib.inflateRawSync(raw, { maxOutputLength: Math.max(1, stated) }) : inflateRawAsync(raw, { maxOutputLength: Math.max(1, stated), chunkSize: stated + 1 });

const finding = (message: string): Finding => ({ code: 'malformed_line', severity: 'error', message });

/**
 * Lists the archive's entries from its central directory (no entry data is read). A name yauzl
 * rejects (`..`, absolute, backslash) is left out with a finding, and so is an entry whose local
 * header lies inside another's bytes (`withoutOverlaps`). A damaged central directory stops the
 * listing with a finding, as does `caps.maxEntries`: the entries listed before are kept. Never
 * rejects; answers `{ error }` when the archive cannot be opened at all (not a zip, truncated
 * before its directory).
 */
export async function listZip(fd: number, size: number, counter?: ZipCounter, caps: ZipCaps = DEFAULT_ZIP_CAPS): Promise<OpenedZip | { error: string }> {
  let zip: ZipFile;
  const reader = newFdReader(fd, counter, wholeArchive(fd, size, counter, caps));
  try {
    zip = await new Promise<ZipFile>((resolve, reject) => {
      // decodeStrings off: a bad name must not stop the listing (yauzl's own check is then asked per name).
      yauzl.fromRandomAccessReader(reader, size, { autoClose: false, lazyEntries: true, decodeStrings: false, validateEntrySizes: true }, (err, z) => (err ? reject(err) : resolve(z)));
    });
  } catch (e) {
    return { error: (e as Error).message };
  }
  const entries: ZipEntry[] = [];
  const findings: Finding[] = [];
  await new Promise<void>((resolve) => {
    zip.on('entry', (entry: Entry) => {
      const raw = entry.fileName as unknown as Buffer;
      let name: string;
      try {
        name = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, raw, entry.extraFields, true);
      } catch (e) {
        findings.push(finding(`an archive entry's name cannot be decoded (${(e as Error).message}); it is ignored`));
        zip.readEntry();
        return;
      }
      const bad = yauzl.validateFileName(name);
      if (bad !== null) findings.push(finding(`archive entry ${JSON.stringify(name.slice(0, 200))} is ignored: ${bad}`));
      else entries.push({ name, entry });
      if (zip.entriesRead >= caps.maxEntries && zip.entriesRead < zip.entryCount) {
        findings.push(finding(`the archive lists ${zip.entryCount} entries, over the cap of ${caps.maxEntries}; the ${zip.entryCount - zip.entriesRead} after entry ${zip.entriesRead} are not read`));
        resolve();
        return;
      }
      zip.readEntry();
    });
    zip.on('end', () => resolve());
    zip.on('error', (e: Error) => {
      findings.push(finding(`the archive's central directory is damaged after ${entries.length} entries (${e.message}); the rest is not read`));
      resolve();
    });
    zip.readEntry();
  });
  return { zip, reader, entries: withoutOverlaps(entries, findings), findings, inflated: 0 };
}

/** Overlapping entries named one by one in findings; the ones after are counted in one more. */
const MAX_NAMED_OVERLAPS = 20;

/**
 * The entries whose bytes overlap no other's, each told where the next one starts. An entry's
 * bytes run from its local header to the end of its data: at least 30 + its name + its compressed
 * size. Sorted by where they start (the directory's order is not trusted: a crafted one lists
 * entries out of order), an entry that starts before the previous one's bytes end shares bytes
 * with it: the way a zip bomb makes a few compressed bytes inflate once per entry. The first at a
 * place is kept; each later one is ignored with a finding.
 */
function withoutOverlaps(entries: ZipEntry[], findings: Finding[]): ZipEntry[] {
  const byOffset = entries.map((e, k) => ({ e, k, start: e.entry.relativeOffsetOfLocalHeader })).sort((a, b) => a.start - b.start || a.k - b.k);
  const overlapping = new Set<ZipEntry>();
  let previous: { e: ZipEntry; start: number; end: number } | undefined;
  let named = 0;
  for (const { e, start } of byOffset) {
    if (previous && start < previous.end) {
      overlapping.add(e);
      if (named++ < MAX_NAMED_OVERLAPS) {
        findings.push(finding(`archive entry ${e.name} is ignored: its local header (byte ${start}) lies inside the bytes of entry ${previous.e.name} (bytes ${previous.start}–${previous.end}); entries that share bytes make the same compressed data inflate again for each (a zip bomb)`));
      }
      continue;
    }
    if (previous) previous.e.next = start;
    previous = { e, start, end: start + 30 + e.entry.fileNameLength + e.entry.compressedSize };
  }
  if (named > MAX_NAMED_OVERLAPS) findings.push(finding(`${named - MAX_NAMED_OVERLAPS} more archive entries are ignored: their local headers lie inside another entry's bytes, as above`));
  return overlapping.size === 0 ? entries : entries.filter((e) => !overlapping.has(e));
}

/** Zip compression method 93: Zstandard (APPNOTE 6.3.7). */
const ZSTD = 93;

/** Node's own zstd decoder, where this Node has one (22.15 and later); asked when an entry is read, so zlib loads only then. */
type NativeZstd = (raw: Buffer, options: { maxOutputLength: number; params: Record<number, number> }, callback: (err: Error | null, out: Buffer) => void) => void;
const nativeZstd = (): { decompress: NativeZstd; windowLogMax: number } | undefined => {
  const z = zlib as unknown as { zstdDecompress?: NativeZstd; constants: { ZSTD_d_windowLogMax?: number } };
  const windowLogMax = z.constants.ZSTD_d_windowLogMax;
  return z.zstdDecompress && windowLogMax !== undefined ? { decompress: z.zstdDecompress, windowLogMax } : undefined;
};

/**
 * The decoded bytes of a zstd entry whose frames `zstdFrames` passed, into exactly `stated` bytes:
 * neither decoder can make more. Node's is told `maxOutputLength` (it fails past it) and the
 * window it may allocate; fzstd decodes each frame straight into its part of one buffer of the
 * stated size, so it allocates no window of its own and moves none at each block (its streaming
 * decoder does both, for whatever window a header declares). A frame before the last must state
 * its content size (to know where the next one's output starts); whatever goes wrong is an error.
 */
async function zstdDecoded(raw: Buffer, frames: readonly ZstdFrame[], stated: number): Promise<Buffer> {
  const native = nativeZstd();
  if (native) {
    const windowLog = Math.ceil(Math.log2(Math.max(stated, ZSTD_WINDOW_FLOOR)));
    const out = await new Promise<Buffer>((resolve, reject) =>
      native.decompress(raw, { maxOutputLength: Math.max(1, stated), params: { [native.windowLogMax]: windowLog } }, (err, got) => (err ? reject(err) : resolve(got))),
    );
    if (out.length > stated) throw new Error(`it inflates past ${stated} bytes`);
    return out;
  }
  const out = new Uint8Array(stated);
  let at = 0;
  frames.forEach((f, k) => {
    const size = f.contentSize ?? (k === frames.length - 1 ? stated - at : undefined);
    if (size === undefined) throw new Error(`its frame at byte ${f.start} does not state its content size, and another frame follows`);
    if (size > 0) fzstdDecompress(raw.subarray(f.start, f.end), out.subarray(at, at + size));
    at += size;
  });
  return Buffer.from(out.buffer, out.byteOffset, out.length);
}

/** Why an entry is not read, before any of its data is: its method or its declared size. */
export function entryRefusal(e: ZipEntry, caps: ZipCaps): string | undefined {
  const { entry } = e;
  if (entry.isEncrypted()) return `archive entry ${e.name} is encrypted; it is not read`;
  if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8 && entry.compressionMethod !== ZSTD) {
    const m = entry.compressionMethod;
    return `archive entry ${e.name} uses compression method ${m}${METHOD_NAMES[m] ? ` (${METHOD_NAMES[m]})` : ''}, which this reader does not support (stored, deflate and zstd are); it is not read`;
  }
  if (entry.uncompressedSize > caps.maxEntryBytes) return `archive entry ${e.name} declares ${entry.uncompressedSize} bytes, over the cap of ${caps.maxEntryBytes}; it is not read`;
  if (entry.uncompressedSize > caps.ratioFloorBytes && entry.uncompressedSize > caps.maxRatio * Math.max(1, entry.compressedSize)) {
    return `archive entry ${e.name} declares ${entry.uncompressedSize} bytes from ${entry.compressedSize} compressed (over ${caps.maxRatio}×): a likely zip bomb; it is not read`;
  }
  return undefined;
}

/** CRC-32 tables for slicing by 8 (eight bytes per step: the check costs a fraction of inflating), made at the first check. */
let crcTables: Int32Array | undefined;

const makeCrcTables = (): Int32Array => {
  const t = new Int32Array(256 * 8);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  for (let n = 0; n < 256; n++) for (let k = 1; k < 8; k++) t[k * 256 + n] = ((t[(k - 1) * 256 + n] as number) >>> 8) ^ (t[(t[(k - 1) * 256 + n] as number) & 0xff] as number);
  return t;
};

/**
 * node:zlib's CRC-32, where this Node has it (20.15 and 22.2 on): about four times `slicedCrc32`
 * (docs/formats/inspect.md "Counting every sample"). Asked at the first check, so zlib loads only then.
 */
let zlibCrc32: ((data: Uint8Array, value?: number) => number) | null | undefined;

/** CRC-32 (the zip one) of `buf` continuing from `crc` (start with 0): node:zlib's where there is one, else `slicedCrc32`. */
export function crc32(buf: Uint8Array, crc = 0): number {
  zlibCrc32 ??= (zlib as unknown as { crc32?: (data: Uint8Array, value?: number) => number }).crc32 ?? null;
  return zlibCrc32 ? zlibCrc32(buf, crc) : slicedCrc32(buf, crc);
}

/** CRC-32 (the zip one) of `buf` continuing from `crc`, in JavaScript (slicing by 8). */
export function slicedCrc32(buf: Uint8Array, crc = 0): number {
  const t = (crcTables ??= makeCrcTables());
  let c = ~crc;
  let i = 0;
  const end8 = buf.length - (buf.length % 8);
  for (; i < end8; i += 8) {
    const lo = c ^ (buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24));
    c =
      t[7 * 256 + (lo & 0xff)]! ^
      t[6 * 256 + ((lo >>> 8) & 0xff)]! ^
      t[5 * 256 + ((lo >>> 16) & 0xff)]! ^
      t[4 * 256 + (lo >>> 24)]! ^
      t[3 * 256 + buf[i + 4]!]! ^
      t[2 * 256 + buf[i + 5]!]! ^
      t[256 + buf[i + 6]!]! ^
      t[buf[i + 7]!]!;
  }
  for (; i < buf.length; i++) c = t[(c ^ buf[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/**
 * The inflated bytes of one entry, or why not (a finding's message). Its compressed bytes are read
 * in one read (at most the cap) and inflated in one call into at most its declared size (≤ the
 * cap): node:zlib's `maxOutputLength` fails a deflate stream that would make more, and a zstd entry
 * is decoded into a buffer of that size. No stream, no chunks to join: one sample's bytes are held
 * once compressed and once inflated. The entry's data must end before the next entry's
 * local header, and the entries read from one archive must not pass `caps.maxTotalBytes` together.
 * The CRC-32 of the bytes is checked against the directory's.
 */
export async function readZipEntry(opened: OpenedZip, e: ZipEntry, caps: ZipCaps, counter?: ZipCounter, budget?: InflateBudget): Promise<{ bytes: Buffer } | { error: string }> {
  const refused = entryRefusal(e, caps);
  if (refused) return { error: refused };
  const stated = e.entry.uncompressedSize;
  const sofar = budget ? budget.inflated : opened.inflated;
  const max = budget ? budget.max : caps.maxTotalBytes;
  if (sofar + stated > max) {
    return { error: `archive entry ${e.name} is not read: with its ${stated} bytes, ${budget ? budget.what : 'the entries read from this archive'} would inflate to ${sofar + stated}, over the cap of ${max} for one archive` };
  }
  const compressed = e.entry.compressedSize;
  // Its compressed bytes are read whole: a deflated entry's are fewer than it inflates to, a stored entry's as many.
  if (compressed > caps.maxEntryBytes) return { error: `archive entry ${e.name} has ${compressed} compressed bytes, over the cap of ${caps.maxEntryBytes}; it is not read` };
  counter?.entriesOpened.push(e.name);
  let raw: Buffer;
  try {
    const { fileDataStart } = await opened.zip.readLocalFileHeaderPromise(e.entry, { minimal: true });
    const dataEnd = fileDataStart + compressed;
    if (e.next !== undefined && dataEnd > e.next) return { error: `archive entry ${e.name} is not read: its data (bytes ${fileDataStart}–${dataEnd}) runs into the next entry's local header at byte ${e.next}` };
    raw = await opened.reader.readRange(fileDataStart, compressed);
  } catch (err) {
    return { error: `archive entry ${e.name} cannot be read: ${(err as Error).message}` };
  }
  if (budget) budget.inflated += stated;
  else opened.inflated += stated;
  let bytes: Buffer;
  const method = e.entry.compressionMethod;
  if (method === ZSTD) {
    const frames = zstdFrames(raw, stated);
    if ('error' in frames) return { error: `archive entry ${e.name} ${frames.hostile ? 'is not read' : 'is damaged'}: its zstd data ${frames.error}` };
    try {
      bytes = await zstdDecoded(raw, frames.frames, stated);
    } catch (err) {
      return { error: `archive entry ${e.name} is damaged: ${err instanceof Error ? err.message : String(err)}` };
    }
  } else if (method === 8) {
    try {
      // One call, never more than the stated size: a stream that would inflate past it fails.
      bytes = await inflateRaw(raw, stated);
    } catch (err) {
      const past = (err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';
      return { error: past ? `archive entry ${e.name} is damaged: too many bytes: it inflates past the ${stated} its directory declares; it is not read` : `archive entry ${e.name} is damaged: ${(err as Error).message}` };
    }
  } else bytes = raw;
  if (bytes.length !== stated) return { error: `archive entry ${e.name} is damaged: it ${method === 0 ? 'stores' : 'inflates to'} ${bytes.length} bytes, not the ${stated} its directory declares; it is not read` };
  const crc = crc32(bytes);
  if (crc !== e.entry.crc32) return { error: `archive entry ${e.name} fails its CRC-32 check (the directory says ${e.entry.crc32.toString(16)}, its bytes give ${crc.toString(16)}); it is not read` };
  return { bytes };
}

export function closeZip(opened: OpenedZip): void {
  try {
    opened.zip.close();
  } catch {
    // The reader's close only ends yauzl's bookkeeping: the descriptor is the source's to close.
  }
}

/** The first local file header's name, read from the file's first bytes, or undefined when it is not a zip's. */
export function firstEntryName(head: Buffer): string | undefined {
  // A zip starts with a local file header: signature, then the name length at 26 and the name at 30.
  if (head.length < 30 || head.readUInt32LE(0) !== 0x04034b50) return undefined;
  const n = head.readUInt16LE(26);
  if (head.length < 30 + n) return undefined;
  return head.subarray(30, 30 + n).toString('utf8');
}
