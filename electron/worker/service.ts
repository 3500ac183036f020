/**
 * The resolver worker's core, without the worker: owns at most one loaded session and answers the
 * contract's session methods over it. Plain class, so it is tested directly; entry.ts feeds it
 * validated params from the message channel.
 *
 * Errors are values: every method answers `{ ok: false, error: { code, message } }` with the
 * contract's HostErrorCode and never throws (an unexpected exception becomes `internal_error`).
 */
import { statSync } from 'node:fs';
import type { z } from 'zod';
import type {
  ByteSource,
  CallInput,
  CheckReport,
  ContextMap,
  FindingCode,
  EventPayload,
  HostError,
  HostErrorCode,
  ParsedParams,
  ProjectedRow,
  ProjectedRowInfo,
  ProjectionLayout,
  Reduction,
  ReductionKind,
  ReductionStatus,
  Reply,
  ResultOf,
  SessionInfo,
  SidecarSearchResult,
  WorkerSessionMethod,
} from '../../shared/index';
import {
  MAX_MATCHES,
  MAX_REPLY_FINDINGS,
  MAX_RESULT_BYTES,
  SNIPPET_MAX_BYTES,
  MAX_SLICE_BYTES,
  REDUCTION_KINDS,
  MAX_BUNDLE_BYTES,
  ROW_TEXT_MAX_BYTES,
  floorCharBoundary,
  checkReduction,
  contextMap,
  memorySource,
  projectView,
  projectionLayout,
  rowOfIndex,
  snapByteRange,
  unknownReduction,
  utf8Decode,
  utf8Encode,
  utf8Length,
  workerMethods,
  methods,
  canonicalFullyVisible,
  isRangeKind,
  stubPosition,
  stubStatedHiddenBytes,
  transcriptOffset,
} from '../../shared/index';
import type { SearchOptions } from '../../shared/index';
import { pageSearchOptions, searchPageOf } from '../../shared/searchPage';
import { viewSearchSteps } from '../../shared/viewSearch';
import type { LoadedSession, LoadOptions } from '../loader/session';
import { FileChangedError, loadSession, nodeSha256 } from '../loader/session';
import { SessionFollower } from '../loader/follow';
import type { LiveLayout } from '../../shared/liveLayout';
import { extendLayout } from '../../shared/liveLayout';
import type { FollowLoopOptions } from '../loader/followLoop';
import { FollowLoop } from '../loader/followLoop';
import type { BackgroundOptions, BackgroundVerify, IdleVerifier } from '../loader/backgroundVerify';
import { BACKGROUND_MIN_BYTES, startBackgroundVerify, startIdleVerifier } from '../loader/backgroundVerify';
import type { ContentServices } from '../loader/contentServices';
import { createContentServices } from '../loader/contentServices';
import type { WorkerReply } from './protocol';
import { formatOf, listedSessions } from './sessions';
import { replayReply, whatIfReply } from './replayReplies';
import { abandonedReply, callDiffReply, noSuchCall, sessionEventsReply } from './story';
import { reproBundleReply } from './bundle';
import type { PoolStop, SearchPool } from './searchPool';

export type OpenParams = z.output<typeof workerMethods.open.params>;
export type LoadProgressPayload = EventPayload<'loadProgress'>;

/** What a search checks to stop early; entry.ts backs it with the shared search epoch. */
export interface SearchSignal {
  readonly aborted: boolean;
  /** The same condition as shared memory, which the search pool's threads look at (issue 16). */
  readonly shared?: PoolStop;
}

interface OpenSession {
  session: LoadedSession;
  /** The same object for every update of one open (issue 14): a search over it goes on while the file grows. */
  token: object;
  /** Computed once per open: every `rows` and `rowOfIndex` reuses it. */
  layout: ProjectionLayout;
  /** Issue 14: a followed session's layout with its ranges, which the next update's layout is extended from. */
  liveLayout?: LiveLayout;
  info: SessionInfo;
  /** A file change was reported (onFileChanged) for this open. */
  changeReported?: boolean;
  /** The last row text (or tool-call arguments) `rowText` encoded: paging through one huge row encodes it once. */
  lastRowText?: { row: number; toolCall: number | undefined; call: number | null; bytes: ByteSource };
  /** Issue 12 part A: the inputs of the calls last shown, with their layouts (at most CALL_VIEWS_KEPT, most recent last). */
  callViews?: Map<number, CallView>;
  /** Issue 12 part A: the context map, computed at its first request. */
  contextMap?: ContextMap;
}

// --- Issue 12 part A: a call's input as the view the row methods read ---
/** What `rows`, `rowOfIndex`, `rowText` and `verify` read: the latest view, or a call's input. */
interface CallView extends CallInput {
  layout: ProjectionLayout;
}

/**
 * Call inputs kept with their layouts: a layout is one pass over the input (a million rows is tens
 * of milliseconds), so it is made once per call shown, not per request; a few are kept for going
 * back and forth with the slider.
 */
const CALL_VIEWS_KEPT = 4;

/** The view a request reads: the latest for null or absent, else call N's input (its layout cached), or why there is none. */
function callView(open: OpenSession, call: number | null | undefined): CallView | { ok: false; error: HostError } {
  const { session } = open;
  if (call === null || call === undefined) return { minted: session.minted, log: session.log as Reduction[], layout: open.layout };
  const views = (open.callViews ??= new Map<number, CallView>());
  const kept = views.get(call);
  if (kept) {
    views.delete(call);
    views.set(call, kept);
    return kept;
  }
  const input = session.callInput(call);
  if (!input) return fail('invalid_request', `call ${call} is not a model call of this session: it has ${session.calls.length} ${session.calls.length === 1 ? 'call' : 'calls'} (1…${session.calls.length})`);
  const view = { ...input, layout: projectionLayout(input.minted.length, input.log) };
  views.set(call, view);
  for (const oldest of views.keys()) {
    if (views.size <= CALL_VIEWS_KEPT) break;
    views.delete(oldest);
  }
  return view;
}

/** A search run in slices (`searchInSlices`) lets other requests in after this long… */
const SEARCH_SLICE_MS = 20;
/** The search preparation after an open, and each warm-up search, holds the worker at most this long at a time (prepareSearch, warmUp). */
const PREPARE_SLICE_MS = 5;
/** …and stops with `timeout` after this long, unless told otherwise. */
export const DEFAULT_SEARCH_TIME_LIMIT_MS = 120_000;

