/**
 * An Inspect `.eval` archive (a zip) for the repro bundle's minimizer (docs/bundles.md): its
 * entries read whole through the loader's own reader (electron/loader/inspect/zip.ts: yauzl, the
 * same caps against a bomb, the CRC checked), and a kept set of entries written back as a zip the
 * loader reads. yauzl only reads; the writer is the few fixed headers of APPNOTE 4.3 (no zip64: a
 * bundle's source is at most MINIMIZE_MAX_BYTES, its entries under the loader's caps), each entry
 * deflated, flagged UTF-8, undated, so that the same kept set gives the same bytes.
 */
import { closeSync, fstatSync, openSync } from 'node:fs';
import { deflateRawSync } from 'node:zlib';
import { DEFAULT_ZIP_CAPS, closeZip, crc32, listZip, readZipEntry } from '../loader/inspect/zip';

/** The most an archive's entries may inflate to together for the minimizer (it holds them all, and re-deflates the sample at each oracle call): a larger one is kept whole. */
export const MAX_ARCHIVE_INFLATED_BYTES = 256 * 1024 * 1024;
const CAPS = { ...DEFAULT_ZIP_CAPS, maxTotalBytes: MAX_ARCHIVE_INFLATED_BYTES };

export interface ArchiveEntry {
  name: string;
  bytes: Uint8Array;
}

/**
 * Every entry of the archive at `path`, in the directory's order, inflated; undefined when any
 * cannot be read as the loader would (a finding of the listing, an entry refused or damaged, more
 * than MAX_ARCHIVE_INFLATED_BYTES in all): such an archive is kept whole.
 */
export async function readArchive(path: string): Promise<ArchiveEntry[] | undefined> {
  const fd = openSync(path, 'r');
  try {
    const opened = await listZip(fd, fstatSync(fd).size, undefined, CAPS);
    if ('error' in opened) return undefined;
    try {
      if (opened.findings.length > 0) return undefined;
      const out: ArchiveEntry[] = [];
      for (const e of opened.entries) {
        const got = await readZipEntry(opened, e, CAPS);
        if ('error' in got) return undefined;
        out.push({ name: e.name, bytes: new Uint8Array(got.bytes) });
      }
      return out;
    } finally {
      closeZip(opened);
    }
  } finally {
    closeSync(fd);
  }
}

/** One entry ready to be written: its name, CRC-32, sizes and deflated bytes. */
export interface PackedEntry {
  name: Buffer;
  crc: number;
  size: number;
  data: Buffer;
}

export function packEntry(entry: ArchiveEntry): PackedEntry {
  return { name: Buffer.from(entry.name, 'utf8'), crc: crc32(entry.bytes), size: entry.bytes.length, data: deflateRawSync(entry.bytes) };
}

const DEFLATE = 8;

/** A little-endian record of `length` bytes: each field `[offset, width in bytes, value]`, the rest 0. */
function record(length: number, fields: readonly [number, 2 | 4, number][]): Buffer {
  const h = Buffer.alloc(length);
  for (const [at, width, value] of fields) {
    if (width === 2) h.writeUInt16LE(value, at);
    else h.writeUInt32LE(value, at);
  }
  return h;
}

/** A local file header (30 bytes; the name follows). Version 2.0, UTF-8 names, no date (deterministic bytes). */
export function localHeader(method: number, crc: number, compressed: number, size: number, nameLength: number): Buffer {
  return record(30, [[0, 4, 0x04034b50], [4, 2, 20], [6, 2, 0x800], [8, 2, method], [14, 4, crc], [18, 4, compressed], [22, 4, size], [26, 2, nameLength]]);
}

/** A central directory header (46 bytes; the name follows) for the entry whose local header is at `offset`. */
export function centralHeader(method: number, crc: number, compressed: number, size: number, nameLength: number, offset: number): Buffer {
  return record(46, [[0, 4, 0x02014b50], [4, 2, 20], [6, 2, 20], [8, 2, 0x800], [10, 2, method], [16, 4, crc], [20, 4, compressed], [24, 4, size], [28, 2, nameLength], [42, 4, offset]]);
}

/** The end of central directory record. */
export function endRecord(count: number, cdLength: number, cdStart: number): Buffer {
  return record(22, [[0, 4, 0x06054b50], [8, 2, count], [10, 2, count], [12, 4, cdLength], [16, 4, cdStart]]);
}

/** A zip of `entries`, in their order. */
export function writeZip(entries: readonly PackedEntry[]): Uint8Array {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const local = localHeader(DEFLATE, e.crc, e.data.length, e.size, e.name.length);
    parts.push(local, e.name, e.data);
    central.push(centralHeader(DEFLATE, e.crc, e.data.length, e.size, e.name.length, offset), e.name);
    offset += local.length + e.name.length + e.data.length;
  }
  const dirBytes = Buffer.concat(central);
  return new Uint8Array(Buffer.concat([...parts, dirBytes, endRecord(entries.length, dirBytes.length, offset)]));
}
