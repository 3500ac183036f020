/**
 * Claude Code transcripts (SPEC §10.1, docs/FORMATS.md §1) as the inputs of §3.2, pure but for its hash (node:crypto):
 * the lines of one `.jsonl` file in, the view on the live branch (the minted messages), the
 * reductions Claude Code recorded and the findings out. Never throws on file content.
 *
 * - The live branch: the last non-sidechain user/assistant record, walked back through
 *   `parentUuid`; a compact boundary (a root) continues through `logicalParentUuid` (else the last
 *   message before it). Records of one API response (same `message.id`) are merged, and the
 *   tool_results of its tool_uses follow it in file order — the order the model was given them
 *   (parallel calls' results are written as they complete), wherever the tree forks put them.
 * - Each compaction → a `summarized` run over everything before its boundary, its stub the
 *   summary, live from the boundary until the next compaction (whose summary stands for it: the
 *   live log holds the last; the others are `ended`); microcompaction → `tool_output_elided` per
 *   cleared result, live from its boundary on, also under a later compaction; `<persisted-output>`
 *   → `tool_output_truncated` whose original is the `tool-results/` file or the record's own whole
 *   copy (else hash null). docs/formats/claude-code.md.
 * - Sidechains (inline `isSidechain` records) are further sessions, one per root.
 * - `attachment` records on the live branch that Claude Code sends (attachments.ts) are
 *   instructions, not messages: given after the messages before them, until the next compaction.
 */
import { capParsedDepth, depthCutMessage } from '../../../shared/format/jsonDepth';
import { jsonParse } from '../../../shared/format/jsonParse';
import type { Instruction } from '../../../shared/resolver/instructions';
import type { ByteSource, ChatMessage, ContentPart, Finding, Reduction, ToolCall } from '../../../shared/format/types';
import { COMPACT_SUMMARY_KEY } from '../../../shared/format/types';
import type { LargeStrings, LargeText, Text } from '../content/largeStrings';
import type { TranscriptMemo } from '../content/largeStrings';
import { cutValueMessage, isLargeText, joinTexts, lazyHashPtr, measureSource, measureText, measureTranscriptPrefixes, textString, transcriptPrefixLengths, withContent } from '../content/largeStrings';
import { attachmentOf, attachmentText, givenAttachment } from './attachments';
import type { CallTokens } from '../../../shared/tokens/usage';
import { anthropicTokens, compactionTokens, tokenCount } from '../../../shared/tokens/usage';
import { tableWindow } from '../../../shared/tokens/windows';
import type { OfferedContent } from '../common/source';

/** Claude Code's placeholder for a microcompacted tool result (second-hand: docs/FORMATS.md §1.7). */
export const CLEARED_STUB = '[Old tool result content cleared]';

/** The model Claude Code names on an assistant message it wrote itself, not a model's response. */
const SYNTHETIC_MODEL = '<synthetic>';

/** Record types Claude Code writes (docs/FORMATS.md §1.2); any other is `unknown_record`. */
export const KNOWN_TYPES = new Set([
  'user',
  'assistant',
  'system',
  'progress',
  'attachment',
  'summary',
  'file-history-snapshot',
  'queue-operation',
  'permission-mode',
  'mode',
  'last-prompt',
  'ai-title',
  'custom-title',
  'agent-name',
  'pr-link',
  'bridge-session',
]);

export interface ClaudeLine {
  /** 1-based. */
  line: number;
  text: string;
  /** A last line without its newline. */
  torn?: boolean;
}

export interface ClaudeSessionInfo {
  id: string;
  title?: string;
  messages: number;
}

export interface ImportedSession {
  session_id: string;
  model: string;
  messages: ChatMessage[];
  reductions: Reduction[];
  findings: Finding[];
  /** The main session first, then each sidechain. */
  sessions: ClaudeSessionInfo[];
  /** SPEC §11: the line of the record each message came from, parallel to `messages`. */
  messageLines?: (number | undefined)[];
  /** SPEC §11: earlier compactions, each live until the line of the next one (IndexedSnapshot.ended). */
  ended?: { reduction: Reduction; to: number }[];
  /** The attachments on the live branch that the model is given (attachments.ts), each until the next compaction. */
  instructions?: Instruction[];
  /** SPEC §15: each call's `message.usage` (its last line's), by the line of the message it produced (`messageLines`). */
  usage?: Map<number, CallTokens>;
}

export interface ImportOptions {
  /** The session to build ('' or undefined: the main conversation). */
  session?: string;
  /** Reads a `tool-results/` file by its base name; undefined when it is not there, `refused` when it was not read (safeRead.ts). */
  toolResult?: (name: string) => Text | { refused: string } | undefined;
  /** Kept by the source across builds of its growing file: the compactions' transcripts are hashed on from where the last build left them (`TranscriptMemo`). */
  transcripts?: TranscriptMemo;
}

type Rec = Record<string, unknown> & { __line: number };
/** A tool_result block, the record that holds it and its place among that record's blocks. */
type ToolResultAt = { rec: Rec; block: Record<string, unknown>; at: number };

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** A string, or a large string value kept in the file (largeStrings.ts, docs/large-lines.md). */
const txt = (v: unknown): Text | undefined => (typeof v === 'string' || isLargeText(v) ? v : undefined);

/** `measure` of a message's content bytes. */
const measureMessage = (m: ChatMessage): { hash: string; bytes: number } => (m.large ? measureSource(m.large) : measureText(m.content));

const startsWithText = (t: Text, prefix: string): boolean => (typeof t === 'string' ? t.startsWith(prefix) : t.startsWith(prefix));

/** Message-bearing records (user/assistant with a `message`). */
function isMessage(r: Rec): boolean {
  return (r.type === 'user' || r.type === 'assistant') && isObj(r.message);
}

function blocksOf(r: Rec): unknown[] {
  const m = r.message;
  if (!isObj(m)) return [];
  const c = m.content;
  if (txt(c) !== undefined) return [{ type: 'text', text: c }];
  return Array.isArray(c) ? c : [];
}

function messageId(r: Rec): string | undefined {
  return isObj(r.message) ? str(r.message.id) : undefined;
}

/**
 * A tool result's blocks as one text, by the record's block list, with the texts it was joined
 * from: a followed file is built again at each append, and the same joined text (the same source)
 * lets the build after it see the message unchanged (`TranscriptMemo`) instead of hashing every
 * compaction's transcript again. A join is used again only while its blocks hold the same texts: a
 * join made before a streaming reader left the blocks' texts in the file would hold them in memory
 * (docs/streaming-import.md).
 */
const joinedResults = new WeakMap<unknown[], { texts: Text[]; joined: { text: Text; parts?: ContentPart[] } }>();

/** The content of a tool_result block as text and parts (a string, or a list of blocks, joined once per list). */
function toolResultContent(block: Record<string, unknown>): { text: Text; parts?: ContentPart[] } {
  const c = txt(block.content);
  if (c !== undefined) return { text: c };
  if (!Array.isArray(block.content)) return { text: '' };
  const texts = blockTexts(block.content);
  const known = joinedResults.get(block.content);
  if (known && known.texts.length === texts.length && known.texts.every((t, k) => t === texts[k])) return known.joined;
  const joined = joinBlocks(block.content, texts);
  joinedResults.set(block.content, { texts, joined });
  return joined;
}

/** The texts of a block list's text blocks, in order. */
function blockTexts(blocks: unknown[]): Text[] {
  const texts: Text[] = [];
  for (const b of blocks) {
    const t = isObj(b) && b.type === 'text' ? txt(b.text) : undefined;
    if (t !== undefined) texts.push(t);
  }
  return texts;
}

function joinBlocks(blocks: unknown[], texts: Text[]): { text: Text; parts?: ContentPart[] } {
  // Text blocks only: the joined text is the content, and no part is made. A part reads a large
  // text whole (plainPart), and making them only to find every one a text read every large tool
  // output of the file once more at the build (docs/streaming-import.md "Building the view").
  if (blocks.every((b) => !isObj(b) || b.type === 'text')) return { text: joinTexts(texts, '\n') };
  const parts: ContentPart[] = [];
  for (const b of blocks) if (isObj(b)) parts.push(plainPart(b));
  return { text: joinTexts(texts, '\n'), parts };
}

/**
 * Whether a tool_result block's content, as `toolResultContent` joins it, starts with `prefix`:
 * joining only the in-memory texts the prefix reaches into (asked of every line as it is parsed,
 * before its long texts are left in the file).
 */
