/**
 * Repro bundles (SPEC §12): the smallest session files that still show the named reductions and
 * findings, with a README of the exact commands, a Playwright spec and `bundle.json`.
 *
 * The oracle of the minimizer writes a candidate's files into a private temporary folder (under
 * the same names, so a snapshot still finds its sibling sidecar) and opens them with the same
 * loader as every command: a candidate passes when `check` reports every named finding code and
 * no code the source does not show, and `expand` of every named id gives the same outcome (bytes,
 * range, total, source) as on the source. The source files are only read.
 *
 * The search reports its progress after each oracle call (`onProgress`) and may be stopped at any
 * time (`shouldStop`: a cancel, `maxTimeMs`): it then ends with the smallest candidate the oracle
 * accepted, so a stopped bundle still reproduces, and bundle.json says it was stopped and why.
 * bundle.json lists what was cut (docs/bundles.md).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import type { ExpandOutcome, SessionFileFormat } from '../../shared/index';
import { MINIMIZE_MAX_CALLS, MINIMIZE_MAX_ITEMS, minimizeRecords } from '../../shared/links/minimize';
import type { LoadedSession } from '../loader/session';
import { readWithin } from '../loader/common/safeRead';
import { FileChangedError, loadSession } from '../loader/session';
import type { MinimizeProgress, StopAsked } from '../../shared/links/minimize';
import type { BundleManifest, CutReport, CutUnit, MinimizerStop } from './manifest';
import { bundleReadme, bundleSpec } from './template';
import type { JointUnits } from './units';
import { fileUnits, jointUnits } from './units';
import type { ArchiveEntry } from './evalArchive';
import { readArchive } from './evalArchive';

/** Session bytes above this are copied whole: each oracle call rewrites and rereads them. */
export const MINIMIZE_MAX_BYTES = 16 * 1024 * 1024;

/**
 * A bundle that cannot be made: `usage`, `not_reproduced` (the source does not show what was
 * named), `out_exists` (DIR is not new or empty), or the loader's and resolver's own codes.
 */
export class BundleError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface BundleRequest {
  /** One or two session files, as `check` takes them. */
  paths: string[];
  /** Reductions whose expansion the bundle must reproduce. */
  ids?: string[];
  /** Finding codes `check` must report on the bundle; none named (and no ids): every code of `check`. */
  codes?: string[];
  session?: string;
  format?: string;
  /** How bundle.json names the sources: their full path (the command line) or their name only (the app). */
  sourceNames?: 'path' | 'name';
  /**
   * One per path: the name the user knows the file by (an upload's label, its temporary path being
   * no name of theirs). The bundle's session files, the sources of bundle.json and README.md, and
   * the command line then name the file by it; its path is written nowhere.
   */
  labels?: string[];
  maxCalls?: number;
  maxItems?: number;
  maxBytes?: number;
  /** Stop the search after this many milliseconds, keeping the best bundle so far. */
  maxTimeMs?: number;
  /** Asked before each oracle call: true stops the search (a cancel), keeping the best bundle so far. */
  cancelled?: () => boolean;
  /** Hears the search after each oracle call (and once before the first). */
  onProgress?: (progress: BundleProgress) => void;
  /** Milliseconds since some fixed time (tests pass their own clock); default performance.now. */
  now?: () => number;
  /** The units of each file (default units.ts fileUnits); the benchmark passes the line-per-unit baseline. */
  unitsOf?: typeof fileUnits;
}

/** How far a bundle's search has got: oracle calls against the cap, the best size against the start. */
export interface BundleProgress {
  stage: 'start' | 'prefix' | 'ddmin' | 'done';
  oracle_calls: number;
  max_oracle_calls: number;
  /** Units (records) of the source, and of the smallest candidate accepted so far. */
  units_before: number;
  units_now: number;
  bytes_before: number;
  /** Bytes of the smallest candidate accepted so far (its units' source bytes). */
  bytes_now: number;
  elapsed_ms: number;
}

const STOP_MESSAGES: Record<Exclude<MinimizerStop, 'minimal'>, (m: { maxCalls: number; maxTimeMs: number | null; maxBytes: number }) => string> = {
  call_cap: (m) => `stopped at the cap of ${m.maxCalls} oracle calls: the files are the smallest found that reproduce, not a minimal bundle`,
  cancelled: () => 'stopped by a cancel: the files are the smallest found that reproduce, not a minimal bundle',
  time_limit: (m) => `stopped at the time limit of ${(m.maxTimeMs ?? 0) / 1000} s: the files are the smallest found that reproduce, not a minimal bundle`,
  too_large: (m) => `not minimized: the session is larger than ${m.maxBytes} bytes, so its files are copied whole`,
};

