/**
 * Search throughput over the hidden bytes, against ripgrep over the same bytes in a plain file.
 *
 * The plain file holds, for every string `session.search` searches (SPEC §5.3), its bytes followed
 * by one `\n` (so no match can straddle two of them): each live reduction's hidden span of its
 * resolved original (shared's `resolveOriginal` + `hiddenSpan`, exactly as search resolves it;
 * a duplicate whose canonical is fully visible hides nothing), and a verified `turns_cleared` range
 * message by message (content only, the transcript headers are never searched), per-message
 * reductions inside it counted once, with their message. It is rewritten only when the sidecar
 * changes.
 *
 * Each query then runs N times, alternating ripgrep (`spawnSync`, wall time of the process) and
 * `session.search` in this process (wall time of the call). Throughput is bytes searched / time:
 * `hidden_bytes_searched` for ours, the file's size for ripgrep. Each side runs once untimed first,
 * as ripgrep's count: these rows are warm throughput, and the first search of the process (which
 * verifies every hash here, with no background thread) is the first-search row's subject.
 *
 * The first search after the open goes through the real resolver worker, as the app
 * sends it. In each of N fresh workers: `open`, then, once the open's background work has ended
 * (`__prepared`), the first query as a `search` request, and the same request N times warm (the
 * target's row). And in one more fresh worker, the first query sent the moment the open reply
 * arrives (the worker verifies hashes in the background from then on), then N times warm
 * (reported). Each is timed from sending the request to its reply.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { LoadedSession } from '../../electron/loader/session';
import { loadSession, nodeSha256 } from '../../electron/loader/session';
import type { Reduction, SearchMode } from '../../shared/index';
import { canonicalFullyVisible, hiddenSpan, resolveMessage, resolveOriginal } from '../../shared/index';
import { createContentServices } from '../../electron/loader/content/contentServices';
import { SearchPool } from '../../electron/worker/searchPool';
import { elapsedMs, readInput, runMain } from './common';
import { params, startClient, value } from './workerClient';
import { createResolverClient } from '../../electron/worker/client';

export interface SearchQuery {
  /** Row label: "substring", "regex", "case-insensitive substring". */
  name: string;
  query: string;
  mode: SearchMode;
  caseSensitive: boolean;
}

interface Input {
  sidecar: string;
  /** dist/worker.cjs: the first search after the open is measured through the resolver worker. */
  workerPath: string;
  hiddenPath: string;
  runs: number;
  queries: SearchQuery[];
  /** Path of ripgrep, or null when it is not installed. */
  rg: string | null;
}

export interface QueryResult extends SearchQuery {
  oursMs: number[];
  totalMatches: number;
  hiddenBytesSearched: number;
  rgMs: number[];
  /** ripgrep's `--count-matches` over the plain file; null without ripgrep. */
  rgCount: number | null;
  rgArgs: string[];
}

export interface SearchResult {
  hiddenFile: { bytes: number; hiddenBytes: number; units: number; reused: boolean; writeMs: number; skipped: number };
  queries: QueryResult[];
  /**
   * The first search after the open, sent through the worker the moment the open reply arrived
   * (its hashes verified in the background since the reply, or by the search itself), and the same
   * request repeated warm: its query, ms, the warm runs' ms and bytes; and, per fresh worker, the
   * first search sent once the open's background work had ended, with its warm runs.
   */
  cold: { query: string; ms: number; warmMs: number[]; hiddenBytesSearched: number; afterBackground: AfterBackground[] };
}

/** One fresh worker's first search sent once the open's background work ended, and the same request repeated in that worker. */
export interface AfterBackground {
  ms: number;
  warmMs: number[];
}

interface HiddenMeta {
  sidecar: string;
  size: number;
  mtimeMs: number;
  bytes: number;
  hiddenBytes: number;
  units: number;
  skipped: number;
}

const NEWLINE = Buffer.from('\n');
/** Written in pieces of at most this many bytes. */
const WRITE_BYTES = 4 * 1024 * 1024;

/** Resolved bytes: in memory, or (a large original) read by range from the sidecar. */
type Bytes = Uint8Array | { readonly length: number; read(start: number, end: number): Uint8Array };

