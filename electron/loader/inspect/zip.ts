/**
 * Reading an Inspect AI `.eval` (a zip) through yauzl, never a hand-written reader, and never the
 * whole archive: the central directory is listed, and only the entries asked for are streamed and
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
 * in memory (yauzl's `validateEntrySizes` stops a deflate stream that inflates past its declared
 * size, a zstd entry is stopped here at its declared size, and the declared size is checked against
 * the cap before the stream is opened).
 */
import { read } from 'node:fs';
import { Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import { Decompress as ZstdDecompress } from 'fzstd';
import yauzl from 'yauzl';
import type { Entry, ZipFile } from 'yauzl';
import type { Finding } from '../../../shared/types';

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
}

export const DEFAULT_ZIP_CAPS: ZipCaps = { maxEntryBytes: 512 * 1024 * 1024, maxRatio: 200, ratioFloorBytes: 64 * 1024 * 1024 };

/** Compression methods by number, for findings (Inspect AI writes deflate, and zstd since 2025). */
const METHOD_NAMES: Record<number, string> = { 0: 'stored', 8: 'deflate', 9: 'deflate64', 12: 'bzip2', 14: 'lzma', 93: 'zstd', 95: 'xz' };

/** One listed entry: its (validated) name and yauzl's entry. */
export interface ZipEntry {
  name: string;
  entry: Entry;
}

export interface OpenedZip {
  zip: ZipFile;
  entries: ZipEntry[];
  findings: Finding[];
}

/**
 * A yauzl reader over an open descriptor that counts what it reads; closing it leaves the
 * descriptor open. The class is made when first needed: its base class is yauzl's, and a cold
 * command line that reads no archive loads neither yauzl nor Node's streams (issue 16).
 */
