/**
 * The one typed contract between the renderer and its host (Electron IPC or the HTTP host), and
 * the messages between a host and its resolver worker. Every payload that crosses a process
 * boundary is validated against these schemas on arrival: the renderer and the session file are
 * both untrusted.
 *
 * Shape: `methods[name]` gives the params schema and the result schema of one request; a reply is
 * `{ ok: true, value } | { ok: false, error: { code, message } }`. `events[name]` gives the payload
 * of one event pushed from the host. The renderer never names a file path: it opens files the host
 * offers (by id), through the host's own dialog, or by handing a dropped File to the bridge.
 */
import { z } from 'zod';
import { REDUCTION_KINDS } from './format/types';
import type { ReductionKind } from './format/types';
import { reductionPolicySchema, reductionSchema } from './format/schema';
import { MAX_PAGED_MATCHES, MAX_SEARCH_PAGE_SIZE, SEARCH_PAGE_SIZE } from './search/searchPage';
import { SESSION_FILE_FORMATS, SESSION_FORMATS } from './fileFormats';
import { API_ROOT } from './httpProtocol';
import { folderMethods, libraryEvents, libraryMethods } from './listingContract';
import { exportCallMethods } from './exportCallContract';
import { tokenMapMethods } from './tokenMapContract';
import { hiddenTokensMethods } from './hiddenTokensContract';

export type { SessionFileFormat, SessionFormat } from './fileFormats';
export { FILE_FORMAT_EXTENSIONS, SESSION_FILE_FORMATS, SESSION_FORMATS, SESSION_FORMAT_OF_FILE } from './fileFormats';
export { MAX_FOLDER_ENTRIES, MAX_LIBRARY_ENTRIES, folderEntrySchema, libraryEntrySchema } from './listingContract';
export { MAX_EXPORT_CALL_BYTES } from './exportCallContract';
export { MAX_CALL_TOKEN_MESSAGES, TOKEN_MAP_SLICE_CALLS, TOKEN_MAP_SLICE_MS, knownOf, mergeTokenMap } from './tokenMapContract';
export type { TokenMapFigures, TokenMapKnown, TokenMapReply } from './tokenMapContract';
export { MAX_HIDDEN_TOKENS_IDS, SAMPLING } from './hiddenTokensContract';
export { API_ROOT, EVENTS_PATH, HANDLE_PATH, SESSION_HEADER, SESSION_PARAM, TOKEN_HEADER, TOKEN_PARAM, UPLOAD_NAME_HEADER, UPLOAD_PATH } from './httpProtocol';

const int = z.number().int().nonnegative();
const kind = z.enum(REDUCTION_KINDS as [ReductionKind, ...ReductionKind[]]);
const role = z.enum(['system', 'user', 'assistant', 'tool']);
const severity = z.enum(['error', 'warning']);

// ── the renderer receives a model and never parses text. The host sends where
// each stub stands, what the model saw inside every expansion, and where a match lands in a
// range's transcript; every offset is a UTF-8 byte offset (shared/format/utf8Offsets converts).
const storyBytes = z.tuple([int, int]);
/** A row's stub: `[start, end)` in the row's whole text, the reduction it stands for, and the hidden bytes it states. */
const storyRowFields = {
  stub: z.object({ id: z.string(), start: int, end: int, hidden_bytes: int.optional() }).optional(),
};
/** One message of a range's transcript (shared/resolver/story.ts TranscriptBoundary). */
export const transcriptBoundarySchema = z.object({
  index: int,
  role,
  tool_call_id: z.string().optional(),
  start: int,
  content_start: int,
  end: int,
});
const storyExpandFields = {
  /** The hidden span(s) over the whole original (§3.5); the rest is what the model saw. Empty: nothing hidden. */
  hidden: z.array(storyBytes).optional(),
  /** A cleared or summarized range: its messages that meet `range`, with their transcript offsets. */
  messages: z.array(transcriptBoundarySchema).optional(),
};
/** A match inside a cleared or summarized range: its byte offset in the range's transcript. */
const storyMatchFields = { transcript_offset: int.optional() };
/** A duplicate's canonical, and whether the model could still see it (no other reduction hides it). */
const storyStatusFields = { canonical: z.object({ index: int, visible: z.boolean() }).optional() };
/** The hidden bytes a log entry's stub states (shown until `verify` answers). */
const storyLogFields = { stated_hidden_bytes: int.optional() };
// ── end of part C

/** Most rows one `rows` request may ask for. */
export const MAX_ROWS_PER_REQUEST = 500;
/** A row's text is cut to this many bytes in a `rows` reply; `rowText` pages through the rest. */
export const ROW_TEXT_MAX_BYTES = 64 * 1024;
/** Most bytes one `expand` or `rowText` reply carries: a bigger range is clamped (and says so by its `range`). */
export const MAX_SLICE_BYTES = 4 * 1024 * 1024;
/** Longest search query accepted. */
export const MAX_QUERY_BYTES = 4096;

export const findingSchema = z.object({
  code: z.enum([
    'hash_mismatch',
    'address_out_of_range',
    'duplicate_bytes_differ',
    'kept_bytes_invalid',
    'overlapping_reductions',
    'duplicate_reduction_id',
    'sentinel_in_original',
    'recorded_diverges',
    'model_change_count_mismatch',
    'malformed_line',
    'truncated_last_line',
    'unknown_record',
    'unsupported_version',
    'log_differs',
    'policy_divergence',
    'value_too_large',
    'context_over_limit',
  ]),
  severity,
  message: z.string(),
  line: int.optional(),
  reduction_id: z.string().optional(),
  index: int.optional(),
  call: int.optional(),
  link: z.string().optional(),
});

export const sessionFileSchema = z.object({ path: z.string(), format: z.enum(SESSION_FILE_FORMATS), bytes: int });
export type SessionFile = z.infer<typeof sessionFileSchema>;