/**
 * What the warm-up searches after an open's preparation look for when the hidden text gives them no
 * word (warmUpQueries): plain ASCII, as most queries are, so it runs the raw substring path over both
 * cores; unlikely to occur. Its result is dropped whatever it finds.
 */
export const WARM_UP_QUERY = 'session-inspector:warm-up:9f3c1e7a';

/**
 * Warm-up searches after an open's preparation (warmUp). A search's code runs faster once V8 has
 * compiled it for what it meets, on every thread. Scripted at 1 GiB, the bench's needle sent as
 * the first search once the idle work had ended, in fresh workers:
 * - six warm-ups: the first search took 146–195 ms, 0.75–1.22× the median of the five after it
 *   (median 0.92×, 12 workers); the idle work ended 4.5–5.4 s after the open reply;
 * - against the median of the three after it, per worker, the median over 10 workers (before
 *   WARM_UP_TIME_LIMIT_MS): 1.03× and 1.05× with six warm-ups, 1.09× and 1.14× with three (two
 *   batches each);
 * - the same measure over 8 workers, before the warm-ups were sent as searches are (three, one
 *   word, one scan shared, of another shape): 1.25× and 1.39×, the first search 162–254 ms.
 */
export const WARM_UP_SEARCHES = 6;

/**
 * A warm-up search stops (with `timeout`, its result dropped as any) after this long: a word found
 * everywhere costs its every occurrence's check, and the warm-ups are there to run the search's
 * code, not to finish.
 */
const WARM_UP_TIME_LIMIT_MS = 1000;

/** The hidden text the warm-up word is taken from: the last bytes of a content (hidden for every kind a search looks at but turns_cleared). */
const WARM_UP_SAMPLE_BYTES = 2048;

/**
 * The warm-up searches' queries, `count` of them (fewer when the hidden text has fewer words): the
 * longest word (6 to 24 letters, digits, `_` or `-`, not all digits) of the last
 * WARM_UP_SAMPLE_BYTES of each of `count` contents the session hides, from the middle of its log on
 * (of the first 16 + `count` tried), each other than those before. So each warm-up finds at least
 * that match and runs the code that places a match and cuts its snippet, and each looks for a new
 * needle, as a user's first search does. [WARM_UP_QUERY] when no content gives a word.
 */
export function warmUpQueries(session: Pick<LoadedSession, 'log' | 'expand'>, count = WARM_UP_SEARCHES): string[] {
  const log = session.log;
  const words: string[] = [];
  for (let k = log.length >> 1, tried = 0; k < log.length && tried < 16 + count && words.length < count; k++) {
    const reduction = log[k] as Reduction;
    // Contents a search looks at, where it looks: a range's messages are searched one by one.
    if (isRangeKind(reduction.kind) || canonicalFullyVisible(reduction, log)) continue;
    tried++;
    const head = session.expand(reduction.id, [0, 0]);
    if (!head.ok) continue;
    const total = head.value.total_bytes;
    const hiddenFrom = reduction.kind === 'tool_output_truncated' ? (reduction.kept_bytes ?? 0) : 0;
    if (total - hiddenFrom < 64) continue;
    const tail = session.expand(reduction.id, [Math.max(hiddenFrom, total - WARM_UP_SAMPLE_BYTES), total]);
    if (!tail.ok) continue;
    let best = '';
    for (const word of tail.value.content.match(/[A-Za-z0-9_-]{6,24}/g) ?? []) {
      if (word.length > best.length && !/^[0-9]+$/.test(word) && !words.includes(word)) best = word;
    }
    if (best !== '') words.push(best);
  }
  return words.length > 0 ? words : [WARM_UP_QUERY];
}

/**
 * Where a warm-up search's progress goes: nowhere, through two functions taken in turn. The call
 * that reports a search's progress has then met more than one function, and the code the warm-ups
 * leave optimized calls any: a user's search, whose progress the worker posts, does not throw it away
 * (it did with one sink: the profile showed `sidecarSearchSteps` deoptimized at that call and compiled
 * again during the user's first search).
 */
const dropProgress: readonly ((progress: EventPayload<'searchProgress'>) => void)[] = [(): void => undefined, (): void => undefined];

/** A search reports progress once it has run this long… */
const PROGRESS_AFTER_MS = 150;
/** …and then at most this often. */
const PROGRESS_EVERY_MS = 100;

/**
 * The options of a search request. Progress is reported once the search has run PROGRESS_AFTER_MS,
 * then at most every PROGRESS_EVERY_MS; `record` hears every step's. Exported for tests.
 */
export function searchOptions(
  params: ParsedParams<'search'>,
  signal: SearchSignal | undefined,
  onProgress: ((progress: EventPayload<'searchProgress'>) => void) | undefined,
  record?: (progress: EventPayload<'searchProgress'>) => void,
): SearchOptions {
  const started = performance.now();
  let last = started;
  const { searchId } = params;
  // One shape, numbers in the bounds, whatever the request leaves out (an absent bound is its
  // default here), and the mode as this code's own string (a request's comes through a message:
  // another kind of string than the literal it is compared with): the code the warm-up searches
  // leave optimized (warmUp) reads these, and a property met with another shape or kind of value
  // than before throws that code away.
  return {
    onProgress: (p) => {
      record?.({ searchId, ...p });
      if (!onProgress) return;
      const now = performance.now();
      if (now - started < PROGRESS_AFTER_MS || now - last < PROGRESS_EVERY_MS) return;
      last = now;
      onProgress({ searchId, ...p });
    },
    mode: params.mode === 'regex' ? 'regex' : 'substring',
    case_sensitive: params.case_sensitive,
    max_matches: params.max_matches ?? MAX_MATCHES,
    snippet_max_bytes: params.snippet_max_bytes ?? SNIPPET_MAX_BYTES,
    max_result_bytes: params.max_result_bytes ?? MAX_RESULT_BYTES,
    signal,
  };
}

function fail(code: HostErrorCode, message: string): { ok: false; error: HostError } {
  return { ok: false, error: { code, message } };
}

function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

function internal(e: unknown): { ok: false; error: HostError } {
  const message = e instanceof Error ? e.message : String(e);
  return fail('internal_error', `the resolver worker failed unexpectedly: ${message}`);
}