function toolResultStartsWith(block: Record<string, unknown>, prefix: string): boolean {
  const c = txt(block.content);
  if (c !== undefined) return startsWithText(c, prefix);
  if (!Array.isArray(block.content)) return prefix.length === 0;
  const texts: Text[] = [];
  let chars = 0;
  for (const t of blockTexts(block.content)) {
    texts.push(t);
    // The join through a string of these reaches `chars - 1` characters at least.
    if (typeof t === 'string' && (chars += t.length + 1) > prefix.length) break;
  }
  return startsWithText(joinTexts(texts, '\n'), prefix);
}

/** A block as a content part: a large text in it read whole (parts are plain data). */
function plainPart(b: Record<string, unknown>): ContentPart {
  return { ...b, ...(isLargeText(b.text) ? { text: b.text.text() } : {}), type: str(b.type) ?? 'unknown' };
}

/** What is wrong with a record of a known type whose fields have the wrong types, or undefined. */
function recordDamage(v: Record<string, unknown>): string | undefined {
  if (v.uuid !== undefined && typeof v.uuid !== 'string') return '"uuid" is not a string';
  if (v.parentUuid !== undefined && v.parentUuid !== null && typeof v.parentUuid !== 'string') return '"parentUuid" is neither a string nor null';
  if (v.type !== 'user' && v.type !== 'assistant') return undefined;
  if (!isObj(v.message)) return `a ${v.type} record without a "message" object`;
  const c = v.message.content;
  if (txt(c) === undefined && !Array.isArray(c)) return `the ${v.type} message's content is ${c === null ? 'null' : `a ${typeof c}`}, neither a string nor a list of blocks`;
  if (!Array.isArray(c)) return undefined;
  for (const b of c) {
    if (!isObj(b)) return `the ${v.type} message's content holds a block that is not an object`;
    if (b.type === 'tool_use' && typeof b.id !== 'string') return 'a tool_use block without a string "id"';
    if (b.type === 'tool_result' && typeof b.tool_use_id !== 'string') return 'a tool_result block without a string "tool_use_id"';
  }
  return undefined;
}

/**
 * Records whose `parentUuid` links loop (Claude Code never writes one): one finding per record of a
 * loop whose parent is not earlier in the file — the link that closes it. Walks are cut at a loop.
 * From `from`, only the walks from records[from..] are made, a walk ending at an earlier record:
 * right when no earlier record's parent is one of the later ones (RecordIndex.relinks), since a
 * loop through an earlier record then holds earlier records only, and those were walked before.
 *
 * Most files have no link to a parent at or after its record's line, and then no loop: around a
 * loop of links that each lead to an earlier line, the line would fall at every step and come back
 * to where it started. So the walks (a map entry per record, twice) are made only when one of
 * records[from..] has such a link; a loop found from `from` holds later records only, so one of
 * them has it (docs/streaming-import.md "Building the view").
 */
export function parentCycles(records: readonly Rec[], byUuid: ReadonlyMap<string, Rec>, from = 0): Finding[] {
  for (let k = from; k < records.length; k++) {
    const r = records[k]!;
    const parent = parentIn(byUuid, r);
    if (parent !== undefined && parent.__line >= r.__line) return parentCycleWalks(records, byUuid, from);
  }
  return [];
}

/** The record `r`'s `parentUuid` names, as `byUuid` holds it; undefined when it names none there. */
function parentIn(byUuid: ReadonlyMap<string, Rec>, r: Rec): Rec | undefined {
  const p = str(r.parentUuid);
  return p !== undefined ? byUuid.get(p) : undefined;
}

/** parentCycles by walking up the links from each record (`from` on): what it answers whatever the links. */
export function parentCycleWalks(records: readonly Rec[], byUuid: ReadonlyMap<string, Rec>, from = 0): Finding[] {
  const out: Finding[] = [];
  const state = new Map<Rec, 'walking' | 'done'>();
  const later = from > 0 ? new Set(records.slice(from)) : undefined;
  const parentOf = (r: Rec): Rec | undefined => parentIn(byUuid, r);
  for (let k = from; k < records.length; k++) {
    const path: Rec[] = [];
    let cur: Rec | undefined = records[k];
    while (cur && !state.has(cur) && (later === undefined || later.has(cur))) {
      state.set(cur, 'walking');
      path.push(cur);
      cur = parentOf(cur);
    }
    if (cur && state.get(cur) === 'walking') {
      for (const r of path.slice(path.indexOf(cur))) {
        const parent = parentOf(r)!;
        if (parent.__line >= r.__line) out.push({ code: 'malformed_line', severity: 'error', line: r.__line, message: `line ${r.__line}: its parentUuid (line ${parent.__line}) leads back to it: the parent links loop` });
      }
    }
    for (const r of path) state.set(r, 'done');
  }
  return out;
}

/**
 * Findings for the lines of `bytes` that are not valid UTF-8 (they read as U+FFFD), merged into
 * `findings` by line. Only called for a file that is not UTF-8 as a whole.
 */
export function withNonUtf8Lines(bytes: Uint8Array, name: string, findings: readonly Finding[]): Finding[] {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const out: Finding[] = [];
  let start = 0;
  for (let line = 1; start < bytes.length; line++) {
    let end = bytes.indexOf(0x0a, start);
    if (end < 0) end = bytes.length;
    try {
      decoder.decode(bytes.subarray(start, end));
    } catch {
      out.push({ code: 'malformed_line', severity: 'error', line, message: `${name} line ${line} holds bytes that are not valid UTF-8; they read as U+FFFD` });
    }
    start = end + 1;
  }
  return [...out, ...findings].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
}

/** A transcript's lines parsed: its records in file order and the findings of its bad lines. */
export interface ParsedClaudeLines {
  records: Rec[];
  findings: Finding[];
}

/**
 * Parses one line into `into` (its record, or a finding). Lines can be parsed as they are read
 * (the source does, pass by pass) and built at any point: `buildClaudeSession` never changes them.
 */
export function parseClaudeLine(l: ClaudeLine, into: ParsedClaudeLines): void;
/**
 * With `large`: `l.text` is the line with its large string values cut out (largeStrings.ts); false,
 * having kept nothing, when that text does not parse (the caller reads the whole line then).
 */
export function parseClaudeLine(l: ClaudeLine, into: ParsedClaudeLines, large: LargeStrings): boolean;
export function parseClaudeLine(l: ClaudeLine, into: ParsedClaudeLines, large?: LargeStrings): boolean {
  const { findings, records } = into;
  if (l.text.trim() === '') return true;
  let value: unknown;
  try {
    value = jsonParse(l.text);
  } catch (e) {
    if (large) return false;
    findings.push(
      l.torn
        ? { code: 'truncated_last_line', severity: 'warning', line: l.line, message: `line ${l.line} is the last line and has no newline: it is cut off (${(e as Error).message}); it is left out` }
        : { code: 'malformed_line', severity: 'error', line: l.line, message: `line ${l.line} is not JSON: ${(e as Error).message}` },
    );
    return true;
  }
  // Only where a message's text may be do tokens stay (for now): the rest is read whole. But a
  // compaction's summary is read whole now (every build of a followed session reads it: kept in the
  // file, its file was read again at each append), and `toolUseResult` is pruned first (below).
  if (large) large.materialize(value, isObj(value) && value.isCompactSummary === true ? undefined : new Set(contentTokens(value)), 'toolUseResult');
  if (!isObj(value) || typeof value.type !== 'string') {
    findings.push({ code: 'malformed_line', severity: 'error', line: l.line, message: `line ${l.line} is not a Claude Code record (an object with a string "type")` });
    return true;
  }
  if (!KNOWN_TYPES.has(value.type)) {
    findings.push({ code: 'unknown_record', severity: 'warning', line: l.line, message: `line ${l.line} has record type "${value.type}", which this reader does not know; it is skipped` });
    return true;
  }
  // Too deep to stringify or clone: cut, said, and kept (its uuid may carry the chain).
  const cut = capParsedDepth(value, l.text);
  if (cut) findings.push({ code: 'malformed_line', severity: 'error', line: l.line, message: depthCutMessage(`line ${l.line}`, cut) });
  // A damaged record is said and still kept: its uuid may carry the chain.
  const damage = recordDamage(value);
  if (damage !== undefined) findings.push({ code: 'malformed_line', severity: 'error', line: l.line, message: `line ${l.line}: ${damage}` });
  if (large) keepLargeContent(value, large);
  // `toolUseResult` is Claude Code's UI-side copy of a result (docs/formats/claude-code.md), often as
  // large as the result itself: only what a `<persisted-output>` result's original may be read from
  // is kept, and only on a record holding such a result.
  const tur = value.toolUseResult;
  if (tur !== undefined) value.toolUseResult = isObj(tur) && holdsPersistedOutput(value) ? persistedParts(tur) : null;
  if (large) {
    const kept = value.toolUseResult;
    if (isObj(kept)) for (const k of ['stdout', 'stderr', 'content']) keepLarge(kept, k, large);
    // Anywhere else a value must be a string: read whole, or cut and said when too long (docs/large-lines.md).
    large.materialize(value);
    for (const c of large.cut) findings.push({ code: 'value_too_large', severity: 'warning', line: l.line, message: cutValueMessage(l.line, c) });
  }
  // Only what is read is kept (a new object of those fields: smaller than the parsed one with the rest deleted).
  const rec = whatIsRead(value, l.line);
  shareRepeated(rec, records[records.length - 1]);
  records.push(rec);
  return true;
}

