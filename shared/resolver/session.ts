/**
 * The session model (SPEC §3.2): what the format adapters indexed, resolved into the three inputs
 * of the resolver — minted view, recorded copies, live log — plus `log_differs` and the model, and
 * the session's operations over them (expand, search, check). Pure: message content is read back
 * by the adapters behind `MessageList`s and ByteSources, and a change on disk is reported to it
 * through `FileWatch`es, so the Node loader and the sample checker share this one copy.
 */
import type { CallDiff, CallInput, CallTimeline, ModelCall } from '../calls/calls';
import type { CallSide, CallsDiff, CallsDiffOptions } from '../calls/callsDiff';
import { diffCalls } from '../calls/callsDiff';
import { NO_CALLS, callInput, diffCallInputs, liveFromTimeline, snapshotTimeline } from '../calls/calls';
import type { CheckReport, SessionFile } from '../contract';
import { SESSION_FORMAT_OF_FILE } from '../contract';
import type { ByteRange, ExpandBytes } from './expand';
import { expandReduction, expandReductionBytes } from './expand';
import type { ExpandStory } from './story';
import { expandStory } from './story';
import { checkIntegrity, compareLogs } from './integrity';
import type { RunningSha256 } from './transcriptHashes';
import { TranscriptHashes } from './transcriptHashes';
import type { Instruction } from './instructions';
import { instructionsAt } from './instructions';
import type { SearchOptions } from '../search';
import { searchPreparationSteps, sidecarSearch, sidecarSearchSteps } from '../search';
import type { ModelChange } from '../calls/timeline';
import type { CallTokens, UsageByLine } from '../tokens/usage';
import type { RecordedRequest } from '../export/providers';
import { cacheBreaks, tokensSummary } from '../tokens/summary';
import type {
  ChatMessage,
  ExpandOutcome,
  Finding,
  LocatedRecord,
  MessageList,
  Reduction,
  ReductionKind,
  ResolverError,
  ResolverErrorCode,
  Result,
  Sha256,
  SidecarHeader,
  SidecarSearchResult,
} from '../format/types';
import { REDUCTION_KINDS, err } from '../format/types';

/**
 * A resolver error, or `file_changed`: a file of the session changed on disk since it was opened,
 * so nothing read from it is served (its bytes could no longer be proven to be the hashed ones).
 */
export type SessionError = Omit<ResolverError, 'code'> & { code: ResolverErrorCode | 'file_changed' };

/** A session file that changed on disk since it was opened, and what changed. */
export interface FileChange {
  path: string;
  message: string;
}

/** Thrown by `check()` when a file changed while it was checked: a report over changed bytes would be wrong. */
export class FileChangedError extends Error {
  readonly code = 'file_changed';
  constructor(readonly change: FileChange) {
    super(change.message);
  }
}

/** One file the session still reads from, as the host watches it. */
export interface FileWatch {
  readonly path: string;
  /**
   * Undefined while the file is as it was opened; else why it is not (it then stays changed).
   * `light`: only what is cheap to ask (the file's identity and times, not its sampled bytes) —
   * between the steps of one request whose first and last checks are whole.
   */
  change(light?: boolean): string | undefined;
}