/** What was removed: every unit not kept, by file and kind, and the kept lines the cut rewrote. */
export function cutReport(units: JointUnits, kept: readonly number[]): CutReport {
  const own = units.split(kept);
  const removed: CutUnit[] = [];
  const rewritten: CutReport['rewritten'] = [];
  units.files.forEach((f, k) => {
    const keep = new Set(own[k]);
    f.units.forEach((u, j) => {
      if (!keep.has(j)) removed.push({ file: f.name, ...u });
    });
    if (f.count > 0 && keep.size < f.count) for (const r of f.rewrites(own[k] as number[])) rewritten.push({ file: f.name, ...r });
  });
  const kinds = new Map<string, { kind: string; units: number; bytes: number }>();
  for (const u of removed) {
    const entry = kinds.get(u.kind) ?? { kind: u.kind, units: 0, bytes: 0 };
    entry.units++;
    entry.bytes += u.bytes;
    kinds.set(u.kind, entry);
  }
  return {
    by_kind: [...kinds.values()].sort((a, b) => b.bytes - a.bytes || a.kind.localeCompare(b.kind)),
    removed_units: removed.length,
    removed_bytes: removed.reduce((n, u) => n + u.bytes, 0),
    units: removed,
    rewritten,
  };
}

/** A turn of the event loop: a signal, a timer or a worker's message is heard between oracle calls. */
const nextTurn = (): Promise<void> => new Promise((resolveTurn) => setImmediate(resolveTurn));

export interface BundleFile {
  name: string;
  bytes: Uint8Array;
}