/** A resolver error (it may carry `reduction_id`, `total_bytes`…) as the contract's `{ code, message }`. */
function hostError(error: { code: HostErrorCode; message: string }): { ok: false; error: HostError } {
  return fail(error.code, error.message);
}

/**
 * `text` cut to at most `maxBytes` UTF-8 bytes on a character boundary, with the byte length of
 * the whole text. Only the head is encoded: every UTF-16 unit is at least one byte, so the first
 * `maxBytes + 1` units hold more than `maxBytes` bytes (the extra unit keeps a surrogate pair whole
 * at the cut).
 */
export function cutToBytes(text: string, maxBytes: number): { text: string; bytes: number } {
  const bytes = utf8Length(text);
  if (bytes <= maxBytes) return { text, bytes };
  const head = utf8Encode(text.slice(0, maxBytes + 1));
  return { text: utf8Decode(head.subarray(0, floorCharBoundary(head, maxBytes))), bytes };
}

/** A byte range no longer than MAX_SLICE_BYTES: a longer one keeps its start and is cut at start + MAX_SLICE_BYTES. */
function clampSlice(range: readonly [number, number]): [number, number] {
  const [start, end] = range;
  return end - start > MAX_SLICE_BYTES ? [start, start + MAX_SLICE_BYTES] : [start, end];
}

function countByKind(log: readonly Reduction[]): Record<ReductionKind, number> {
  const counts = Object.fromEntries(REDUCTION_KINDS.map((k) => [k, 0])) as Record<ReductionKind, number>;
  for (const r of log) counts[r.kind] += 1;
  return counts;
}

/** The content of a row that shows one whole message read from the file (not reduced), else undefined. */
function rowSource(session: LoadedSession, row: ProjectedRow): ByteSource | undefined {
  if (row.applied !== undefined || row.end !== row.index + 1 || row.missing) return undefined;
  return session.minted.at(row.index)?.large;
}

/**
 * A row as `rows` sends it: its text cut to ROW_TEXT_MAX_BYTES, and its tool calls' arguments cut
 * to an even share of another ROW_TEXT_MAX_BYTES (a call's arguments can be megabytes, and a
 * message can hold many calls), each with its whole length.
 */
function rowInfo(row: ProjectedRow, log: readonly Reduction[]): ProjectedRowInfo {
  const { text, bytes } = cutToBytes(row.text, ROW_TEXT_MAX_BYTES);
  const { tool_calls: calls, ...rest } = row;
  // Part C: where the stub stands, so the renderer never looks for it in the text.
  const applied = row.applied !== undefined ? reductionsById(log).get(row.applied) : undefined;
  const stub = applied ? stubPosition(row.text, applied) : undefined;
  if (stub) Object.assign(rest, { stub });
  if (!calls) return { ...rest, text, text_bytes: bytes };
  const share = Math.floor(ROW_TEXT_MAX_BYTES / Math.max(1, calls.length));
  const tool_calls = calls.map((c) => {
    const args = cutToBytes(c.arguments, share);
    return { id: c.id, name: c.name, arguments: args.text, arguments_bytes: args.bytes };
  });
  return { ...rest, tool_calls, text, text_bytes: bytes };
}

/** Per log, its live records by id (the most recent of an id, as findReduction answers): a row's applied reduction is found without a scan. */
const idsByLog = new WeakMap<readonly Reduction[], Map<string, Reduction>>();
function reductionsById(log: readonly Reduction[]): Map<string, Reduction> {
  let byId = idsByLog.get(log);
  if (!byId) {
    byId = new Map(log.map((r) => [r.id, r]));
    idsByLog.set(log, byId);
  }
  return byId;
}

/**
 * Part C: each match inside a cleared or summarized range also says where it lands in the range's
 * transcript (what `expand` returns), so the renderer never parses transcript headers.
 */
function placeMatches(session: LoadedSession, result: SidecarSearchResult): ResultOf<'search'> {
  if (!result.matches.some((m) => isRangeKind(m.kind))) return result;
  const byId = reductionsById(session.log);
  const matches = result.matches.map((m) => {
    const r = isRangeKind(m.kind) ? byId.get(m.reduction_id) : undefined;
    const at = r ? transcriptOffset(r, session.minted, session.recorded, m.index, m.offset) : undefined;
    return at !== undefined ? { ...m, transcript_offset: at } : m;
  });
  return { ...result, matches };
}

/**
 * Methods that read content. A session whose file is newer than supported (`stopped`) answers them
 * with `unsupported_version`; `log` (empty) and `check` (whose findings say why) still answer.
 */
const CONTENT_METHODS: ReadonlySet<WorkerSessionMethod> = new Set(['rows', 'rowOfIndex', 'rowText', 'expand', 'search', 'verify', 'callDiff', 'abandoned', 'calls', 'whatIf']);

/** Methods whose session call checks the files itself, before and after it reads them (LoadedSession). */
const SESSION_GUARDED: ReadonlySet<WorkerSessionMethod> = new Set(['expand', 'search', 'check', 'replay', 'whatIf']);

/**
 * The open session's layout and info (`provisional` while its file is still being indexed);
 * `asked` is the session id the open asked for ('' for the main one).
 */
function describe(session: LoadedSession, generation: number, provisional: boolean, asked: string, token: object = {}, following = false, previous?: OpenSession): OpenSession {
  // Issue 14: a followed session's layout is extended from the one before the update (O(new rows)), equal to projectionLayout's.
  const liveLayout = following ? extendLayout(previous?.liveLayout, session.minted.length, session.log) : undefined;
  const layout = liveLayout?.layout ?? projectionLayout(session.minted.length, session.log);
  const listed = listedSessions(session, asked);
  const info: SessionInfo = {
    generation,
    files: session.files.map((f) => ({ ...f })),
    session_id: session.sessionId,
    model: session.model,
    gate: session.header?.gate ?? null,
    policy: session.header?.policy ?? null,
    messages: session.minted.length,
    rows: layout.rowCount,
    reductions: session.log.length,
    reductions_by_kind: countByKind(session.log),
    load_findings: session.loadFindings.length,
    stopped: session.stopped,
    ...(provisional ? { provisional: true } : {}),
    format: formatOf(session),
    session: asked,
    sessions: listed.sessions,
    ...(listed.omitted > 0 ? { sessions_omitted: listed.omitted } : {}),
    ...(following ? { following: true } : {}),
  };
  return { session, layout, ...(liveLayout ? { liveLayout } : {}), info, token };
}