export interface LoadedSession {
  readonly files: readonly SessionFile[];
  /** The sidecar's header, or null without a sidecar (or when its first record is not a header). */
  readonly header: SidecarHeader | null;
  readonly sessionId: string | null;
  /** The model the session ends on: the snapshot's, else the last model switch's, else the header's. */
  readonly model: string | null;
  /** The minted view (§3.2): the snapshot's messages, else the sidecar's timeline with caps applied. */
  readonly minted: MessageList;
  /** The sidecar's last record per index; absent without a sidecar. */
  readonly recorded?: MessageList;
  /** The live log (§3.2). */
  readonly log: readonly Reduction[];
  /** Sidecar line of each log entry, parallel to `log`; undefined when the log is the snapshot's. */
  readonly logLines?: readonly number[];
  readonly modelChanges: readonly ModelChange[];
  /** Findings of reading the files: malformed lines, timeline problems, `log_differs`. */
  readonly loadFindings: readonly Finding[];
  /** A file's format version is newer than supported: nothing else was read. */
  readonly stopped: boolean;
  /** The system prompt (`history[0]`) recorded in the sidecar, if any. */
  system(): ChatMessage | undefined;
  /** §11: the model calls of the live timeline, call N at `calls[N - 1]`. */
  readonly calls: readonly ModelCall[];
  /**
   * §11: what the model was given at call N (1-based), or the latest view for null; undefined for
   * an N that is no call. `projectView(minted, log)` gives its rows.
   */
  callInput(call: number | null): CallInput | undefined;
  /** §11: what changed from the input of call `a` to that of call `b` (null: the latest view). */
  callDiff(a: number | null, b: number | null): CallDiff | undefined;
  /**
   * SPEC §16 `diff`: the message-level diff of two inputs with the text diff of each changed run and
   * what happened between them (shared/calls/callsDiff.ts); undefined when either is no call.
   * `given` gives a call's bytes when the caller has them (the context map's).
   */
  callsDiff(a: number | null, b: number | null, options?: CallsDiffOptions, given?: (call: number) => number | undefined): CallsDiff | undefined;
  /**
   * The instructions given outside the view's messages (shared/resolver/instructions.ts) at call N, or after
   * the last record for null, in file order; undefined for an N that is no call.
   */
  instructionsAt(call: number | null): Instruction[] | undefined;
  /** §11: the calls and every reduction's live interval (the context map's figures). */
  readonly callTimeline: CallTimeline;
  /**
   * §15: the usage the file recorded for call N (1-based), normalised (shared/tokens/usage.ts);
   * undefined for the latest view (null), an N that is no call, or a call the file records no usage for.
   */
  callTokens(call: number | null): CallTokens | undefined;
  /**
   * §16: the request body the file records as sent for call N (Inspect's `ModelEvent.call.request`,
   * docs/export.md "Recorded requests"); undefined when it records none, for null or a number that is no call.
   */
  recordedRequest(call: number | null): RecordedRequest | undefined;
  /**
   * §10.1: every session the file holds (an importer's), main first; absent: the one session. An
   * entry listed `counting: 'pending'` is replaced in this list when `countSessions` counts it.
   */
  readonly sessions?: readonly SessionEntry[];
  /**
   * Counts the sessions listed `counting: 'pending'`, one at a time, `onCounted` after each; stops
   * when `signal` is aborted or the session is closed. Absent when the files list none to count.
   * Never rejects.
   */
  countSessions?(onCounted: () => void, signal: { readonly aborted: boolean }): Promise<void>;
  /** The sidecar's rewinds in file order, each with the messages it abandoned. */
  readonly rewinds: readonly RewindRecord[];
  /** The sidecar's records for policy replay (IndexedRecords.replayRecords); absent without a sidecar. */
  readonly replayRecords?: (maxRecordBytes: number) => Iterable<LocatedRecord>;
  /** §5.1 over the files; `file_changed` when a file changed on disk before or while it was read. */
  expand(id: string, range?: ByteRange, call?: number | null): Result<ExpandOutcome, SessionError>;
  /**
   * `expand` with the content left as its verified bytes (ExpandBytes), for a caller that writes it
   * a window at a time; `file_changed` as for expand. The bytes are read from the files again when
   * read: a caller asks `fileChange` before it hands on what it read.
   */
  expandBytes(id: string, range?: ByteRange, call?: number | null): Result<ExpandBytes, SessionError>;
  /** `expand` plus what the model saw of it (hidden spans, a range's message boundaries); `file_changed` as for expand. */
  expandStory(id: string, range?: ByteRange, call?: number | null): Result<ExpandStory, SessionError>;
  /** §5.3 over the files; `file_changed` as for expand. */
  search(query: string, options?: Omit<SearchOptions, 'sha256'>): Result<SidecarSearchResult, SessionError>;
  /**
   * `search` one step at a time (sidecarSearchSteps): the worker serves other requests between
   * steps. The files are checked before the first step, after every step and at the end.
   */
  searchSteps(query: string, options?: Omit<SearchOptions, 'sha256'>): Generator<void, Result<SidecarSearchResult, SessionError>>;
  /**
   * A search's once-per-state work (searchPreparationSteps) done ahead, one unit a step,
   * with the files checked as for searchSteps; answers the number of units.
   */
  prepareSearch(): Generator<void, Result<number, SessionError>>;
  /**
   * Load findings plus the integrity check of §5.6, sorted by line then index, and a summary.
   * Throws FileChangedError when a file changed on disk before or while it was checked.
   */
  check(): CheckReport;
  /**
   * Undefined while every open file is as it was opened; else the first change seen, and from then
   * on always that one (bytes read around a change may sit in caches). Anything else that reads
   * the files (rows, verify) checks it before and after reading.
   */
  fileChange(): FileChange | undefined;
  /** Closes the files; the lists read nothing afterwards. */
  close(): void;
}

