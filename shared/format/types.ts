/**
 * The format of SPEC §3 and the resolver's results (§5). Plain data only: every value here
 * survives structured clone and JSON.
 */

export type Role = 'system' | 'user' | 'assistant' | 'tool';

export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface ContentPart {
  type: string;
  [key: string]: unknown;
}

/** One message of the agent's history (§3.3). Its content bytes are the UTF-8 encoding of `content`. */
export interface ChatMessage {
  role: Role;
  content: string;
  tool_call_id?: string;
  tool_calls?: ToolCall[];
  name?: string;
  content_parts?: ContentPart[];
  metadata?: Record<string, unknown>;
  /**
   * Content kept on disk rather than in memory (a large tool output). When present, the content
   * bytes are these and `content` holds only their first bytes, for display. Never serialized.
   */
  large?: ByteSource;
}

/**
 * The `metadata` key of a compaction's summary kept as a message (`true`): where a file opens with
 * a compaction there is nothing before it to reduce, and the summary is the first user message the
 * model is given (docs/formats/claude-code.md "Compactions and microcompactions"). It is no prompt:
 * a title never takes it (electron/library/index.ts).
 */
export const COMPACT_SUMMARY_KEY = 'compact_summary';

/** What the app's row and an exported session say of such a message (`role`: the one it was given as). */
export function compactSummaryNote(role: Role | null | undefined): string {
  return `Summary of a compaction this file opens with: the conversation it summarizes is not in the file, and the model was given the summary as ${role ? `this ${role} message` : 'this message'}.`;
}

/**
 * Bytes read by range from somewhere else (a file), so a 200 MB tool output is never one string.
 * `read` throws ContentUnavailableError when the bytes can no longer be read (the file changed).
 */
export interface ByteSource {
  readonly length: number;
  /** Bytes `[start, end)`, `0 <= start <= end <= length`: a fresh array or a view the caller must not keep. */
  read(start: number, end: number): Uint8Array;
  /** SHA-256 (hex) of all the bytes, when known without reading them. */
  readonly sha256?: string;
  /**
   * Writes bytes `[start, end)` (as `read` bounds them) into `target` from `at` (it has room for
   * them), without an array of its own where it can (optional; a text is encoded in place when read
   * whole): a source hashed a window at a time is read into one reused window (`sourceWindows`),
   * and a part of a joined one into the joined read's array, not into a new array at each step.
   */
  readInto?(start: number, end: number, target: Uint8Array, at: number): void;
  /** `floorCharBoundary` at `offset`, when the source can answer it without a read (optional). */
  floorBoundary?(offset: number): number;
  /**
   * The leftmost non-overlapping occurrences of `needle` inside `[start, end)`, in order: `onMatch`
   * gets a function giving the match's offset (computing it can cost) and returns false to stop.
   * Optional: offered by sources that can search faster than reading and scanning.
   */
  findAll?(needle: Uint8Array, start: number, end: number, onMatch: (offset: () => number) => boolean): void;
  /**
   * Where `findAll` over `[start, end)` reads, as a file and a range of its bytes, when the source
   * can tell a search at once that such a range holds no occurrence (`literalAbsence`); undefined
   * otherwise. Optional (docs/search.md "Contents skipped at once").
   */
  rawRange?(start: number, end: number): { file: number; from: number; to: number } | undefined;
  /**
   * For a search of `needle` (what `findAll` is given): a test of a range `rawRange` gave, of this
   * source or another of the same load, that answers true only when `findAll` over it would find
   * nothing; false when it cannot tell. Null when this source cannot test. Optional.
   */
  literalAbsence?(needle: Uint8Array): ((file: number, from: number, to: number) => boolean) | null;
  /**
   * As `findAll`, for a printable-ASCII `query` matched case-insensitively as RE2 folds case (each
   * letter pairs with its other case; k also matches U+212A KELVIN SIGN, s U+017F LONG S): `onMatch`
   * also gets the match's length in bytes. Returns false, having reported nothing, when this
   * source cannot search so (the caller then scans decoded text).
   */
  findAllFolded?(query: string, start: number, end: number, onMatch: (offset: () => number, length: number) => boolean): boolean;
  /**
   * The leftmost-first non-overlapping matches inside `[start, end)` of a simple pattern (`direct`,
   * shared/search/simpleMatcher.ts) that never matches a byte a JSON writer escapes (`rawSafe`), each
   * containing an occurrence of `literal` that starts at most `before` code points after the match
   * and reaching at most `reach` code points past the match's start in all (`before` finite): found in
   * the source's raw bytes without decoding. `onMatch` gets a function giving the
   * match's offset (computing it can cost) and its length, and returns false to stop. Returns
   * undefined, having reported nothing, when this source cannot search so; else the offset up to
   * which the search is complete (`end`, or where the caller must go on, a boundary after the
   * last match reported).
   */
  findAllDirect?(
    literal: Uint8Array,
    direct: { matchAt(bytes: Uint8Array, start: number, end: number): number | undefined },
    before: number,
    reach: number,
    start: number,
    end: number,
    onMatch: (offset: () => number, length: number) => boolean,
  ): number | undefined;
}