/**
 * Values a record repeats from the record before it held as that record's strings: the session
 * id every record carries, the model of an assistant's response, and a parent's uuid (the parent
 * is most often the record before). Equal strings parsed apart are copies: some 20 MB of them over
 * the bench's 537 MB session (a heap snapshot at `check`'s output; docs/streaming-import.md).
 */
function shareRepeated(rec: Rec, before: Rec | undefined): void {
  if (!before) return;
  if (rec.sessionId === before.sessionId) rec.sessionId = before.sessionId;
  if (rec.parentUuid === before.uuid) rec.parentUuid = before.uuid;
  // An assistant's response is written a record per block, each naming the model.
  if (isObj(rec.message) && isObj(before.message) && typeof rec.message.model === 'string' && rec.message.model === before.message.model) rec.message.model = before.message.model;
}

/** The fields of a record the session is built from (buildClaudeSession, attachments.ts, subagents.ts); the rest are dropped once the line is checked. */
const READ_FIELDS = ['type', 'subtype', 'uuid', 'parentUuid', 'logicalParentUuid', 'isSidechain', 'agentId', 'sessionId', 'summary', 'aiTitle', 'customTitle', 'title', 'attachment', 'microcompactMetadata', 'compactMetadata', 'isCompactSummary', 'message', 'toolUseResult'] as const;
/** The fields of a record's `message` the session is built from. */
const READ_MESSAGE_FIELDS = ['id', 'model', 'content', 'usage'] as const;

const READ_FIELD_SET: ReadonlySet<string> = new Set(READ_FIELDS);
const READ_MESSAGE_FIELD_SET: ReadonlySet<string> = new Set(READ_MESSAGE_FIELDS);

/**
 * Only `fields` of `o` (those it has), in `o`'s order: walking a parsed record's own keys and asking
 * the set costs some 40 % less than asking the record for each field (docs/streaming-import.md).
 */
function only(o: Record<string, unknown>, fields: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in o) if (fields.has(k)) out[k] = o[k];
  return out;
}

/**
 * A checked record as kept: only what a view reads (not its envelope — cwd, version, timestamps — nor
 * a hook's progress data…), so a long session holds per record only what a call needs.
 */
function whatIsRead(value: Record<string, unknown>, line: number): Rec {
  const rec = only(value, READ_FIELD_SET) as Rec;
  if (isObj(rec.message)) rec.message = only(rec.message, READ_MESSAGE_FIELD_SET);
  rec.__line = line;
  return rec;
}

/** The strings where a message's text may be, whatever the record's types (a token there may stay in the file). */
function contentTokens(value: unknown): string[] {
  const out: string[] = [];
  const at = (o: unknown, k: string): unknown => {
    const v = isObj(o) ? o[k] : undefined;
    if (typeof v === 'string') out.push(v);
    return v;
  };
  if (!isObj(value)) return out;
  const tur = value.toolUseResult;
  for (const k of ['stdout', 'stderr', 'content']) at(tur, k);
  const content = at(value.message, 'content');
  if (!Array.isArray(content)) return out;
  for (const b of content as unknown[]) {
    at(b, 'text');
    const inner = at(b, 'content');
    if (Array.isArray(inner)) for (const x of inner as unknown[]) at(x, 'text');
  }
  return out;
}

/** `o[k]` as the LargeText its token stands for, when it is one. */
function keepLarge(o: Record<string, unknown>, k: string, large: LargeStrings): void {
  large.keep(o, k);
}

/**
 * Where a large string stays in the file: a message's text (its content string, its text blocks, a
 * tool result's content string or text blocks). docs/large-lines.md.
 */
function keepLargeContent(value: Record<string, unknown>, large: LargeStrings): void {
  contentSlots(value, (o, k) => keepLarge(o, k, large));
}

/**
 * Calls `at(o, k)` for each place of a record where a message's text may be: the places a Text may
 * stand (keepLargeContent). A tool result `skip` answers true for is passed over whole.
 */
function contentSlots(value: Record<string, unknown>, at: (o: Record<string, unknown>, k: string, alone: boolean) => void, skip?: (result: Record<string, unknown>) => boolean): void {
  const m = value.message;
  if ((value.type !== 'user' && value.type !== 'assistant') || !isObj(m)) return;
  at(m, 'content', true);
  if (!Array.isArray(m.content)) return;
  const blocks = m.content as unknown[];
  const alone = textBlocks(blocks) === 1;
  for (const b of blocks) {
    if (!isObj(b)) continue;
    if (b.type === 'text') at(b, 'text', alone);
    if (b.type !== 'tool_result' || skip?.(b) === true) continue;
    at(b, 'content', true);
    if (!Array.isArray(b.content)) continue;
    const inResult = textBlocks(b.content as unknown[]) === 1;
    for (const x of b.content as unknown[]) if (isObj(x) && x.type === 'text') at(x, 'text', inResult);
  }
}

/** How many text blocks `blocks` holds: a message's texts, or a tool result's, are joined into one content (joinTexts). */
function textBlocks(blocks: readonly unknown[]): number {
  let n = 0;
  for (const b of blocks) if (isObj(b) && b.type === 'text') n++;
  return n;
}

/**
 * Whether a record is off the main conversation, as the build reads it: a sidechain's, but for a
 * subagent's own file (every message record a sidechain), which is its main conversation.
 */
function asideOfMain(records: readonly Rec[]): (r: Rec) => boolean {
  const subagentFile = records.length > 0 && !records.some((r) => isMessage(r) && r.isSidechain !== true);
  return subagentFile ? () => false : (r) => r.isSidechain === true;
}

/**
 * The sources of the message texts kept in the file (LargeText) that call `call`'s input most
 * likely shows, newest first, until `maxBytes` of them: those of the main conversation's records
 * after the last compaction boundary before the call's first assistant record (file order; to the
 * file's end for `null`, the latest view), but for the tool results a microcompaction cleared
 * before then (the input shows their stubs). A guess made before the session is built, so that a
 * command counts them while it is (docs/token-estimates.md "Counted while the session is built"):
 * calls are numbered as the build numbers a conversation without branches (each main-chain
 * assistant message id a call, `<synthetic>` ones not), and a source the input does not show is
 * simply never asked for. None for a call the file does not reach.
 */
