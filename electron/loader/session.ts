/**
 * Opening a session (SPEC §3): detect each file's format by content, index each through its
 * source, resolve the whole with the pure model (shared/resolver/session.ts). Host-agnostic Node: the
 * worker, the HTTP host and the command line all load through here; it knows no format. Files are
 * opened read-only and never written.
 */
import type { Hash } from 'node:crypto';
import { createHash } from 'node:crypto';
import { readSync } from 'node:fs';
import { basename } from 'node:path';
import type { LoadedSession, SessionEnv, SessionFile, SessionFileFormat, SessionInputs, Sha256 } from '../../shared/index';
import { makeSession, resolveSession } from '../../shared/index';
import type { RunningSha256 } from '../../shared/resolver/transcriptHashes';
import type { ContentServices } from './content/contentServices';
import { createContentServices } from './content/contentServices';
import { FORMAT_ADAPTERS, detectSource } from './detect';
import { sessionNotHeld } from './heldSessions';
import type { ReadSync } from './common/lines';
import { unreadable } from './common/openFile';
import { isSystemError, osReason } from './common/osError';
import { FileGuard } from './common/fileGuard';
import type { CachePolicy, CountWhileBuilding, DetectContext, FormatAdapter, IndexPass, IndexStop, LoadError, Progress, SessionSource } from './common/source';
import { LoadCancelled } from './common/source';

export type { FileChange, LoadedSession, SessionError } from '../../shared/index';
export { FileChangedError } from '../../shared/index';
export type { LoadError, LoadErrorCode } from './common/source';
export { siblingSidecarPath, HASH_AT_INDEX_BYTES, IN_MEMORY_LINE_BYTES, MAX_SNAPSHOT_BYTES, PREVIEW_BYTES, RAW_SCAN_MIN_BYTES } from './native/index';

/** SHA-256 through node:crypto: the resolver's hash on the Node side (far faster than the portable one). */
export const nodeSha256: Sha256 = (chunks) => {
  const h = createHash('sha256');
  for (const c of chunks) h.update(c);
  return h.digest('hex');
};

/** A SHA-256 fed in pieces and copied (shared/resolver/transcriptHashes.ts), through node:crypto. */
export function nodeRunningSha256(hash: Hash = createHash('sha256')): RunningSha256 {
  return {
    update: (bytes) => void hash.update(bytes),
    copy: () => nodeRunningSha256(hash.copy()),
    digestHex: () => hash.digest('hex'),
  };
}

/** What a session made here hashes with (SessionEnv): node:crypto, whole and in pieces. */
const NODE_HASHES = { sha256: nodeSha256, runningSha256: (): RunningSha256 => nodeRunningSha256() };

export const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;
/**
 * The budget of the message cache of a command that reads a session once and exits (all but
 * `serve`, `open` and `check --follow`, which keep the app's): a pass reads each text left in the
 * file once or twice, so the app's 64 MiB cache was filled and seldom hit — 60 MB of `check`'s peak
 * on the bench's 537 MB Claude Code session, for no time saved (docs/streaming-import.md).
 */
const ONE_SHOT_CACHE_BYTES = 8 * 1024 * 1024;
/**
 * The message cache of a one-shot command: ONE_SHOT_CACHE_BYTES, keeping the messages it read
 * first (messageCache.ts `first-kept`): its walks are in file order and repeat, and a
 * least-recently-used cache smaller than a walk kept none of what the next walk read (docs/worker.md
 * "One-shot caches keep what they read first").
 */
export const ONE_SHOT_CACHE: Pick<LoadOptions, 'cacheBytes' | 'cachePolicy'> = { cacheBytes: ONE_SHOT_CACHE_BYTES, cachePolicy: 'first-kept' };
/** A record longer than this is not decoded into one string (V8 strings stop near 512 MB). */
export const MAX_RECORD_BYTES = 256 * 1024 * 1024;
/** A file this large gets a preview (LoadOptions.onPreview) while it is indexed. */
export const PREVIEW_MIN_BYTES = 8 * 1024 * 1024;