/** The bytes behind a ByteSource can no longer be read (the file shrank or changed). */
export class ContentUnavailableError extends Error {}

/**
 * Carried (not enumerable) by a pointer whose hash an importer makes only when it is first read
 * (electron/loader/content/largeStrings.ts `lazyHashPtr`): whether it is made yet, and how the
 * first reader of the bytes it names may give it their hash instead of having it made apart
 * (shared/resolver/original.ts `resolveOriginal`; docs/streaming-import.md "Hashes made when read").
 */
export const HASH_ON_READ: unique symbol = Symbol('ptr.hash made when first read');

export interface HashOnRead {
  made(): boolean;
  /** Sets the hash, `sha256:<hex>`, when it is not made yet. */
  settle(hash: string): void;
}

/** The pointer's HashOnRead while its hash is still to be made; undefined otherwise. */
export function hashToBeMade(ptr: Reduction['ptr']): HashOnRead | undefined {
  const onRead = (ptr as { [HASH_ON_READ]?: HashOnRead })[HASH_ON_READ];
  return onRead && !onRead.made() ? onRead : undefined;
}

/**
 * Whether the file holds the reduction's original (§10.1: `ptr.hash` is not null), asked without
 * reading a hash still to be made: reading it makes it, which reads and hashes the whole original
 * (a compaction's: most of a long session's file), and throws once the file can no longer be read.
 */
export function holdsOriginal(ptr: Reduction['ptr']): boolean {
  return hashToBeMade(ptr) !== undefined || ptr.hash !== null;
}

/** §3.4 */
export interface ReductionPolicy {
  protect_last_n_tool_results: number;
  max_tool_result_bytes: number;
  kept_prefix_bytes: number;
  dedupe: boolean;
  clear_turns_before?: number | null;
}

export type ReductionKind = 'tool_output_truncated' | 'tool_output_elided' | 'duplicate_output' | 'turns_cleared' | 'summarized';

export const REDUCTION_KINDS: readonly ReductionKind[] = [
  'tool_output_truncated',
  'tool_output_elided',
  'duplicate_output',
  'turns_cleared',
  'summarized',
];

/** The kinds a native agent's projection pass mints (§3.5); `summarized` comes only from importers (§10.1). */
export type NativeReductionKind = Exclude<ReductionKind, 'summarized'>;
export const NATIVE_REDUCTION_KINDS: readonly NativeReductionKind[] = ['tool_output_truncated', 'tool_output_elided', 'duplicate_output', 'turns_cleared'];

/** Kinds that address a view range `[ptr.index, end)` rather than one message; their original is the range's transcript (§3.5, §10.1). */
export type RangeKind = 'turns_cleared' | 'summarized';

export function isRangeKind(kind: ReductionKind): kind is RangeKind {
  return kind === 'turns_cleared' || kind === 'summarized';
}

/**
 * Points at the ORIGINAL bytes a reduction hides: `hash` is `sha256:<hex>` over them, `bytes` their
 * length. `hash: null` (§10.1) says the file does not hold the original: `bytes` is then the size
 * the file states for it, or null when it states none (only a null hash may have a null size).
 */
export interface SidecarPtr {
  index: number;
  hash: string | null;
  bytes: number | null;
}

/** §10.1: `recorded` when the file records the reduction itself, `derived` when found by comparing a model call's input with the history. */
export type Provenance = 'recorded' | 'derived';

/** §10.1: where a pointer hash came from: the file itself (`recorded`, a native sidecar), or the importer that read the file (`import`). */
export type HashOrigin = 'recorded' | 'import';

/** §10.1: where in the source file the evidence of a reduction is. */
export type ReductionOrigin = { line: number } | { event: string };