/** One session of a file (§10.1); `id` is '' when the file names none. */
export const sessionEntrySchema = z.object({
  id: z.string(),
  title: z.string().optional(),
  messages: int,
  /** Absent when `messages` is counted; `pending` while it is being counted (messages 0), `failed` when it cannot be (shared/resolver/session.ts SessionEntry). */
  counting: z.enum(['pending', 'failed']).optional(),
  /** How the agent's run ended, where the file records it (shared/resolver/session.ts RunEnd). */
  end: z.object({ status: z.string(), detail: z.string().optional() }).optional(),
  /** What an Inspect log's summary of the sample records (shared/resolver/session.ts RecordedSample). */
  recorded: z
    .object({
      messages: int.optional(),
      scores: z.record(z.string(), z.string()).optional(),
      models: z.array(z.string()).optional(),
      tokens: int.optional(),
      error: z.string().optional(),
      limit: z.string().optional(),
    })
    .optional(),
});
/**
 * Most sessions an open session's info lists (a Claude Code project can hold thousands of
 * subagents): the info crosses a process boundary with every open and feeds one `<select>`.
 */
export const MAX_LISTED_SESSIONS = 1000;
/** Longest session id a request may name. */
export const MAX_SESSION_ID_CHARS = 200;
const sessionId = z.string().max(MAX_SESSION_ID_CHARS);

export const sessionSummarySchema = z.object({
  files: z.array(sessionFileSchema),
  session_id: z.string().nullable(),
  model: z.string().nullable(),
  gate: z.boolean().nullable(),
  messages: int,
  reductions: int,
  reductions_by_kind: z.record(kind, int),
  errors: int,
  warnings: int,
  /** §10.1: the format the session was read from (`supercode` for a native sidecar or snapshot). */
  format: z.enum(SESSION_FORMATS),
  /** §10.1: every session the file holds (one for a native file); `id` is '' when the file names none. */
  sessions: z.array(sessionEntrySchema),
  /** §15: the recorded usage (shared/tokens/summary.ts TokensSummary). */
  tokens: z
    .object({
      calls_recorded: int,
      max_context: int.nullable(),
      window: int.nullable(),
      compactions: z.array(z.object({ call: int.nullable(), before: int.nullable(), after: int.nullable() })),
    })
    .optional(),
  /** §15: every fall of cache reads from one call to the next (shared/tokens/summary.ts CacheBreak). */
  cache_breaks: z.array(z.object({ call: int, tokens_rewritten: int, cause: z.object({ reduction: z.string().optional(), message_index: int }).nullable() })).optional(),
});
/** The `summary` of `check` (SPEC §8) and of an open session. */
export type SessionSummary = z.infer<typeof sessionSummarySchema>;

/**
 * Most findings one `check` reply of the worker or a host carries (a file of garbage lines has one
 * per line); the rest are counted in `findings_omitted` and, with the listed ones, in
 * `findings_by_code`. The command line prints every finding.
 */
export const MAX_REPLY_FINDINGS = 1000;

export const checkReportSchema = z.object({
  findings: z.array(findingSchema),
  summary: sessionSummarySchema,
  /** Findings left out of `findings` by MAX_REPLY_FINDINGS (absent when none were). */
  findings_omitted: int.optional(),
  /** Every finding counted by code, the omitted ones included (present when some were omitted). */
  findings_by_code: z.partialRecord(findingSchema.shape.code, int).optional(),
});
export type CheckReport = z.infer<typeof checkReportSchema>;

/** What the renderer knows of the open session without asking for content. */
export const sessionInfoSchema = z.object({
  /** Changes with every open: replies about an older session are ignored. */
  generation: int,
  files: z.array(sessionFileSchema),
  session_id: z.string().nullable(),
  model: z.string().nullable(),
  gate: z.boolean().nullable(),
  policy: reductionPolicySchema.nullable(),
  messages: int,
  rows: int,
  reductions: int,
  reductions_by_kind: z.record(kind, int),
  /** Findings of reading the files (malformed lines…); the integrity check runs on `check`. */
  load_findings: int,
  stopped: z.boolean(),
  /**
   * True while the file is still being indexed: the view, log and counts are those of the records
   * read so far. The same generation is sent again, whole, when indexing ends (`sessionOpened`).
   */
  provisional: z.boolean().optional(),
  /** §10.1: the format the session was read from (`supercode` for a native sidecar or snapshot). */
  format: z.enum(SESSION_FORMATS),
  /** The open session's id as it was asked for: '' for a file's main (or only) session. */
  session: z.string(),
  /**
   * §10.1: the sessions the file holds, main first, as `check`'s summary lists them (one for a
   * native file), at most MAX_LISTED_SESSIONS; the rest are counted in `sessions_omitted`.
   */
  sessions: z.array(sessionEntrySchema).max(MAX_LISTED_SESSIONS),
  /** Sessions left out of `sessions` by MAX_LISTED_SESSIONS (absent when none were). */
  sessions_omitted: int.optional(),
  /** True while the files are followed as they grow (SPEC §13); absent when not. */
  following: z.boolean().optional(),
  /**
   * How a link names this session's file (SPEC §14, `#file=…&root=…`): its path relative to a root
   * the host lists, set by the host when the file is one it listed; absent for an upload or a file
   * the host did not list (docs/sessions-and-links.md).
   */
  link_file: z.object({ path: z.string().max(1024), root: z.string().max(200).optional() }).optional(),
});
export type SessionInfo = z.infer<typeof sessionInfoSchema>;

export const projectedRowSchema = z.object({
  row: int,
  index: int,
  end: int,
  role: role.optional(),
  tool_call_id: z.string().optional(),
  /**
   * The message's tool calls, their arguments cut like `text`: together at most ROW_TEXT_MAX_BYTES
   * per row (an even share each), `arguments_bytes` the whole length; `rowText` with `tool_call`
   * pages through the rest.
   */
  tool_calls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.string(), arguments_bytes: int })).optional(),
  name: z.string().optional(),
  text: z.string(),
  /** UTF-8 bytes of the row's whole text; more than `text` carries when it was cut. */
  text_bytes: int,
  reductions: z.array(z.object({ id: z.string(), kind })),
  applied: z.string().optional(),
  missing: z.boolean().optional(),
  /**
   * A run of a compaction (§10.1): `summary` is the id of the group's first run, whose row shows the
   * summary; `moved_to` where the model was given a message the compaction moved (this row's
   * earlier place shows nothing); `summary_role` the role the summary was given to the model as.
   */
  compaction: z.object({ group: z.string(), summary: z.string(), moved_to: int.optional(), summary_role: role.optional() }).optional(),
  /** A compaction's summary kept as the message it was: the file opens with the compaction, so nothing before it is in the file (docs/formats/claude-code.md). */
  compact_summary: z.literal(true).optional(),
  ...storyRowFields,
});
export type ProjectedRowInfo = z.infer<typeof projectedRowSchema>;