/**
 * A check report with at most MAX_REPLY_FINDINGS findings (the first ones, in the report's order:
 * by line, then index), the rest counted: a reply must stay small enough to cross a process
 * boundary and be shown, however many lines a file has. The summary's counts stay whole.
 */
export function capFindings(report: CheckReport): CheckReport {
  if (report.findings.length <= MAX_REPLY_FINDINGS) return report;
  const byCode: Partial<Record<FindingCode, number>> = {};
  for (const f of report.findings) byCode[f.code] = (byCode[f.code] ?? 0) + 1;
  return {
    findings: report.findings.slice(0, MAX_REPLY_FINDINGS),
    summary: report.summary,
    findings_omitted: report.findings.length - MAX_REPLY_FINDINGS,
    findings_by_code: byCode,
  };
}

/** The bytes of the files an open names (0 for one that cannot be stat'ed: the open reports it). */
function filesBytes(paths: readonly string[]): number {
  let total = 0;
  for (const path of paths) {
    try {
      total += statSync(path).size;
    } catch {
      // not a file this open can read; the loader says why
    }
  }
  return total;
}

export class SessionService {
  private current: OpenSession | undefined;
  /** The names the user knows the open files by (an upload's label), by path: a repro bundle writes them instead of the paths. */
  private labels = new Map<string, string>();
  /** Issue 14: the open session's follower and its change detection, while it is followed. */
  private following: { follower: SessionFollower; loop: FollowLoop } | undefined;
  /** The open being indexed, if any: aborting its signal supersedes it. */
  private loading: { signal: { aborted: boolean }; done: Promise<void> } | undefined;
  /** Issue 16: the open session's hidden contents, verified on a worker thread since the open reply. */
  private verifying: BackgroundVerify | undefined;
  /** The background thread is still verifying: a search is not split meanwhile (see search). */
  private verifyRunning = false;
  /** Settles when the search preparation (prepareSearch) has ended. */
  private preparing: Promise<void> | undefined;
  /** Searches running in slices now: the preparation gives way to them. */
  private searchesRunning = 0;
  /** Issue 16: the background thread, started while the open's files are indexed, until it gets its work. */
  private idleVerifier: IdleVerifier | undefined;

  /**
   * `loadOptions` tune the loader (cache budget, read size); progress comes through `open`.
   * `onFileChanged` hears, once per open, that a file of the session changed on disk.
   */
  constructor(
    private readonly loadOptions: Omit<LoadOptions, 'onProgress'> = {},
    private readonly onFileChanged?: (change: EventPayload<'fileChanged'>) => void,
    /** Issue 14: hears every change of a followed session, and how it is followed (tests drive the loop by hand). */
    private readonly follow: { onUpdated?: (update: EventPayload<'sessionUpdated'>) => void; loop?: FollowLoopOptions; settleMs?: number } = {},
    /** Raw searches over both cores (the loads' services' parallelScan unless `loadOptions.services` is given); used while a search runs in slices. */
    private readonly searchPool?: SearchPool,
    /** Issue 16: when the background thread starts (tests lower its least work). */
    private readonly background: BackgroundOptions = {},
    /**
     * Issue 16: a signal raised by the next search or cancel sent (the worker's shared epoch at its
     * value now): it ends the warm-up searches after an open's preparation, on every thread, within
     * one read window. Without it only the searches that begin here end them.
     */
    private readonly idleSignal?: () => SearchSignal,
  ) {
    this.services = loadOptions.services ?? createContentServices({ parallelScan: searchPool ?? null });
  }

  /** What every session opened here reads its contents with (docs/content-services.md): passed to each load and to the background verifier. */
  private readonly services: ContentServices;

  /** The open session's info, or null. */
  get info(): SessionInfo | null {
    return this.current?.info ?? null;
  }

  /**
   * Opens `paths`, closing the open session first (its memory is released before the new files are
   * indexed). On failure nothing is open. Progress is reported with the request's generation.
   *
   * A large sidecar is previewed while it is indexed: `onPreview` gets a provisional info and, from
   * then on, session methods answer over the records read so far until the open resolves. An open
   * or close that comes meanwhile supersedes this one, which then answers `cancelled`.
   */
  async open(
    params: OpenParams,
    onProgress?: (progress: LoadProgressPayload) => void,
    onPreview?: (info: SessionInfo) => void,
  ): Promise<WorkerReply<SessionInfo>> {
    this.cancelLoad();
    const signal = { aborted: false };
    let finished: () => void = () => undefined;
    this.loading = { signal, done: new Promise<void>((resolve) => (finished = resolve)) };
    let idle: IdleVerifier | undefined;
    try {
      this.release();
      this.labels = new Map((params.labels ?? []).map((label, k) => [params.paths[k] ?? '', label]));
      const { generation } = params;
      const asked = params.session ?? '';
      const source = { ...this.loadOptions, services: this.services, ...(asked !== '' ? { session: asked } : {}), ...(params.format !== undefined ? { format: params.format } : {}), ...(params.roots !== undefined ? { roots: params.roots } : {}) };
      const once = {
        signal,
        ...(onProgress ? { onProgress: (p: { bytesRead: number; totalBytes: number }) => onProgress({ generation, bytesRead: p.bytesRead, totalBytes: p.totalBytes }) } : {}),
        onPreview: (preview: LoadedSession) => {
          if (signal.aborted) return;
          this.current = describe(preview, generation, true, asked);
          onPreview?.(this.current.info);
        },
      };
      const follows = params.follow !== false;
      // Issue 16: the background thread starts while the files are indexed (its start then costs
      // the open nothing it waits for); it gets its work once the open has replied.
      this.idleVerifier?.dispose();
      idle = filesBytes(params.paths) >= (this.background.minBytes ?? BACKGROUND_MIN_BYTES) ? startIdleVerifier(this.background) : undefined;
      this.idleVerifier = idle;
      const loaded = follows
        ? await SessionFollower.open(params.paths, { ...source, ...(this.follow.settleMs !== undefined ? { settleMs: this.follow.settleMs } : {}) }, once)
        : await loadSession(params.paths, { ...source, ...once });
      if (signal.aborted) {
        if (loaded.ok) ('follower' in loaded ? loaded.follower : loaded.session).close();
        return fail('cancelled', `opening ${params.paths.join(' + ')} was superseded`);
      }
      if (!loaded.ok) {
        this.current = undefined;
        return hostError(loaded.error);
      }
      if ('follower' in loaded) {
        this.current = describe(loaded.follower.session, generation, false, asked, {}, true);
        this.startFollowing(loaded.follower, asked);
      } else {
        this.current = describe(loaded.session, generation, false, asked);
      }
      this.verifyAfterReply(this.current);
      return ok(this.current.info);
    } catch (e) {
      this.release();
      return internal(e);
    } finally {
      if (this.loading?.signal === signal) this.loading = undefined;
      // Not handed its work (the open failed or was superseded): the thread ends.
      if (idle && this.idleVerifier === idle) {
        idle.dispose();
        this.idleVerifier = undefined;
      }
      finished();
    }
  }