export function contentsBeforeCall(records: readonly Rec[], call: number | null, maxBytes: number): OfferedContent[] {
  const aside = asideOfMain(records);
  let start = 0;
  let end = records.length;
  const calls = new Set<string>();
  // Tool results a microcompaction cleared before the call: the input shows their stubs.
  const cleared = new Set<string>();
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    if (aside(r)) continue;
    if (r.type === 'system' && r.subtype === 'compact_boundary') start = i + 1;
    if (r.type === 'system' && r.subtype === 'microcompact_boundary') clearedBy(r, cleared);
    const key = callKeyOf(r);
    if (key === undefined || calls.has(key)) continue;
    calls.add(key);
    if (calls.size === call) {
      end = i;
      break;
    }
  }
  // A call past the file's (the command answers that it is out of range): nothing to count.
  if (call !== null && calls.size < call) return [];
  const contents: OfferedContent[] = [];
  // Equal texts are one content (an estimate is a text's): offered once, at the newest.
  const texts = new Set<string>();
  let bytes = 0;
  for (let i = end - 1; i >= start && bytes < maxBytes; i--) {
    const r = records[i]!;
    if (aside(r)) continue;
    contentSlots(
      r,
      (o, k, alone) => {
        // Only the whole of a message's or a result's text: the build joins several into a text no
        // record holds, and a piece of it is never asked for.
        if (!alone) return;
        // A tool result of several text blocks: the text the build joins them into, the same object
        // (toolResultContent keeps it by the record's block list) or an equal string.
        const v = o.type === 'tool_result' && k === 'content' && Array.isArray(o.content) && textBlocks(o.content as unknown[]) > 1 ? toolResultContent(o).text : o[k];
        if (isLargeText(v)) {
          contents.push(v.source);
          bytes += v.source.length;
        } else if (typeof v === 'string' && v !== '' && !texts.has(v)) {
          // Held in memory: counted as an equal text is. A UTF-16 unit for about a byte of the bound.
          texts.add(v);
          contents.push(v);
          bytes += v.length;
        }
      },
      (result) => typeof result.tool_use_id === 'string' && cleared.has(result.tool_use_id),
    );
    // What an assistant message calls and thinks, counted beside its content (each tool call's name
    // and arguments as the build writes them, a thinking block's text when it is its record's only one).
    if (r.type !== 'assistant' || !isObj(r.message) || !Array.isArray(r.message.content)) continue;
    const blocks = r.message.content as unknown[];
    const thinkingAlone = blocks.filter((b) => isObj(b) && b.type === 'thinking').length === 1;
    for (const b of blocks) {
      if (!isObj(b)) continue;
      const besides = b.type === 'tool_use' && typeof b.id === 'string' ? [str(b.name) ?? '', JSON.stringify(b.input ?? {})] : b.type === 'thinking' && thinkingAlone ? [str(b.thinking) ?? ''] : [];
      for (const text of besides) {
        if (text === '' || texts.has(text)) continue;
        texts.add(text);
        contents.push(text);
        bytes += text.length;
      }
    }
  }
  return contents;
}

/**
 * What numbers a record's call in `contentsBeforeCall`, as the build numbers a conversation
 * without branches: an assistant record's message id (its response's records share it), none for a
 * `<synthetic>` one or another record.
 */
export function callKeyOf(r: Rec): string | undefined {
  if (r.type !== 'assistant' || !isObj(r.message) || r.message.model === SYNTHETIC_MODEL) return undefined;
  return messageKey(r);
}

/** Adds the tool call ids a `microcompact_boundary` record cleared (`compactedToolIds`) to `into`. */
function clearedBy(r: Rec, into: Set<string>): void {
  const ids = isObj(r.microcompactMetadata) ? r.microcompactMetadata.compactedToolIds : undefined;
  if (Array.isArray(ids)) for (const id of ids) if (typeof id === 'string') into.add(id);
}

/**
 * The sources of the tool results kept in the file that the main conversation's microcompactions
 * cleared (each `microcompact_boundary`'s `compactedToolIds`), newest first, until `maxBytes` of
 * them: the originals `log` counts for those reductions, guessed before the session is built
 * (docs/token-estimates.md "Counted while the session is built").
 */
export function largeContentsCleared(records: readonly Rec[], maxBytes: number): ByteSource[] {
  const aside = asideOfMain(records);
  const cleared = new Set<string>();
  for (const r of records) if (!aside(r) && r.type === 'system' && r.subtype === 'microcompact_boundary') clearedBy(r, cleared);
  const sources: ByteSource[] = [];
  let bytes = 0;
  for (let i = records.length - 1; i >= 0 && bytes < maxBytes && cleared.size > 0; i--) {
    const r = records[i]!;
    if (aside(r) || r.type !== 'user' || !isObj(r.message) || !Array.isArray(r.message.content)) continue;
    for (const b of r.message.content as unknown[]) {
      if (!isObj(b) || b.type !== 'tool_result' || typeof b.tool_use_id !== 'string' || !cleared.has(b.tool_use_id) || !isLargeText(b.content)) continue;
      sources.push(b.content.source);
      bytes += b.content.source.length;
    }
  }
  return sources;
}

/**
 * `largeContentsCleared` while the pass goes on, for `log` (docs/token-estimates.md "Counted while
 * the session is built"): given each record as it is parsed, the sources of the large tool results
 * each `microcompact_boundary` clears, as soon as the pass meets it (the results come before the
 * boundary that clears them), until `maxBytes` of them in all. A guess like the other, and a
 * sidechain's boundary counts too: whether a file's sidechains are its main conversation (a
 * subagent's own file) is known only at its end.
 */
export class ClearedAsParsed {
  /** The large tool results met and not yet cleared, by tool_use id. */
  private readonly results = new Map<string, ByteSource>();
  private offered = 0;

  constructor(private readonly maxBytes: number) {}

  /** Whether `maxBytes` have been given: nothing more will be. */
  get full(): boolean {
    return this.offered >= this.maxBytes;
  }

  /** The sources record `r` clears (a boundary's), each given once; none for any other record. */
  take(r: Rec): ByteSource[] {
    if (r.type === 'user' && isObj(r.message) && Array.isArray(r.message.content)) {
      for (const b of r.message.content as unknown[]) {
        if (isObj(b) && b.type === 'tool_result' && typeof b.tool_use_id === 'string' && isLargeText(b.content)) this.results.set(b.tool_use_id, b.content.source);
      }
      return [];
    }
    if (r.type !== 'system' || r.subtype !== 'microcompact_boundary') return [];
    const ids = new Set<string>();
    clearedBy(r, ids);
    const sources: ByteSource[] = [];
    for (const id of ids) {
      const source = this.results.get(id);
      if (source === undefined || this.full) continue;
      this.results.delete(id);
      sources.push(source);
      this.offered += source.length;
    }
    return sources;
  }
}

/**
 * Each string of a parsed record's message where a message's text may be that `keep` answers a text
 * for is replaced by that text: a value a streaming reader leaves in the file (keptString.ts,
 * docs/streaming-import.md). So are the strings of a `toolUseResult` a persisted output's original
 * may be read from (`persistedParts`).
 */
export function keepContentOut(record: Record<string, unknown>, keep: (value: string) => LargeText | undefined): void {
  const swap = (o: Record<string, unknown>, k: string): void => {
    const v = o[k];
    const t = typeof v === 'string' ? keep(v) : undefined;
    if (t) o[k] = t;
  };
  contentSlots(record, swap);
  const tur = record.toolUseResult;
  if (isObj(tur)) for (const k of ['stdout', 'stderr', 'content'] as const) swap(tur, k);
}

/** True when a user record's content holds a tool result that starts `<persisted-output>`. */
function holdsPersistedOutput(value: Record<string, unknown>): boolean {
  const content = isObj(value.message) ? value.message.content : undefined;
  if (!Array.isArray(content)) return false;
  return content.some((b) => isObj(b) && b.type === 'tool_result' && toolResultStartsWith(b, PERSISTED_OPEN));
}

/** The fields of a `toolUseResult` a persisted output's original may be read from (Bash's `stdout` and `stderr`, Grep's `content`). */
function persistedParts(tur: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ['persistedOutputSize', 'stdout', 'stderr', 'content'] as const) if (txt(tur[k]) !== undefined || typeof tur[k] === 'number') out[k] = tur[k];
  return out;
}

const PERSISTED_OPEN = '<persisted-output>';

/**
 * The original of a `<persisted-output>` result as its record holds it, or why the record's copy is
 * not the original (docs/formats/claude-code.md, "Persisted output"): Bash's `stdout` when there is no
 * `stderr`, else Grep's `content`; taken only when its length is the one the stub states
 * (`persistedOutputSize`, else "Output too large (N KB)" in UTF-16 units, to its 0.1 KB) and it begins
 * with the preview the model saw. Undefined when the record holds no copy at all.
 */
export function persistedOriginal(tur: unknown, stub: string): { text: Text } | { why: string } | undefined {
  if (!isObj(tur)) return undefined;
  const stdout = txt(tur.stdout);
  const stderr = txt(tur.stderr);
  const field = stdout !== undefined ? 'stdout' : txt(tur.content) !== undefined ? 'content' : undefined;
  if (field === undefined) return undefined;
  const text = (field === 'stdout' ? stdout : txt(tur.content)) as Text;
  const count = (n: number): string => n.toLocaleString('en-US');
  // A large value's length in UTF-16 units is counted from its bytes, once.
  let known: number | undefined;
  const length = (): number => (known ??= typeof text === 'string' ? text.length : text.utf16Length());
  if (field === 'stdout' && stderr !== undefined && stderr !== '') {
    return { why: `its record keeps the command's stdout (${count(length())} characters) and stderr (${count(typeof stderr === 'string' ? stderr.length : stderr.utf16Length())}) apart, and how Claude Code joined them is not recorded` };
  }
  const size = typeof tur.persistedOutputSize === 'number' ? tur.persistedOutputSize : undefined;
  const stated = /Output too large \(([\d.]+)(KB|MB)\)/.exec(stub);
  if (size !== undefined && length() !== size) {
    return { why: `its record's ${field} holds ${count(length())} characters of the ${count(size)} the output had (Claude Code caps it): not the original` };
  }
  if (size === undefined && stated) {
    const unit = stated[2] === 'MB' ? 1024 * 1024 : 1024;
    if (Math.abs(length() / unit - Number(stated[1])) > 0.05 + 1e-9) return { why: `its record's ${field} (${count(length())} characters) is not the size the stub states (${stated[1]}${stated[2]}): not the original` };
  }
  const preview = /\nPreview \(first [^)]*\):\n([\s\S]*?)(?:\n\.\.\.)?\n<\/persisted-output>\s*$/.exec(stub)?.[1];
  if (preview !== undefined && !startsWithText(text, preview)) return { why: `its record's ${field} does not begin with the preview the model saw: not the original` };
  return { text };
}