export const expandOutcomeSchema = z.object({
  reduction_id: z.string(),
  kind,
  index: int,
  role: role.optional(),
  tool_call_id: z.string().optional(),
  content: z.string(),
  range: z.tuple([int, int]),
  total_bytes: int,
  source: z.enum(['minted', 'recorded']),
  ...storyExpandFields,
});

export const searchResultSchema = z.object({
  query: z.string(),
  mode: z.enum(['substring', 'regex']),
  case_sensitive: z.boolean(),
  matches: z.array(
    z.object({
      reduction_id: z.string(),
      kind,
      index: int,
      offset: int,
      length: int,
      snippet: z.string(),
      snippet_match: z.tuple([int, int]),
      ...storyMatchFields,
    }),
  ),
  total_matches: int,
  truncated: z.boolean(),
  reductions_searched: int,
  hidden_bytes_searched: int,
  reductions_unavailable: int.optional(),
});

/** One row of the reduction log table. `line` is the sidecar record's line, when the log is the sidecar's. */
export const logEntrySchema = z.object({ reduction: reductionSchema, line: int.optional(), ...storyLogFields });

/** The verification status of one reduction, as expanding it would find. */
export const reductionStatusSchema = z.object({
  id: z.string(),
  status: z.enum(['verified', 'hash_mismatch', 'address_out_of_range', 'original_unavailable', 'unknown_reduction']),
  source: z.enum(['minted', 'recorded']).optional(),
  total_bytes: int.optional(),
  /** Bytes of the hidden span (0 for a duplicate whose canonical is visible); for `original_unavailable`, the size the file states, when it states one. */
  hidden_bytes: int.optional(),
  /** §10.1 (absent for `unknown_reduction`). */
  provenance: z.enum(['recorded', 'derived']).optional(),
  /** Where the hash came from: `import` is shown as "hashed at import". Absent without a hash. */
  hash_origin: z.enum(['recorded', 'import']).optional(),
  message: z.string().optional(),
  /** An imported reduction's: where in the file its importer read the original, in its words (shown instead of `source`). */
  original_from: z.string().optional(),
  ...storyStatusFields,
});
export type ReductionStatus = z.infer<typeof reductionStatusSchema>;

export const offeredFileSchema = z.object({ id: z.string(), name: z.string(), bytes: int.nullable() });

export const hostErrorCodeSchema = z.enum([
  // the resolver's (SPEC §5.1, §5.3)
  'unknown_reduction',
  'hash_mismatch',
  'address_out_of_range',
  'invalid_byte_range',
  'invalid_query',
  'original_unavailable',
  'cancelled',
  // a file of the open session changed on disk since it was opened: nothing more is read from it
  'file_changed',
  // opening files (SPEC §8)
  'unreadable_file',
  'unrecognized_file',
  'unsupported_version',
  'usage',
  // the host's
  'no_session',
  'invalid_request',
  'not_supported',
  'worker_crashed',
  /** The window's session handle names no open session (closed after a while unused, or to make room): the window starts again from its link. */
  'session_closed',
  /** A request not answered within its time bound (a search past its time limit; a host request past its deadline). */
  'timeout',
  'internal_error',
  // Repro bundles: the session does not show what was named; the bundle is past MAX_BUNDLE_BYTES
  'not_reproduced',
  'too_large',
]);
export type HostErrorCode = z.infer<typeof hostErrorCodeSchema>;
export const hostErrorSchema = z.object({ code: hostErrorCodeSchema, message: z.string() });
export type HostError = z.infer<typeof hostErrorSchema>;

const byteRange = z.tuple([int, int]);
const empty = z.object({});

// --- model calls (the `Model call` slider, `Latest`, the `Context map`) ---
/** §11: which call's input a request reads; null or absent is the latest view. */
const callParam = z.number().int().min(1).nullable().optional();

/** Most instructions one `instructions` reply carries. */
export const MAX_INSTRUCTIONS_PER_REQUEST = 100;
/** An instruction as `instructions` sends it (shared/resolver/instructions.ts), its text cut like a row's. */
export const instructionInfoSchema = z.object({
  source: z.enum(['codex_base_instructions', 'claude_code_attachment']),
  kind: z.string().optional(),
  placement: z.enum(['instructions', 'user_message']),
  index: int,
  line: int,
  text: z.string(),
  text_bytes: int,
  unconfirmed: z.literal(true).optional(),
});
export type InstructionInfo = z.infer<typeof instructionInfoSchema>;
/**
 * The context map's figures (shared/calls/contextMap.ts), columnar so that 100,000 calls cross as a few
 * arrays of numbers (about 2 MB of JSON) rather than 100,000 objects.
 */
export const contextMapSchema = z.object({
  calls: int,
  index: z.array(int),
  given: z.array(int),
  hidden: z.array(int),
  minted: z.array(int),
  rewinds: z.array(z.object({ call: int, to: int })),
  model_switches: z.array(z.object({ call: int, from: z.string(), to: z.string() })),
  /** What `minted` leaves out (shared/calls/contextMap.ts): live = sum(minted) + minted_after_last + unplaced - ended. */
  minted_after_last: int,
  unplaced: int,
  ended: int,
  /** The calls that first saw a compaction (SPEC §16: the `Model call` slider's marks). */
  compactions: z.array(int).optional(),
  /**
   * §15: the usage the file recorded for each call, columnar (call N at `[N - 1]`, null where it
   * records none; shared/tokens/summary.ts recordedColumns); absent when the file records none.
   */
  recorded: z
    .object({
      context: z.array(int.nullable()),
      cache_read: z.array(int.nullable()),
      cache_write: z.array(int.nullable()),
      output: z.array(int.nullable()),
      window: z.array(int.nullable()),
    })
    .optional(),
  /** §15: each compaction event's tokens before and after (shared/tokens/summary.ts tokensSummary); absent when the file records none. */
  compaction_tokens: z.array(z.object({ call: int.nullable(), before: int.nullable(), after: int.nullable() })).optional(),
  /** §15: every fall of cache reads from one call to the next and its cause (shared/tokens/summary.ts cacheBreaks); absent when none. */
  cache_breaks: z.array(z.object({ call: int, tokens_rewritten: int, cause: z.object({ reduction: z.string().optional(), message_index: int }).nullable() })).optional(),
});
export type ContextMapInfo = z.infer<typeof contextMapSchema>;