// ---------------------------------------------------------------------------------------------
// What the adapters hand over

/**
 * What a log of records (a sidecar) yields once indexed: its current timeline with caps applied,
 * the last record per index, the live log with the line of each entry, the model switches and the
 * findings of reading it, sorted by line then index.
 */
export interface IndexedRecords {
  header: SidecarHeader | null;
  /** The current timeline, caps applied: the minted view when no snapshot is open. */
  view: MessageList;
  recorded: MessageList;
  log: Reduction[];
  /** 1-based line of each log entry, parallel to `log`. */
  logLines: number[];
  modelChanges: ModelChange[];
  findings: Finding[];
  system(): ChatMessage | undefined;
  /** §11, a sidecar's: each call and every reduction's live interval (TimelineBuilder spans). */
  calls?: CallTimeline;
  /**
   * §11, an importer's records with no timeline of their own: the source line of each view message;
   * each log entry is live from its `logLines` line on.
   */
  messageLines?: readonly (number | undefined)[];
  /** Each rewind record with the messages it abandoned. */
  rewinds?: RewindRecord[];
  /**
   * A sidecar's: its records in file order (the header and unreadable lines left out), each
   * message whole, read back from the index for policy replay (docs/policy-replay.md); a message
   * record longer than `maxRecordBytes` is left out.
   */
  replayRecords?: (maxRecordBytes: number) => Iterable<LocatedRecord>;
  /** What the agent gave the model outside these messages (shared/resolver/instructions.ts), in file order. */
  instructions?: readonly Instruction[];
  /** §15, an importer's: the usage the file recorded per call, by the line of the message the call produced. */
  usage?: UsageByLine;
  /** §16, an importer's: request bodies the file records as sent, by the line of the message the call produced. */
  requests?: ReadonlyMap<number, RecordedRequest>;
}

/**
 * A rewind (§3.1) with its abandoned branch: `abandoned.at(k)` is the message that
 * stood at view index `to + k` when the rewind was read, read back from the file on demand.
 */
export interface RewindRecord {
  line: number;
  to: number;
  abandoned: MessageList;
}

/** What a snapshot yields: the view as the agent held it, and its reductions when it has them. */
export interface IndexedSnapshot {
  session_id: string;
  model: string;
  messages: MessageList;
  reductions?: Reduction[];
  findings: Finding[];
  /** §10.1: every session the file holds (an importer's), main first; absent: the one session. */
  sessions?: SessionEntry[];
  /**
   * §11, an importer's: the source line of each message; each reduction is live from its
   * `origin.line` on. Absent (a native snapshot): a reduction applies from its `minted_at` on.
   */
  messageLines?: readonly (number | undefined)[];
  /**
   * §11, an importer's: reductions that were live over some calls and are no longer at the end —
   * an earlier compaction that a later one folded into its own summary — each live from its
   * `origin.line` until line `to`. Not in `reductions` (the live log), nor checked as live.
   */
  ended?: readonly { reduction: Reduction; to: number }[];
  /** What the agent gave the model outside these messages (shared/resolver/instructions.ts), in file order. */
  instructions?: readonly Instruction[];
  /** §15, an importer's: the usage the file recorded per call, by the line of the message the call produced. */
  usage?: UsageByLine;
}

