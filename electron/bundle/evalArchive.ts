/**
 * An Inspect `.eval` archive (a zip) for the repro bundle's minimizer (docs/bundles.md): its
 * entries read whole through the loader's own reader (electron/loader/inspect/zip.ts: yauzl, the
 * same caps against a bomb, the CRC checked), and a kept set of entries written back as a zip the
 * loader reads. yauzl only reads; the writer is the few fixed headers of APPNOTE 4.3 (no zip64: a
 * bundle's source is at most MINIMIZE_MAX_BYTES, its entries under the loader's caps), each entry
 * deflated, flagged UTF-8, dated 1980-01-01 so that the same kept set gives the same bytes.
 */
import { closeSync, fstatSync, openSync } from 'node:fs';
import { deflateRawSync } from 'node:zlib';
import { DEFAULT_ZIP_CAPS, closeZip, crc32, listZip, readZipEntry } from '../loader/inspect/zip';

export interface ArchiveEntry {
  name: string;
  bytes: Uint8Array;
}

/**
 * Every entry of the archive at `path`, in the directory's order, inflated; undefined when any
 * cannot be read as the loader would (a finding of the listing, an entry refused or damaged): such
 * an archive is kept whole.
 */
export async function readArchive(path: string): Promise<ArchiveEntry[] | undefined> {
  const fd = openSync(path, 'r');
  try {
    const opened = await listZip(fd, fstatSync(fd).size);
    if ('error' in opened) return undefined;
    try {
      if (opened.findings.length > 0) return undefined;
      const out: ArchiveEntry[] = [];
      for (const e of opened.entries) {
        const got = await readZipEntry(opened, e, DEFAULT_ZIP_CAPS);
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
const UTF8_NAMES = 0x0800;
const VERSION = 20;
/** 1980-01-01 00:00 in MS-DOS date and time. */
const DOS_DATE = (1 << 5) | 1;

/** A zip of `entries`, in their order. */
export function writeZip(entries: readonly PackedEntry[]): Uint8Array {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(VERSION, 4);
    local.writeUInt16LE(UTF8_NAMES, 6);
    local.writeUInt16LE(DEFLATE, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(e.crc, 14);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(e.size, 22);
    local.writeUInt16LE(e.name.length, 26);
    local.writeUInt16LE(0, 28);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(VERSION, 4);
    dir.writeUInt16LE(VERSION, 6);
    dir.writeUInt16LE(UTF8_NAMES, 8);
    dir.writeUInt16LE(DEFLATE, 10);
    dir.writeUInt16LE(0, 12);
    dir.writeUInt16LE(DOS_DATE, 14);
    dir.writeUInt32LE(e.crc, 16);
    dir.writeUInt32LE(e.data.length, 20);
    dir.writeUInt32LE(e.size, 24);
    dir.writeUInt16LE(e.name.length, 28);
    // Extra, comment, disk, internal and external attributes: all 0.
    dir.writeUInt32LE(offset, 42);
    parts.push(local, e.name, e.data);
    central.push(dir, e.name);
    offset += local.length + e.name.length + e.data.length;
  }
  const dirBytes = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dirBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...parts, dirBytes, end]));
}
