/**
 * `sessions [DIR...] [--query Q] [--regex] [--ignore-case] [--since DATE] [--format F] [--heads]
 * [--jsonl] [--table] [--no-default-roots]` (SPEC §14, docs/library.md): the session library on
 * stdout. JSON by default (`{"roots":[…],"sessions":[…],"walk":{…}}`, newest first); `--jsonl`
 * one entry a line as each session finishes, then the roots line; `--table` an aligned table for
 * people. SIGINT or SIGTERM stops the listing at once (its threads are stopped): exit 2, `cancelled`.
 */
import { homedir } from 'node:os';
import type { SessionFormat } from '../../shared/index';
import { SESSION_FORMATS } from '../../shared/index';
import { nameText } from '../../shared/format/visibleText';
import { IndexCache, cacheFolder } from '../library/cache';
import type { LibraryEntry, LibraryListing } from '../library/library';
import { listLibrary, withSamplesWhereNone } from '../library/library';
import { indexPool } from '../library/pool';
import { queryProblem } from '../library/query';
import { libraryRoots, processRootsContext } from '../library/roots';
import { CliError, usageError } from './errors';
import { withListingTiering } from './listingTiering';
import { findPackageRoot, samplesFolder } from './packageRoot';
import type { CliIo, ParsedFlags } from './output';
import { EXIT_OK, json, writeJson } from './output';
import { untilSignal } from './signals';

function parseSince(text: string): number {
  const t = Date.parse(text);
  if (!Number.isFinite(t)) throw usageError(`--since must be a date or time (2026-01-31, 2026-01-31T12:00:00Z), not ${JSON.stringify(text)}`);
  return t;
}

function parseFormat(text: string): SessionFormat {
  const found = SESSION_FORMATS.find((f) => f === text);
  if (found === undefined) throw usageError(`--format must be one of ${SESSION_FORMATS.join(', ')}, not ${JSON.stringify(text)}`);
  return found;
}

function humanBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let k = 0;
  while (v >= 1024 && k < units.length - 1) {
    v /= 1024;
    k++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[k]}`;
}

/** Text from a session file in a terminal cell: one visible line (no control or bidi character reaches the terminal), cut to `max`. */
function cell(text: string | null, max: number): string {
  const visible = Array.from(nameText(text ?? ''));
  return visible.length <= max ? visible.join('') : `${visible.slice(0, max - 1).join('')}…`;
}

const count = (n: number | null): string => (n === null ? '…' : String(n));

/**
 * The aligned table of `--table`: agent, title, project, updated, calls, compactions, tokens, size;
 * with `--query`, then the matches in what the model was given (SEEN) and in what was hidden from
 * it (HIDDEN), as the entry's `matches` counts them.
 */
export function sessionsTable(listing: LibraryListing, samples = false): string {
  const searched = listing.search !== undefined;
  const head = ['AGENT', 'TITLE', 'PROJECT', 'UPDATED', 'CALLS', 'COMPACTIONS', 'TOKENS', 'SIZE', ...(searched ? ['SEEN', 'HIDDEN'] : [])];
  const rows = listing.sessions.map((e) => [e.format, cell(e.title, 60), cell(e.project, 40), e.updated.slice(0, 16).replace('T', ' '), count(e.calls), count(e.compactions), e.tokens === null ? '–' : String(e.tokens), humanBytes(e.bytes), ...(searched ? [String(e.matches?.visible ?? 0), String(e.matches?.hidden ?? 0)] : [])]);
  const right = new Set([4, 5, 6, 7, 8, 9]);
  const widths = head.map((h, k) => Math.max(Array.from(h).length, ...rows.map((r) => Array.from(r[k] as string).length)));
  const line = (r: string[]): string =>
    r
      .map((c, k) => {
        const pad = ' '.repeat((widths[k] as number) - Array.from(c).length);
        return right.has(k) ? pad + c : c + pad;
      })
      .join('  ')
      .trimEnd();
  const roots = listing.roots.map((r) => `${r.exists ? '' : '(missing) '}${nameText(r.path)} [${r.agent}]: ${r.sessions}`);
  const said = samples ? ['None of the agents\' folders exists here: the bundled samples are listed.'] : [];
  return `${[line(head), ...rows.map(line)].join('\n')}\n\n${[...roots, ...said].join('\n')}\n`;
}

/** What the JSON output carries besides the sessions. */
function tail(listing: LibraryListing, samples: boolean): Record<string, unknown> {
  return { ...(samples ? { samples: true } : {}), walk: listing.walk, ...(listing.search ? { search: listing.search } : {}) };
}

/**
 * `packageRoot`: where the bundled samples are, listed when no DIR is named and none of the agents'
 * folders exists (SPEC §14; the listing then says `"samples": true`).
 */
export async function runSessions({ flags, files }: ParsedFlags, io: CliIo, untilStopped: () => Promise<void> = untilSignal, packageRoot?: string): Promise<number> {
  const q = flags.get('query');
  const since = flags.get('since');
  const format = flags.get('format');
  const jsonl = flags.has('jsonl');
  const table = flags.has('table');
  if (jsonl && table) throw usageError('--jsonl and --table cannot be given together');
  if (flags.has('heads') && typeof q === 'string') throw usageError('--heads lists the files\' heads only: it cannot search (leave out --heads to use --query)');
  if (q === '') throw usageError('--query needs a non-empty value');
  if (typeof q !== 'string' && (flags.has('regex') || flags.has('ignore-case'))) throw usageError('--regex and --ignore-case apply to --query');
  const sinceMs = typeof since === 'string' ? parseSince(since) : undefined;
  const query = typeof q === 'string' ? { query: q, regex: flags.has('regex'), ignoreCase: flags.has('ignore-case') } : undefined;
  const problem = query ? queryProblem(query) : undefined;
  if (problem) throw new CliError(problem.code, problem.message);
  const onlyFormat = typeof format === 'string' ? parseFormat(format) : undefined;

  const home = homedir();
  const named = libraryRoots(files, flags.has('no-default-roots'), processRootsContext(home));
  const { roots, samples } = files.length === 0 && !flags.has('no-default-roots') ? withSamplesWhereNone(named, samplesFolder(packageRoot ?? findPackageRoot())) : { roots: named, samples: false };
  const cache = new IndexCache(cacheFolder({ env: process.env, home, platform: process.platform }));
  // Optimized later: the listing's many short jobs on every thread (listingTiering.ts).
  const listing: LibraryListing = await withListingTiering(async () => {
    // No page to keep a core for: the threads take the other cores, and this thread indexes too once
    // its walk ends (docs/library.md "The caller indexes too").
    const pool = indexPool();
    const signal = { aborted: false };
    void untilStopped().then(() => {
      signal.aborted = true;
      pool.close();
    });
    try {
      return await listLibrary({
        roots,
        pool,
        cache,
        signal,
        callerIndexes: true,
        ...(flags.has('heads') ? { heads: true } : {}),
        ...(query ? { query } : {}),
        ...(sinceMs !== undefined ? { since: sinceMs } : {}),
        ...(onlyFormat !== undefined ? { format: onlyFormat } : {}),
        ...(jsonl ? { onEntry: (entry: LibraryEntry) => io.stdout(json(entry)) } : {}),
      });
    } finally {
      pool.close();
    }
  });
  if (listing.cancelled) throw new CliError('cancelled', 'the listing was interrupted before it finished');
  if (jsonl) io.stdout(json({ roots: listing.roots, ...tail(listing, samples) }));
  else if (table) io.stdout(sessionsTable(listing, samples));
  else writeJson({ roots: listing.roots, sessions: listing.sessions, ...tail(listing, samples) }, (text) => io.stdout(text));
  return EXIT_OK;
}
