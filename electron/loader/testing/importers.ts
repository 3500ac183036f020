/** What the importers' tests share: loading a session they close at the end, and asking an adapter whether it claims a file. */
import { readSync } from 'node:fs';
import type { LoadedSession } from '../../../shared/index';
import { detectNative } from '../native/detect';
import { isLoadError, openReadOnly, safeClose } from '../common/openFile';
import { loadSession } from '../session';
import type { DetectContext, FormatAdapter } from '../common/source';

export const DETECT_CONTEXT: DetectContext = { read: readSync, maxRecordBytes: 1 << 28, cacheBytes: 1 << 20 };

/** True when `adapter` (or native detection) claims the file at `path`. */
export function claims(path: string, adapter: FormatAdapter | 'native', context: DetectContext = DETECT_CONTEXT): boolean {
  const f = openReadOnly(path);
  if (isLoadError(f)) throw new Error(f.message);
  try {
    return adapter === 'native' ? !('error' in detectNative(f, context)) : adapter.detect(f, context).ok;
  } finally {
    safeClose(f.fd);
  }
}

/** `load(path)` opens a session (throwing on a load error); `closeAll()` closes every one it opened (call it in afterAll). */
export function sessionLoader(): { load: (path: string) => Promise<LoadedSession>; closeAll: () => void } {
  const open: LoadedSession[] = [];
  return {
    async load(path) {
      const r = await loadSession([path]);
      if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
      open.push(r.session);
      return r.session;
    },
    closeAll() {
      for (const s of open.splice(0)) s.close();
    },
  };
}