/** One session of a file, as `check`'s summary lists it. */
export interface SessionEntry {
  id: string;
  title?: string;
  messages: number;
  /**
   * Absent when `messages` is the session's count. `pending`: not counted yet (`messages` is 0; an
   * Inspect log's samples are counted after the open, in the background); `failed`: it could not be
   * read to be counted (`check` has a finding saying why).
   */
  counting?: 'pending' | 'failed';
  /** How the agent's run ended, where the file records it (mini-swe-agent's closing `exit` message): not a message to the model. */
  end?: RunEnd;
  /** What an Inspect log's own summary of the sample records (`summaries.json`), known before the sample is read. */
  recorded?: RecordedSample;
}

/**
 * An Inspect sample as its log's summary records it (EvalSampleSummary; docs/formats/inspect.md):
 * each part only where the summary has it.
 */
export interface RecordedSample {
  /** `message_count`: its history's length as Inspect counted it; the view may show one more (the last call's output, when the history lacks it). */
  messages?: number;
  /** Each scorer's value as text (at most MAX_RECORDED_SCORES scorers, each cut to MAX_RECORDED_TEXT). */
  scores?: Record<string, string>;
  /** `model_usage`'s models, in the summary's order. */
  models?: string[];
  /** Their `total_tokens` added up. */
  tokens?: number;
  /** Why the sample stopped early: its error's first line, or the limit it hit (`token`, `message`, `time`…). */
  error?: string;
  limit?: string;
}

/** Most scorers a sample's summary lists, and the longest text of one recorded part: the list crosses a process boundary at every open. */
export const MAX_RECORDED_SCORES = 20;
export const MAX_RECORDED_TEXT = 200;

/** A run's end as the agent recorded it: its status (`Submitted`, `LimitsExceeded`, an error's name…) and the start of what it said. */
export interface RunEnd {
  status: string;
  detail?: string;
}

export interface SessionInputs {
  /** The opened files, in the user's order (a file found automatically comes last). */
  files: SessionFile[];
  records?: IndexedRecords;
  snapshot?: IndexedSnapshot;
  /**
   * Set when a file's format version is newer than supported (its `unsupported_version` finding):
   * nothing else was read, and the session is empty and `stopped`.
   */
  stopped?: Finding[];
}

/** The resolved session as plain data: everything of LoadedSession but its operations. */
export interface SessionModel {
  files: SessionFile[];
  header: SidecarHeader | null;
  sessionId: string | null;
  model: string | null;
  minted: MessageList;
  recorded?: MessageList;
  log: readonly Reduction[];
  logLines?: readonly number[];
  modelChanges: readonly ModelChange[];
  loadFindings: readonly Finding[];
  stopped: boolean;
  system: () => ChatMessage | undefined;
  sessions?: readonly SessionEntry[];
  /** §11: the model calls and the reductions' live intervals. */
  callTimeline: CallTimeline;
  /** The sidecar's rewinds; absent without one. */
  rewinds?: readonly RewindRecord[];
  /** See IndexedRecords.replayRecords; absent without a sidecar. */
  replayRecords?: (maxRecordBytes: number) => Iterable<LocatedRecord>;
  /** Given outside the messages (shared/resolver/instructions.ts); absent: none recorded. */
  instructions?: readonly Instruction[];
  /** §15: recorded usage by call line (the records', else the snapshot's); absent: none recorded. */
  usage?: UsageByLine;
  /** §16: recorded request bodies by call line (the records'); absent: none recorded. */
  requests?: ReadonlyMap<number, RecordedRequest>;
}

/**
 * §3.2. minted = the snapshot's messages, else the records' view; recorded = the records' last
 * copy per index; log = the snapshot's reductions when it has them (and `log_differs` when the
 * records' live log disagrees), else the records' live log.
 */