/** Writes the hidden strings of `session` to `path`, one `\n` after each; mirrors shared/search.ts `searchUnits`. */
function writeHidden(session: LoadedSession, path: string): Omit<HiddenMeta, 'sidecar' | 'size' | 'mtimeMs'> {
  const { log, minted, recorded } = session;
  const options = { sha256: nodeSha256 };
  const fd = openSync(path, 'w');
  let bytes = 0;
  let hiddenBytes = 0;
  let units = 0;
  let skipped = 0;
  const write = (piece: Uint8Array) => {
    let done = 0;
    while (done < piece.length) done += writeSync(fd, piece, done, piece.length - done);
    bytes += piece.length;
  };
  /** Bytes `[start, end)` of `data` and a `\n`, in pieces of at most WRITE_BYTES. */
  const unit = (data: Bytes, start = 0, end = data.length) => {
    for (let at = start; at < end; at += WRITE_BYTES) {
      const to = Math.min(end, at + WRITE_BYTES);
      write(data instanceof Uint8Array ? data.subarray(at, to) : data.read(at, to));
    }
    write(NEWLINE);
    hiddenBytes += end - start;
    units++;
  };
  try {
    const cleared = log.filter((r) => r.kind === 'turns_cleared' && resolveOriginal(r, minted, recorded, options).ok);
    const enclosed = (r: Reduction) => cleared.some((c) => c.ptr.index <= r.ptr.index && r.ptr.index < (c.end ?? c.ptr.index));
    for (const r of log) {
      if (r.kind === 'turns_cleared' || enclosed(r)) continue;
      if (r.kind === 'duplicate_output' && canonicalFullyVisible(r, log)) continue;
      const resolved = resolveOriginal(r, minted, recorded, options);
      if (!resolved.ok) {
        // Not searched either (the integrity check reports it).
        skipped++;
        continue;
      }
      const span = hiddenSpan(r, resolved.value.bytes, log);
      if (span) unit(resolved.value.bytes, span[0], span[1]);
    }
    const seen = new Set<number>();
    for (const c of cleared) {
      for (let index = c.ptr.index; index < (c.end ?? c.ptr.index); index++) {
        if (seen.has(index)) continue;
        seen.add(index);
        const msg = minted.at(index);
        if (msg !== undefined) unit(resolveMessage(index, msg, recorded).bytes);
      }
    }
  } finally {
    closeSync(fd);
  }
  return { bytes, hiddenBytes, units, skipped };
}

/** The plain file of hidden bytes, reused while the sidecar is unchanged. */
function hiddenFile(session: LoadedSession, sidecar: string, path: string): SearchResult['hiddenFile'] {
  const stat = statSync(sidecar);
  const metaPath = `${path}.meta.json`;
  if (existsSync(path) && existsSync(metaPath)) {
    try {
      const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as HiddenMeta;
      if (meta.sidecar === sidecar && meta.size === stat.size && meta.mtimeMs === stat.mtimeMs && statSync(path).size === meta.bytes) {
        return { bytes: meta.bytes, hiddenBytes: meta.hiddenBytes, units: meta.units, skipped: meta.skipped, reused: true, writeMs: 0 };
      }
    } catch {
      // rewritten below
    }
  }
  mkdirSync(dirname(path), { recursive: true });
  const started = performance.now();
  const written = writeHidden(session, path);
  const writeMs = elapsedMs(started);
  const meta: HiddenMeta = { sidecar, size: stat.size, mtimeMs: stat.mtimeMs, ...written };
  writeFileSync(metaPath, JSON.stringify(meta));
  return { ...written, reused: false, writeMs };
}

function rgArgs(q: SearchQuery): string[] {
  // -a: hidden bytes may hold NULs, and a file taken for binary would stop early.
  return ['--no-config', '-a', ...(q.mode === 'substring' ? ['-F'] : []), ...(q.caseSensitive ? [] : ['-i'])];
}

/** Runs ripgrep; its count (exit status 1 is "no match", a count of 0). */
function rg(path: string, args: readonly string[], file: string): number {
  const run = spawnSync(path, [...args, file], { encoding: 'utf8', maxBuffer: 1024 * 1024 });
  if (run.error) throw new Error(`ripgrep failed to run: ${run.error.message}`);
  if (run.status === 1) return 0;
  if (run.status !== 0) throw new Error(`ripgrep ${args.join(' ')} exited with ${run.status}: ${run.stderr.trim()}`);
  return Number(run.stdout.trim());
}

/**
 * The first search through a fresh worker, sent as the open reply arrives, then `runs` warm ones;
 * then, in `runs` more fresh workers, the first search sent once the background work has ended.
 */
