/**
 * The session an `export` reads (SPEC §16), for both kinds of export (export.ts, exportDocument.ts):
 * one or two files, opened with `--session`/`--format`, refused when a file is newer than this
 * build reads. The caller closes it.
 */
import type { LoadOptions, LoadedSession } from '../loader/session';
import { ONE_SHOT_CACHE, loadSession } from '../loader/session';
import { CliError, usageError } from './errors';

export async function openExportSession(files: readonly string[], flags: ReadonlyMap<string, string | true>, loadOptions: LoadOptions): Promise<LoadedSession> {
  if (files.length === 0) throw usageError('export needs FILE...: the session to export');
  if (files.length > 2) throw usageError(`export takes one or two files (a sidecar and/or a session snapshot), not ${files.length}`);
  const sessionId = flags.get('session');
  const format = flags.get('format');
  const loaded = await loadSession([...files], { ...ONE_SHOT_CACHE, ...loadOptions, ...(typeof sessionId === 'string' ? { session: sessionId } : {}), ...(typeof format === 'string' ? { format } : {}) });
  if (!loaded.ok) throw new CliError(loaded.error.code, loaded.error.message);
  const session = loaded.session;
  if (session.stopped) {
    session.close();
    throw new CliError('unsupported_version', session.loadFindings.find((f) => f.code === 'unsupported_version')?.message ?? 'a file has a format version newer than this build supports');
  }
  return session;
}