export function parseClaudeLines(lines: readonly ClaudeLine[]): ParsedClaudeLines {
  const parsed: ParsedClaudeLines = { records: [], findings: [] };
  for (const l of lines) parseClaudeLine(l, parsed);
  return parsed;
}

export function importClaudeCode(lines: readonly ClaudeLine[], options: ImportOptions = {}): ImportedSession {
  return buildClaudeSession(parseClaudeLines(lines), options);
}

/** The first value `f` gives that is not undefined, over `records` in order (from the last with `fromEnd`), without a copy of them. */
function firstValue<T>(records: readonly Rec[], f: (r: Rec) => T | undefined, fromEnd = false): T | undefined {
  for (let k = 0; k < records.length; k++) {
    const v = f(records[fromEnd ? records.length - 1 - k : k]!);
    if (v !== undefined) return v;
  }
  return undefined;
}

/**
 * What a build looks records up by: a record by its uuid (the last record of a uuid), an assistant
 * response's records by `m:` or `s:` (main or sidechain) and its message id, in file order, and a
 * tool result by its call's id (the first result of an id).
 */
interface RecordIndex {
  byUuid: Map<string, Rec>;
  byMessageId: Map<string, Rec[]>;
  resultByToolId: Map<string, ToolResultAt>;
  /** The records indexed: the array's first `count`, the last of them `last`. */
  count: number;
  last: Rec | undefined;
  /** Parents named by indexed records and not (yet) found among them. */
  wanted: Set<string>;
  /**
   * Records that took an earlier record's uuid, or are the parent an earlier record named and did
   * not find: what is kept over the records before one (`loops`, `resume`) holds only while none came.
   */
  relinks: number;
  /** parentCycles over the first `count` records, when made, and `relinks` then. */
  loops?: { count: number; findings: Finding[]; relinks: number };
  /** Remembered for the array's next build (recordIndex): only then is the main view's pass kept. */
  kept: boolean;
  /** The main view's pass kept for the next build (buildView). */
  resume?: ViewResume;
}

/**
 * The index of each parsed records array built more than once, extended by the records appended
 * since: a followed file is built again at each append, and indexing every record again was a third
 * of a look at a large session (docs/streaming-import.md "Building the view"). An array built once
 * has none kept (null: built once), so a command that reads a session once holds no index past its
 * build. Records are only ever appended to a parsed array (parseClaudeLine); an array that is not
 * its index's prefix any more is indexed again whole.
 */
const recordIndexes = new WeakMap<readonly Rec[], RecordIndex | null>();

function emptyIndex(): RecordIndex {
  return { byUuid: new Map(), byMessageId: new Map(), resultByToolId: new Map(), count: 0, last: undefined, wanted: new Set(), relinks: 0, kept: false };
}

function indexFrom(records: readonly Rec[], index: RecordIndex): RecordIndex {
  const { byUuid, byMessageId, resultByToolId } = index;
  for (let k = index.count; k < records.length; k++) {
    const r = records[k]!;
    const u = str(r.uuid);
    if (u !== undefined) {
      if (byUuid.has(u) || index.wanted.delete(u)) index.relinks++;
      byUuid.set(u, r);
    }
    const p = str(r.parentUuid);
    if (p !== undefined && !byUuid.has(p)) index.wanted.add(p);
    if (!isMessage(r)) continue;
    const key = r.type === 'assistant' ? messageKey(r) : undefined;
    if (key !== undefined) {
      const list = byMessageId.get(key);
      if (list) list.push(r);
      else byMessageId.set(key, [r]);
    }
    if (r.type === 'user') {
      blocksOf(r).forEach((b, at) => {
        if (isObj(b) && b.type === 'tool_result' && typeof b.tool_use_id === 'string' && !resultByToolId.has(b.tool_use_id)) resultByToolId.set(b.tool_use_id, { rec: r, block: b, at });
      });
    }
  }
  index.count = records.length;
  index.last = records[records.length - 1];
  return index;
}

/** The index of `records`; `kept`: remembered for the array's next build from its second on (not for copies made for one build). */
function recordIndex(records: readonly Rec[], kept: boolean): RecordIndex {
  if (!kept) return indexFrom(records, emptyIndex());
  const known = recordIndexes.get(records);
  if (known === undefined) {
    recordIndexes.set(records, null);
    return indexFrom(records, emptyIndex());
  }
  if (known === null || known.count > records.length || (known.count > 0 && records[known.count - 1] !== known.last)) {
    const fresh: RecordIndex = { ...emptyIndex(), kept: true };
    recordIndexes.set(records, fresh);
    return indexFrom(records, fresh);
  }
  return indexFrom(records, known);
}

/** parentCycles of `records` through their index: only over the records indexed since, when no earlier record was relinked. */
function loopsOf(records: readonly Rec[], index: RecordIndex): Finding[] {
  let loops = index.loops;
  if (loops && loops.relinks === index.relinks) loops.findings.push(...parentCycles(records, index.byUuid, loops.count));
  else loops = index.loops = { count: 0, findings: parentCycles(records, index.byUuid), relinks: index.relinks };
  loops.count = records.length;
  return loops.findings;
}

/**
 * The records of each inline sidechain, by its root (the first record up its parent links whose
 * parent is missing or not a sidechain's), in file order. Each record's root is found once: a
 * record's is its parent's, so a walk up the links stops at the first record whose root is known.
 * Asking each record's root of every root's records again was quadratic: 84 s for `check` of a
 * 19 MB file of 100 sidechains of 500 records (docs/streaming-import.md "Inline sidechains"). On a
 * loop of parent links (a finding of `parentCycles`), a record in the loop is its own root and one
 * leading into it has the record where it enters, as a walk from each record alone would find.
 */
export function sidechainsByRoot(records: readonly Rec[], byUuid: ReadonlyMap<string, Rec>): Map<Rec, Rec[]> {
  const roots = new Map<Rec, Rec>();
  const rootOf = (r: Rec): Rec => {
    const path: Rec[] = [];
    const onPath = new Set<Rec>();
    let cur = r;
    let root: Rec | undefined;
    for (;;) {
      root = roots.get(cur);
      if (root) break;
      if (onPath.has(cur)) {
        // A loop entered at `cur`: each record of the loop is its own root, and the records before it have `cur`.
        const entry = path.indexOf(cur);
        for (let k = 0; k < path.length; k++) roots.set(path[k]!, k < entry ? cur : path[k]!);
        return roots.get(r)!;
      }
      onPath.add(cur);
      path.push(cur);
      const parent = parentIn(byUuid, cur);
      if (!parent || parent.isSidechain !== true) {
        root = cur;
        break;
      }
      cur = parent;
    }
    for (const x of path) roots.set(x, root);
    return root;
  };
  const byRoot = new Map<Rec, Rec[]>();
  for (const r of records) {
    if (r.isSidechain !== true) continue;
    const root = rootOf(r);
    const list = byRoot.get(root);
    if (list) list.push(r);
    else byRoot.set(root, [r]);
  }
  return byRoot;
}