const PROGRESS_BYTES = 1024 * 1024;
const PROGRESS_MS = 4;

export interface LoadProgress {
  bytesRead: number;
  totalBytes: number;
}

export interface LoadOptions {
  onProgress?(p: LoadProgress): void;
  /**
   * Called once, early, while a large file (PREVIEW_MIN_BYTES or more; a sidecar without a snapshot,
   * a Claude Code transcript, a Codex rollout) is still being indexed: a session over the records
   * read so far, so its first rows can be shown (marked `provisional` by the worker).
   * It shares the final session's file and cache and must not be closed; it is never updated.
   */
  onPreview?(preview: LoadedSession): void;
  /** Checked while indexing: an aborted load closes its files and answers `cancelled`. */
  signal?: { readonly aborted: boolean };
  /** Budget of the message cache, in content bytes (default 64 MiB). */
  cacheBytes?: number;
  /** How the message cache takes an entry once full (default least-recently-used; the one-shot commands': ONE_SHOT_CACHE). */
  cachePolicy?: CachePolicy;
  /** Read buffer size of the indexing pass (default 1 MiB). */
  chunkSize?: number;
  /** Records longer than this become `malformed_line` findings (default 256 MiB). */
  maxRecordBytes?: number;
  /** Positional synchronous read; tests inject one to count reads. */
  readSync?: ReadSync;
  /** SPEC §10.1 `--session ID`: the session to open in a file that holds several. */
  session?: string;
  /** SPEC §10.2 `--format F`: read the files as this format (an adapter's name) instead of detecting it. */
  format?: string;
  /**
   * The format a sniff of the file's head found (the library's walk, electron/listing/sniff.ts):
   * that format's adapter is asked first and the others after, in their order, so a file already
   * sniffed does not pay every earlier adapter's detection. Detection still has the last word.
   */
  likelyFormat?: SessionFileFormat;
  /** The folders the host was given (DetectContext.roots, docs/safe-reads.md): checked at every open and reopen. */
  roots?: readonly string[];
  /** DetectContext.largeStringBytes: tests lower it to keep small strings in the file. */
  largeStringBytes?: number;
  /** DetectContext.keptStringChars: tests lower it to leave short message texts in the file, or raise it to keep every one in memory. */
  keptStringChars?: number;
  /** DetectContext.wholeValueBytes: tests lower it to cut small values. */
  wholeValueBytes?: number;
  /** DetectContext.inMemoryUpToBytes: a file this small or smaller is read with its strings in memory. */
  inMemoryUpToBytes?: number;
  /**
   * Count every session the files list as pending before answering (`check`: an Inspect log's
   * samples, one at a time). Without it the session's `countSessions` counts them when asked.
   */
  countSessions?: boolean;
  /**
   * What the session's contents use besides their file (docs/content-services.md): the worker
   * passes its own (its search pool, its buffers, where the background verifier leaves its work);
   * without them a load makes fresh ones that it shares with nobody.
   */
  services?: ContentServices;
  /**
   * What the command will count once the session is built (`view`, `log`): a Claude Code source
   * offers the contents it guesses that input shows as soon as it knows them, before its build
   * (docs/token-estimates.md "Counted while the session is built").
   */
  countWhileBuilding?: CountWhileBuilding;
  /**
   * Told an Inspect `.eval` log's header document (`header.json`, else `_journal/start.json`) as
   * the load parsed it: the library's entry takes its fields from it, without opening the archive
   * again (docs/library.md "Scale").
   */
  onLogHeader?: (doc: unknown) => void;
}

/** The sources' SessionSource.countSessions as one (SessionEnv.countSessions), or nothing when none counts. */
function countingOf(sources: readonly SessionSource[]): Pick<SessionEnv, 'countSessions'> {
  const counting = sources.filter((s) => s.countSessions !== undefined);
  if (counting.length === 0) return {};
  return {
    countSessions: async (onCounted, signal) => {
      for (const s of counting) await s.countSessions?.(onCounted, signal);
    },
  };
}

