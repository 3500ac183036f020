/**
 * A Codex rollout (docs/FORMATS.md §2) as the three inputs of SPEC §3.2: pure, over the parsed lines.
 *
 * - Every `response_item` that the model is given becomes part of the minted view, in file order.
 *   **One model response is one assistant message** (docs/formats/codex.md): the output items a
 *   response writes one after another — `reasoning`, assistant `message`s, `function_call` /
 *   `custom_tool_call` / `local_shell_call` / `tool_search_call` (each one tool call),
 *   `web_search_call` and `image_generation_call` (a content part keeping the search or image) —
 *   until the next input item, `token_count` event, turn or compaction, are one message with all
 *   its tool calls in file order; reasoning goes to its metadata (`reasoning`,
 *   `encrypted_reasoning`). Input items are one message each: `message` (role `developer` →
 *   `system`, the original role kept in `metadata.codex_role`; `user`), tool outputs → `tool`
 *   messages (a string output as is, a JSON-encoded one included; an array as its text, other parts
 *   in `content_parts`; anything else as its JSON, with an `unknown_record` warning).
 *   `ghost_snapshot` is not sent to the model and is skipped; an unknown item type is an
 *   `unknown_record` warning.
 * - `compacted`: the kept items of `replacement_history` are byte-identical copies of earlier items;
 *   every visible message with no copy was dropped. A response whose items are kept only in part
 *   (its final answer without its commentary) is dropped, and the part kept joins the view as a
 *   message of its own. A message made at a compaction has no line in `messageLines`: no model
 *   call produced it there. Each contiguous run of dropped messages is one
 *   `summarized` reduction (one `group` per compaction), the stub being the summary the model saw:
 *   the local summary text, or "summary not readable (encrypted)". New items of the replacement
 *   history (re-injected context) join the view there, in its order: a kept item that follows a new
 *   one moves after it as a copy (the view only grows), its earlier place a `duplicate_output` of
 *   the copy in the compaction's `group`, with its stub: the model saw nothing there but what the
 *   compaction gave, so the place is no row or entry of its own (docs/formats/codex.md).
 * - An output the tool cut before recording it (`…N tokens truncated…`, docs/FORMATS.md §2.10 item 1) is a
 *   `tool_output_truncated` reduction with `ptr.hash: null` (the original is lost): the recorded
 *   text is the stub and `kept_bytes` is 0, so the view shows exactly the cut text the model saw;
 *   `ptr.bytes` is the size the file states, in tokens × 4 (`stated_size` says so).
 * - The first `session_meta`'s base instructions are the request's `instructions` of every call
 *   after it: an instruction (shared/resolver/instructions.ts), not a message of the view.
 * - `event_msg` records are the UI's copy of the same items: ignored. `turn_context.model` is the
 *   session's model; a change is a model change.
 * - A message's text or a tool output may be a large string value kept in the file (a `LargeText`,
 *   largeStrings.ts, docs/large-lines.md): it becomes the message's `large`, and is compared,
 *   searched and hashed from the file, never read whole.
 */
import { createHash } from 'node:crypto';
import type { Instruction } from '../../../shared/resolver/instructions';
import type { DepthCut } from '../../../shared/format/jsonDepth';
import { depthCutMessage } from '../../../shared/format/jsonDepth';
import type { ModelChange } from '../../../shared/calls/timeline';
import type { ByteSource, ChatMessage, ContentPart, Finding, Reduction } from '../../../shared/format/types';
import { utf8Length } from '../../../shared/format/utf8';
import type { CutValue, LargeText, Text } from '../content/largeStrings';
import { cutValueMessage, isEmptyText, isLargeText, joinTexts, measureText, measureTranscript, messageText, textIncludes, textString, withContent, withFields } from '../content/largeStrings';
import { isPlainObject } from '../common/json';
import type { CallTokens } from '../../../shared/tokens/usage';
import { compactionTokens, openAiTokens, tokenCount } from '../../../shared/tokens/usage';
import { tableWindow } from '../../../shared/tokens/windows';

/** One line of the rollout: its parsed value, or why it has none. */
/** `deep`: where the line's value was cut at MAX_JSON_DEPTH (shared/format/jsonDepth.ts). */
export type RolloutLine = { line: number; value: unknown; notUtf8?: true; deep?: DepthCut; cut?: readonly CutValue[] } | { line: number; error: string; torn?: boolean };

/** The rollout item types of the writer (RolloutItem); others are `unknown_record`. */
export const ROLLOUT_TYPES: readonly string[] = ['session_meta', 'response_item', 'compacted', 'turn_context', 'event_msg'];
/** Types newer writers add that carry nothing the model is given: skipped without a finding. */
const QUIET_TYPES: readonly string[] = ['world_state', 'token_usage_record', 'inter_agent_communication', 'inter_agent_communication_metadata', 'security_risk_score', 'retained_context', 'realtime_item'];