// ---------------------------------------------------------------------------------------------
// The diff between two model calls, the session's events where they happened,
// and the messages a rewind abandoned. Every reply is bounded: lists are capped and counted.

/** Most entries of each list of a `callDiff` reply (a diff can span 100,000 reductions); the rest are counted in its totals. */
export const MAX_DIFF_ENTRIES = 1000;
/** Most events one `sessionEvents` reply carries; `total` counts those of the asked range. */
export const MAX_EVENTS_PER_REQUEST = 500;
/** Most messages of an abandoned branch one `abandoned` request may ask for. */
export const MAX_ABANDONED_PER_REQUEST = 100;
/** An abandoned message's text is cut to this many bytes (`text_bytes` says how long it is). */
export const ABANDONED_TEXT_MAX_BYTES = 4096;
/** Most reductions one `minted` event names, and most indices a `model_change` event lists. */
export const MAX_EVENT_ITEMS = 50;

/** A model call (1-based), or null for the latest view (what a next call would be given). */
const callNumber = z.number().int().min(1).nullable();
const diffReductionSchema = z.object({
  index: int,
  end: int.optional(),
  reduction_id: z.string(),
  kind,
  /** As the reduction states them in the input where it applies; null when it states none. */
  hidden_bytes: int.nullable(),
  by: z.enum(['inverted', 'rewound']).optional(),
});
/** `reductions`: the reductions applied to the message in the input that holds it (SPEC §16 `diff`). */
const diffMessageSchema = z.object({ index: int, role: role.optional(), bytes: int.nullable(), reductions: z.array(z.string()).optional() });
/** Most changed runs of one `callDiff` reply listed with their line diff (each up to 256 KiB a side; all hunks of a reply up to 4 MiB: shared/calls/callsDiff.ts). */
export const MAX_DIFF_CHANGED = 200;
const diffHunkSchema = z.object({ from_start: int, from_count: int, to_start: int, to_count: int, lines: z.array(z.string()) });
const textDiffSchema = z.object({ lines: z.object({ from: int.nullable(), to: int.nullable() }), hunks: z.array(diffHunkSchema).nullable(), note: z.string().optional() });
const changedRunSchema = z.object({
  index: int,
  end: int,
  role: role.nullable(),
  reduced: z.array(z.string()),
  restored: z.array(z.string()),
  bytes: z.object({ from: int.nullable(), to: int.nullable() }),
  text: textDiffSchema,
});
const betweenEventSchema = z.object({
  change: z.enum(['applied', 'undone']),
  reduction_id: z.string(),
  kind,
  index: int,
  end: int.optional(),
  line: int,
  call: int.nullable(),
  by: z.enum(['inverted', 'rewound']).optional(),
  group: z.string().optional(),
});
const diffCompactionSchema = z.object({
  group: z.string(),
  summary_id: z.string(),
  ranges: z.array(z.tuple([int, int])),
  dropped: int,
  line: int,
  call: int.nullable(),
  summary: z.string(),
  summary_bytes: int,
  summary_truncated: z.boolean(),
});
const tokenEstimateSchema = z.object({ tokens: int, source: z.literal('estimated'), approximate: z.literal(true).optional(), sampled: z.literal(true).optional() });
/** A diff end's context (shared/tokens/diffTokens.ts ContextFigure): recorded, else estimated, from the other end's recorded context where only that one has it. */
const contextFigureSchema = z.union([z.object({ tokens: int, source: z.literal('recorded') }), tokenEstimateSchema.extend({ from_recorded: z.object({ call: int.min(1), tokens: int }).optional() })]);
const diffTokensSchema = z.object({
  from: contextFigureSchema,
  to: contextFigureSchema,
  added: tokenEstimateSchema,
  dropped: tokenEstimateSchema,
  reduced: z.object({ from: tokenEstimateSchema, to: tokenEstimateSchema }),
  restored: z.object({ from: tokenEstimateSchema, to: tokenEstimateSchema }),
  runs_listed: int.optional(),
});

/** One list of a diff: how many entries it has and the bytes they sum to (the known ones). */
const diffTotal = z.object({ count: int, bytes: int });

export const sessionEventSchema = z.discriminatedUnion('kind', [
  /** §5.5: `index` is the view length at the switch; `stripped` the messages whose reasoning artifacts it filtered (the first MAX_EVENT_ITEMS). */
  z.object({
    kind: z.literal('model_change'),
    index: int,
    line: int,
    from: z.string(),
    to: z.string(),
    reasoning_artifacts_filtered: int,
    stripped: z.array(int).max(MAX_EVENT_ITEMS),
    /** How many messages it stripped as replayed; null when the format does not say which. */
    stripped_count: int.nullable(),
  }),
  /** §3.1: the view was cut back to `index` messages; `rewind` names it for `abandoned`. */
  z.object({ kind: z.literal('rewind'), index: int, line: int, rewind: int, abandoned: int }),
  /** §3.5 `minted_at`: reductions of the live log minted when the view held `index` messages. */
  z.object({ kind: z.literal('minted'), index: int, line: int.optional(), count: int, reductions: z.array(z.object({ id: z.string(), kind })).max(MAX_EVENT_ITEMS) }),
]);
export type SessionEvent = z.infer<typeof sessionEventSchema>;

export const abandonedMessageSchema = z.object({ index: int, role: role.optional(), tool_call_id: z.string().optional(), text: z.string(), text_bytes: int, missing: z.boolean().optional() });

