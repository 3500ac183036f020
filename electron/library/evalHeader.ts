/**
 * An Inspect `.eval` log's header fields for its library entry (docs/library.md): the archive's
 * `header.json` (a finished run) or `_journal/start.json` (one still running), read through the
 * loader's zip reader with its caps, at most HEADER_MAX_BYTES inflated. Read while the file is
 * indexed (a zip's directory is at its end, not in its head).
 */
import { closeSync } from 'node:fs';
import type { HeadInfo } from './head';
import { headInfoOfInspectLog } from './head';
import { DEFAULT_ZIP_CAPS, closeZip, listZip, readZipEntry } from '../loader/inspect/zip';
import { openWithin } from '../loader/common/safeRead';

const HEADER_MAX_BYTES = 16 * 1024 * 1024;

/** The header's entry fields, or undefined when the archive has none to read. */
export async function evalHeaderInfo(path: string, root: string): Promise<HeadInfo | undefined> {
  const opened = openWithin(path, [root]);
  if ('refused' in opened) return undefined;
  try {
    const zip = await listZip(opened.fd, opened.size);
    if ('error' in zip) return undefined;
    try {
      const entry = zip.entries.find((e) => e.name === 'header.json') ?? zip.entries.find((e) => e.name === '_journal/start.json');
      if (!entry || entry.entry.uncompressedSize > HEADER_MAX_BYTES) return undefined;
      const got = await readZipEntry(zip, entry, { ...DEFAULT_ZIP_CAPS, maxEntryBytes: HEADER_MAX_BYTES });
      if ('error' in got) return undefined;
      return headInfoOfInspectLog(JSON.parse(got.bytes.toString('utf8')) as unknown);
    } finally {
      closeZip(zip);
    }
  } catch {
    return undefined;
  } finally {
    closeSync(opened.fd);
  }
}