/** The session of parsed lines (see the file's header); `parsed` is left as it was. */
export function buildClaudeSession(parsed: ParsedClaudeLines, options: ImportOptions = {}): ImportedSession {
  const findings = [...parsed.findings];
  let records = parsed.records;
  // A subagent's own file (every record `isSidechain`) is its main conversation, named by its agentId.
  const subagentFile = records.length > 0 && !records.some((r) => isMessage(r) && r.isSidechain !== true);
  const subagentId = subagentFile ? firstValue(records, (r) => str(r.agentId)) : undefined;
  // Copies: the parsed records are shared with later builds.
  if (subagentFile) records = records.map((r) => ({ ...r, isSidechain: false }));

  const index = recordIndex(records, !subagentFile);
  const { byUuid, byMessageId, resultByToolId } = index;
  findings.push(...loopsOf(records, index));
  findings.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));

  // Sessions: the main conversation and one per sidechain root (inline sidechains).
  const sideRoots = records.filter((r) => r.isSidechain === true && isMessage(r) && (r.parentUuid === null || r.parentUuid === undefined || !byUuid.has(str(r.parentUuid) ?? '')));
  const sideId = (r: Rec): string => str(r.agentId) ?? str(r.uuid) ?? `line-${r.__line}`;
  const wanted = options.session ?? '';
  const sideRoot = wanted === '' ? undefined : sideRoots.find((r) => sideId(r) === wanted);
  const inMain = (r: Rec): boolean => r.isSidechain !== true;
  // Each sidechain's records, grouped once (docs/streaming-import.md "Inline sidechains").
  let byRoot: Map<Rec, Rec[]> | undefined;
  const sidechainOf = (root: Rec): ViewRecords => held((byRoot ??= sidechainsByRoot(records, byUuid)).get(root) ?? []);

  // The main view's pass is kept for the next build of these records (a followed file's): a sidechain's is not.
  const built = sideRoot ? buildView(sidechainOf(sideRoot), byUuid, byMessageId, resultByToolId, options) : buildView({ records, holds: inMain }, byUuid, byMessageId, resultByToolId, options, index.kept ? index : undefined);
  // The other views are only counted: they leave the memo to the view it remembers.
  const { transcripts: _viewMemo, ...countOptions } = options;

  const mainSessionId = subagentId ?? firstValue(records, (r) => str(r.sessionId)) ?? '';
  const title = firstValue(records, (r) => (r.type === 'summary' ? str(r.summary) : r.type === 'ai-title' || r.type === 'custom-title' ? (str(r.aiTitle) ?? str(r.customTitle) ?? str(r.title)) : undefined), true);
  const sessions: ClaudeSessionInfo[] = [{ id: mainSessionId, ...(title !== undefined ? { title } : {}), messages: sideRoot ? 0 : built.messages.length }];
  for (const root of sideRoots) {
    const count = sideRoot === root ? built.messages.length : buildView(sidechainOf(root), byUuid, byMessageId, resultByToolId, countOptions).messages.length;
    const prompt = blocksOf(root).find((b) => isObj(b) && b.type === 'text');
    const full = isObj(prompt) ? txt(prompt.text) : undefined;
    // 80 UTF-16 units are at most 320 bytes of UTF-8.
    const t = isLargeText(full) ? full.head(320) : full;
    sessions.push({ id: sideId(root), ...(t !== undefined ? { title: t.slice(0, 80) } : {}), messages: count });
  }
  if (sideRoot) sessions[0] = { ...sessions[0]!, messages: buildView({ records, holds: inMain }, byUuid, byMessageId, resultByToolId, countOptions).messages.length };

  // A tool-results file not read (safeRead.ts) is a finding of the session shown.
  if (built.refused.length > 0) findings.push(...built.refused);
  findings.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  return {
    session_id: sideRoot ? sideId(sideRoot) : mainSessionId,
    model: built.model,
    messages: built.messages,
    reductions: built.reductions,
    findings,
    sessions,
    messageLines: built.messageLines,
    ...(built.ended.length > 0 ? { ended: built.ended } : {}),
    ...(built.instructions.length > 0 ? { instructions: built.instructions } : {}),
    ...(built.usage.size > 0 ? { usage: built.usage } : {}),
  };
}

/**
 * The records of one view: `records` in file order, those of them `holds` says are the view's. For
 * the main conversation the file's own array and a field's test, where a filtered copy and a set of
 * it cost a look at a large session more than its walk (docs/streaming-import.md "Building the view").
 */
interface ViewRecords {
  records: readonly Rec[];
  holds: (r: Rec) => boolean;
}

function held(records: Rec[]): ViewRecords {
  const set = new Set(records);
  return { records, holds: (r) => set.has(r) };
}

/**
 * The pass over chain[from, to) of a view (buildView), onto `s`: each record's messages, the tool
 * results after their call, and what the post-pass needs (compactions, cleared and persisted
 * outputs, instructions, usage).
 */
function passOver(s: PassState, { chain, inView, byMessageId, resultByToolId }: { chain: readonly Rec[]; inView: (r: Rec) => boolean; byMessageId: Map<string, Rec[]>; resultByToolId: Map<string, ToolResultAt> }, from: number, to: number): void {
  const pushTool = (id: string): void => {
    const found = resultByToolId.get(id);
    if (!found || !inView(found.rec) || s.emittedTools.has(id)) return;
    s.emittedTools.add(id);
    const { text, parts } = toolResultContent(found.block);
    const msg: ChatMessage = withContent({ role: 'tool' as const }, text, { tool_call_id: id, ...(parts ? { content_parts: parts } : {}) });
    if (found.block.is_error === true) msg.metadata = { is_error: true };
    s.toolIndex.set(id, s.messages.length);
    s.messages.push(msg);
    s.messageLines.push(found.rec.__line);
    if (startsWithText(text, PERSISTED_OPEN)) s.persisted.push({ index: s.messages.length - 1, rec: found.rec, stub: textString(text) });
  };

  for (let i = from; i < to; i++) {
    const r = chain[i]!;
    const attachment = attachmentOf(r);
    if (attachment) {
      // Given as context after the messages before it, until a compaction summarizes it away.
      const given = givenAttachment(attachment);
      if (given !== false) {
        const kind = str(attachment.type);
        s.instructions.push({ source: 'claude_code_attachment', ...(kind !== undefined ? { kind } : {}), placement: 'user_message', index: s.messages.length, line: r.__line, text: attachmentText(attachment), ...(given === 'unconfirmed' ? { unconfirmed: true as const } : {}) });
      }
      continue;
    }
    if (r.type === 'system' && r.subtype === 'compact_boundary') {
      for (const ins of s.instructions) ins.to ??= r.__line;
      const next = chain[i + 1];
      // Nothing of the view before the boundary (a file that opens with a compaction, the records
      // it summarized elsewhere): there is nothing to reduce, and the summary is the first message
      // the model is given, kept as the user message it was (COMPACT_SUMMARY_KEY marks it).
      if (next && next.isCompactSummary === true && isMessage(next) && s.messages.length > 0) {
        const text = blocksOf(next).map((b) => (isObj(b) && txt(b.text) !== undefined ? textString(b.text as Text) : '')).join('');
        s.compactions.push({ boundary: r, summary: text, at: s.messages.length });
        i++;
      }
      continue;
    }
    if (r.type === 'system' && r.subtype === 'microcompact_boundary' && isObj(r.microcompactMetadata)) {
      const ids = r.microcompactMetadata.compactedToolIds;
      if (Array.isArray(ids)) s.cleared.push({ ids: ids.filter((x): x is string => typeof x === 'string'), rec: r, at: s.messages.length });
      continue;
    }
    if (!isMessage(r)) continue;
    if (r.type === 'assistant') {
      const key = messageKey(r);
      if (key !== undefined && s.doneMessageIds.has(key)) continue;
      const parts = key !== undefined ? (byMessageId.get(key) ?? [r]).filter((x) => inView(x)) : [r];
      if (key !== undefined) s.doneMessageIds.add(key);
      const texts: Text[] = [];
      const thinking: string[] = [];
      const signatures: string[] = [];
      const calls: ToolCall[] = [];
      const other: ContentPart[] = [];
      for (const p of parts) {
        if (isObj(p.message) && typeof p.message.model === 'string' && p.message.model !== SYNTHETIC_MODEL) s.model = p.message.model;
        for (const b of blocksOf(p)) {
          if (!isObj(b)) continue;
          const t = b.type === 'text' ? txt(b.text) : undefined;
          if (t !== undefined) texts.push(t);
          else if (b.type === 'thinking') {
            thinking.push(str(b.thinking) ?? '');
            if (typeof b.signature === 'string') signatures.push(b.signature);
          } else if (b.type === 'tool_use' && typeof b.id === 'string') {
            calls.push({ id: b.id, name: str(b.name) ?? '', arguments: JSON.stringify(b.input ?? {}) });
            s.calls.add(b.id);
          } else other.push(plainPart(b));
        }
      }
      const msg: ChatMessage = withContent({ role: 'assistant' as const }, joinTexts(texts, '\n'));
      if (calls.length > 0) msg.tool_calls = calls;
      if (other.length > 0) msg.content_parts = other;
      if (thinking.length > 0) msg.metadata = { thinking: thinking.join('\n'), ...(signatures.length > 0 ? { thinking_signature: signatures.join('\n') } : {}) };
      s.messages.push(msg);
      // Claude Code writes some assistant s.messages itself (`model: "<synthetic>"`, no `requestId`):
      // "No response requested." after a local command, an API error. Given to later calls, but no
      // call returned them (docs/formats/claude-code.md, "Model calls").
      const synthetic = parts.every((p) => isObj(p.message) && p.message.model === SYNTHETIC_MODEL);
      s.messageLines.push(synthetic ? undefined : r.__line);
      const tokens = synthetic ? undefined : callUsage(parts);
      if (tokens) s.usage.set(r.__line, tokens);
      // The results in the order the file holds them, which is the order the model was given them
      // (docs/formats/claude-code.md, "Parallel tool calls"), not the order of the calls.
      const results = calls.flatMap((c) => {
        const found = resultByToolId.get(c.id);
        return found ? [{ id: c.id, found }] : [];
      });
      results.sort((a, b) => a.found.rec.__line - b.found.rec.__line || a.found.at - b.found.at);
      for (const { id } of results) pushTool(id);
      continue;
    }
    // A user record: tool results (already placed after their call, or orphans), text and images.
    const texts: Text[] = [];
    const parts: ContentPart[] = [];
    for (const b of blocksOf(r)) {
      if (!isObj(b)) continue;
      if (b.type === 'tool_result' && typeof b.tool_use_id === 'string') {
        if (!s.emittedTools.has(b.tool_use_id)) pushTool(b.tool_use_id);
        continue;
      }
      const t = b.type === 'text' ? txt(b.text) : undefined;
      if (t !== undefined) texts.push(t);
      else parts.push(plainPart(b));
    }
    if (texts.length > 0 || parts.length > 0) {
      const msg: ChatMessage = withContent({ role: 'user' as const }, joinTexts(texts, '\n'));
      if (parts.length > 0) msg.content_parts = [...texts.map((t) => ({ type: 'text', text: textString(t) })), ...parts];
      if (r.isCompactSummary === true) msg.metadata = { [COMPACT_SUMMARY_KEY]: true };
      s.messages.push(msg);
      s.messageLines.push(r.__line);
    }
  }

}