/** The stub of a remote compaction, whose summary is an encrypted item. */
export const ENCRYPTED_SUMMARY = 'summary not readable (encrypted)';
/**
 * The stub of a remote compaction (empty `message`) whose encrypted summary item is not in the file
 * (tools that publish rollouts strip it): nothing is invented.
 */
export const MISSING_SUMMARY = 'summary not in this file (remote compaction: its summary is encrypted)';

export interface RolloutIndex {
  sessionId: string | null;
  model: string | null;
  forkedFrom: string | null;
  system: ChatMessage | undefined;
  /** The base instructions of the first `session_meta`, the request's `instructions` of every call after it. */
  instructions: Instruction[];
  view: ChatMessage[];
  /**
   * SPEC §11: the line each view message came from (a compaction's re-injected items: its line); an
   * assistant message a compaction made has none, so it is no model call.
   */
  messageLines: (number | undefined)[];
  log: Reduction[];
  logLines: number[];
  modelChanges: ModelChange[];
  findings: Finding[];
  /** SPEC §15: each call's `last_token_usage` (docs/tokens.md "Recorded usage"), by its message's line. */
  usage: Map<number, CallTokens>;
}

/** Where Codex cut the middle of an output (docs/FORMATS.md §2.10 item 1): `…N tokens truncated…`, head and tail kept. */
const CUT_MARKER = /…(\d+) tokens truncated…/g;
/** The header `exec_command` writes on every output (0.118+), truncated or not: the size before the cut. */
const ORIGINAL_TOKENS = /^Original token count: (\d+)$/m;
/** Codex estimates 4 bytes a token (its `approx_token_count`): sizes it states in tokens are only approximate in bytes. */
export const BYTES_PER_TOKEN = 4;

/** The text of an output in which a cut would show: a JSON-encoded `{output, metadata}`'s `output`, else the content itself. */
function outputText(content: string): string {
  if (!content.startsWith('{')) return content;
  try {
    const v = JSON.parse(content) as unknown;
    return isPlainObject(v) && typeof v.output === 'string' ? v.output : content;
  } catch {
    return content;
  }
}

/**
 * An output the tool already cut before recording it (the original is lost): its approximate size
 * in bytes and the file's own words for it, or undefined when the output is whole. A marker alone is
 * not enough when the header states the size: an output that merely quotes a marker has an
 * `Original token count` no larger than its own text (Codex counts 4 bytes a token).
 */
export function toolTruncation(content: string): { bytes: number; stated: string } | undefined {
  // Most outputs hold no marker: they are not decoded again (the words survive JSON escaping).
  if (!content.includes('tokens truncated')) return undefined;
  const text = outputText(content);
  const cuts = [...text.matchAll(CUT_MARKER)];
  if (cuts.length === 0) return undefined;
  const header = ORIGINAL_TOKENS.exec(text);
  if (header) {
    const tokens = Number(header[1]);
    if (!(tokens * BYTES_PER_TOKEN > utf8Length(text))) return undefined;
    return { bytes: tokens * BYTES_PER_TOKEN, stated: `Original token count: ${tokens}, at ${BYTES_PER_TOKEN} bytes a token` };
  }
  // No header (JSON-encoded, array and custom tool outputs): the kept text plus what the markers say was cut.
  const cut = cuts.reduce((n, m) => n + Number(m[1]), 0);
  const markers = cuts.reduce((n, m) => n + utf8Length(m[0]), 0);
  return { bytes: utf8Length(content) - markers + cut * BYTES_PER_TOKEN, stated: `the kept text and ${cut} tokens truncated, at ${BYTES_PER_TOKEN} bytes a token` };
}

/** The tool output item types (largeLines.ts keeps their `output` in the file). */
export const OUTPUT_TYPES = ['function_call_output', 'custom_tool_call_output', 'local_shell_call_output'];

/** Whether a large output holds the words of a cut, by its bytes: the view is built again on each pass, the file is searched once. */
const cutWords = new WeakMap<ByteSource, boolean>();
function holdsCutWords(text: LargeText): boolean {
  let holds = cutWords.get(text.source);
  if (holds === undefined) cutWords.set(text.source, (holds = textIncludes(text, 'tokens truncated')));
  return holds;
}

interface Entry {
  msg: ChatMessage;
  /**
   * The response items it came from, in file order: one input item, or all the output items of one
   * model response (docs/formats/codex.md); undefined for messages made at a compaction.
   */
  items: Record<string, unknown>[] | undefined;
  /** Canonical JSON of each of `items`, made when a compaction first compares it (most rollouts have none). */
  keys?: (string | undefined)[];
  line: number;
  /** Made at a compaction (re-injected, or a kept item moved after re-injected ones): no model call produced it there. */
  copy?: true;
  hidden: boolean;
  /** A model response's: the `token_count` that counted it (§15). */
  usage?: CallTokens;
}