const makeFdReader = () =>
  class FdReader extends yauzl.RandomAccessReader {
    constructor(
      private readonly fd: number,
      private readonly counter: ZipCounter | undefined,
    ) {
      super();
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

let fdReaderClass: ReturnType<typeof makeFdReader> | undefined;

function newFdReader(fd: number, counter: ZipCounter | undefined): InstanceType<ReturnType<typeof makeFdReader>> {
  fdReaderClass ??= makeFdReader();
  return new fdReaderClass(fd, counter);
}

const finding = (message: string): Finding => ({ code: 'malformed_line', severity: 'error', message });

/**
 * Lists the archive's entries from its central directory (no entry data is read). A name yauzl
 * rejects (`..`, absolute, backslash) is left out with a finding. A damaged central directory
 * stops the listing with a finding: the entries listed before it are kept. Never rejects; answers
 * `{ error }` when the archive cannot be opened at all (not a zip, truncated before its directory).
 */
export async function listZip(fd: number, size: number, counter?: ZipCounter): Promise<OpenedZip | { error: string }> {
  let zip: ZipFile;
  try {
    zip = await new Promise<ZipFile>((resolve, reject) => {
      // decodeStrings off: a bad name must not stop the listing (yauzl's own check is then asked per name).
      yauzl.fromRandomAccessReader(newFdReader(fd, counter), size, { autoClose: false, lazyEntries: true, decodeStrings: false, validateEntrySizes: true }, (err, z) => (err ? reject(err) : resolve(z)));
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
      zip.readEntry();
    });
    zip.on('end', () => resolve());
    zip.on('error', (e: Error) => {
      findings.push(finding(`the archive's central directory is damaged after ${entries.length} entries (${e.message}); the rest is not read`));
      resolve();
    });
    zip.readEntry();
  });
  return { zip, entries, findings };
}

/** Zip compression method 93: Zstandard (APPNOTE 6.3.7). */
const ZSTD = 93;

/** Node's own streaming zstd decoder, where this Node has one (22.15 and later); asked when an entry is read, so zlib loads only then. */
const nativeZstd = (): (() => NodeJS.ReadWriteStream) | undefined => (zlib as unknown as { createZstdDecompress?: () => NodeJS.ReadWriteStream }).createZstdDecompress;

/** Raw zstd bytes handed to fzstd at a time: one call can then make at most some 32 MiB (256 RLE blocks of 128 KiB). */
const ZSTD_SLICE_BYTES = 1024;

/**
 * The decoded bytes of a raw zstd stream, as a stream, stopped with an error once they pass
 * `limit` (a frame that lies about its size, a zstd bomb). fzstd decodes as slices arrive; a
 * malformed frame becomes the stream's error (a finding, like a damaged deflate entry).
 */
function zstdDecoded(raw: Readable, limit: number): Readable {
  const native = nativeZstd();
  if (native) return raw.pipe(native()) as unknown as Readable;
  const out = new Readable({ read() {} });
  let produced = 0;
  let failed = false;
  const fail = (err: unknown): void => {
    failed = true;
    raw.destroy();
    out.destroy(err instanceof Error ? err : new Error(String(err)));
  };
  const decoder = new ZstdDecompress((data) => {
    produced += data.length;
    // A copy: the decoder may reuse its window for the next block.
    out.push(Buffer.from(data));
  });
  raw.on('data', (chunk: Buffer) => {
    try {
      for (let at = 0; at < chunk.length && !failed; at += ZSTD_SLICE_BYTES) {
        decoder.push(chunk.subarray(at, at + ZSTD_SLICE_BYTES));
        if (produced > limit) fail(new Error(`it inflates past ${limit} bytes`));
      }
    } catch (err) {
      fail(err);
    }
  });
  raw.on('end', () => {
    if (failed) return;
    try {
      decoder.push(new Uint8Array(0), true);
      out.push(null);
    } catch (err) {
      fail(new Error(`the zstd stream ends early (${err instanceof Error ? err.message : String(err)})`));
    }
  });
  raw.on('error', fail);
  out.on('close', () => raw.destroy());
  return out;
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

/** CRC-32 (the zip one) of `buf` continuing from `crc` (start with 0). */
export function crc32(buf: Uint8Array, crc = 0): number {
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
 * The inflated bytes of one entry, or why not (a finding's message). Streams the entry: at most its
 * declared size (≤ the cap) is held, and a stream that inflates past it is stopped by yauzl. The
 * CRC-32 of the bytes is checked against the directory's.
 */
export async function readZipEntry(opened: OpenedZip, e: ZipEntry, caps: ZipCaps, counter?: ZipCounter): Promise<{ bytes: Buffer } | { error: string }> {
  const refused = entryRefusal(e, caps);
  if (refused) return { error: refused };
  counter?.entriesOpened.push(e.name);
  const zstd = e.entry.compressionMethod === ZSTD;
  let stream: Readable;
  try {
    // A zstd entry comes raw from yauzl (it inflates deflate only) and is decoded here.
    const raw = await new Promise<Readable>((resolve, reject) => opened.zip.openReadStream(e.entry, zstd ? { decodeFileData: false } : {}, (err, s) => (err ? reject(err) : resolve(s))));
    stream = zstd ? zstdDecoded(raw, Math.min(caps.maxEntryBytes, e.entry.uncompressedSize)) : raw;
  } catch (err) {
    return { error: `archive entry ${e.name} cannot be read: ${(err as Error).message}` };
  }
  const chunks: Buffer[] = [];
  let total = 0;
  let crc = 0;
  // yauzl checks a deflate entry's size against the directory's; a zstd one is checked here.
  const limit = zstd ? Math.min(caps.maxEntryBytes, e.entry.uncompressedSize) : caps.maxEntryBytes;
  try {
    for await (const chunk of stream) {
      const b = chunk as Buffer;
      if (zstd && total + b.length > limit) {
        stream.destroy();
        return { error: `archive entry ${e.name} inflates past its declared ${e.entry.uncompressedSize} bytes; it is not read` };
      }
      total += b.length;
      if (total > caps.maxEntryBytes) {
        stream.destroy();
        return { error: `archive entry ${e.name} inflates past the cap of ${caps.maxEntryBytes} bytes; it is not read` };
      }
      crc = crc32(b, crc);
      chunks.push(b);
    }
  } catch (err) {
    return { error: `archive entry ${e.name} is damaged: ${(err as Error).message}` };
  }
  if (zstd && total !== e.entry.uncompressedSize) return { error: `archive entry ${e.name} inflates to ${total} bytes, not the ${e.entry.uncompressedSize} its directory declares; it is not read` };
  if (crc !== e.entry.crc32) return { error: `archive entry ${e.name} fails its CRC-32 check (the directory says ${e.entry.crc32.toString(16)}, its bytes give ${crc.toString(16)}); it is not read` };
  return { bytes: Buffer.concat(chunks, total) };
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