export interface Bundle {
  /** The session files, then README.md, bundle.spec.ts and bundle.json. */
  files: BundleFile[];
  manifest: BundleManifest;
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const utf8 = new TextEncoder();

async function open(paths: string[], request: BundleRequest): Promise<LoadedSession> {
  const loaded = await loadSession(paths, { ...(request.session !== undefined ? { session: request.session } : {}), ...(request.format !== undefined ? { format: request.format } : {}) });
  if (!loaded.ok) throw new BundleError(loaded.error.code, loaded.error.message);
  return loaded.session;
}

/** What a session shows: its finding codes and the outcome of expanding each id (undefined: an error). */
function observe(session: LoadedSession, ids: readonly string[]): { codes: Set<string>; outcomes: (ExpandOutcome | undefined)[] } {
  const codes = new Set(session.check().findings.map((f) => f.code));
  const outcomes = ids.map((id) => {
    const o = session.expand(id);
    return o.ok ? o.value : undefined;
  });
  return { codes, outcomes };
}

/** Builds a bundle in memory; the only files written are the oracle's, in a private temporary folder it removes. */
export async function buildBundle(request: BundleRequest): Promise<Bundle> {
  const ids = [...new Set(request.ids ?? [])];
  const source = await open(request.paths, request);
  let sourceFiles: { path: string; format: SessionFileFormat; bytes: Uint8Array }[];
  let named: string[];
  let expected: ExpandOutcome[];
  let sourceCodes: Set<string>;
  try {
    if (source.files.length > 2) throw new BundleError('usage', `this session is read from ${source.files.length} files; a bundle takes a session of one or two files`);
    sourceFiles = source.files.map((f) => {
      // Read again as the loader reads (safeRead.ts): a FIFO or device swapped in is refused, and no more than the session's size is read.
      const read = readWithin(f.path, undefined, { followLast: true, maxBytes: f.bytes });
      if ('refused' in read) throw new BundleError('unreadable_file', `cannot read ${f.path} again: ${read.refused}`);
      return { path: f.path, format: f.format, bytes: new Uint8Array(read.bytes) };
    });
    const seen = observe(source, ids);
    sourceCodes = seen.codes;
    named = request.codes && request.codes.length > 0 ? [...new Set(request.codes)] : ids.length > 0 ? [] : [...seen.codes];
    for (const code of named) {
      if (!seen.codes.has(code)) throw new BundleError('not_reproduced', `check does not report ${code} on ${(request.labels ?? request.paths).join(' ')}: it reports ${[...seen.codes].join(', ') || 'no finding'}`);
    }
    expected = ids.map((id, k) => {
      const o = seen.outcomes[k];
      if (o) return o;
      const e = source.expand(id);
      throw new BundleError(e.ok ? 'internal_error' : e.error.code, e.ok ? `${id} did not expand` : e.error.message);
    });
    if (named.length === 0 && ids.length === 0) throw new BundleError('not_reproduced', 'nothing to reproduce: check reports no finding; name a reduction with --id');
    if (source.fileChange()) throw new BundleError('file_changed', source.fileChange()?.message ?? 'a file changed');
  } catch (e) {
    if (e instanceof FileChangedError) throw new BundleError('file_changed', e.message);
    throw e;
  } finally {
    source.close();
  }

  const labelOf = (path: string): string | undefined => request.labels?.[request.paths.findIndex((p) => resolve(p) === resolve(path))];
  const names = uniqueNames(sourceFiles.map((f) => labelOf(f.path) ?? basename(f.path)));
  const unitsOf = request.unitsOf ?? fileUnits;
  const maxBytes = request.maxBytes ?? MINIMIZE_MAX_BYTES;
  const scratch = mkdtempSync(join(tmpdir(), 'session-inspector-bundle-'));
  let units: JointUnits;
  try {
    units = jointUnits(
      await Promise.all(
        sourceFiles.map(async (f, k) => {
          const name = names[k] as string;
          // An archive's entries are read from the bytes already read (a private copy), never from the source again.
          let entries: ArchiveEntry[] | undefined;
          if (f.format === 'inspect-eval' && f.bytes.length <= maxBytes) {
            const copy = join(scratch, `archive-${k}`);
            writeFileSync(copy, f.bytes, { flag: 'wx' });
            entries = await readArchive(copy);
            rmSync(copy, { force: true });
          }
          return unitsOf(name, f.format, f.bytes, { ...(request.session !== undefined ? { session: request.session } : {}), ...(entries ? { entries } : {}) });
        }),
      ),
    );
  } catch (e) {
    rmSync(scratch, { recursive: true, force: true });
    throw e;
  }
  const bytesBefore = sourceFiles.reduce((n, f) => n + f.bytes.length, 0);
  const maxCalls = request.maxCalls ?? MINIMIZE_MAX_CALLS;
  const maxItems = request.maxItems ?? MINIMIZE_MAX_ITEMS;
  const maxTimeMs = request.maxTimeMs ?? null;
  const now = request.now ?? (() => performance.now());
  const started = now();
  // Each unit's source bytes, and what every kept set holds besides (headers, fixed lines): the size of a kept set, without rendering it.
  const unitBytes = units.files.flatMap((f) => f.units.map((u) => u.bytes));
  const fixedBytes = bytesBefore - unitBytes.reduce((n, b) => n + b, 0);
  const sizeOf = (kept: readonly number[]): number => {
    // A file kept whole (no units) or a snapshot (re-serialized) is counted as its source bytes.
    let n = fixedBytes;
    for (const k of kept) n += unitBytes[k] ?? 0;
    return n;
  };
  const progress = (stage: BundleProgress['stage'], calls: number, kept: readonly number[]): void =>
    request.onProgress?.({ stage, oracle_calls: calls, max_oracle_calls: maxCalls, units_before: units.count, units_now: kept.length, bytes_before: bytesBefore, bytes_now: sizeOf(kept), elapsed_ms: Math.round(now() - started) });
  const shouldStop = (): StopAsked | undefined => {
    if (request.cancelled?.() === true) return 'cancelled';
    if (maxTimeMs !== null && now() - started >= maxTimeMs) return 'time_limit';
    return undefined;
  };

  const want = JSON.stringify(expected);
  const oracle = async (kept: readonly number[]): Promise<boolean> => {
    await nextTurn();
    const rendered = units.render(kept);
    const paths = names.map((name, k) => {
      const path = join(scratch, name);
      writeFileSync(path, rendered[k] as Uint8Array);
      return path;
    });
    const loaded = await loadSession(paths, { ...(request.session !== undefined ? { session: request.session } : {}), ...(request.format !== undefined ? { format: request.format } : {}) });
    if (!loaded.ok) return false;
    try {
      const seen = observe(loaded.session, ids);
      if (named.some((c) => !seen.codes.has(c))) return false;
      if ([...seen.codes].some((c) => !sourceCodes.has(c))) return false;
      return JSON.stringify(seen.outcomes) === want;
    } catch {
      return false;
    } finally {
      loaded.session.close();
    }
  };

  let result;
  const all = Array.from({ length: units.count }, (_, k) => k);
  try {
    progress('start', 0, all);
    if (bytesBefore > maxBytes) result = { kept: all, calls: 0, steps: 0, stop: 'too_large' as const, view: null };
    else result = await minimizeRecords(units.shapes, oracle, { maxCalls, maxItems, shouldStop, onProgress: (p: MinimizeProgress) => progress(p.stage, p.calls, p.kept) });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  progress('done', result.calls, result.kept);

  const rendered = units.render(result.kept);
  const sessionFiles: BundleFile[] = names.map((name, k) => ({ name, bytes: rendered[k] as Uint8Array }));
  let offset = 0;
  const unitReport = units.files.map((f) => {
    const after = result.kept.filter((j) => j >= offset && j < offset + f.count).length;
    offset += f.count;
    return { name: f.name, kind: f.kind, before: f.count, after };
  });
  const manifest: BundleManifest = {
    format: 'session-inspector-bundle',
    version: 1,
    sources: sourceFiles.map((f) => ({ path: labelOf(f.path) ?? (request.sourceNames === 'name' ? basename(f.path) : resolve(f.path)), format: f.format, bytes: f.bytes.length, sha256: sha256(f.bytes) })),
    files: sessionFiles.map((f, k) => ({ name: f.name, format: (sourceFiles[k] as { format: SessionFileFormat }).format, bytes: f.bytes.length, sha256: sha256(f.bytes) })),
    ids,
    codes: named,
    expand: expected.map((o) => ({ id: o.reduction_id, total_bytes: o.total_bytes, range: o.range, source: o.source, sha256: sha256(utf8.encode(o.content)) })),
    options: { ...(request.session !== undefined ? { session: request.session } : {}), ...(request.format !== undefined ? { format: request.format } : {}) },
    minimizer: {
      algorithm: 'view prefix, then ddmin over format units',
      view: result.view,
      units: unitReport,
      oracle_calls: result.calls,
      max_oracle_calls: maxCalls,
      max_items: maxItems,
      max_bytes: maxBytes,
      max_time_ms: maxTimeMs,
      accepted_steps: result.steps,
      stop: result.stop,
      stopped_early: result.stop === 'minimal' ? null : { reason: result.stop, message: STOP_MESSAGES[result.stop]({ maxCalls, maxTimeMs, maxBytes }) },
      bytes_before: bytesBefore,
      bytes_after: sessionFiles.reduce((n, f) => n + f.bytes.length, 0),
      cut: cutReport(units, result.kept),
    },
  };
  const sessionNames = sessionFiles.map((f) => f.name);
  return {
    manifest,
    files: [
      ...sessionFiles,
      { name: 'README.md', bytes: utf8.encode(bundleReadme(manifest, sessionNames)) },
      { name: 'bundle.spec.ts', bytes: utf8.encode(bundleSpec(manifest, sessionNames)) },
      { name: 'bundle.json', bytes: utf8.encode(JSON.stringify(manifest, null, 2) + '\n') },
    ],
  };
}

/** Base names made distinct (two sources of one name from different folders): a numeric prefix on the later ones. */
function uniqueNames(names: readonly string[]): string[] {
  const used = new Set<string>();
  return names.map((name) => {
    let candidate = name;
    for (let k = 2; used.has(candidate) || ['README.md', 'bundle.spec.ts', 'bundle.json'].includes(candidate); k++) candidate = `${k}-${name}`;
    used.add(candidate);
    return candidate;
  });
}

/**
 * Writes a bundle into `dir`: created when missing, refused when it exists and is not an empty
 * folder (so it never lands beside or over the inputs). Every file is created exclusively.
 */
export function writeBundle(dir: string, bundle: Bundle): void {
  let entries: string[] | undefined;
  try {
    if (!statSync(dir).isDirectory()) throw new BundleError('out_exists', `--out ${dir} exists and is not a folder`);
    entries = readdirSync(dir);
  } catch (e) {
    if (e instanceof BundleError) throw e;
    if ((e as { code?: string }).code !== 'ENOENT') throw new BundleError('unreadable_file', `--out ${dir}: ${(e as Error).message}`);
  }
  if (entries && entries.length > 0) throw new BundleError('out_exists', `--out ${dir} is not empty: give a new or empty folder (a bundle never writes beside or over other files)`);
  mkdirSync(dir, { recursive: true });
  for (const f of bundle.files) writeFileSync(join(dir, f.name), f.bytes, { flag: 'wx' });
}