export function resolveSession(inputs: SessionInputs): SessionModel {
  const { files, records, snapshot } = inputs;
  if (inputs.stopped && inputs.stopped.length > 0) {
    return {
      files,
      header: null,
      sessionId: null,
      model: null,
      minted: arrayList([]),
      log: [],
      modelChanges: [],
      loadFindings: inputs.stopped,
      stopped: true,
      system: () => undefined,
      callTimeline: NO_CALLS,
    };
  }
  // The records' findings alone are taken as they are, not copied (a followed sidecar's
  // are a new array whenever they change): a look costs O(new records), not O(findings).
  let findings: readonly Finding[] = records?.findings ?? [];
  if (snapshot) {
    const all: Finding[] = [];
    // One by one: a spread passes every finding as an argument, and 130,000 overflow the stack.
    for (const f of snapshot.findings) all.push(f);
    for (const f of records?.findings ?? []) all.push(f);
    findings = all;
  }

  let log: readonly Reduction[] = records?.log ?? [];
  let logLines: readonly number[] | undefined = records?.logLines;
  if (snapshot?.reductions) {
    if (records) {
      const differs = compareLogs(snapshot.reductions, records.log);
      if (differs) findings = [...findings, differs];
    }
    log = snapshot.reductions;
    logLines = undefined;
  }
  const header = records?.header ?? null;
  const lastChange = records?.modelChanges[records.modelChanges.length - 1];
  const minted = snapshot?.messages ?? records?.view ?? arrayList([]);
  return {
    files,
    header,
    sessionId: header?.session_id ?? snapshot?.session_id ?? null,
    model: snapshot?.model || lastChange?.to || header?.model || null,
    minted,
    ...(records ? { recorded: records.recorded } : {}),
    log,
    ...(logLines ? { logLines } : {}),
    modelChanges: records?.modelChanges ?? [],
    loadFindings: findings,
    stopped: false,
    system: records ? () => records.system() : () => undefined,
    ...(snapshot?.sessions ? { sessions: snapshot.sessions } : {}),
    callTimeline: callTimelineOf(inputs, minted, log),
    ...(records?.rewinds ? { rewinds: records.rewinds } : {}),
    ...(records?.replayRecords ? { replayRecords: records.replayRecords } : {}),
    ...instructionsOf(records, snapshot),
    ...usageOf(records, snapshot),
    ...(records?.requests?.size ? { requests: records.requests } : {}),
  };
}

/** The records' recorded usage, else the snapshot's; nothing when neither holds any. */
function usageOf(records: IndexedRecords | undefined, snapshot: IndexedSnapshot | undefined): { usage?: UsageByLine } {
  const usage = records?.usage?.size ? records.usage : snapshot?.usage;
  return usage?.size ? { usage } : {};
}

/** The records' instructions, else the snapshot's; nothing when neither holds any. */
function instructionsOf(records: IndexedRecords | undefined, snapshot: IndexedSnapshot | undefined): { instructions?: readonly Instruction[] } {
  const instructions = records?.instructions?.length ? records.instructions : snapshot?.instructions;
  return instructions?.length ? { instructions } : {};
}

/**
 * §11: where the calls come from — a sidecar's replay (its lines order messages and reductions;
 * an open snapshot's messages are then the minted view the prefixes are taken from), an
 * importer's source lines, or, for a snapshot alone, `minted_at`.
 */
function callTimelineOf({ records, snapshot }: SessionInputs, minted: MessageList, log: readonly Reduction[]): CallTimeline {
  if (records?.calls) return records.calls;
  if (records?.messageLines) {
    const lines = records.messageLines;
    return liveFromTimeline(records.view, (i) => lines[i], records.log, (_r, k) => records.logLines[k]);
  }
  if (snapshot?.messageLines) {
    const lines = snapshot.messageLines;
    const fromOf = (r: Reduction): number | undefined => (r.origin && 'line' in r.origin ? r.origin.line : undefined);
    const live = liveFromTimeline(snapshot.messages, (i) => lines[i], snapshot.reductions ?? [], fromOf);
    if (!snapshot.ended || snapshot.ended.length === 0) return live;
    // Ended spans first, in the order they ended: an input's log lists the older compaction first.
    const ended = snapshot.ended.map(({ reduction, to }) => ({ reduction, from: fromOf(reduction) ?? Number.NEGATIVE_INFINITY, to }));
    // Frozen as liveFromTimeline's: `callLog` may index them.
    return { calls: live.calls, spans: Object.freeze([...ended, ...live.spans]) };
  }
  return snapshot ? snapshotTimeline(minted, log) : NO_CALLS;
}