/** The canonical JSON of an entry's `j`-th item, computed once. */
function keyAt(e: Entry, j: number): string | undefined {
  const item = e.items?.[j];
  if (item === undefined) return undefined;
  e.keys ??= [];
  return (e.keys[j] ??= canonicalKey(item));
}

/**
 * False when two items cannot be equal by their top-level scalars (type, role, call id, name): most
 * pairs a compaction compares differ there, so their canonical JSON is never made.
 */
function mayEqual(a: Record<string, unknown> | undefined, b: Record<string, unknown>): boolean {
  return a !== undefined && a.type === b.type && a.role === b.role && a.call_id === b.call_id && a.name === b.name;
}

/** JSON with object keys sorted: a re-marshalled line (keys sorted) still matches its original. */
export function canonicalJson(v: unknown): string {
  const pieces: string[] = [];
  writeCanonical(v, (piece) => pieces.push(piece));
  return pieces.join('');
}

/** `canonicalJson(v)` handed to `out` a piece at a time: a large text kept in the file is read a window at a time. */
function writeCanonical(v: unknown, out: (piece: string) => void): void {
  if (isLargeText(v)) {
    out('"');
    for (const piece of v.pieces()) out(JSON.stringify(piece).slice(1, -1));
    out('"');
    return;
  }
  if (Array.isArray(v)) {
    out('[');
    v.forEach((x, i) => {
      if (i > 0) out(',');
      writeCanonical(x, out);
    });
    out(']');
    return;
  }
  if (isPlainObject(v)) {
    out('{');
    Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort()
      .forEach((k, i) => {
        out(`${i > 0 ? ',' : ''}${JSON.stringify(k)}:`);
        writeCanonical(v[k], out);
      });
    out('}');
    return;
  }
  out(JSON.stringify(v) ?? 'null');
}

/** A canonical JSON this long (UTF-16 units) or longer is compared by its SHA-256. */
const KEY_HASH_LENGTH = 64 * 1024;

/**
 * What an item is compared by: its canonical JSON, or the SHA-256 of one that long (an item with a
 * large text kept in the file is never made one string). Two items have the same key exactly when
 * their canonical JSON is the same, whichever of their strings were kept in the file.
 */
function canonicalKey(v: unknown): string {
  const pieces: string[] = [];
  let length = 0;
  try {
    writeCanonical(v, (piece) => {
      length += piece.length;
      if (length >= KEY_HASH_LENGTH) throw LONG_KEY;
      pieces.push(piece);
    });
    return pieces.join('');
  } catch (e) {
    if (e !== LONG_KEY) throw e;
  }
  const hash = createHash('sha256');
  writeCanonical(v, (piece) => hash.update(piece, 'utf8'));
  return `\u0000sha256:${hash.digest('hex')}`;
}
const LONG_KEY = new Error('canonical JSON past KEY_HASH_LENGTH');

/** The content part types whose `text` is a message's text (largeLines.ts keeps it in the file). */
export const TEXT_PART_TYPES = ['input_text', 'output_text', 'text', 'summary_text', 'reasoning_text'];

/** A string, or a large string value kept in the file (largeStrings.ts). */
const txt = (v: unknown): Text | undefined => (typeof v === 'string' || isLargeText(v) ? v : undefined);

/** The text of a content array (text parts joined by a newline) and its other parts, kept with their type. */
function contentOf(content: unknown): { text: Text; parts: ContentPart[] } {
  const whole = txt(content);
  if (whole !== undefined) return { text: whole, parts: [] };
  const texts: Text[] = [];
  const parts: ContentPart[] = [];
  if (Array.isArray(content)) {
    for (const item of content) {
      const text = isPlainObject(item) && TEXT_PART_TYPES.includes(String(item.type)) ? txt(item.text) : undefined;
      if (text !== undefined) texts.push(text);
      else if (isPlainObject(item) && typeof item.type === 'string') parts.push({ ...item, type: item.type });
      else parts.push({ type: 'unknown', value: item });
    }
  }
  return { text: joinTexts(texts, '\n'), parts };
}