/** What the pass over a view's chain has made by a point of it (buildView). */
interface PassState {
  messages: ChatMessage[];
  /** Each message's line; none for a message no model call returned (a `<synthetic>` one): no call. */
  messageLines: (number | undefined)[];
  emittedTools: Set<string>;
  doneMessageIds: Set<string>;
  /** The ids of the tool calls of the assistant messages passed. */
  calls: Set<string>;
  toolIndex: Map<string, number>;
  model: string;
  /** Every compaction on the chain, in order: each summarizes all the view before it (`at`). */
  compactions: { boundary: Rec; summary: string; at: number }[];
  persisted: { index: number; rec: Rec; stub: string }[];
  cleared: { ids: string[]; rec: Rec; at: number }[];
  instructions: Instruction[];
  usage: Map<number, CallTokens>;
}

function emptyPass(): PassState {
  return { messages: [], messageLines: [], emittedTools: new Set(), doneMessageIds: new Set(), calls: new Set(), toolIndex: new Map(), model: '', compactions: [], persisted: [], cleared: [], instructions: [], usage: new Map() };
}

/** A copy the pass can go on with, leaving `s` as it is (its messages and records are never changed, so they are shared; an instruction is: copied). */
function copyPass(s: PassState): PassState {
  return {
    messages: [...s.messages],
    messageLines: [...s.messageLines],
    emittedTools: new Set(s.emittedTools),
    doneMessageIds: new Set(s.doneMessageIds),
    calls: new Set(s.calls),
    toolIndex: new Map(s.toolIndex),
    model: s.model,
    compactions: [...s.compactions],
    persisted: [...s.persisted],
    cleared: [...s.cleared],
    instructions: s.instructions.map((i) => ({ ...i })),
    usage: new Map(s.usage),
  };
}

/**
 * The main view's pass as it stood at the start of its chain's last assistant message (`at`), kept
 * for the next build of the same records (docs/streaming-import.md "Building the view"): `chain`
 * the chain it was made over, `count` the records then.
 */
interface ViewResume {
  chain: readonly Rec[];
  at: number;
  count: number;
  pass: PassState;
  /** RecordIndex.relinks then. */
  relinks: number;
}

/** The message key of an assistant record (its session side and message id), as byMessageId holds it. */
function messageKey(r: Rec): string | undefined {
  const mid = messageId(r);
  return mid === undefined ? undefined : `${r.isSidechain === true ? 's' : 'm'}:${mid}`;
}

/**
 * Where a later build may take the pass up: the start of the chain's last assistant message (its
 * first record of the run of records of one response), never right after a compact boundary
 * (whose summary is the record after it). 0: nowhere worth it.
 */
function resumePoint(chain: readonly Rec[]): number {
  let k = chain.length - 1;
  while (k >= 0 && !(chain[k]!.type === 'assistant' && isMessage(chain[k]!))) k--;
  if (k <= 0) return 0;
  const key = messageKey(chain[k]!);
  while (k > 0 && key !== undefined && chain[k - 1]!.type === 'assistant' && messageKey(chain[k - 1]!) === key) k--;
  while (k > 0 && chain[k - 1]!.type === 'system' && chain[k - 1]!.subtype === 'compact_boundary') k--;
  return k;
}

/**
 * Whether a pass kept at `resume.at` is the pass a build from the start would have there, over the
 * records now: none appended since adds a record to a response passed before it (a part of the
 * same message) or answers a call passed before it that had no result there. The chain's prefix
 * and the records' links are checked by the caller.
 */
function resumable(records: readonly Rec[], resume: ViewResume): boolean {
  const { pass } = resume;
  for (let k = resume.count; k < records.length; k++) {
    const r = records[k]!;
    if (!isMessage(r)) continue;
    if (r.type === 'assistant') {
      const key = messageKey(r);
      if (key !== undefined && pass.doneMessageIds.has(key)) return false;
      continue;
    }
    for (const b of blocksOf(r)) {
      if (isObj(b) && b.type === 'tool_result' && typeof b.tool_use_id === 'string' && pass.calls.has(b.tool_use_id) && !pass.emittedTools.has(b.tool_use_id)) return false;
    }
  }
  return true;
}