/** One record of the reduction log (§3.5). Which optional fields are present depends on `kind`. */
export interface Reduction {
  id: string;
  kind: ReductionKind;
  ptr: SidecarPtr;
  /** tool_output_truncated only: the visible prefix `[0, kept_bytes)`. */
  kept_bytes?: number;
  /** duplicate_output only: the earlier byte-identical message. */
  canonical?: { index: number; hash: string };
  /** turns_cleared and summarized only: the view range is `[ptr.index, end)`. */
  end?: number;
  /** The exact stub text the model saw (for `summarized`, the summary). */
  stub: string;
  /** View length when minted. */
  minted_at: number;
  /** §10.1; absent means `recorded` (a native sidecar's reductions are). */
  provenance?: Provenance;
  /** §10.1: where the evidence is in the source file. */
  origin?: ReductionOrigin;
  /**
   * The compaction this reduction belongs to: a `summarized` run of dropped messages, or the
   * `duplicate_output` left at the earlier place of a message the compaction moved (its stub the
   * compaction's). The summary row is the group's first `summarized` run (lowest `ptr.index`); the
   * others show no text of their own.
   */
  group?: string;
  /**
   * summarized only: the role of the message the model was given the summary as, where the file
   * records it (a Claude Code `isCompactSummary` user record; a Codex summary kept as a user
   * message). The view row stays a range (role null); the app says it.
   */
  summary_role?: Role;
  /**
   * Where `ptr.hash` came from; absent means `recorded`. An importer sets `import` on every
   * reduction whose hash it computed, so reports never claim more than "hashed at import".
   */
  hash_origin?: HashOrigin;
  /**
   * §10.1, `ptr.hash: null` only: the original's size in the file's own words when the file does
   * not state it in bytes (Codex states tokens); `ptr.bytes` is then only an estimate from it.
   */
  stated_size?: string;
  /**
   * §10.1, `ptr.hash: null` only: why the file's other copy of the original (a sibling file, a
   * partial copy in the record) is not used, in the importer's words; `original_unavailable` says it.
   */
  unavailable_why?: string;
  /**
   * §10.1, an importer's reduction whose original the file holds: where in the file the importer
   * read the original bytes, in its words ("the tool-results file x.txt", "the transcript's
   * messages before the compact boundary"). The app says it instead of `minted`/`recorded`, which
   * name the views of a native session and say nothing of a foreign file.
   */
  original_from?: string;
  /**
   * §15, a compaction's (`summarized`, each run of its group): the context in tokens before and
   * after it, as the file records them (Claude Code's `compactMetadata.preTokens`) or else the
   * recorded context of the calls either side (shared/tokens/usage.ts compactionTokens). Absent when
   * nothing is recorded.
   */
  tokens_before?: number;
  tokens_after?: number;
}

/** A message record's cap (§3.1): history held `content[0..kept_bytes] + notice`. */
export interface Cap {
  kept_bytes: number;
  notice: string;
}

export interface SidecarHeader {
  t: 'header';
  format: 'supercode-sidecar';
  version: number;
  session_id: string;
  created_at: string;
  model: string;
  gate: boolean;
  policy: ReductionPolicy | null;
}

export type SidecarRecord =
  | SidecarHeader
  | { t: 'system'; msg: ChatMessage }
  | { t: 'message'; i: number; msg: ChatMessage; cap?: Cap }
  | { t: 'reduction'; r: Reduction }
  | { t: 'invert'; id: string }
  | { t: 'rewind'; to: number }
  | { t: 'model_change'; at: number; from: string; to: string; reasoning_artifacts_filtered: number };

/** §3.2 */
export interface SessionSnapshot {
  format: 'supercode-session';
  version: number;
  session_id: string;
  model: string;
  messages: ChatMessage[];
  reductions?: Reduction[];
}

export type FindingCode =
  | 'hash_mismatch'
  | 'address_out_of_range'
  | 'duplicate_bytes_differ'
  | 'kept_bytes_invalid'
  | 'overlapping_reductions'
  | 'duplicate_reduction_id'
  | 'sentinel_in_original'
  | 'recorded_diverges'
  | 'model_change_count_mismatch'
  | 'malformed_line'
  | 'truncated_last_line'
  | 'unknown_record'
  | 'unsupported_version'
  | 'log_differs'
  // A recorded reduction that the header's policy, replayed, does not mint (or mints differently).
  | 'policy_divergence'
  // An imported value too long to read whole, shown cut; the file holds it whole (docs/large-lines.md).
  | 'value_too_large'
  // §15 `check --max-context PCT`: a call whose recorded context exceeds PCT % of its window.
  | 'context_over_limit';

export type Severity = 'error' | 'warning';

/** Every finding code of §5.6 with its severity. */
export const FINDING_SEVERITY: Readonly<Record<FindingCode, Severity>> = {
  hash_mismatch: 'error',
  address_out_of_range: 'error',
  duplicate_bytes_differ: 'error',
  kept_bytes_invalid: 'error',
  overlapping_reductions: 'error',
  duplicate_reduction_id: 'error',
  sentinel_in_original: 'error',
  recorded_diverges: 'warning',
  model_change_count_mismatch: 'error',
  malformed_line: 'error',
  truncated_last_line: 'warning',
  unknown_record: 'warning',
  unsupported_version: 'error',
  log_differs: 'warning',
  policy_divergence: 'warning',
  value_too_large: 'warning',
  context_over_limit: 'error',
};

