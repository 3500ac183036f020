/**
 * The native format (`supercode`, SPEC §3) behind the source seam: a sidecar, a session snapshot,
 * or one of each; a snapshot opened alone brings its sibling sidecar.
 */
import { basename, dirname, join } from 'node:path';
import { exists } from '../common/openFile';
import type { FormatAdapter, LoadError, SessionSource } from '../common/source';
import { detectNative } from './detect';
import { SidecarSource } from './sidecarSource';
import { SnapshotSource } from './snapshotSource';

export const nativeFormat: FormatAdapter = {
  name: 'supercode',
  reads: 'supercode sidecars and session snapshots',
  formats: ['supercode-sidecar', 'supercode-snapshot'],
  detect(file, context) {
    const found = detectNative(file, context);
    if ('error' in found) return { ok: false, error: found.error };
    if (found.format === 'supercode-sidecar') return { ok: true, source: new SidecarSource(file, context.read, context.cacheBytes, context.services, context.cachePolicy) };
    return { ok: true, source: new SnapshotSource(file, found.value, found.invalidUtf8 === true) };
  },
  assemble: assembleNative,
};

/**
 * At most one sidecar and one snapshot; a snapshot alone brings its sibling sidecar when one
 * exists. The snapshot is indexed first: a newer format version there stops the session before
 * the sidecar is read.
 */
function assembleNative(opened: readonly SessionSource[], find: (path: string) => { source: SessionSource } | { error: LoadError }): { sources: SessionSource[] } | { error: LoadError } {
  let sidecar: SessionSource | undefined;
  let snapshot: SessionSource | undefined;
  for (const source of opened) {
    const path = source.file.path;
    if (source.format === 'supercode-sidecar') {
      if (sidecar) return { error: { code: 'usage', message: `two sidecars given (${sidecar.file.path} and ${path}): pass at most one sidecar and one session snapshot` } };
      sidecar = source;
    } else {
      if (snapshot) return { error: { code: 'usage', message: `two session snapshots given (${snapshot.file.path} and ${path}): pass at most one sidecar and one session snapshot` } };
      snapshot = source;
    }
  }
  if (snapshot && !sidecar) {
    const sibling = siblingSidecarPath(snapshot.file.path);
    if (sibling !== undefined && exists(sibling)) {
      const d = find(sibling);
      if ('error' in d) return { error: { ...d.error, message: `${d.error.message} (opened as the sibling sidecar of ${snapshot.file.path})` } };
      if (d.source.format !== 'supercode-sidecar') {
        return { error: { code: 'unrecognized_file', message: `${sibling}, the sibling of ${snapshot.file.path}, is a session snapshot, not a sidecar` } };
      }
      sidecar = d.source;
    }
  }
  return { sources: [snapshot, sidecar].filter((s): s is SessionSource => s !== undefined) };
}

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