export interface SessionEnv {
  /** The hash of expand, search and check (default: the portable one). */
  sha256?: Sha256;
  /**
   * A SHA-256 fed in pieces: with it, the transcripts of the ranges the session expands are hashed
   * through `TranscriptHashes` kept for the session's life, so the originals of compactions that
   * nest (each the transcript of the view before it) are hashed from where the last one ended, not
   * each from its start (docs/export-documents.md "Compactions hashed once").
   */
  runningSha256?: () => RunningSha256;
  /** The files read after loading; any change makes every later read `file_changed`. */
  watches?: readonly FileWatch[];
  /** Releases the files; called once. */
  close?: () => void;
  /** LoadedSession.countSessions, when the files list sessions still to count. */
  countSessions?: (onCounted: () => void, signal: { readonly aborted: boolean }) => Promise<void>;
}

/** The session's operations over a resolved model; every read is bracketed by the file watches. */
/** Steps of a search between two light checks of its files (bracketSteps). */
export const LIGHT_CHECK_STEPS = 32;

export function makeSession(model: SessionModel, env: SessionEnv = {}): LoadedSession {
  const { minted, recorded, log, logLines, callTimeline } = model;
  const hash = env.sha256 ? { sha256: env.sha256 } : {};
  // Expands only: check and search resolve each reduction of the log once, and a kept run costs
  // them memory (30 MB more at `check`'s peak on the bench's 537 MB session) for no hash saved.
  // Kept apart from the token estimates' own (SessionEstimates.resolveOptions): one shared by both
  // made a document's export slower, not faster (docs/export-documents.md "Compactions hashed once").
  const expandHash = env.runningSha256 ? { ...hash, transcripts: new TranscriptHashes(env.runningSha256) } : hash;
  const watches = env.watches ?? [];
  let closed = false;
  let changed: FileChange | undefined;
  const fileChange = (light = false): FileChange | undefined => {
    if (changed || closed) return changed;
    for (const watch of watches) {
      const why = watch.change(light);
      if (why !== undefined) {
        changed = { path: watch.path, message: `${watch.path} changed on disk since it was opened: ${why}. Nothing more is read from it; reopen it to see what it holds now` };
        break;
      }
    }
    return changed;
  };
  /** Runs `body` between two checks of the files: its bytes are served only when neither saw a change. */
  const bracket = <T>(body: () => Result<T, SessionError>): Result<T, SessionError> => {
    const before = fileChange();
    if (before) return err({ code: 'file_changed', message: before.message });
    const result = body();
    const after = fileChange();
    if (after) return err({ code: 'file_changed', message: after.message });
    return result;
  };
  /** The latest view for null; call N's input; undefined for an N that is no call. */
  function inputAt(call: number | null): CallInput | undefined {
    if (call === null) return { minted, log: [...log] };
    const c = Number.isInteger(call) ? callTimeline.calls[call - 1] : undefined;
    return c ? callInput(callTimeline, minted, c) : undefined;
  }
  /** The log a chip of call N expands against (the live log for the latest view or an N that is no call). */
  const logAt = (call: number | null | undefined): readonly Reduction[] => (call != null ? inputAt(call)?.log : undefined) ?? log;
  /**
   * `bracket` for a search run in steps. Its bytes are served only at the end, so the whole checks
   * (sampled bytes too) come before the first step and after the last: a file that changed
   * anywhere in between fails the last (a change is for good: ctime moves and the guard compares
   * with the file as opened). Between steps a light check (the descriptor's and the path's stat)
   * stops a search over a changed file early without hashing the samples at every step — that
   * hashing was the largest single cost of a search.
   */
  function* bracketSteps<T>(steps: Generator<void, Result<T>>): Generator<void, Result<T, SessionError>> {
    const before = fileChange();
    if (before) return err({ code: 'file_changed', message: before.message });
    for (let n = 1; ; n++) {
      const step = steps.next();
      // Between steps, a light check (stats) only every LIGHT_CHECK_STEPS: a search over 3,000
      // contents steps once per content, and a stat each time was a third of a warm search in the
      // worker. The whole check after the last step still sees any change (see FileWatch).
      if (!step.done && n % LIGHT_CHECK_STEPS !== 0) {
        yield;
        continue;
      }
      const after = fileChange(!step.done);
      if (after) return err({ code: 'file_changed', message: after.message });
      if (step.done) return step.value;
      yield;
    }
  }
  const session: LoadedSession = {
    files: model.files,
    header: model.header,
    sessionId: model.sessionId,
    model: model.model,
    minted,
    ...(recorded ? { recorded } : {}),
    log,
    ...(logLines ? { logLines } : {}),
    modelChanges: model.modelChanges,
    loadFindings: model.loadFindings,
    stopped: model.stopped,
    system: model.system,
    calls: callTimeline.calls,
    callTimeline,
    callInput: inputAt,
    callDiff(a, b) {
      const from = inputAt(a);
      const to = inputAt(b);
      if (!from || !to) return undefined;
      const ended = new Map(callTimeline.spans.map((s) => [s.reduction, s.ended]));
      return diffCallInputs(from, to, (r) => ended.get(r));
    },
    callsDiff(a, b, options, given) {
      const side = (call: number | null): CallSide | undefined => {
        const input = inputAt(call);
        if (!input) return undefined;
        if (call === null) return { call, input, line: Number.POSITIVE_INFINITY };
        const bytes = given?.(call);
        return { call, input, line: callTimeline.calls[call - 1]?.line ?? Number.POSITIVE_INFINITY, ...(bytes !== undefined ? { given: bytes } : {}) };
      };
      const from = side(a);
      const to = side(b);
      if (!from || !to) return undefined;
      const ended = new Map(callTimeline.spans.map((s) => [s.reduction, s.ended]));
      return diffCalls(callTimeline, from, to, options, (r) => ended.get(r));
    },
    callTokens(call) {
      const c = call !== null && Number.isInteger(call) ? callTimeline.calls[call - 1] : undefined;
      return c ? model.usage?.get(c.line) : undefined;
    },
    recordedRequest(call) {
      const c = call !== null && Number.isInteger(call) ? callTimeline.calls[call - 1] : undefined;
      return c ? model.requests?.get(c.line) : undefined;
    },
    instructionsAt(call) {
      const all = model.instructions ?? [];
      if (call === null) return instructionsAt(all, null);
      const c = Number.isInteger(call) ? callTimeline.calls[call - 1] : undefined;
      return c ? instructionsAt(all, c.line) : undefined;
    },
    ...(model.sessions ? { sessions: model.sessions } : {}),
    ...(env.countSessions ? { countSessions: (onCounted: () => void, signal: { readonly aborted: boolean }) => (closed ? Promise.resolve() : (env.countSessions?.(onCounted, signal) ?? Promise.resolve())) } : {}),
    rewinds: model.rewinds ?? [],
    ...(model.replayRecords ? { replayRecords: model.replayRecords } : {}),
    // A chip of call N expands against that call's log (a reduction inverted or rewound since is still there).
    expand: (id, range, call) => bracket(() => expandReduction(logAt(call), id, minted, recorded, range, expandHash)),
    expandBytes: (id, range, call) => bracket(() => expandReductionBytes(logAt(call), id, minted, recorded, range, expandHash)),
    expandStory: (id, range, call) => bracket(() => expandStory(logAt(call), id, minted, recorded, range, expandHash)),
    search: (query, options = {}) => bracket(() => sidecarSearch(log, query, minted, recorded, { ...options, ...hash })),
    searchSteps: (query, options = {}) => bracketSteps(sidecarSearchSteps(log, query, minted, recorded, { ...options, ...hash })),
    prepareSearch: () => bracketSteps(searchPreparationSteps(log, minted, recorded, hash)),
    fileChange,
    check() {
      const before = fileChange();
      if (before) throw new FileChangedError(before);
      const report = checkSession();
      const after = fileChange();
      if (after) throw new FileChangedError(after);
      return report;
    },
    close() {
      if (closed) return;
      closed = true;
      env.close?.();
    },
  };
  return session;

  function checkSession(): CheckReport {
    // A session's files are all of one agent's format (the adapters pair only their own).
    const format = model.files[0] ? SESSION_FORMAT_OF_FILE[model.files[0].format] : 'supercode';
    const integrity = model.stopped ? [] : checkIntegrity({ minted, ...(recorded ? { recorded } : {}), log, ...(logLines ? { logLines } : {}), native: format === 'supercode' }, hash);
    const findings = [...model.loadFindings, ...integrity].sort(byLineThenIndex);
    const errors = findings.filter((f) => f.severity === 'error').length;
    return {
      findings,
      summary: {
        files: model.files.map((f) => ({ ...f })),
        session_id: model.sessionId,
        model: model.model,
        gate: model.header?.gate ?? null,
        messages: minted.length,
        reductions: log.length,
        reductions_by_kind: countByKind(log),
        errors,
        warnings: findings.length - errors,
        format,
        // A native file holds one session; `id` is '' when the file names none.
        sessions: model.sessions ? model.sessions.map((s) => ({ ...s })) : [{ id: model.sessionId ?? '', messages: minted.length }],
        // §15: what the file recorded of each call's usage (reads no file: the usage is indexed).
        tokens: tokensSummary(session),
        cache_breaks: cacheBreaks(session),
      },
    };
  }
}