  /** Resolves once no open is being indexed (at once when none is). */
  whenLoaded(): Promise<void> {
    return this.loading?.done ?? Promise.resolve();
  }

  /** Closes the session, superseding an open still being indexed. */
  close(): WorkerReply<Record<string, never>> {
    this.cancelLoad();
    return this.release();
  }

  private cancelLoad(): void {
    if (this.loading) this.loading.signal.aborted = true;
  }

  // --- Issue 16: hashes verified in the background ---
  /** Starts verifying once the open reply is posted (the reply is never delayed by it). */
  private verifyAfterReply(open: OpenSession): void {
    const thread = this.idleVerifier;
    this.idleVerifier = undefined;
    setImmediate(() => {
      if (this.current?.token !== open.token || this.verifying) {
        thread?.dispose();
        return;
      }
      const verifying = startBackgroundVerify(open.session, this.services.prepared, this.background, thread);
      this.verifying = verifying;
      if (verifying) {
        this.verifyRunning = true;
        void verifying.done.finally(() => {
          if (this.verifying !== verifying) return;
          this.verifyRunning = false;
          // A session worth a background thread is one a search splits: its threads start now.
          this.searchPool?.prepare();
          this.prepareSearch(open);
        });
      }
    });
  }

  /**
   * The first search's once-per-state work, done in the worker's idle time after the background
   * verification, PREPARE_SLICE_MS at a time, then the warm-up searches (warmUp). It ends when the
   * session is replaced or updated (a new log has other units) or a search begins (that search loads
   * what is left).
   */
  private prepareSearch(open: OpenSession): void {
    const idle = (): boolean => this.current === open && this.searchesRunning === 0;
    const work = open.session.prepareSearch();
    let finish = (): void => undefined;
    this.preparing = new Promise<void>((resolve) => (finish = resolve));
    const slice = (): void => {
      try {
        if (!idle()) {
          work.return({ ok: true, value: 0 });
          return finish();
        }
        const end = performance.now() + PREPARE_SLICE_MS;
        while (performance.now() < end) {
          const step = work.next();
          if (!step.done) continue;
          if (!step.value.ok) return finish();
          // A warm-up that fails is dropped as its result is (a search meets the failure and reports it).
          void this.warmUp(open, idle).then(finish, finish);
          return;
        }
      } catch {
        // A search meets the same failure and reports it.
        return finish();
      }
      setImmediate(slice);
    };
    setImmediate(slice);
  }

  /**
   * WARM_UP_SEARCHES searches for words of the hidden text (warmUpQueries), whose results are
   * dropped: a fresh worker's first searches run their code for the first time, on this thread and
   * the pool's, and slower than later ones. They are sent as the app sends a search (its parameters,
   * `searchInSlices`, options of the one shape, a signal of its own each), so the code they leave
   * optimized is the code a user's search runs. Warm-ups of another shape left code that a user's
   * first search threw away: V8's trace showed `sidecarSearchSteps`, `snippetOf`, the pool's
   * `stopped` and others deoptimized at the properties, callbacks and values that differed, and
   * compiled again while that search ran (tens of milliseconds each, on the cores it searches on).
   * Each looks for a new word, as a user's first search does. Each runs PREPARE_SLICE_MS at a time
   * and stops after WARM_UP_TIME_LIMIT_MS; they end when a search begins, the session goes, or any
   * search or cancel is sent (`idleSignal`: it stops the pool's threads within one window).
   */
  private async warmUp(open: OpenSession, idle: () => boolean): Promise<void> {
    if (!idle()) return;
    const queries = warmUpQueries(open.session);
    // No search but the warm-up itself runs.
    const alone = (): boolean => this.current === open && this.searchesRunning <= 1;
    for (let run = 0; run < WARM_UP_SEARCHES && idle(); run++) {
      const query = queries[run % queries.length] as string;
      // The signal a search sent now would get (a new one each, as each search sent gets its own):
      // raised by the next search or cancel sent. Without one (a host that calls the service
      // itself), the warm-ups end when another search begins.
      const signal: SearchSignal = this.idleSignal?.() ?? {
        get aborted() {
          return !alone();
        },
      };
      const params = methods.search.params.parse({ searchId: `warm-up-${run}`, query, mode: 'substring', case_sensitive: true });
      await this.searchInSlices(params, signal, dropProgress[run % dropProgress.length], WARM_UP_TIME_LIMIT_MS, true);
    }
  }

  /** Tests: resolves when the search preparation after the background verification has ended. */
  async whenPrepared(): Promise<void> {
    await this.whenVerified();
    await new Promise<void>((resolve) => setImmediate(resolve));
    await this.preparing;
  }