function withParts(msg: ChatMessage, parts: ContentPart[]): ChatMessage {
  return parts.length > 0 ? withFields(msg, { content_parts: parts }) : msg;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** A tool output as the model was given it: a string as is (JSON-encoded outputs included), an array of content items as its text. */
function outputMessage(payload: Record<string, unknown>, line: number, findings: Finding[]): ChatMessage {
  const out = payload.output;
  const base = { role: 'tool' as const, tool_call_id: str(payload.call_id) };
  const whole = txt(out);
  if (whole !== undefined) return withContent(base, whole);
  if (Array.isArray(out)) {
    const { text, parts } = contentOf(out);
    return withParts(withContent(base, text), parts);
  }
  findings.push({ code: 'unknown_record', severity: 'warning', line, message: `line ${line}: ${String(payload.type)} has an output that is neither a string nor an array of content items; shown as its JSON` });
  return { ...base, content: JSON.stringify(out) ?? '' };
}

/** The view message of one response item, or a reason to skip it (`unknown` gets a finding). */
function messageOf(payload: Record<string, unknown>, line: number, findings: Finding[]): ChatMessage | 'skip' | 'unknown' {
  switch (payload.type) {
    case 'message': {
      const { text, parts } = contentOf(payload.content);
      const role = str(payload.role);
      const phase = typeof payload.phase === 'string' ? { codex_phase: payload.phase } : {};
      if (role === 'user' || role === 'assistant') {
        const head: Pick<ChatMessage, 'role'> = { role };
        return withParts(withContent(head, text, phase.codex_phase ? { metadata: phase } : {}), parts);
      }
      // Developer (and any other) instructions are system-level text the model was given.
      return withParts(withContent({ role: 'system' as const }, text, { metadata: { codex_role: role, ...phase } }), parts);
    }
    case 'function_call':
      return { role: 'assistant', content: '', tool_calls: [{ id: str(payload.call_id), name: str(payload.name), arguments: typeof payload.arguments === 'string' ? payload.arguments : (JSON.stringify(payload.arguments) ?? '') }] };
    case 'custom_tool_call':
      return { role: 'assistant', content: '', tool_calls: [{ id: str(payload.call_id), name: str(payload.name), arguments: typeof payload.input === 'string' ? payload.input : (JSON.stringify(payload.input) ?? '') }], metadata: { codex_item: 'custom_tool_call' } };
    case 'local_shell_call':
      return { role: 'assistant', content: '', tool_calls: [{ id: str(payload.call_id), name: 'local_shell', arguments: JSON.stringify(payload.action ?? null) }], metadata: { codex_item: 'local_shell_call' } };
    case 'function_call_output':
    case 'custom_tool_call_output':
    case 'local_shell_call_output':
      return outputMessage(payload, line, findings);
    case 'tool_search_call':
      return { role: 'assistant', content: '', tool_calls: [{ id: str(payload.call_id), name: 'tool_search', arguments: typeof payload.arguments === 'string' ? payload.arguments : (JSON.stringify(payload.arguments) ?? '') }], metadata: { codex_item: 'tool_search_call' } };
    case 'tool_search_output':
      return { role: 'tool', tool_call_id: str(payload.call_id), content: JSON.stringify(payload.tools ?? null) };
    case 'image_generation_call':
      return { role: 'assistant', content: str(payload.revised_prompt), content_parts: [{ type: 'image_generation_call', status: payload.status, result: payload.result }] };
    case 'web_search_call': {
      const action = isPlainObject(payload.action) ? payload.action : undefined;
      const query = action ? str(action.query) || str(action.url) : '';
      return { role: 'assistant', content: '', content_parts: [{ type: 'web_search_call', ...(action ? { action } : {}), ...(query ? { text: query } : {}) }] };
    }
    case 'ghost_snapshot':
    case 'compaction':
    case 'compaction_summary':
      // A harness snapshot is never sent; a compaction item outside `compacted` is its summary, shown there.
      return 'skip';
    default:
      return 'unknown';
  }
}

/** The reasoning of a `reasoning` item, as metadata under REASONING_METADATA_KEYS. */
function reasoningMetadata(payload: Record<string, unknown>): Record<string, unknown> {
  const texts: string[] = [];
  for (const field of [payload.summary, payload.content]) if (Array.isArray(field)) texts.push(textString(contentOf(field).text));
  const text = texts.filter((t) => t.length > 0).join('\n');
  return {
    ...(text ? { reasoning: text } : {}),
    ...(typeof payload.encrypted_content === 'string' ? { encrypted_reasoning: payload.encrypted_content } : {}),
  };
}

/**
 * The item types a model response outputs (docs/formats/codex.md): they follow one another in the
 * rollout until the next input item, `token_count` event, turn or compaction.
 */
const OUTPUT_ITEM_TYPES = ['reasoning', 'function_call', 'custom_tool_call', 'local_shell_call', 'tool_search_call', 'web_search_call', 'image_generation_call'];

/** True when a response item is one a model response outputs (an assistant message included). */
export function isResponseOutput(payload: Record<string, unknown>): boolean {
  return OUTPUT_ITEM_TYPES.includes(String(payload.type)) || (payload.type === 'message' && payload.role === 'assistant');
}

/** `event_msg` types that come between two model responses, never inside one. */
const RESPONSE_BOUNDARY_EVENTS = ['token_count', 'task_started', 'task_complete', 'turn_aborted', 'turn_started', 'turn_complete', 'context_compacted'];

/**
 * The one assistant message of a model response: its output items in file order. One item that is
 * not reasoning keeps the shape it has alone; several are joined — texts by a newline, every tool
 * call in order, content parts in order — with `codex_items` naming each item's type (and
 * `codex_phase` the list of the messages' phases when more than one has one). Reasoning goes to the
 * metadata (`reasoning`, `encrypted_reasoning`; several of one response: texts joined, the
 * encrypted ones as a list).
 */
function responseMessage(items: readonly Record<string, unknown>[], line: number, findings: Finding[]): ChatMessage {
  const said: ChatMessage[] = [];
  const types: string[] = [];
  const phases: string[] = [];
  const thoughts: string[] = [];
  const sealed: string[] = [];
  for (const item of items) {
    if (item.type === 'reasoning') {
      const r = reasoningMetadata(item);
      if (typeof r.reasoning === 'string') thoughts.push(r.reasoning);
      if (typeof r.encrypted_reasoning === 'string') sealed.push(r.encrypted_reasoning);
      continue;
    }
    const m = messageOf(item, line, findings);
    if (typeof m === 'string') continue;
    said.push(m);
    types.push(String(item.type));
    if (typeof item.phase === 'string') phases.push(item.phase);
  }
  const reasoning = {
    ...(thoughts.length > 0 ? { reasoning: thoughts.join('\n') } : {}),
    ...(sealed.length > 0 ? { encrypted_reasoning: sealed.length === 1 ? sealed[0] : sealed } : {}),
  };
  const one = said.length === 1 ? said[0] : undefined;
  if (one) return Object.keys(reasoning).length > 0 ? withFields(one, { metadata: { ...one.metadata, ...reasoning } }) : one;
  const msg: ChatMessage = withContent({ role: 'assistant' as const }, joinTexts(said.map(messageText).filter((t) => !isEmptyText(t)), '\n'));
  const calls = said.flatMap((m) => m.tool_calls ?? []);
  if (calls.length > 0) msg.tool_calls = calls;
  const parts = said.flatMap((m) => m.content_parts ?? []);
  if (parts.length > 0) msg.content_parts = parts;
  const metadata: Record<string, unknown> = {
    ...(types.length > 1 ? { codex_items: types } : {}),
    ...(phases.length === 1 ? { codex_phase: phases[0] } : phases.length > 1 ? { codex_phase: phases } : {}),
    ...reasoning,
  };
  if (Object.keys(metadata).length > 0) msg.metadata = metadata;
  return msg;
}

/** SHA-256 of a message's content bytes through node:crypto (the portable one took most of a large rollout's import), read by range when large. */
function contentHash(msg: ChatMessage): { hash: string; bytes: number } {
  return measureText(messageText(msg));
}

/** What is wrong with a response item whose fields have the wrong types, or undefined. */
function itemDamage(payload: Record<string, unknown>): string | undefined {
  const t = String(payload.type);
  if (t === 'message' && txt(payload.content) === undefined && !Array.isArray(payload.content)) return `message content is ${payload.content === null ? 'null' : `a ${typeof payload.content}`}, neither a string nor a list of content items`;
  if (/^(function_call|custom_tool_call|local_shell_call)(_output)?$/.test(t) && typeof payload.call_id !== 'string') return `${t} without a string call_id`;
  return undefined;
}

/** Real user prompts, as a legacy compaction keeps them: user messages that are not injected context. */
function isHumanPrompt(m: ChatMessage): boolean {
  return m.role === 'user' && !/^\s*(<|# AGENTS\.md|# Context from my IDE|# Files mentioned)/.test(m.content);
}

/** A compaction run's transcript as a build measured it: the view range it covered, its hash and length. */
export interface MeasuredRun {
  index: number;
  end: number;
  hash: string;
  bytes: number;
}

/**
 * `measured`: each compaction run's transcript by the run's reduction id, kept by a source across
 * builds of its rollout as lines are appended (a followed file is built again at each look). A
 * run's messages are made from the lines before its compaction's only, and those lines never change
 * while lines are appended (a rewritten file is opened again: electron/loader/follow.ts), so a run
 * of the same id over the same range is not hashed again (docs/streaming-import.md "Building the view").
 */
export function buildRollout(lines: readonly RolloutLine[], measured?: Map<string, MeasuredRun>): RolloutIndex {
  const entries: Entry[] = [];
  const log: Reduction[] = [];
  const logLines: number[] = [];
  const modelChanges: ModelChange[] = [];
  const findings: Finding[] = [];
  let sessionId: string | null = null;
  let forkedFrom: string | null = null;
  let system: ChatMessage | undefined;
  const instructions: Instruction[] = [];
  let model: string | null = null;
  let metas = 0;

  // View indices that carry a per-message reduction (a tool-level truncation).
  const truncated = new Set<number>();
  const push = (msg: ChatMessage, item: Record<string, unknown>, line: number): void => {
    entries.push({ msg, items: [item], hidden: false, line });
  };
  /**
   * The model response being read (docs/formats/codex.md): the view index of its one assistant
   * message, whose items grow while output items follow one another; its message is made when
   * the response ends.
   */
  let response: number | undefined;
  /**
   * §15, docs/tokens.md "Recorded usage": a response's `token_count` follows its output items in
   * newer rollouts and precedes them in older ones (0.40: the count, then the items). A count right
   * after output items (events between them aside) is that response's; any other waits for the
   * next response. A count whose totals repeat the one before, or with `info: null`, counts nothing.
   */
  let lastResponse: number | undefined;
  let afterOutput = false;
  let pendingUsage: CallTokens | undefined;
  let lastTotals: string | undefined;
  const countTokens = (payload: Record<string, unknown>): void => {
    const info = payload.info;
    if (!isPlainObject(info) || !isPlainObject(info.last_token_usage)) return;
    const totals = canonicalJson(info.total_token_usage ?? null);
    if (totals === lastTotals) return;
    lastTotals = totals;
    const last = info.last_token_usage;
    const tokens = openAiTokens({ input: last.input_tokens, cached: last.cached_input_tokens, output: last.output_tokens, reasoning: last.reasoning_output_tokens }, tokenCount(info.model_context_window) ?? tableWindow(model));
    if (!tokens) return;
    const counted = afterOutput && lastResponse !== undefined ? (entries[lastResponse] as Entry) : undefined;
    if (counted && !counted.usage) counted.usage = tokens;
    else pendingUsage = tokens;
  };
  const endResponse = (): void => {
    if (response === undefined) return;
    const e = entries[response] as Entry;
    e.msg = responseMessage(e.items ?? [], e.line, findings);
    response = undefined;
  };
  /**
   * An output the tool cut before it was recorded (docs/FORMATS.md §2.10 item 1) becomes a
   * `tool_output_truncated` reduction whose original is not in the file: the recorded cut text is
   * both the message and the stub (kept_bytes 0), so the view shows exactly what the model saw.
   */
  const noteTruncation = (payload: Record<string, unknown>, index: number, line: number): void => {
    if (!OUTPUT_TYPES.includes(String(payload.type))) return;
    const text = messageText((entries[index] as Entry).msg);
    // A large output is read whole only when it holds the words of a cut (toolTruncation's first test).
    const whole = typeof text === 'string' ? text : holdsCutWords(text) ? textString(text) : undefined;
    const cut = whole === undefined ? undefined : toolTruncation(whole);
    if (!cut || whole === undefined) return;
    truncated.add(index);
    log.push({
      id: `codex-L${line}-cut-${index}`,
      kind: 'tool_output_truncated',
      ptr: { index, hash: null, bytes: cut.bytes },
      kept_bytes: 0,
      stub: whole,
      minted_at: index + 1,
      provenance: 'recorded',
      origin: { line },
      stated_size: cut.stated,
    });
    logLines.push(line);
  };

  const compact = (payload: Record<string, unknown>, line: number): void => {
    const message = str(payload.message);
    const history = Array.isArray(payload.replacement_history) ? payload.replacement_history : undefined;
    // A malformed history is said; the compaction is still applied (as a legacy one when it is not a list).
    const damaged = payload.replacement_history !== undefined && payload.replacement_history !== null && (!history || history.some((x) => !isPlainObject(x)));
    if (damaged) findings.push({ code: 'malformed_line', severity: 'error', line, message: `line ${line}: compacted replacement_history is ${history ? 'a list with items that are not objects (skipped)' : 'not a list (read as a legacy compaction)'}` });
    const before = entries.length;
    const kept = new Set<number>();
    // New items and, after the first new one, copies of kept items, in replacement-history order.
    const added: { msg: ChatMessage; first: Record<string, unknown>; items?: Record<string, unknown>[]; from?: number }[] = [];
    let encrypted = false;
    if (history) {
      // The history in order: an item of an earlier view message (its index, the item's place in it), or a new one.
      const steps: ({ entry: number; at: number } | { msg: ChatMessage; item: Record<string, unknown> })[] = [];
      const matched = new Map<number, number[]>();
      let cursor = 0;
      let within = 0;
      for (const item of history) {
        if (!isPlainObject(item)) continue;
        if (item.type === 'compaction' || item.type === 'compaction_summary') {
          encrypted = true;
          continue;
        }
        const key = canonicalKey(item);
        let found = -1;
        let at = -1;
        for (let i = cursor; i < before && found < 0; i++) {
          const e = entries[i] as Entry;
          if (e.hidden || !e.items) continue;
          for (let j = i === cursor ? within : 0; j < e.items.length; j++) {
            if (mayEqual(e.items[j], item) && keyAt(e, j) === key) {
              found = i;
              at = j;
              break;
            }
          }
        }
        if (found >= 0) {
          cursor = found;
          within = at + 1;
          matched.set(found, [...(matched.get(found) ?? []), at]);
          steps.push({ entry: found, at });
          continue;
        }
        const msg = messageOf(item, line, findings);
        if (typeof msg === 'string') continue;
        // The local summary, given to the model as a user message, is the stub, not a message.
        if (message && msg.role === 'user' && textIncludes(messageText(msg), message.trim())) continue;
        steps.push({ msg, item });
      }
      const placed = new Set<number>();
      for (const step of steps) {
        if ('msg' in step) {
          added.push({ msg: step.msg, first: step.item });
          continue;
        }
        if (placed.has(step.entry)) continue;
        placed.add(step.entry);
        const e = entries[step.entry] as Entry;
        const items = e.items ?? [];
        const got = matched.get(step.entry) ?? [];
        if (items.every((item, j) => got.includes(j) || item.type === 'reasoning')) {
          // A kept item after re-injected context sits after it in what the model was given: the view
          // only grows, so it moves there as a copy (its earlier place says where it went).
          if (added.length > 0) added.push({ msg: e.msg, first: items[0] ?? {}, items, from: step.entry });
          kept.add(step.entry);
          continue;
        }
        // Part of one response kept (its final answer without its commentary, say): the model was
        // given those items alone, a message of its own; the response's message is dropped.
        const part = got.map((j) => items[j] as Record<string, unknown>);
        added.push({ msg: responseMessage(part, line, findings), first: part[0] ?? {}, items: part });
      }
      // A moved message that carries a reduction of its own is hidden with the run it sits in (one
      // index holds one per-message reduction); its copy is reduced again where the model saw it.
      for (const a of added) if (a.from !== undefined && truncated.has(a.from)) kept.delete(a.from);
    } else {
      // Legacy compaction (no replacement_history): the writer rebuilt the history from the real user
      // prompts (the most recent up to a token budget) and the summary. Kept here: every real user prompt.
      for (let i = 0; i < before; i++) if (!(entries[i] as Entry).hidden && isHumanPrompt((entries[i] as Entry).msg)) kept.add(i);
    }
    const stub = message.length > 0 ? message : encrypted ? ENCRYPTED_SUMMARY : MISSING_SUMMARY;
    const group = `compaction-L${line}`;
    const moved = new Set(added.flatMap((a) => (a.from !== undefined && kept.has(a.from) ? [a.from] : [])));
    const after = before + added.length;
    let run = 0;
    for (let i = 0; i < before; ) {
      const e = entries[i] as Entry;
      if (e.hidden || kept.has(i)) {
        i++;
        continue;
      }
      let end = i;
      while (end < before && !(entries[end] as Entry).hidden && !kept.has(end)) end++;
      run++;
      const id = `codex-L${line}-${run}`;
      const known = measured?.get(id);
      const { hash, bytes } = known && known.index === i && known.end === end ? known : measureTranscript(entries.slice(i, end).map((x) => x.msg));
      measured?.set(id, { index: i, end, hash, bytes });
      log.push({
        id,
        kind: 'summarized',
        ptr: { index: i, hash, bytes },
        end,
        stub,
        minted_at: before,
        provenance: 'recorded',
        origin: { line },
        group,
        // A local (or legacy) compaction gives the model its summary as a user message; a remote one
        // as an encrypted compaction item, which has no role.
        ...(message.length > 0 ? { summary_role: 'user' as const } : {}),
        hash_origin: 'import',
        original_from: 'the items before the compaction, as the rollout records them',
      });
      logLines.push(line);
      for (let j = i; j < end; j++) (entries[j] as Entry).hidden = true;
      i = end;
    }
    for (const a of added) {
      const at = entries.length;
      // A copy keeps its items: a later compaction may keep it again.
      entries.push({ msg: a.msg, items: a.items, hidden: false, line, copy: true });
      noteTruncation(a.first, at, line);
      if (a.from === undefined || !moved.has(a.from)) continue;
      // The earlier place of a moved message: byte-identical to its copy, which the model saw instead.
      // It belongs to the compaction (its group and stub): the model saw nothing there but what the
      // compaction gave, so it is no row of its own (shared/resolver/project.ts) and never an empty stub.
      const { hash, bytes } = contentHash(a.msg);
      (entries[a.from] as Entry).hidden = true;
      log.push({
        id: `codex-L${line}-moved-${a.from}`,
        kind: 'duplicate_output',
        ptr: { index: a.from, hash, bytes },
        canonical: { index: at, hash },
        stub,
        group,
        minted_at: after,
        provenance: 'recorded',
        origin: { line },
        hash_origin: 'import',
        original_from: 'the item where the rollout records it before the compaction',
      });
      logLines.push(line);
    }
  };

  for (const l of lines) {
    if ('error' in l) {
      if (l.torn) findings.push({ code: 'truncated_last_line', severity: 'warning', line: l.line, message: `line ${l.line}: the last line has no newline and is not a whole record (${l.error}); it is ignored` });
      else findings.push({ code: 'malformed_line', severity: 'error', line: l.line, message: `line ${l.line}: ${l.error}` });
      continue;
    }
    const v = l.value;
    if (l.notUtf8) findings.push({ code: 'malformed_line', severity: 'error', line: l.line, message: `line ${l.line} holds bytes that are not valid UTF-8; they read as U+FFFD` });
    if (l.deep) findings.push({ code: 'malformed_line', severity: 'error', line: l.line, message: depthCutMessage(`line ${l.line}`, l.deep) });
    for (const c of l.cut ?? []) findings.push({ code: 'value_too_large', severity: 'warning', line: l.line, message: cutValueMessage(l.line, c) });
    if (!isPlainObject(v) || typeof v.type !== 'string') {
      findings.push({ code: 'malformed_line', severity: 'error', line: l.line, message: `line ${l.line}: not a rollout record (an object with a string "type")` });
      continue;
    }
    const payload = v.payload;
    if (!ROLLOUT_TYPES.includes(v.type)) {
      if (!QUIET_TYPES.includes(v.type)) findings.push({ code: 'unknown_record', severity: 'warning', line: l.line, message: `line ${l.line}: unknown rollout record type ${JSON.stringify(v.type)}; skipped` });
      continue;
    }
    if (!isPlainObject(payload)) {
      findings.push({ code: 'malformed_line', severity: 'error', line: l.line, message: `line ${l.line}: ${v.type} record without an object payload` });
      continue;
    }
    switch (v.type) {
      case 'session_meta': {
        endResponse();
        afterOutput = false;
        metas++;
        // A forked rollout starts with the child's session_meta, then its parent's: the first names the session.
        if (metas > 1) break;
        sessionId = typeof payload.id === 'string' ? payload.id : null;
        forkedFrom = typeof payload.forked_from_id === 'string' ? payload.forked_from_id : typeof payload.parent_thread_id === 'string' ? payload.parent_thread_id : null;
        const base = isPlainObject(payload.base_instructions) ? str(payload.base_instructions.text) : str(payload.instructions);
        if (base) {
          system = { role: 'system', content: base };
          // The request's own instructions, from this record on (docs/formats/codex.md).
          instructions.push({ source: 'codex_base_instructions', placement: 'instructions', index: 0, line: l.line, text: base });
        }
        break;
      }
      case 'turn_context': {
        endResponse();
        afterOutput = false;
        const m = str(payload.model);
        if (!m) break;
        if (model !== null && m !== model) modelChanges.push({ line: l.line, at: entries.length, from: model, to: m, reasoning_artifacts_filtered: 0, recount: 0 });
        model = m;
        break;
      }
      case 'response_item': {
        const damage = itemDamage(payload);
        if (damage !== undefined) findings.push({ code: 'malformed_line', severity: 'error', line: l.line, message: `line ${l.line}: ${damage}` });
        if (isResponseOutput(payload)) {
          // One model response, one assistant message: its output items join the one being read.
          if (response === undefined) {
            entries.push({ msg: { role: 'assistant', content: '' }, items: [], hidden: false, line: l.line, ...(pendingUsage ? { usage: pendingUsage } : {}) });
            response = entries.length - 1;
            lastResponse = response;
            pendingUsage = undefined;
          }
          afterOutput = true;
          (entries[response] as Entry).items?.push(payload);
          break;
        }
        if (payload.type === 'ghost_snapshot') break;
        afterOutput = false;
        const msg = messageOf(payload, l.line, findings);
        // An input item (an output, a user or developer message): the response before it has ended.
        if (msg !== 'unknown') endResponse();
        if (msg === 'unknown') findings.push({ code: 'unknown_record', severity: 'warning', line: l.line, message: `line ${l.line}: unknown response item type ${JSON.stringify(payload.type)}; skipped` });
        else if (msg !== 'skip') {
          push(msg, payload, l.line);
          noteTruncation(payload, entries.length - 1, l.line);
        }
        break;
      }
      case 'compacted':
        endResponse();
        afterOutput = false;
        compact(payload, l.line);
        break;
      case 'event_msg':
        // The UI's copy of items already recorded as response items (or usage and timing): not model
        // input. A token count follows each response; a turn's start or end is between two.
        if (RESPONSE_BOUNDARY_EVENTS.includes(String(payload.type))) endResponse();
        if (payload.type === 'token_count') countTokens(payload);
        break;
    }
  }
  endResponse();
  // An assistant message made at a compaction was produced by no model call there: no line, no call (shared/calls/calls.ts callsOf).
  const messageLines = entries.map((e) => (e.copy && e.msg.role === 'assistant' ? undefined : e.line));
  const usage = new Map<number, CallTokens>();
  entries.forEach((e, i) => {
    const line = messageLines[i];
    if (e.usage && line !== undefined && e.msg.role === 'assistant') usage.set(line, e.usage);
  });
  // §15: a compaction's context before and after, from the calls either side (a rollout records neither).
  for (const r of log) if (r.kind === 'summarized' && r.origin && 'line' in r.origin) Object.assign(r, compactionTokens(r.origin.line, usage));
  return {
    sessionId,
    model,
    forkedFrom,
    system,
    instructions,
    view: entries.map((e) => e.msg),
    messageLines,
    log,
    logLines,
    modelChanges,
    findings,
    usage,
  };
}