export type LoadResult = { ok: true; session: LoadedSession } | { ok: false; error: LoadError };

/**
 * Opens one or two files (a sidecar and/or a session snapshot, told apart by content) and resolves
 * them per SPEC §3.2. A snapshot given alone brings its sibling `<stem>.sidecar.jsonl` when it
 * exists. Bad files are errors; bad records inside a readable file are findings.
 */
export async function loadSession(paths: string[], options: LoadOptions = {}): Promise<LoadResult> {
  const loaded = await load(paths, options, false);
  return loaded.ok ? { ok: true, session: loaded.session } : loaded;
}

// --- live sessions (follow.ts) ---
/** The files of a session opened to be followed, kept open and indexed on by follow.ts. */
export interface LiveSources {
  /** In the order they are indexed (a snapshot before its sidecar). */
  readonly sources: readonly SessionSource[];
  /** Every source opened (the indexed ones, and any opened and not needed): closed together. */
  readonly opened: readonly SessionSource[];
  /** Where each source's last pass stopped (same order as `sources`). */
  readonly stops: IndexStop[];
  /** The paths the user gave, for the files' order in the session. */
  readonly paths: readonly string[];
  /** The pass options (read size, record limit, reader) later passes reuse. */
  readonly pass: Omit<IndexPass, 'progress' | 'final'>;
  /** True when the session was stopped at a newer format version: nothing is followed. */
  readonly stopped: boolean;
}

/**
 * `loadSession`, with the sources kept open and indexed on later (SPEC §13). The session's file
 * watches are append-only guards (fileGuard.ts): appends do not make its reads `file_changed`.
 */
export async function loadLive(paths: string[], options: LoadOptions = {}): Promise<{ ok: true; session: LoadedSession; live: LiveSources } | { ok: false; error: LoadError }> {
  const loaded = await load(paths, options, true);
  if (!loaded.ok) return loaded;
  if (!loaded.live) throw new Error('loadLive: a live load keeps its sources');
  return { ok: true, session: loaded.session, live: loaded.live };
}

/** The session over what the sources have indexed so far; `paths` orders its files. */
export function resolveLive(live: LiveSources, close: () => void, pathless = false): LoadedSession {
  const inputs = inputsOf(live.sources, live.stops);
  inputs.files.sort((a, b) => order(live.paths, a.path) - order(live.paths, b.path));
  if (inputs.stopped) return makeSession(resolveSession(inputs), { ...NODE_HASHES, close });
  const watches = live.sources.flatMap((s, k) => (s.readsAfterIndexing ? [new FileGuard(s.file.path, s.file.fd, { prefix: live.stops[k]?.offset ?? 0, pathless })] : []));
  return makeSession(resolveSession(inputs), { ...NODE_HASHES, watches, close, ...countingOf(live.sources) });
}

