/**
 * The native format (`supercode`, SPEC §3) behind the source seam: a sidecar, a session snapshot,
 * or one of each; a snapshot opened alone brings its sibling sidecar.
 */
import { basename, dirname, join } from 'node:path';
import type { FormatAdapter } from '../source';
import { detectNative } from './detect';
import { SidecarSource } from './sidecarSource';
import { SnapshotSource } from './snapshotSource';

export const nativeFormat: FormatAdapter = {
  name: 'supercode',
  detect(file, context) {
    const found = detectNative(file, context);
    if ('error' in found) return { ok: false, error: found.error };
    if (found.format === 'supercode-sidecar') return { ok: true, source: new SidecarSource(file, context.read, context.cacheBytes) };
    return { ok: true, source: new SnapshotSource(file, found.value, found.invalidUtf8 === true) };
  },
};

/** `<stem>.session.json` → `<stem>.sidecar.jsonl` in the same folder; undefined for other names. */
export function siblingSidecarPath(snapshotPath: string): string | undefined {
  const name = basename(snapshotPath);
  const suffix = '.session.json';
  if (!name.endsWith(suffix) || name.length === suffix.length) return undefined;
  return join(dirname(snapshotPath), `${name.slice(0, -suffix.length)}.sidecar.jsonl`);
}

export { MAX_SNAPSHOT_BYTES } from './detect';
export { HASH_AT_INDEX_BYTES, IN_MEMORY_LINE_BYTES, RAW_SCAN_MIN_BYTES } from './sidecarIndex';
export { PREVIEW_BYTES } from './sidecarReader';