const partBMethods = {
  /** §11 `callDiff(from, to)`: what left the context (`reduced`), came back (`restored`), was added or dropped between two inputs. */
  callDiff: {
    params: z.object({ from: callNumber, to: callNumber, limit: int.min(1).max(MAX_DIFF_ENTRIES).optional() }),
    result: z.object({
      /** How many model calls the session has. */
      calls: int,
      from: callNumber,
      to: callNumber,
      added: z.array(diffMessageSchema),
      removed: z.array(diffMessageSchema),
      reduced: z.array(diffReductionSchema),
      restored: z.array(diffReductionSchema),
      totals: z.object({ added: diffTotal, removed: diffTotal, reduced: diffTotal, restored: diffTotal }),
      /** SPEC §16: bytes the model was given at each end. */
      bytes: z.object({ from: int, to: int }),
      /** SPEC §16: each end's context (recorded, else estimated) and the estimated tokens each way (docs/diff.md "Tokens"); absent when they could not be counted. */
      tokens: diffTokensSchema.optional(),
      /** The estimate of each listed added / removed message (as `added` / `removed`), and of each listed changed run at each end. */
      tokens_est: z.object({ added: z.array(int), removed: z.array(int), changed: z.array(z.object({ from: int, to: int })) }).optional(),
      /** Runs of messages both inputs hold, reduced or restored, with their line diff: the first MAX_DIFF_CHANGED of `changed_count`. */
      changed: z.array(changedRunSchema).max(MAX_DIFF_CHANGED),
      changed_count: int,
      /** Reductions logged or undone between the two calls (the first `limit`), and the compactions among them. */
      between: z.array(betweenEventSchema),
      between_count: int,
      compactions: z.array(diffCompactionSchema),
    }),
  },
  /** The session's events at view positions `[start, end)`, by position then line: at most MAX_EVENTS_PER_REQUEST. */
  sessionEvents: {
    params: z.object({ start: int, end: int }).refine((p) => p.end >= p.start, { message: 'end must be >= start' }),
    result: z.object({ events: z.array(sessionEventSchema).max(MAX_EVENTS_PER_REQUEST), total: int }),
  },
  /** Messages `[start, end)` of the branch rewind number `rewind` abandoned, read back from the file. */
  abandoned: {
    params: z
      .object({ rewind: int, start: int, end: int })
      .refine((p) => p.end >= p.start && p.end - p.start <= MAX_ABANDONED_PER_REQUEST, { message: `end must be >= start and span at most ${MAX_ABANDONED_PER_REQUEST} messages` }),
    result: z.object({ to: int, line: int, total: int, messages: z.array(abandonedMessageSchema) }),
  },
} as const;

// ── repro bundles (SPEC §12). The host builds the bundle from the open session's own
// files (the page names no path) and answers its files; the renderer packs them into one .tar.
/** Most bytes a bundle's files may total in a reply; a larger bundle is `too_large` (make it with the CLI). */
export const MAX_BUNDLE_BYTES = 8 * 1024 * 1024;
/** Most kinds of cut unit a `reproBundle` reply lists (the rest are summed into the last). */
export const MAX_BUNDLE_CUT_KINDS = 50;
/** A bundle's search, after each oracle call (at most every few hundred milliseconds): calls against the cap, best size against the start. */
export const bundleProgressSchema = z.object({
  bundleId: z.string().max(100),
  stage: z.enum(['start', 'prefix', 'ddmin', 'done']),
  oracle_calls: int,
  max_oracle_calls: int,
  units_before: int,
  units_now: int,
  bytes_before: int,
  bytes_now: int,
  elapsed_ms: int,
});
const bundleMethods = {
  reproBundle: {
    params: z.object({
      ids: z.array(z.string().max(200)).max(50).default([]),
      codes: z.array(z.string().max(100)).max(50).default([]),
      /** Names the bundle's `bundleProgress` events and its `cancelBundle`. */
      bundleId: z.string().max(100).optional(),
    }),
    result: z.object({
      /** The bundle folder's name inside the archive: `repro-<code|id>`. */
      name: z.string(),
      /** Session files, README.md, bundle.spec.ts, bundle.json; bytes as base64. */
      files: z.array(z.object({ name: z.string(), base64: z.string() })),
      /** The equivalent `bundle` command line. */
      command: z.string(),
      ids: z.array(z.string()),
      codes: z.array(z.string()),
      oracle_calls: int,
      bytes_before: int,
      bytes_after: int,
      /** Why the search ended (docs/bundles.md): `minimal`, or stopped early (`call_cap`, `cancelled`, `time_limit`), or `too_large`. */
      stop: z.enum(['minimal', 'call_cap', 'too_large', 'cancelled', 'time_limit']),
      /** Why it stopped early, in words (null: it ran to a minimal bundle). */
      stopped_early: z.string().nullable(),
      /** What was cut, by kind of unit (bundle.json lists each unit). */
      cut: z.array(z.object({ kind: z.string(), units: int, bytes: int })).max(MAX_BUNDLE_CUT_KINDS),
    }),
  },
  /** Stops the bundle `bundleId` in flight: it answers at once with the smallest bundle found so far that reproduces. */
  cancelBundle: { params: z.object({ bundleId: z.string().max(100) }), result: z.object({ cancelled: z.boolean() }) },
} as const;
// ──
// ── session documents (SPEC §16 `export --as markdown|html`; docs/export-documents.md). The worker
// writes the document from the open session; the renderer offers it as a download or copies it.
/** Most bytes an `exportDocument` reply carries; a larger document is `too_large` (export it with the CLI or fewer calls). */
export const MAX_EXPORT_DOCUMENT_BYTES = 32 * 1024 * 1024;
const exportDocumentMethods = {
  exportDocument: {
    params: z.object({
      as: z.enum(['markdown', 'html']),
      redact: z.boolean().default(false),
      /** Model calls `[from, to]`, inclusive; absent: every call. */
      calls: z.tuple([z.number().int().min(1), z.number().int().min(1)]).optional(),
    }),
    result: z.object({
      /** A file name for the download: the session file's stem and `.md` or `.html`. */
      name: z.string(),
      text: z.string(),
      bytes: int,
      calls: int,
      /** What redaction replaced, by kind (empty without `redact`). */
      redacted: z.record(z.string(), int),
    }),
  },
} as const;
// ──
// ---------------------------------------------------------------------------------------------
// Policy replay and the what-if view. Both re-read the sidecar's records in file
// order (electron/loader/replay.ts); a session that cannot be replayed says why in `note`.

