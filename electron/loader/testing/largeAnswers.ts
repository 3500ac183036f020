/**
 * Everything a user can ask of a session file, as the CLI and the app's worker answer it: the two
 * paths of docs/large-lines.md (large strings kept in the file, and read whole) are held to the
 * same answers with it.
 */
import { runCli } from '../../cli/testing/runCli';
import { SessionService } from '../../worker/service';
import type { LoadOptions } from '../session';

const json = (s: string): unknown => JSON.parse(s) as unknown;

/** Everything a user can ask of the file at `path`: check, log, view and view --at, expand, search (with `needles`), the app's rows and row texts. */
export async function answers(path: string, options: LoadOptions, needles: readonly string[]): Promise<unknown> {
  const cli = async (...argv: string[]): Promise<unknown> => {
    const r = await runCli(argv, options);
    return { code: r.code, out: r.stdout === '' ? null : json(r.stdout), err: r.stderr };
  };
  const out: Record<string, unknown> = {};
  out.check = await cli('check', path);
  const log = await cli('log', path);
  out.log = log;
  out.view = await cli('view', path);
  const calls = (out.view as { out: { calls?: number } | null }).out?.calls ?? 0;
  for (let n = 1; n <= Math.min(calls, 6); n++) out[`view --at ${n}`] = await cli('view', '--at', String(n), path);
  const ids = ((log as { out: { reductions?: { id: string }[] } | null }).out?.reductions ?? []).map((r) => r.id);
  for (const id of ids) out[`expand ${id}`] = await cli('expand', '--id', id, path);
  for (const q of needles) {
    out[`search ${q}`] = await cli('search', '--query', q, path);
    out[`search -i ${q}`] = await cli('search', '--query', q, '--ignore-case', path);
  }
  const s = new SessionService(options);
  try {
    const opened = await s.open({ paths: [path], generation: 1 });
    out.open = opened.ok ? { ok: true } : opened;
    if (opened.ok) {
      const rows = s.handle('rows', { start: 0, end: 500 });
      out.rows = rows;
      const count = rows.ok ? rows.value.rowCount : 0;
      for (let row = 0; row < Math.min(count, 500); row++) out[`rowText ${row}`] = s.handle('rowText', { row, range: [0, 1 << 20] });
    }
  } finally {
    s.close();
  }
  return out;
}