function countByKind(log: readonly Reduction[]): Record<ReductionKind, number> {
  const counts = Object.fromEntries(REDUCTION_KINDS.map((k) => [k, 0])) as Record<ReductionKind, number>;
  for (const r of log) counts[r.kind] = (counts[r.kind] ?? 0) + 1;
  return counts;
}

/** Findings in file order: by line, then by view index; a finding without either sorts last. */
export function byLineThenIndex(a: Finding, b: Finding): number {
  const la = a.line ?? Number.POSITIVE_INFINITY;
  const lb = b.line ?? Number.POSITIVE_INFINITY;
  if (la !== lb) return la < lb ? -1 : 1;
  const ia = a.index ?? Number.POSITIVE_INFINITY;
  const ib = b.index ?? Number.POSITIVE_INFINITY;
  return ia === ib ? 0 : ia < ib ? -1 : 1;
}

function inRange(index: number, length: number): boolean {
  return Number.isInteger(index) && index >= 0 && index < length;
}

/** A MessageList over a plain array (a snapshot's messages); holes read as undefined. */
export function arrayList(messages: readonly (ChatMessage | undefined)[]): MessageList {
  return { length: messages.length, at: (i) => (inRange(i, messages.length) ? messages[i] : undefined) };
}

/**
 * A MessageList whose entries are read on demand (`read` may return undefined: a hole); `bytesOf`
 * gives an entry's content bytes without reading it, when it can. Only the first `length` entries
 * are the list's (a followed sidecar's lists share one array that later records append to).
 */
export function lazyList<E>(entries: readonly (E | undefined)[], read: (entry: E) => ChatMessage | undefined, bytesOf?: (entry: E) => number | undefined, length = entries.length): MessageList {
  return {
    length,
    ...(bytesOf
      ? {
          contentBytes(i: number) {
            const entry = inRange(i, length) ? entries[i] : undefined;
            return entry === undefined ? undefined : bytesOf(entry);
          },
        }
      : {}),
    at(i) {
      if (!inRange(i, length)) return undefined;
      const entry = entries[i];
      return entry === undefined ? undefined : read(entry);
    },
  };
}