/** Most entries of each list of a `whatIf` reply; the counts count them all. */
export const MAX_WHAT_IF_ENTRIES = 1000;
const whatIfReductionSchema = z.object({ id: z.string(), kind, index: int, end: int.optional(), kept_bytes: int.optional(), hidden_bytes: int.nullable() });

const replayMethods = {
  /** `check --replay`'s replay: the header policy re-run pass by pass; each divergence a `policy_divergence` finding. */
  replay: {
    params: empty,
    result: z.object({
      replayed: z.boolean(),
      note: z.string().optional(),
      policy: reductionPolicySchema.nullable(),
      passes: int,
      findings: z.array(findingSchema).max(MAX_REPLY_FINDINGS),
      /** Every divergence, those past MAX_REPLY_FINDINGS included. */
      divergences: int,
    }),
  },
  /** `view --policy`'s diff: the session re-projected under `policy`, against the recorded log (latest view). */
  whatIf: {
    params: z.object({ policy: reductionPolicySchema }),
    result: z.object({
      note: z.string().optional(),
      counts: z.object({ added: int, removed: int, changed: int, messages: int }),
      bytes: z.object({ recorded: int, policy: int }),
      added: z.array(whatIfReductionSchema).max(MAX_WHAT_IF_ENTRIES),
      removed: z.array(whatIfReductionSchema).max(MAX_WHAT_IF_ENTRIES),
      changed: z.array(z.object({ index: int, recorded: whatIfReductionSchema, policy: whatIfReductionSchema })).max(MAX_WHAT_IF_ENTRIES),
      messages: z.array(z.object({ index: int, role: role.nullable(), recorded_bytes: int.nullable(), policy_bytes: int.nullable() })).max(MAX_WHAT_IF_ENTRIES),
    }),
  },
} as const;

/**
 * The human view of a search, every match a page at a time (shared/search/searchPage.ts).
 * The agent's search with `max_matches`/`max_result_bytes` moved to reach the page; its searchId,
 * cancellation, progress events and time limit are the `search` method's. `scope: "view"` searches
 * the text of the projected view's rows at `call` (what the model saw) instead of hidden content.
 */
/** What names a search: `search` and `searchPage` share these params. */
const searchQueryFields = {
  searchId: z.string().max(100),
  query: z.string().min(1).max(MAX_QUERY_BYTES),
  mode: z.enum(['substring', 'regex']).default('substring'),
  case_sensitive: z.boolean().default(true),
};

const traceHidingSchema = z.object({ reduction: z.string(), kind, call: int.min(1) });

/** SPEC §16 `trace` (shared/calls/trace.ts): a text followed through the model calls. */
const traceMethods = {
  /**
   * The occurrences of `query` in the view's messages, each with the calls that saw it and what hid
   * it (docs/trace.md). Run in slices as a search is, named by `searchId` (cancelled as one) and
   * bounded by the search's time limit.
   */
  trace: {
    params: z.object(searchQueryFields),
    result: z.object({
      query: z.string(),
      mode: z.enum(['substring', 'regex']),
      case_sensitive: z.boolean(),
      calls: int,
      occurrences: z.array(
        z.object({
          message_index: int,
          first_call: int.min(1),
          visible_calls: z.array(z.tuple([int.min(1), int.min(1)])),
          hidden_by: traceHidingSchema.nullable(),
          offset: int,
          length: int,
          snippet: z.string(),
          snippet_match: byteRange,
          visible_now: z.boolean(),
          hidings: z.array(traceHidingSchema),
          bytes_at: z
            .object({
              reduction: z.string(),
              kind,
              range: byteRange.nullable(),
              original: z.union([z.object({ verified: z.literal(true), source: z.enum(['minted', 'recorded']) }), z.object({ verified: z.literal(false), error: z.string(), message: z.string() })]),
            })
            .nullable(),
          at: z.object({ call: int.min(1).nullable(), in_input: z.boolean(), visible: z.boolean() }),
        }),
      ),
      total_matches: int,
      truncated: z.boolean(),
    }),
  },
};

const searchPagingMethods = {
  searchPage: {
    params: z.object({
      ...searchQueryFields,
      page: int.max(MAX_PAGED_MATCHES),
      page_size: int.min(1).max(MAX_SEARCH_PAGE_SIZE).default(SEARCH_PAGE_SIZE),
      scope: z.enum(['hidden', 'view']).default('hidden'),
      call: callParam,
    }),
    result: z.object({
      query: z.string(),
      mode: z.enum(['substring', 'regex']),
      case_sensitive: z.boolean(),
      scope: z.enum(['hidden', 'view']),
      page: int,
      page_size: int,
      first: int,
      /** `scope: "hidden"`: matches as `search` returns them. */
      matches: searchResultSchema.shape.matches,
      /** `scope: "view"`: matches in rows' text; `offset`/`length` are bytes of the row's whole text. */
      view_matches: z.array(z.object({ row: int, index: int, offset: int, length: int, snippet: z.string(), snippet_match: z.tuple([int, int]) })),
      total_matches: int,
      pageable: int,
      reductions_searched: int,
      /** For `scope: "view"`, the bytes of row text searched (no reduction is). */
      hidden_bytes_searched: int,
      reductions_unavailable: int.optional(),
    }),
  },
} as const;