  /** Tests: resolves when the background verification of the open session has ended (null when none runs). */
  async whenVerified(): Promise<{ contents: number; hashed: number; located: number } | null> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    const verifying = this.verifying;
    return verifying ? { contents: verifying.contents, ...(await verifying.done) } : null;
  }
  // --- end issue 16 ---

  // --- Issue 14: live sessions ---
  /** Follows the open session: every update replaces it (same generation and token) and is reported. */
  private startFollowing(follower: SessionFollower, asked: string): void {
    const loop = new FollowLoop(
      follower,
      (update) => {
        const open = this.current;
        if (!open || this.following?.follower !== follower) return;
        const next = describe(update.session, open.info.generation, false, asked, open.token, true, update.notice?.kind === 'reopened' ? undefined : open);
        this.current = next;
        this.follow.onUpdated?.({
          generation: next.info.generation,
          info: next.info,
          new_messages: Math.max(0, next.info.messages - open.info.messages),
          calls: update.session.calls.length,
          ...(update.notice ? { notice: update.notice } : {}),
        });
      },
      this.follow.loop ?? {},
    );
    this.following = { follower, loop };
  }

  /** Issue 14: one look at the followed files now (tests; the loop looks by itself). */
  followNow(): Promise<void> {
    return this.following?.loop.trigger() ?? Promise.resolve();
  }
  // --- end issue 14 ---

  private release(): WorkerReply<Record<string, never>> {
    const open = this.current;
    const following = this.following;
    this.current = undefined;
    this.following = undefined;
    this.verifying?.stop();
    this.verifying = undefined;
    this.verifyRunning = false;
    this.idleVerifier?.dispose();
    this.idleVerifier = undefined;
    try {
      following?.loop.stop();
      following?.follower.close();
      open?.session.close();
    } catch (e) {
      return internal(e);
    }
    return ok({});
  }

  /** Issue 13: a repro bundle of the open session's files (bundle.ts); asynchronous, as it loads every candidate. */
  async reproBundle(params: ParsedParams<'reproBundle'>): Promise<Reply<'reproBundle'>> {
    const open = this.current;
    if (!open) return fail('no_session', 'reproBundle: no session is open');
    const changed = open.session.fileChange();
    if (changed) return fail('file_changed', changed.message);
    const labels = open.info.files.map((f) => this.labels.get(f.path));
    return reproBundleReply(open.info, params, MAX_BUNDLE_BYTES, labels.every((l) => l !== undefined) ? labels : undefined);
  }

  /** Answers one session method; `signal` and `onSearchProgress` are used by `search` only. */
  handle<M extends WorkerSessionMethod>(method: M, params: ParsedParams<M>, signal?: SearchSignal, onSearchProgress?: (progress: EventPayload<'searchProgress'>) => void): Reply<M> {
    const answer = (): Reply<WorkerSessionMethod> => {
      switch (method) {
        case 'rows':
          return this.rows(params as ParsedParams<'rows'>);
        case 'rowOfIndex':
          return this.rowOfIndex(params as ParsedParams<'rowOfIndex'>);
        case 'rowText':
          return this.rowText(params as ParsedParams<'rowText'>);
        case 'expand':
          return this.expand(params as ParsedParams<'expand'>);
        case 'search':
          return this.search(params as ParsedParams<'search'>, signal, onSearchProgress);
        case 'searchPage':
          // Only ever run in slices (entry.ts): a page is a full pass of the search.
          return fail('not_supported', 'searchPage is answered by searchPageInSlices');
        case 'log':
          return this.log();
        case 'verify':
          return this.verify(params as ParsedParams<'verify'>);
        case 'check':
          return this.check();
        case 'calls':
          return this.calls();
        // Issue 12, part B (story.ts).
        case 'callDiff':
          return this.withSession('callDiff', ({ session }) => {
            const p = params as ParsedParams<'callDiff'>;
            const value = callDiffReply(session, p);
            return value ? ok(value) : fail('invalid_request', noSuchCall(session, p));
          });
        case 'sessionEvents':
          return this.withSession('sessionEvents', ({ session }) => ok(sessionEventsReply(session, params as ParsedParams<'sessionEvents'>)));
        case 'abandoned':
          return this.withSession('abandoned', ({ session }) => {
            const p = params as ParsedParams<'abandoned'>;
            const value = abandonedReply(session, p);
            return value ? ok(value) : fail('invalid_request', `rewind ${p.rewind} is none of this session's ${session.rewinds.length}`);
          });
        // Issue 13 (4): policy replay, the what-if view (replayReplies.ts).
        case 'replay':
          return this.withSession('replay', ({ session }) => ok(replayReply(session)));
        case 'whatIf':
          return this.withSession('whatIf', ({ session }) => ok(whatIfReply(session, (params as ParsedParams<'whatIf'>).policy)));
        default:
          return fail('invalid_request', `the resolver worker does not answer ${JSON.stringify(method)}`);
      }
    };
    return answer() as Reply<M>;
  }

  /** Rows `[start, end)` of the projected view (clamped to the row count); each row's text cut to ROW_TEXT_MAX_BYTES. */
  rows(params: ParsedParams<'rows'>): Reply<'rows'> {
    return this.withSession('rows', (open) => {
      const { session } = open;
      const view = callView(open, params.call);
      if ('ok' in view) return view;
      const { layout } = view;
      const rows = projectView(view.minted, view.log, { start: params.start, end: params.end }, layout);
      return ok({
        rowCount: layout.rowCount,
        rows: rows.map((row) => {
          const info = rowInfo(row, session.log);
          // A content read from the file shows its preview; the row says how long it really is.
          const large = rowSource(session, row);
          return large ? { ...info, text_bytes: large.length } : info;
        }),
      });
    });
  }

  rowOfIndex(params: ParsedParams<'rowOfIndex'>): Reply<'rowOfIndex'> {
    return this.withSession('rowOfIndex', (open) => {
      const view = callView(open, params.call);
      return 'ok' in view ? view : ok({ row: rowOfIndex(view.layout, params.index) });
    });
  }

  /**
   * Bytes `range` of a row's whole visible text (or, with `tool_call`, of that tool call's whole
   * arguments), as `expand` slices: a range longer than
   * MAX_SLICE_BYTES is cut to it, `end` is clamped to the total, both ends are floored to character
   * boundaries, so consecutive ranges tile the text.
   */
  rowText(params: ParsedParams<'rowText'>): Reply<'rowText'> {
    return this.withSession('rowText', (open) => {
      const { session } = open;
      const view = callView(open, params.call);
      if ('ok' in view) return view;
      const { layout } = view;
      const call = params.call ?? null;
      if (params.row >= layout.rowCount) {
        return fail('invalid_request', `row ${params.row} is outside the projected view of ${layout.rowCount} rows`);
      }
      const last = open.lastRowText;
      let bytes = last?.row === params.row && last.toolCall === params.tool_call && last.call === call ? last.bytes : undefined;
      if (!bytes) {
        const [row] = projectView(view.minted, view.log, { start: params.row, end: params.row + 1 }, layout);
        if (params.tool_call === undefined) {
          bytes = (row && rowSource(session, row)) ?? memorySource(utf8Encode(row?.text ?? ''));
        } else {
          const call = row?.tool_calls?.[params.tool_call];
          if (!call) {
            return fail('invalid_request', `row ${params.row} has no tool call ${params.tool_call} (it has ${row?.tool_calls?.length ?? 0})`);
          }
          bytes = memorySource(utf8Encode(call.arguments));
        }
        open.lastRowText = { row: params.row, toolCall: params.tool_call, call, bytes };
      }
      const range = snapByteRange(bytes, clampSlice(params.range));
      if (!range) {
        return fail(
          'invalid_byte_range',
          `byte range [${params.range[0]}, ${params.range[1]}) is invalid for row ${params.row}: total_bytes is ${bytes.length} (start must be <= end and <= ${bytes.length})`,
        );
      }
      return ok({ text: utf8Decode(bytes.read(range[0], range[1])), range, total_bytes: bytes.length });
    });
  }

  /**
   * `expandReduction` (SPEC §5.1) with its range clamped to MAX_SLICE_BYTES. Without a range the
   * reply is `[0, min(total_bytes, MAX_SLICE_BYTES))`, not the whole original: an original can be
   * hundreds of megabytes, and the renderer pages through it with ranges, knowing `total_bytes`.
   */
  expand(params: ParsedParams<'expand'>): Reply<'expand'> {
    return this.withSession('expand', (open) => {
      const view = callView(open, params.call);
      if ('ok' in view) return view;
      const story = open.session.expandStory(params.id, params.range ? clampSlice(params.range) : [0, MAX_SLICE_BYTES], params.call);
      if (!story.ok) return hostError(story.error);
      const { outcome, hidden, messages } = story.value;
      return ok({ ...outcome, hidden, ...(messages ? { messages } : {}) });
    });
  }

  /**
   * `sidecarSearch` (SPEC §5.3); an aborted `signal` makes it answer `cancelled`. A search that runs
   * longer than PROGRESS_AFTER_MS reports its progress through `onProgress`, at most every
   * PROGRESS_EVERY_MS.
   */
  search(params: ParsedParams<'search'>, signal?: SearchSignal, onProgress?: (progress: EventPayload<'searchProgress'>) => void): Reply<'search'> {
    return this.withSession('search', ({ session }) => {
      const result = session.search(params.query, searchOptions(params, signal, onProgress));
      return result.ok ? ok(placeMatches(session, result.value)) : hostError(result.error);
    });
  }

  /**
   * `search`, run in slices so that it holds the worker only SEARCH_SLICE_MS at a time: between
   * slices the event loop turns, and requests that came meanwhile (rows, expand) are answered while
   * the search goes on. It answers `cancelled` when `signal` is raised or the session is closed or
   * replaced meanwhile (it never reads the files of a closed session: the search looks at its
   * signal after every slice before reading on), and `timeout` once it has run `timeLimitMs`.
   */
  async searchInSlices(
    params: ParsedParams<'search'>,
    signal?: SearchSignal,
    onProgress?: (progress: EventPayload<'searchProgress'>) => void,
    timeLimitMs = DEFAULT_SEARCH_TIME_LIMIT_MS,
    warmUp = false,
  ): Promise<Reply<'search'>> {
    const open = this.current;
    // No session, or one not read: the synchronous path answers why at once.
    if (!open || open.session.stopped) return this.search(params, signal, onProgress);
    return this.inSlices(open, params, (options) => open.session.searchSteps(params.query, options), (value) => placeMatches(open.session, value), signal, onProgress, timeLimitMs, warmUp);
  }

  /**
   * Issue 13: page `params.page` of every match (shared/searchPage.ts), run in slices with the
   * time limit, cancellation and progress of `searchInSlices`. `scope: "view"` searches the rows'
   * text of the projected view at `params.call` instead (shared/viewSearch.ts).
   */
  async searchPageInSlices(
    params: ParsedParams<'searchPage'>,
    signal?: SearchSignal,
    onProgress?: (progress: EventPayload<'searchProgress'>) => void,
    timeLimitMs = DEFAULT_SEARCH_TIME_LIMIT_MS,
  ): Promise<Reply<'searchPage'>> {
    const open = this.current;
    // No session, or one not read: withSession answers why.
    if (!open || open.session.stopped) return this.withSession('searchPage', () => fail('not_supported', 'searchPage needs a session whose content is read'));
    const searchParams: ParsedParams<'search'> = {
      searchId: params.searchId,
      query: params.query,
      mode: params.mode,
      case_sensitive: params.case_sensitive,
      ...pageSearchOptions(params.page, params.page_size),
    };
    if (params.scope === 'view') {
      const view = callView(open, params.call);
      if ('ok' in view) return view;
      return this.inSlices(
        open,
        searchParams,
        (options) => viewSearchSteps(view.minted, view.log, view.layout, params.query, options),
        (value) => ({ ...searchPageOf(value, params.page, params.page_size), scope: 'view' as const, view_matches: value.matches.slice(params.page * params.page_size, (params.page + 1) * params.page_size), matches: [] }),
        signal,
        onProgress,
        timeLimitMs,
      );
    }
    return this.inSlices(
      open,
      searchParams,
      (options) => open.session.searchSteps(params.query, options),
      (value) => ({ ...searchPageOf(placeMatches(open.session, value), params.page, params.page_size), scope: 'hidden' as const, view_matches: [] }),
      signal,
      onProgress,
      timeLimitMs,
    );
  }

  /**
   * Runs a search's steps in slices of SEARCH_SLICE_MS, letting other requests in between; answers
   * `cancelled` when `signal` is raised or the session is closed or replaced meanwhile, `timeout`
   * once it has run `timeLimitMs`, else `finish` of the result.
   */
  private async inSlices<R, T>(
    open: OpenSession,
    params: ParsedParams<'search'>,
    makeSteps: (options: SearchOptions) => Generator<void, { ok: true; value: R } | { ok: false; error: { code: HostErrorCode; message: string } }>,
    finish: (value: R) => T,
    signal: SearchSignal | undefined,
    onProgress: ((progress: EventPayload<'searchProgress'>) => void) | undefined,
    timeLimitMs: number,
    warmUp = false,
  ): Promise<{ ok: true; value: T } | { ok: false; error: HostError }> {
    const started = performance.now();
    let timedOut = false;
    let replaced = false;
    let progress: EventPayload<'searchProgress'> | undefined;
    // A followed session replaced by its own update is the same open: the search goes on over what it started with.
    const isCurrent = (): boolean => this.current?.token === open.token;
    const watched: SearchSignal = {
      get aborted() {
        if (signal?.aborted === true) return true;
        if (!isCurrent()) replaced = true;
        if (!timedOut && performance.now() - started > timeLimitMs) timedOut = true;
        return replaced || timedOut;
      },
    };
    // While the background thread verifies hashes it holds the second core (of two, here), so a
    // split search would wait on a thread the system gives little time, and start one more thread:
    // memory the first search's peak does not need.
    const pooled = this.searchPool?.begin(signal?.shared, !this.verifyRunning);
    this.searchesRunning++;
    // A warm-up holds the worker for shorter slices.
    const sliceMs = warmUp ? PREPARE_SLICE_MS : SEARCH_SLICE_MS;
    try {
      const steps = makeSteps(searchOptions(params, watched, onProgress, (p) => (progress = p)));
      for (;;) {
        const sliceEnd = performance.now() + sliceMs;
        let step = steps.next();
        while (!step.done && performance.now() < sliceEnd) step = steps.next();
        if (step.done) {
          const result = step.value;
          if (result.ok) return ok(finish(result.value));
          if (result.error.code === 'cancelled' && timedOut && signal?.aborted !== true) {
            const done = progress ? `, having searched ${progress.spans_searched} of ${progress.spans} hidden spans (${progress.hidden_bytes_searched} bytes)` : '';
            return fail('timeout', `the search for ${JSON.stringify(params.query).slice(0, 200)} stopped after ${Math.round(timeLimitMs / 1000)} s, its time limit${done}: narrow the query (a case-sensitive substring is fastest)`);
          }
          if (result.error.code === 'cancelled' && replaced) return fail('cancelled', 'search: the session was closed or replaced while searching');
          return hostError(result.error);
        }
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } catch (e) {
      return internal(e);
    } finally {
      this.searchesRunning--;
      this.searchPool?.end(pooled);
    }
  }

  /** The live log in log order, each entry with its sidecar line when the log is the sidecar's. */
  log(): Reply<'log'> {
    return this.withSession('log', ({ session }) => {
      const lines = session.logLines;
      const entries = session.log.map((reduction, k) => {
        const line = lines?.[k];
        const stated = stubStatedHiddenBytes(reduction.stub);
        return { reduction, ...(line !== undefined ? { line } : {}), ...(stated !== undefined ? { stated_hidden_bytes: stated } : {}) };
      });
      return ok({ entries });
    });
  }

  /** What expanding each reduction would find: verified (with its source and sizes) or why not. */
  verify(params: ParsedParams<'verify'>): Reply<'verify'> {
    return this.withSession('verify', (open) => {
      const { session } = open;
      // A call's input holds the reductions live then: its chips are checked against its own log.
      const view = callView(open, params.call);
      if ('ok' in view) return view;
      // One pass over the log for the whole batch (the most recent record per id, as findReduction
      // answers), not one per id: a batch of 1,000 over a log of 100,000 took 1.25 s.
      const asked = new Set(params.ids);
      const byId = new Map<string, Reduction>();
      for (const r of view.log) if (asked.has(r.id)) byId.set(r.id, r);
      const statuses = params.ids.map((id): ReductionStatus => {
        const r = byId.get(id);
        if (!r) return { id, status: 'unknown_reduction', message: unknownReduction(id, view.log).message };
        const { hidden_bytes, hash_origin, ...found } = checkReduction(r, view.log, session.minted, session.recorded, { sha256: nodeSha256 });
        // Part C: a duplicate's chip links to its canonical and says whether the model could still see it (in the call shown).
        const canonical = r.kind === 'duplicate_output' && r.canonical ? { canonical: { index: r.canonical.index, visible: canonicalFullyVisible(r, view.log) } } : {};
        return { id, ...found, ...(hidden_bytes !== null ? { hidden_bytes } : {}), ...(hash_origin !== null ? { hash_origin } : {}), ...canonical };
      });
      return ok({ statuses });
    });
  }

  /** Load findings plus the integrity check (SPEC §5.6) with the summary: what `check` prints. */
  check(): Reply<'check'> {
    return this.withSession('check', ({ session }) => ok(capFindings(session.check())));
  }

  /** Issue 12 part A: the context map's figures (shared/contextMap.ts), computed once per open. */
  calls(): Reply<'calls'> {
    return this.withSession('calls', (open) => ok((open.contextMap ??= contextMap(open.session.callTimeline, open.session.minted, open.session.modelChanges, open.session.rewinds))));
  }

  /** Runs `body` over the open session: `no_session` without one, `unsupported_version` for content of a stopped one, `internal_error` for a throw. */
  private withSession<M extends WorkerSessionMethod>(method: M, body: (open: OpenSession) => Reply<M>): Reply<M> {
    const open = this.current;
    if (!open) return fail('no_session', `${method}: no session is open`);
    if (open.session.stopped && CONTENT_METHODS.has(method)) {
      const why = open.session.loadFindings.find((f) => f.code === 'unsupported_version')?.message ?? 'a file is newer than this version supports';
      return fail('unsupported_version', `${method}: the session was not read: ${why}`);
    }
    // Whatever reads the files is bracketed by two checks that they are as they were opened: bytes
    // read around a change are never served (and `check` never reports over them). The session's
    // expand, search and check bracket their own reads; the other methods read through its lists.
    const reads = CONTENT_METHODS.has(method) && !SESSION_GUARDED.has(method);
    const changed = (): { ok: false; error: HostError } | undefined => {
      const change = open.session.fileChange();
      if (!change) return undefined;
      if (!open.changeReported) {
        open.changeReported = true;
        this.onFileChanged?.({ generation: open.info.generation, path: change.path, message: change.message });
      }
      return fail('file_changed', `${method}: ${change.message}`);
    };
    try {
      const before = reads ? changed() : undefined;
      if (before) return before;
      const reply = body(open);
      if (reads || (!reply.ok && reply.error.code === 'file_changed')) return changed() ?? reply;
      return reply;
    } catch (e) {
      if (e instanceof FileChangedError) return changed() ?? fail('file_changed', `${method}: ${e.message}`);
      return internal(e);
    }
  }
}
