/**
 * Everything a user can ask of a session file, as the CLI and the app's worker answer it: the two
 * paths of docs/large-lines.md (large strings kept in the file, and read whole) are held to the
 * same answers with it.
 */
import { readFileSync, readSync } from 'node:fs';
import { vi } from 'vitest';
import type { ChatMessage, Finding, MessageList } from '../../../shared/index';
import { printedJson, runCli } from '../../cli/testing/runCli';
import { viewOutput } from '../../cli/view';
import { SessionService } from '../../worker/service';
import type { ReadSync } from '../common/lines';
import { ONE_SHOT_CACHE, loadSession } from '../session';
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
  // `view --at N` for the first calls, as the command builds and writes it, and `expand` of every
  // reduction, as it prints the outcome, of one load: each run of the command would read the file
  // again, and count its tokens again for a view (most of this function's time). `check`, `log`,
  // `view` and `search` above and below run the command whole.
  const ids = ((log as { out: { reductions?: { id: string }[] } | null }).out?.reductions ?? []).map((r) => r.id);
  if (calls > 0 || ids.length > 0) {
    const loaded = await loadSession([path], { ...ONE_SHOT_CACHE, ...options });
    if (!loaded.ok) throw new Error(`${path} opened for the commands but not again: ${loaded.error.message}`);
    try {
      for (let n = 1; n <= Math.min(calls, 6); n++) out[`view --at ${n}`] = json(printedJson(viewOutput(loaded.session, n)));
      for (const id of ids) out[`expand ${id}`] = json(JSON.stringify(loaded.session.expand(id)));
    } finally {
      loaded.session.close();
    }
  }
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


type Loaded = Extract<Awaited<ReturnType<typeof loadSession>>, { ok: true }>['session'];

const list = (l: MessageList): (ChatMessage | undefined)[] => Array.from({ length: l.length }, (_, i) => l.at(i));

/** The messages of the file's view, loaded with `options`, closed again. */
async function viewOf(path: string, options: LoadOptions): Promise<(ChatMessage | undefined)[]> {
  const r = await loadSession([path], options);
  if (!r.ok) throw new Error(r.error.message);
  try {
    return list(r.session.minted);
  } finally {
    r.session.close();
  }
}

/** How many messages of the file's view keep their content in the file (`large`). */
export async function largeContents(path: string, options: LoadOptions): Promise<number> {
  return (await viewOf(path, options)).filter((m) => m?.large !== undefined).length;
}

/** How many of `path`'s view messages left in the file hold their content's preview as a value (not read on use). */
export async function heldPreviews(path: string, options: LoadOptions): Promise<number> {
  return (await viewOf(path, options)).filter((m) => m?.large !== undefined && Object.getOwnPropertyDescriptor(m, 'content')?.get === undefined).length;
}

/**
 * Loads `path` (64 KiB chunks) through a read that records every read, watching `Buffer.concat`
 * meanwhile, and hands `use` the session and its view: the reads and the concatenations of a MiB
 * or more come back (a line read a window at a time makes none of those).
 */
export async function loadWatchingReads<T>(
  path: string,
  use: (session: Loaded, view: (ChatMessage | undefined)[]) => T,
  options: LoadOptions = {},
): Promise<{ reads: { position: number; length: number }[]; bigConcats: unknown[]; value: T }> {
  const reads: { position: number; length: number }[] = [];
  const read: ReadSync = (fd, buffer, offset, len, position) => {
    reads.push({ position, length: len });
    return readSync(fd, buffer, offset, len, position);
  };
  const concat = vi.spyOn(Buffer, 'concat');
  try {
    const r = await loadSession([path], { ...options, chunkSize: 64 * 1024, readSync: read });
    if (!r.ok) throw new Error(r.error.message);
    try {
      const value = use(r.session, list(r.session.minted));
      return { reads, bigConcats: concat.mock.calls.filter(([parts]) => parts.reduce((n, p) => n + p.length, 0) >= 1024 * 1024), value };
    } finally {
      r.session.close();
    }
  } finally {
    concat.mockRestore();
  }
}

/** A loaded session's view and its findings. */
interface Viewed {
  view: (ChatMessage | undefined)[];
  findings: readonly Finding[];
}

/** Its tool calls' arguments, and the rest of it (view and findings) without them and without the cut values' findings. */
function split(v: Viewed): { args: string[]; cutFindings: Finding[]; rest: unknown } {
  const args = v.view.flatMap((m) => m?.tool_calls ?? []).map((c) => c.arguments);
  const view: unknown = JSON.parse(JSON.stringify(v.view, (k, x: unknown) => (k === 'arguments' ? undefined : x)));
  return { args, cutFindings: v.findings.filter((f) => f.code === 'value_too_large'), rest: { view, findings: v.findings.filter((f) => f.code !== 'value_too_large') } };
}

/**
 * The file at `path`, whose `value` (written once, unescaped) is too long to read whole under
 * `wholeValueBytes` (docs/large-lines.md), loaded that way and read whole: how many of the value's
 * bytes the first load read, and each load's tool call arguments, cut values' findings and the rest.
 */
export async function cutValueLoad(
  path: string,
  value: string,
  wholeValueBytes: number,
): Promise<{ valueBytesRead: number; valueBytes: number; cut: ReturnType<typeof split>; whole: ReturnType<typeof split> }> {
  const bytes = readFileSync(path);
  const start = bytes.indexOf(Buffer.from(value));
  if (start < 0 || bytes.indexOf(Buffer.from(value), start + 1) >= 0) throw new Error('the value must be in the file once');
  const end = start + Buffer.byteLength(value);
  const viewed = (session: Loaded, view: (ChatMessage | undefined)[]): Viewed => ({ view, findings: session.check().findings });
  const { reads, value: cut } = await loadWatchingReads(path, viewed, { wholeValueBytes });
  const valueBytesRead = reads.reduce((n, r) => n + Math.max(0, Math.min(end, r.position + r.length) - Math.max(start, r.position)), 0);
  return { valueBytesRead, valueBytes: end - start, cut: split(cut), whole: split((await loadWatchingReads(path, viewed)).value) };
}