async function firstSearchAfterOpen(workerPath: string, sidecar: string, q: SearchQuery | undefined, runs: number): Promise<SearchResult['cold']> {
  if (!q) return { query: '', ms: 0, warmMs: [], hiddenBytesSearched: 0, afterBackground: [] };
  const client = startClient(workerPath);
  let atReply: { ms: number; bytes: number };
  const warmMs: number[] = [];
  try {
    // The worker has started once it answers anything: thread start-up is not part of the open.
    await client.request('log', {});
    value('open', await client.open([sidecar], 1));
    const ask = async (searchId: string) => {
      const started = performance.now();
      const found = value(`search ${JSON.stringify(q.query)}`, await client.request('search', params('search', { searchId, query: q.query, mode: q.mode, case_sensitive: q.caseSensitive, max_matches: 100 })));
      return { ms: elapsedMs(started), bytes: found.hidden_bytes_searched };
    };
    atReply = await ask('cold');
    for (let run = 0; run < Math.max(1, runs); run++) warmMs.push((await ask(`warm${run}`)).ms);
  } finally {
    await client.dispose();
  }
  // One fresh worker per run: a first search is one sample per worker.
  const afterBackground: AfterBackground[] = [];
  for (let run = 0; run < Math.max(1, runs); run++) afterBackground.push(await firstSearchAfterBackground(workerPath, sidecar, q, runs));
  return { query: q.query, ms: atReply.ms, warmMs, hiddenBytesSearched: atReply.bytes, afterBackground };
}

/**
 * The first search of a fresh worker sent once the open's background work (hash verification on a
 * thread, then the search's preparation and the warm-up searches in idle slices) has ended, as a user's
 * first search a few seconds after the open meets it: the worker answers `__prepared` (a test hook)
 * then. Then the same request `runs` times in that worker, warm.
 */
async function firstSearchAfterBackground(workerPath: string, sidecar: string, q: SearchQuery, runs: number): Promise<AfterBackground> {
  const client = createResolverClient({ workerPath, execArgv: [], testHooks: true });
  try {
    await client.request('log', {});
    value('open', await client.open([sidecar], 1));
    if (!(await client.whenPrepared())) throw new Error('the worker did not answer __prepared');
    const ask = async (searchId: string): Promise<number> => {
      const started = performance.now();
      value(`search ${JSON.stringify(q.query)}`, await client.request('search', params('search', { searchId, query: q.query, mode: q.mode, case_sensitive: q.caseSensitive, max_matches: 100 })));
      return elapsedMs(started);
    };
    const ms = await ask('after');
    const warmMs: number[] = [];
    for (let run = 0; run < Math.max(1, runs); run++) warmMs.push(await ask(`warm${run}`));
    return { ms, warmMs };
  } finally {
    await client.dispose();
  }
}

runMain(async (): Promise<SearchResult> => {
  const input = readInput<Input>();
  const cold = await firstSearchAfterOpen(input.workerPath, input.sidecar, input.queries[0], input.runs);
  // The timed searches run as the worker runs them, raw scans split over its search pool
  // (the load's services' parallelScan; it answers only between begin and end).
  const pool = new SearchPool();
  const loaded = await loadSession([input.sidecar], { services: createContentServices({ parallelScan: pool }) });
  if (!loaded.ok) throw new Error(`loadSession failed: ${loaded.error.code}: ${loaded.error.message}`);
  const { session } = loaded;
  const file = hiddenFile(session, input.sidecar, input.hiddenPath);
  const queries: QueryResult[] = [];
  for (const q of input.queries) {
    const base = rgArgs(q);
    const timedArgs = [...base, '-c', '-e', q.query];
    const result: QueryResult = { ...q, oursMs: [], totalMatches: -1, hiddenBytesSearched: -1, rgMs: [], rgCount: null, rgArgs: timedArgs };
    if (input.rg !== null) result.rgCount = rg(input.rg, [...base, '--count-matches', '-e', q.query], input.hiddenPath);
    pool.begin();
    session.search(q.query, { mode: q.mode, case_sensitive: q.caseSensitive, max_matches: 100 });
    pool.end();
    for (let run = 0; run < input.runs; run++) {
      if (input.rg !== null) {
        const started = performance.now();
        rg(input.rg, timedArgs, input.hiddenPath);
        result.rgMs.push(elapsedMs(started));
      }
      const started = performance.now();
      pool.begin();
      const found = session.search(q.query, { mode: q.mode, case_sensitive: q.caseSensitive, max_matches: 100 });
      pool.end();
      result.oursMs.push(elapsedMs(started));
      if (!found.ok) throw new Error(`search ${JSON.stringify(q.query)} failed: ${found.error.code}: ${found.error.message}`);
      result.totalMatches = found.value.total_matches;
      result.hiddenBytesSearched = found.value.hidden_bytes_searched;
    }
    queries.push(result);
  }
  session.close();
  await pool.close();
  return { hiddenFile: file, queries, cold };
});