/** A followed file's `bytes` are those indexed (a torn tail waiting is not yet part of the session); a fresh open indexes all. */
function inputsOf(sources: readonly SessionSource[], stops: readonly IndexStop[]): SessionInputs {
  const inputs: SessionInputs = { files: [] };
  for (const [k, source] of sources.entries()) {
    inputs.files.push({ path: source.file.path, format: source.format, bytes: source.appends === true ? (stops[k]?.offset ?? 0) : source.file.size });
    if (inputs.stopped) continue;
    const index = source.indexed();
    if (index.stopped) inputs.stopped = index.stopped;
    if (index.records) inputs.records = index.records;
    if (index.snapshot) inputs.snapshot = index.snapshot;
  }
  return inputs;
}
// ---
async function load(paths: string[], options: LoadOptions, keep: boolean): Promise<{ ok: true; session: LoadedSession; live?: LiveSources } | { ok: false; error: LoadError }> {
  if (paths.length === 0) return { ok: false, error: { code: 'usage', message: 'no file given: pass a sidecar, a session snapshot, or one of each' } };
  if (paths.length > 2) return { ok: false, error: { code: 'usage', message: `${paths.length} files given: pass at most two, a sidecar and a session snapshot` } };

  const read = options.readSync ?? readSync;
  const maxRecordBytes = options.maxRecordBytes ?? MAX_RECORD_BYTES;
  const services = options.services ?? createContentServices();
  const context: DetectContext = { read, maxRecordBytes, cacheBytes: options.cacheBytes ?? DEFAULT_CACHE_BYTES, ...(options.cachePolicy !== undefined ? { cachePolicy: options.cachePolicy } : {}), services, ...(options.session !== undefined ? { session: options.session } : {}), ...(options.roots !== undefined ? { roots: options.roots } : {}), ...(options.largeStringBytes !== undefined ? { largeStringBytes: options.largeStringBytes } : {}), ...(options.keptStringChars !== undefined ? { keptStringChars: options.keptStringChars } : {}), ...(options.wholeValueBytes !== undefined ? { wholeValueBytes: options.wholeValueBytes } : {}), ...(options.inMemoryUpToBytes !== undefined ? { inMemoryUpToBytes: options.inMemoryUpToBytes } : {}), ...(options.countWhileBuilding ? { countWhileBuilding: options.countWhileBuilding } : {}), ...(options.onLogHeader ? { onLogHeader: options.onLogHeader } : {}) };
  const likely = options.likelyFormat;
  const ordered = likely === undefined ? FORMAT_ADAPTERS : [...FORMAT_ADAPTERS.filter((a) => a.formats.includes(likely)), ...FORMAT_ADAPTERS.filter((a) => !a.formats.includes(likely))];
  const adapters = options.format === undefined ? ordered : FORMAT_ADAPTERS.filter((a) => a.name === options.format);
  if (adapters.length === 0) return { ok: false, error: { code: 'usage', message: `unknown format ${JSON.stringify(options.format)}: the formats are ${FORMAT_ADAPTERS.map((a) => a.name).join(', ')}` } };
  const opened: SessionSource[] = [];
  const closeAll = () => {
    for (const s of opened) s.close();
  };
  const failWith = (error: LoadError): { ok: false; error: LoadError } => {
    closeAll();
    return { ok: false, error };
  };

  for (const path of paths) {
    const d = detectSource(path, context, adapters);
    if ('error' in d) return failWith(d.error);
    opened.push(d.source);
  }
  const adapter = adapterOf(opened[0] as SessionSource);
  if (opened.some((s) => adapterOf(s) !== adapter)) {
    return failWith({ code: 'usage', message: `files of different formats given (${opened.map((s) => `${s.file.path}: ${s.format}`).join(', ')}): pass the files of one session` });
  }
  const assembled = adapter.assemble(opened, (path) => {
    const d = detectSource(path, context, adapters);
    if ('source' in d) opened.push(d.source);
    return d;
  });
  if ('error' in assembled) return failWith(assembled.error);
  const sources = assembled.sources;
  // A file read back after its pass is watched, samples and all, from before the pass (fileGuard.ts).
  for (const s of opened) if (s.readsAfterIndexing) s.file.guard.takeSamples();

  const totalBytes = opened.reduce((n, s) => n + s.file.size, 0);
  let bytesRead = 0;
  let lastBytes = 0;
  let lastTime = 0;
  const report = (force: boolean) => {
    if (!options.onProgress) return;
    const now = performance.now();
    if (!force && (bytesRead - lastBytes < PROGRESS_BYTES || now - lastTime < PROGRESS_MS)) return;
    lastBytes = bytesRead;
    lastTime = now;
    options.onProgress({ bytesRead, totalBytes });
  };
  const progress: Progress = {
    add(n) {
      bytesRead += n;
      report(false);
    },
  };
  const pass = {
    chunkSize: options.chunkSize ?? 1024 * 1024,
    maxRecordBytes,
    read,
    progress,
    final: true,
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const fileOf = (s: SessionSource): SessionFile => ({ path: s.file.path, format: s.format, bytes: s.file.size });

  /** The source being indexed: an I/O error is its file's. */
  let indexing: SessionSource | undefined;
  const stops: IndexStop[] = [];
  try {
    report(true);
    const inputs: SessionInputs = { files: [] };
    for (const source of sources) {
      inputs.files.push(fileOf(source));
      if (inputs.stopped) {
        stops.push({ offset: 0, line: 1 });
        continue;
      }
      indexing = source;
      // Offered to every source of a large file; a source calls it at the first pause of its pass
      // once PREVIEW_AFTER_BYTES are indexed (a sidecar, an imported transcript or rollout), so one
      // parsed whole (a snapshot) never does.
      const preview =
        options.onPreview && sources.length === 1 && source.file.size >= PREVIEW_MIN_BYTES
          ? () => options.onPreview?.(makeSession(resolveSession({ files: [fileOf(source)], ...source.indexed() }), { ...NODE_HASHES, watches: source.readsAfterIndexing ? [source.file.guard] : [] }))
          : undefined;
      stops.push(await source.indexTo(source.file.size, { ...pass, ...(preview ? { onFirstPause: preview } : {}) }));
      if (options.countSessions) await source.countSessions?.(() => undefined, options.signal ?? { aborted: false });
      const index = source.indexed();
      if (index.stopped) inputs.stopped = index.stopped;
      if (index.records) inputs.records = index.records;
      if (index.snapshot) inputs.snapshot = index.snapshot;
    }
    // Keep the user's order in `files`; the sibling, found automatically, comes last.
    inputs.files.sort((a, b) => order(paths, a.path) - order(paths, b.path));
    bytesRead = totalBytes;
    report(true);

    if (inputs.stopped && !keep) {
      closeAll();
      return { ok: true, session: makeSession(resolveSession(inputs), NODE_HASHES) };
    }
    if (keep) {
      const { chunkSize, read: readBack } = pass;
      const live: LiveSources = { sources, opened, stops, paths: [...paths], pass: { chunkSize, maxRecordBytes, read: readBack }, stopped: inputs.stopped !== undefined };
      const session = resolveLive(live, closeAll);
      const notHeld = sessionNotHeld(session, options.session);
      if (notHeld !== undefined) return failWith({ code: 'usage', message: notHeld });
      return { ok: true, session, live };
    }
    const watched = opened.filter((s) => s.readsAfterIndexing);
    const session = makeSession(resolveSession(inputs), { ...NODE_HASHES, watches: watched.map((s) => s.file.guard), close: closeAll, ...countingOf(sources) });
    // An importer that holds several sessions refuses an unknown id at detection; this refuses it
    // for every format, so `--session` never silently opens another session than the one named.
    const notHeld = sessionNotHeld(session, options.session);
    if (notHeld !== undefined) return failWith({ code: 'usage', message: notHeld });
    return { ok: true, session };
  } catch (e) {
    if (e instanceof LoadCancelled) return failWith({ code: 'cancelled', message: `opening ${paths.map((p) => basename(p)).join(' + ')} was cancelled` });
    // An I/O error in the middle of the pass (a disk or network share gone away) is the file's;
    // anything else is a bug, and propagates.
    if (!isSystemError(e)) {
      closeAll();
      throw e;
    }
    return failWith(unreadable(indexing?.file.path ?? paths.join(', '), osReason(e)));
  }
}

function adapterOf(source: SessionSource): FormatAdapter {
  const adapter = FORMAT_ADAPTERS.find((a) => a.formats.includes(source.format));
  if (!adapter) throw new Error(`no adapter reads ${source.format}`);
  return adapter;
}

function order(paths: readonly string[], path: string): number {
  const k = paths.indexOf(path);
  return k === -1 ? paths.length : k;
}