function buildView(
  { records, holds: inView }: ViewRecords,
  byUuid: Map<string, Rec>,
  byMessageId: Map<string, Rec[]>,
  resultByToolId: Map<string, ToolResultAt>,
  options: ImportOptions,
  /** The records' kept index: the main view's pass is taken up from it and kept in it. */
  memo?: RecordIndex,
): { messages: ChatMessage[]; reductions: Reduction[]; model: string; messageLines: (number | undefined)[]; ended: { reduction: Reduction; to: number }[]; refused: Finding[]; instructions: Instruction[]; usage: Map<number, CallTokens> } {
  const leaf = firstValue(records, (r) => (isMessage(r) && inView(r) ? r : undefined), true);
  const kept = memo?.resume;
  if (memo) memo.resume = undefined;
  if (!leaf) return { messages: [], reductions: [], model: '', messageLines: [], ended: [], refused: [], instructions: [], usage: new Map() };

  // Walk back from the leaf; a compact boundary continues through logicalParentUuid. With a pass
  // kept, the walk stops where it meets the kept chain's prefix: unless a record was relinked,
  // the rest of the walk is that prefix.
  const meets = kept && kept.relinks === memo.relinks && kept.at > 0 && resumable(records, kept) ? kept.chain[kept.at - 1] : undefined;
  const walked: Rec[] = [];
  const seen = new Set<Rec>();
  let met = false;
  let cur: Rec | undefined = leaf;
  while (cur && !seen.has(cur)) {
    if (cur === meets) {
      met = true;
      break;
    }
    seen.add(cur);
    walked.push(cur);
    let next = parentIn(byUuid, cur);
    if (next && !inView(next)) next = undefined;
    if (!next && cur.type === 'system' && cur.subtype === 'compact_boundary') {
      const lp = str(cur.logicalParentUuid);
      next = lp !== undefined ? byUuid.get(lp) : undefined;
      if (!next || !inView(next)) {
        const at: number = records.indexOf(cur);
        next = undefined;
        for (let k = at - 1; k >= 0; k--) {
          const before = records[k]!;
          if (isMessage(before) && inView(before)) {
            next = before;
            break;
          }
        }
      }
    }
    cur = next;
  }
  walked.reverse();
  // Not a spread of the prefix into unshift: a chain of 100,000 records is more arguments than a call takes.
  const chain = met ? kept!.chain.slice(0, kept!.at).concat(walked) : walked;

  const context = { chain, inView, byMessageId, resultByToolId };
  // A walk cut by a loop of parents (a damaged file) is where it entered the loop: one from another
  // leaf may be cut elsewhere, so no pass is kept over it.
  const at = memo && (met || cur === undefined) ? resumePoint(chain) : 0;
  let work = emptyPass();
  if (memo && at > 0) {
    // The kept pass (when the walk met it and the new point is not before it) or a new one goes on
    // to the resume point and is kept there; this build goes on with a copy.
    const resumed = met && at >= kept!.at;
    const pass = resumed ? kept!.pass : work;
    passOver(pass, context, resumed ? kept!.at : 0, at);
    memo.resume = { chain, at, count: records.length, pass, relinks: memo.relinks };
    work = copyPass(pass);
  }
  passOver(work, context, memo?.resume ? at : 0, chain.length);
  const { messages, messageLines, toolIndex, persisted, cleared, compactions, instructions, usage } = work;
  const model = work.model;
  const reductions: Reduction[] = [];
  const refused: Finding[] = [];

  // A cleared result stays cleared at the calls before a later compaction (and under it after).
  const clearedIds = new Set<string>();
  for (const c of cleared) {
    for (const id of c.ids) {
      const i = toolIndex.get(id);
      if (i === undefined || clearedIds.has(id)) continue;
      const m = messages[i]!;
      if (persisted.some((p) => p.index === i)) continue;
      clearedIds.add(id);
      reductions.push({
        id: `cc-micro-${id}`,
        kind: 'tool_output_elided',
        ptr: { index: i, ...measureMessage(m) },
        stub: CLEARED_STUB,
        minted_at: c.at,
        provenance: 'recorded',
        origin: { line: c.rec.__line },
        hash_origin: 'import',
        original_from: 'the tool result as the transcript records it',
      });
    }
  }

  for (const p of persisted) {
    const m = messages[p.index]!;
    const path = /(?:Full output saved to|Tool result saved to): *([^\n<]+)/.exec(p.stub)?.[1]?.trim();
    const name = path?.split(/[\\/]/).pop();
    const read = name !== undefined && name !== '' ? options.toolResult?.(name) : undefined;
    const tur = p.rec.toolUseResult;
    // The `tool-results/` file first; else the copy the record itself keeps, when it is the whole output.
    const refusedRead = typeof read === 'object' && 'refused' in read ? read : undefined;
    const fromFile = refusedRead === undefined ? (read as Text | undefined) : undefined;
    const fromRecord = fromFile === undefined ? persistedOriginal(tur, p.stub) : undefined;
    const original: Text | undefined = fromFile ?? (fromRecord && 'text' in fromRecord ? fromRecord.text : undefined);
    const stated = isObj(tur) && typeof tur.persistedOutputSize === 'number' ? tur.persistedOutputSize : null;
    const id = `cc-persisted-${m.tool_call_id ?? p.index}`;
    const base = { id, kind: 'tool_output_truncated' as const, kept_bytes: 0, stub: p.stub, minted_at: messages.length, provenance: 'recorded' as const, origin: { line: p.rec.__line } };
    if (original !== undefined) {
      const { large: _stub, content: _text, ...fields } = m;
      messages[p.index] = withContent(fields, original);
      const from = fromFile !== undefined ? `the tool-results file ${name ?? ''}` : `the record's toolUseResult copy (line ${p.rec.__line})`;
      reductions.push({ ...base, ptr: { index: p.index, ...measureText(original) }, hash_origin: 'import', original_from: from });
    } else {
      // The preview the model saw is all the file holds whole: expand answers original_unavailable, saying why.
      const why =
        fromRecord && 'why' in fromRecord
          ? fromRecord.why
          : refusedRead
            ? `its tool-results file (${name ?? ''}) was not read: ${refusedRead.refused}`
            : name === undefined
              ? undefined
              : `its tool-results file (${name}) is not beside the session`;
      // Without persistedOutputSize, the stub's "Output too large (N KB)" is the size, to its 0.1 KB.
      const approx = stated === null ? /Output too large \(([\d.]+)(KB|MB)\)/.exec(p.stub) : null;
      const size = approx ? { bytes: Math.round(Number(approx[1]) * (approx[2] === 'MB' ? 1024 * 1024 : 1024)), stated_size: `${approx[1]}${approx[2]}, as the stub says` } : { bytes: stated };
      reductions.push({ ...base, ptr: { index: p.index, hash: null, bytes: size.bytes }, ...('stated_size' in size ? { stated_size: size.stated_size } : {}), ...(why !== undefined ? { unavailable_why: why } : {}) });
      if (refusedRead) refused.push({ code: 'malformed_line', severity: 'error', line: p.rec.__line, reduction_id: id, message: `tool-results/${name ?? ''} (line ${p.rec.__line}) was not read: ${refusedRead.refused}; the original of ${id} is unavailable` });
    }
  }
  // After the persisted outputs' originals are in place: a summary's original is their transcript.
  // Each compaction is its own `summarized` reduction over the whole view before it, live from its
  // boundary until the next one, whose summary stands for it too (the model never sees two). So the
  // live log ends with the last; the earlier ones ended at the next boundary (`ended`).
  const summaries: Reduction[] = [];
  // The §3.5 transcript of the dropped messages (transcriptOf), hashed and measured piece by piece:
  // the same bytes, without building one string of them all; every compaction's in one pass.
  // Their lengths now; their hashes when first read (lazyHashPtr), all in one pass, over the
  // messages as they are here.
  const ends = compactions.filter((c) => c.at > 0).map((c) => c.at);
  const lengths = transcriptPrefixLengths(messages, ends);
  const measuredMessages = messages.slice(0, ends[ends.length - 1] ?? 0);
  const transcripts = options.transcripts;
  let hashes: string[] | undefined;
  const hashOf = (k: number) => (): string => (hashes ??= measureTranscriptPrefixes(measuredMessages, ends, transcripts).map((m) => m.hash))[k]!;
  for (const c of compactions) {
    if (c.at === 0) continue;
    const k = summaries.length;
    const id = `cc-compact-L${c.boundary.__line}`;
    summaries.push({
      id,
      kind: 'summarized',
      ptr: lazyHashPtr(0, lengths[k]!, hashOf(k)),
      end: c.at,
      stub: c.summary,
      minted_at: c.at,
      provenance: 'recorded',
      origin: { line: c.boundary.__line },
      group: id,
      // The summary is an `isCompactSummary` user record: the model is given it as a user message.
      summary_role: 'user',
      hash_origin: 'import',
      original_from: 'the messages before the compact boundary, as the transcript records them',
    });
  }
  // §15: a compaction's context before (`preTokens`) and after, as recorded, else the calls' either side.
  for (const [k, c] of compactions.filter((x) => x.at > 0).entries()) {
    const meta = isObj(c.boundary.compactMetadata) ? c.boundary.compactMetadata : {};
    Object.assign(summaries[k]!, compactionTokens(c.boundary.__line, usage, { before: tokenCount(meta.preTokens), after: tokenCount(meta.postTokens) }));
  }
  const ended = summaries.slice(0, -1).map((reduction, k) => ({ reduction, to: (summaries[k + 1]!.origin as { line: number }).line }));
  if (summaries.length > 0) reductions.push(summaries[summaries.length - 1]!);

  reductions.sort((a, b) => a.ptr.index - b.ptr.index);
  return { messages, reductions, model, messageLines, ended, refused, instructions, usage };
}

/**
 * One API response's usage (docs/tokens.md "Recorded usage"): the records of one `message.id`
 * share their input counts while `output_tokens` grows as the response streams, so the last
 * record's usage is the response's. The window is the table's for the response's model (Claude
 * Code does not record it).
 */
function callUsage(parts: readonly Rec[]): CallTokens | undefined {
  let last: Rec | undefined;
  for (const p of parts) if (isObj(p.message) && isObj(p.message.usage) && (!last || p.__line > last.__line)) last = p;
  const message = last && isObj(last.message) ? last.message : undefined;
  return message ? anthropicTokens(message.usage, tableWindow(str(message.model))) : undefined;
}