/** The codes only an importer's reading gives (docs/large-lines.md): no native session file has them, so no broken native sample does. */
export const IMPORTER_FINDING_CODES: readonly FindingCode[] = ['value_too_large'];

/** The codes only a CI gate of `check` gives (SPEC §15 `--max-context`): a judgement of a session against a limit, not a defect a file can hold. */
export const GATE_FINDING_CODES: readonly FindingCode[] = ['context_over_limit'];

/** §5.6 */
export interface Finding {
  code: FindingCode;
  severity: Severity;
  message: string;
  /** 1-based line of the sidecar record concerned. */
  line?: number;
  reduction_id?: string;
  index?: number;
  /** A gate's finding (§15): the model call concerned, 1-based. */
  call?: number;
  /** A gate's finding: the link (SPEC §12 fragment) that opens the session at the place concerned. */
  link?: string;
}

export type Source = 'minted' | 'recorded';

/** §5.1 step 5 */
export interface ExpandOutcome {
  reduction_id: string;
  kind: ReductionKind;
  /** View index of the addressed message (range start for turns_cleared and summarized). */
  index: number;
  /** Absent for turns_cleared and summarized. */
  role?: Role;
  tool_call_id?: string;
  content: string;
  /** The byte range actually returned, `[start, end)`, after clamping and flooring to char boundaries. */
  range: [number, number];
  total_bytes: number;
  source: Source;
}

export type SearchMode = 'substring' | 'regex';

/** §5.3 */
export interface SidecarSearchMatch {
  reduction_id: string;
  kind: ReductionKind;
  index: number;
  /** Byte offset of the match in that message's whole original content. */
  offset: number;
  length: number;
  snippet: string;
  /** Byte range of the match inside `snippet`. */
  snippet_match: [number, number];
}

export interface SidecarSearchResult {
  query: string;
  mode: SearchMode;
  case_sensitive: boolean;
  matches: SidecarSearchMatch[];
  total_matches: number;
  truncated: boolean;
  reductions_searched: number;
  hidden_bytes_searched: number;
  /**
   * Live reductions whose original the file does not hold (`ptr.hash: null`, §10.1): not searched.
   * Present only when there are some, so a native session's result stays exactly §9's.
   */
  reductions_unavailable?: number;
}

export type ResolverErrorCode =
  | 'unknown_reduction'
  | 'hash_mismatch'
  | 'address_out_of_range'
  | 'invalid_byte_range'
  | 'invalid_query'
  | 'original_unavailable'
  | 'cancelled';

/** Errors are values: a code of §5.1/§5.3 and a message naming the facts. */
export interface ResolverError {
  code: ResolverErrorCode;
  message: string;
  reduction_id?: string;
  index?: number;
  total_bytes?: number;
  /** invalid_query: position in the pattern where it fails, when known. */
  position?: number;
}

export type Result<T, E = ResolverError> = { ok: true; value: T } | { ok: false; error: E };

export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

export function err<E>(error: E): { ok: false; error: E } {
  return { ok: false, error };
}

/**
 * A view the resolver reads by index. A plain array is one; the file loader passes a lazy one that
 * reads content back from disk through a cache. `at` returns undefined for an index outside the
 * view or for a hole (a message whose record could not be read).
 */
export interface MessageList {
  readonly length: number;
  at(index: number): ChatMessage | undefined;
  /**
   * The UTF-8 bytes of a message's content when the list knows them without reading the message
   * (an indexed file's handles), else undefined (the context map sums a million).
   */
  contentBytes?(index: number): number | undefined;
}

/**
 * SHA-256 over the concatenation of `chunks`, as lowercase hex. Injected so hosts can use a native
 * digest. Each chunk is taken before the next is asked for and not kept: it may be a view of a
 * window the next one is read into (`sourceWindows`).
 */
export type Sha256 = (chunks: Iterable<Uint8Array>) => string;

/** A sidecar record with its place in the file, as policy replay reads it (docs/policy-replay.md). */
export interface LocatedRecord {
  record: SidecarRecord;
  /** 1-based line of the record in the sidecar. */
  line: number;
  /** A message record's: the UTF-8 bytes of its `msg.content`, when the reader knows them (never measured again). */
  contentBytes?: number;
  /** A message record's: the SHA-256 (hex) of its content's bytes, when the reader knows it without reading them. */
  contentSha256?: string;
}