/** Every request: its params and its result. */
export const methods = {
  /** The open session, if any, and what the host offers. */
  state: {
    params: empty,
    result: z.object({
      host: z.enum(['electron', 'http']),
      session: sessionInfoSchema.nullable(),
      files: z.array(offeredFileSchema),
      /**
       * Why the last open failed, while nothing has opened since: a window that connects after the
       * host tried the files it was started with still learns that they could not be read.
       */
      loadError: z.object({ generation: int, files: z.array(z.string()), error: hostErrorSchema }).nullable(),
    }),
  },
  /** Opens a file the host offered (named at start, or a recent file); `session` picks one of the sessions it holds (§10.1; absent or '' for the main one). */
  openFile: { params: z.object({ id: z.string().max(200), session: sessionId.optional() }), result: sessionInfoSchema },
  /**
   * Opens the file a link names (SPEC §14: `#file=PATH&root=ID`), looked up in the host's own
   * listing only (the served folder's entries, the files named at start): a path is a name to find
   * there, never opened as given. One it does not list is `unreadable_file`, naming it and how to serve it.
   */
  openLink: { params: z.object({ file: z.string().max(1024), root: z.string().max(200).optional(), session: sessionId.optional() }), result: sessionInfoSchema },
  /** The host's own open dialog (Electron); `null` when cancelled. The HTTP host answers `not_supported`. */
  openDialog: { params: empty, result: sessionInfoSchema.nullable() },
  close: { params: empty, result: empty },
  /** Rows `[start, end)` of the projected view, at most MAX_ROWS_PER_REQUEST. */
  rows: {
    params: z.object({ start: int, end: int, call: callParam }).refine((p) => p.end >= p.start && p.end - p.start <= MAX_ROWS_PER_REQUEST, { message: `end must be >= start and span at most ${MAX_ROWS_PER_REQUEST} rows` }),
    result: z.object({ rowCount: int, rows: z.array(projectedRowSchema) }),
  },
  /** The row showing view index `index` (-1 when out of range). */
  rowOfIndex: { params: z.object({ index: int, call: callParam }), result: z.object({ row: z.number().int() }) },
  /**
   * A byte range of a row's visible text (for rows cut at ROW_TEXT_MAX_BYTES), or with `tool_call`
   * of the arguments of the row's tool call of that position.
   */
  rowText: { params: z.object({ row: int, range: byteRange, tool_call: int.optional(), call: callParam }), result: z.object({ text: z.string(), range: byteRange, total_bytes: int }) },
  /** expandReduction with a byte range (SPEC §5.1); ranges are clamped to MAX_SLICE_BYTES. */
  expand: { params: z.object({ id: z.string().max(200), range: byteRange.optional(), call: callParam }), result: expandOutcomeSchema },
  /**
   * sidecarSearch (SPEC §5.3). `searchId` names the search so it can be cancelled; a new search
   * cancels the one in flight, which then answers `cancelled`.
   */
  search: {
    params: z.object({
      ...searchQueryFields,
      max_matches: int.max(100_000).optional(),
      snippet_max_bytes: int.min(1).max(65_536).optional(),
      max_result_bytes: int.min(256).max(64 * 1024 * 1024).optional(),
    }),
    result: searchResultSchema,
  },
  cancelSearch: { params: z.object({ searchId: z.string().max(100) }), result: z.object({ cancelled: z.boolean() }) },
  /** The live reduction log, in log order. */
  log: { params: empty, result: z.object({ entries: z.array(logEntrySchema) }) },
  /** Verification status of reductions (at most 1000 ids a request). */
  verify: { params: z.object({ ids: z.array(z.string().max(200)).max(1000), call: callParam }), result: z.object({ statuses: z.array(reductionStatusSchema) }) },
  /** Load findings plus the integrity check (SPEC §5.6), with the summary: what `check` prints. */
  check: { params: empty, result: checkReportSchema },
  /** The context map's figures, per call (`rows`, `rowOfIndex`, `rowText`, `verify` take `call`). */
  calls: { params: empty, result: contextMapSchema },
  /**
   * What call `call` (the latest view when absent) was given outside the view's messages
   * (shared/resolver/instructions.ts), from the `start`-th: at most MAX_INSTRUCTIONS_PER_REQUEST, each text
   * cut to ROW_TEXT_MAX_BYTES with its whole length in `text_bytes`; `total` counts them all.
   */
  instructions: {
    params: z.object({ call: callParam, start: int.optional() }),
    result: z.object({ instructions: z.array(instructionInfoSchema).max(MAX_INSTRUCTIONS_PER_REQUEST), total: int }),
  },
  // Part B.
  ...partBMethods,
  // Folder serving.
  ...folderMethods,
  ...libraryMethods,
  // Repro bundles.
  ...bundleMethods,
  // Session documents.
  ...exportDocumentMethods,
  // 
  ...replayMethods,
  ...searchPagingMethods,
  ...traceMethods,
  // Export of a call's input as a provider request (SPEC §16).
  ...exportCallMethods,
  // The context map in tokens (SPEC §15).
  ...tokenMapMethods,
  // Hidden tokens of chips, log rows and search results (SPEC §15).
  ...hiddenTokensMethods,
  /**
   * Follows the files as they grow (the default) or not (`--no-follow`: a change then
   * answers `file_changed`), for this and every later open; the open session is reopened that way.
   */
  setFollow: { params: z.object({ follow: z.boolean() }), result: z.object({ follow: z.boolean() }) },
} as const;

export type Method = keyof typeof methods;
export const METHOD_NAMES = Object.keys(methods) as Method[];
export type Params<M extends Method> = z.input<(typeof methods)[M]['params']>;
export type ParsedParams<M extends Method> = z.output<(typeof methods)[M]['params']>;
export type ResultOf<M extends Method> = z.output<(typeof methods)[M]['result']>;

export type Reply<M extends Method> = { ok: true; value: ResultOf<M> } | { ok: false; error: HostError };

/** Events pushed from the host to the renderer. */
export const events = {
  /** Bytes indexed so far while a file opens. */
  loadProgress: z.object({ generation: int, bytesRead: int, totalBytes: int }),
  /** How far a running search has got (sent while a search takes longer than a moment). */
  searchProgress: z.object({ searchId: z.string().max(100), spans_searched: int, spans: int, hidden_bytes_searched: int }),
  /** How far a repro bundle's search has got (`reproBundle` with a `bundleId`). */
  bundleProgress: bundleProgressSchema,
  /** What is indexed so far of a large file (`provisional`): its first rows can be shown. */
  sessionPreview: sessionInfoSchema,
  sessionOpened: sessionInfoSchema,
  sessionClosed: z.object({ generation: int }),
  loadFailed: z.object({ generation: int, error: hostErrorSchema }),
  /**
   * A file of the open session changed on disk since it was opened (rewritten, replaced, grown,
   * shrunk): its content is no longer served (requests answer `file_changed`) until it is reopened.
   */
  fileChanged: z.object({ generation: int, path: z.string(), message: z.string() }),
  // --- live sessions (SPEC §13) ---
  /**
   * The open session's files grew (or were reopened from scratch, or deleted) and it was followed:
   * `info` is the session as it is now (same generation; its counts grew), `new_messages` how many
   * messages were added, `calls` its model calls, `notice` why it was reopened or that a file is
   * gone (what is shown stays). The rows, log and calls are to be asked again.
   */
  sessionUpdated: z.object({
    generation: int,
    info: sessionInfoSchema,
    new_messages: int,
    calls: int,
    notice: z.object({ kind: z.enum(['reopened', 'deleted']), message: z.string() }).optional(),
  }),
  // ---
  /**
   * Sessions the open file listed `counting: 'pending'` (an Inspect log's samples) were counted:
   * `sessions` is the list as it is now (as the info's), counts filled in as they arrive.
   */
  sessionCounts: z.object({ generation: int, sessions: z.array(sessionEntrySchema).max(MAX_LISTED_SESSIONS), sessions_omitted: int.optional() }),
  /** The window's session was closed by the host (unused for a while, or to make room for another): it starts again from its link. */
  handleClosed: z.object({ reason: z.string().max(1000) }),
  /** The resolver worker died and was restarted; the session is being reopened. */
  workerRestarted: z.object({ reason: z.string() }),
  ...libraryEvents,
  /** The desktop shell asks the renderer to do something (menu items). */
  command: z.object({ name: z.enum(['toggleTheme', 'focusSearch', 'showShortcuts']) }),
} as const;

export type EventName = keyof typeof events;
export const EVENT_NAMES = Object.keys(events) as EventName[];
export type EventPayload<E extends EventName> = z.output<(typeof events)[E]>;
export type HostEvent = { [E in EventName]: { name: E; payload: EventPayload<E> } }[EventName];

/**
 * What the renderer calls. The renderer's bridge implements it over Electron's preload API or the
 * HTTP host; nothing else in the renderer knows which.
 */
export type HostApi = { [M in Method]: (params: Params<M>) => Promise<Reply<M>> } & {
  /** Subscribes to host events; returns the unsubscribe function. */
  onEvent(listener: (event: HostEvent) => void): () => void;
};

/** Where `method` is answered: `POST` its params as JSON, the reply is the contract's. */
export function apiPath(method: Method): string {
  return `${API_ROOT}/${method}`;
}

/** Validates the params of a request named by an untrusted peer. */
export function parseParams(method: string, params: unknown): { ok: true; method: Method; params: ParsedParams<Method> } | { ok: false; error: HostError } {
  if (!Object.prototype.hasOwnProperty.call(methods, method)) {
    return { ok: false, error: { code: 'invalid_request', message: `unknown method ${JSON.stringify(method).slice(0, 100)}` } };
  }
  const m = method as Method;
  const parsed = methods[m].params.safeParse(params ?? {});
  if (!parsed.success) {
    return { ok: false, error: { code: 'invalid_request', message: `${m}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(params)'}: ${i.message}`).join('; ')}` } };
  }
  return { ok: true, method: m, params: parsed.data };
}

/**
 * The check of a reply to `method` whose value is `result`: the reply as sent when it is that value
 * or a host error, else an `internal_error` saying what is malformed. Its schema is made once, here.
 */
export function replyParser<S extends z.ZodType>(method: string, result: S): (reply: unknown) => { ok: true; value: z.output<S> } | { ok: false; error: HostError } {
  const shape = z.union([z.object({ ok: z.literal(true), value: result }), z.object({ ok: z.literal(false), error: hostErrorSchema })]);
  return (reply) => {
    const parsed = shape.safeParse(reply);
    if (!parsed.success) return { ok: false, error: { code: 'internal_error', message: `malformed reply to ${method}: ${parsed.error.issues[0]?.message ?? 'invalid'}` } };
    return parsed.data as { ok: true; value: z.output<S> } | { ok: false; error: HostError };
  };
}

/**
 * Each method's reply check, made at its first reply and used for every later one: made per reply,
 * the two objects and their union cost most of a small reply's check (docs/worker.md "Replies
 * checked").
 */
const replyParsers = new Map<Method, (reply: unknown) => unknown>();

/** Validates a reply arriving from the host (or the worker). */
export function parseReply<M extends Method>(method: M, reply: unknown): Reply<M> {
  let parse = replyParsers.get(method);
  if (parse === undefined) replyParsers.set(method, (parse = replyParser(method, methods[method].result)));
  return parse(reply) as Reply<M>;
}

/** Validates an event arriving from the host. */
export function parseEvent(value: unknown): HostEvent | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { name, payload } = value as { name?: unknown; payload?: unknown };
  if (typeof name !== 'string' || !Object.prototype.hasOwnProperty.call(events, name)) return undefined;
  const parsed = events[name as EventName].safeParse(payload);
  return parsed.success ? ({ name, payload: parsed.data } as HostEvent) : undefined;
}

/**
 * Between a host and its resolver worker (worker_threads): the contract's session methods, plus
 * opening and closing. Only the host names paths, and only paths it was given at start, by its own
 * dialog, or by a drop the desktop shell resolved itself.
 */
export const workerMethods = {
  /**
   * `session` as `openFile`'s; `format` forces a format (an adapter's name, §10.2 `--format`) instead of detecting it; `follow: false` turns following off (SPEC §13: a change then makes the files `file_changed`).
   * `labels`, one per path: the names the user knows the files by (an upload's name), used instead of the paths in what the worker writes itself (a repro bundle).
   */
  open: {
    params: z.object({
      paths: z.array(z.string()).min(1).max(2),
      generation: int,
      session: sessionId.optional(),
      format: z.string().max(100).optional(),
      follow: z.boolean().optional(),
      labels: z.array(z.string().min(1).max(1000)).min(1).max(2).optional(),
      roots: z.array(z.string().min(1).max(4096)).max(8).optional(),
    }),
    result: sessionInfoSchema,
  },
  close: { params: empty, result: empty },
} as const;

/** Contract methods the worker answers (the rest are the host's own). */
export const WORKER_SESSION_METHODS = ['rows', 'rowOfIndex', 'rowText', 'expand', 'search', 'log', 'verify', 'check', 'callDiff', 'sessionEvents', 'abandoned', 'calls', 'instructions', 'reproBundle', 'replay', 'whatIf', 'searchPage', 'exportDocument', 'trace', 'exportCall', 'tokenMap', 'callTokens', 'hiddenTokens'] as const satisfies readonly Method[];
export type WorkerSessionMethod = (typeof WORKER_SESSION_METHODS)[number];
