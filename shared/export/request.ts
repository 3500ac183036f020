/**
 * SPEC §16 `export --call N --as PROVIDER`: what the three provider bodies share (docs/export.md,
 * "Provider requests"). A call's input is read from the session as `view --at N` shows it (stubs
 * and summaries in place; `expanded`: the same call without its reductions), then made into a
 * list of turns where every tool call is followed by its result — the rule all three APIs hold a
 * request to. What the providers' files do not record is named, never invented, except the one
 * thing an API cannot take without: a result for each tool call (a placeholder, named in `adjusted`).
 */
import type { CallInput } from '../calls/calls';
import { viewEntries } from '../calls/calls';
import { inSource } from '../calls/whatIf';
import type { SessionFormat } from '../fileFormats';
import { SESSION_FORMAT_OF_FILE } from '../fileFormats';
import type { ContentPart, Role, ToolCall } from '../format/types';
import { utf8Decode } from '../format/utf8';
import type { LoadedSession } from '../resolver/session';

import type { Provider } from './providers';

export { PROVIDERS, isProvider } from './providers';
export type { Provider } from './providers';

/** An image as recorded: inline bytes (base64) or a URL. */
export type ImageRef = { media_type: string; data: string } | { url: string };

/** A piece of a message's content in order: text, or an image. */
export type Piece = { text: string } | { image: ImageRef };

/** One message of a call's input, as the model was given it. */
export interface InputMessage {
  /** Its `view` index (a cleared or summarized range: the range's start). */
  index: number;
  /** null for a cleared or summarized range's one entry (given as a user message) and a hole. */
  role: Role | null;
  /** The content in order; the text alone when the message was shown reduced. */
  pieces: Piece[];
  tool_call_id?: string;
  tool_calls?: ToolCall[];
  /** Thinking with the signature the provider must get back unmodified (Claude Code). */
  thinking?: { text: string; signature: string };
  is_error?: boolean;
}

/** A call's input with what the request needs around it. */
export interface ExportInput {
  format: SessionFormat;
  call: number;
  calls: number;
  model: string | null;
  expanded: boolean;
  messages: InputMessage[];
  /** Text given in the request's own instructions / system field (Codex's base instructions, a sidecar's system prompt). */
  instructions: string[];
  /** What the session holds that the body leaves out (attachments given outside the messages…). */
  left_out: string[];
}

/** What `export` prints under `--with-notes` (SPEC §16). */
export interface ProviderExport {
  request: Record<string, unknown>;
  not_recorded: string[];
  /** Where the body differs from the recorded input so that the API takes it (a placeholder result…); absent when nowhere. */
  adjusted?: string[];
  /** What the reader should know of where the body comes from (a recorded request exported as is, or why it was not). */
  notes?: string[];
  /**
   * `body`: `recorded` when the file records the request as sent and it is exported as is
   * (Inspect's `ModelEvent.call.request`, docs/export.md "Recorded requests"), else `converted`
   * from the call's input.
   */
  source: { format: SessionFormat; call: number; calls: number; provider: Provider; expanded: boolean; body: 'recorded' | 'converted' };
}

/** The provider each agent speaks (docs/export.md): a native session's by its model's name. */
export function defaultProvider(format: SessionFormat, model: string | null): Provider {
  switch (format) {
    case 'claude-code':
      return 'anthropic';
    case 'codex':
      return 'openai-responses';
    case 'supercode':
      return model !== null && /claude|anthropic/i.test(model) ? 'anthropic' : 'openai-chat';
    default:
      return 'openai-chat';
  }
}

/** The model at view index `index`: the last switch before it, else the first switch's `from`, else the session's. */
function modelAt(session: LoadedSession, index: number): string | null {
  let model: string | null = null;
  for (const change of session.modelChanges) {
    if (change.at <= index) model = change.to;
    else {
      model ??= change.from;
      break;
    }
  }
  return model ?? (session.model !== null && session.model !== '' ? session.model : null);
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A data: URL's media type and base64 data. */
function dataUrl(url: string): ImageRef {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return m ? { media_type: m[1] as string, data: m[2] as string } : { url };
}

/**
 * An image part in any shape the importers keep (Anthropic's `image` block, OpenAI's
 * `input_image` / `image_url`, Inspect's `image`), or undefined for a part that is no image.
 */
export function imageOf(part: ContentPart): ImageRef | undefined {
  if (part.type === 'image' && isObj(part.source)) {
    const s = part.source;
    if (s.type === 'base64' && typeof s.media_type === 'string' && typeof s.data === 'string') return { media_type: s.media_type, data: s.data };
    if (s.type === 'url' && typeof s.url === 'string') return { url: s.url };
    return undefined;
  }
  if (part.type === 'image' && typeof part.image === 'string') return dataUrl(part.image);
  if (part.type === 'input_image' && typeof part.image_url === 'string') return dataUrl(part.image_url);
  if (part.type === 'image_url') {
    const u = isObj(part.image_url) ? part.image_url.url : part.image_url;
    if (typeof u === 'string') return dataUrl(u);
  }
  return undefined;
}

const TEXT_TYPES: readonly string[] = ['text', 'input_text', 'output_text'];

/** A part that holds text of the message (a piece of its own in `piecesOf`). */
const isTextPart = (p: ContentPart): p is ContentPart & { text: string } => TEXT_TYPES.includes(p.type) && typeof p.text === 'string';

/** A message's pieces: its parts in order when they hold its text, else its text then its images. */
function piecesOf(content: string, parts: readonly ContentPart[] | undefined, where: string, leftOut: string[]): Piece[] {
  const pieces: Piece[] = [];
  const textInParts = parts?.some(isTextPart) ?? false;
  if (!textInParts && content !== '') pieces.push({ text: content });
  for (const p of parts ?? []) {
    if (isTextPart(p)) {
      if (textInParts && p.text !== '') pieces.push({ text: p.text });
      continue;
    }
    const image = imageOf(p);
    if (image) pieces.push({ image });
    else leftOut.push(`a content part of type ${JSON.stringify(p.type)} in ${where} (no place for it in the request)`);
  }
  return pieces;
}

/**
 * UTF-8 bytes that the body of call `call`'s expanded export holds at least, from lengths alone
 * (nothing read or decoded), or undefined for a number that is no call. Every message of the
 * expanded view is in the body with its whole text (`piecesOf`: its text parts, or its content),
 * each as a JSON string at least as long as the text's UTF-8; a content held in the file counts its
 * bytes, a text held in memory its UTF-16 length, which its UTF-8 never falls below. What lets the
 * app refuse a body past its limit before building it (docs/export.md "Written in pieces").
 */
export function expandedBytesAtLeast(session: LoadedSession, call: number): number | undefined {
  const given = session.callInput(call);
  if (!given) return undefined;
  let bytes = 0;
  for (let i = 0; i < given.minted.length; i++) {
    const m = given.minted.at(i);
    if (!m) continue;
    const parts = m.content_parts?.filter(isTextPart) ?? [];
    if (parts.length > 0) for (const p of parts) bytes += p.text.length;
    else bytes += m.large ? m.large.length : m.content.length;
  }
  return bytes;
}

/** The input of call `call` (1-based) as the export reads it; undefined for a number that is no call. */
export function exportInput(session: LoadedSession, call: number, expanded: boolean): ExportInput | undefined {
  const given = session.callInput(call);
  const at = session.calls[call - 1];
  if (!given || !at) return undefined;
  const input: CallInput = expanded ? { minted: given.minted, log: [] } : given;
  const file = session.files[0];
  const format = file ? SESSION_FORMAT_OF_FILE[file.format] : 'supercode';
  const leftOut: string[] = [];
  const messages: InputMessage[] = viewEntries(input).map((e) => {
    const msg = input.minted.at(e.index);
    const whole = e.reductions.length === 0;
    const source = inSource(e, input.minted);
    const text = source ? utf8Decode(source.read(0, source.length)) : e.content;
    const where = `message ${e.index}`;
    const m: InputMessage = { index: e.index, role: e.role, pieces: whole ? piecesOf(text, msg?.content_parts, where, leftOut) : text === '' ? [] : [{ text }] };
    if (e.tool_call_id !== undefined) m.tool_call_id = e.tool_call_id;
    if (e.tool_calls !== undefined) m.tool_calls = e.tool_calls;
    const meta = msg?.metadata;
    if (whole && meta) {
      if (typeof meta.thinking === 'string' && typeof meta.thinking_signature === 'string' && !meta.thinking_signature.includes('\n')) m.thinking = { text: meta.thinking, signature: meta.thinking_signature };
      else if (typeof meta.thinking === 'string' || typeof meta.reasoning === 'string' || typeof meta.encrypted_reasoning === 'string') leftOut.push(`the reasoning of ${where} (recorded without what the provider needs to take it back)`);
      if (meta.is_error === true) m.is_error = true;
    }
    return m;
  });
  const instructions: string[] = [];
  const system = session.system();
  // A sidecar's system prompt is history[0]; the view holds it already when the minted view starts with it.
  if (system && input.minted.at(0)?.role !== 'system') instructions.push(system.content);
  let attachments = 0;
  for (const ins of session.instructionsAt(call) ?? []) {
    if (ins.placement === 'instructions') instructions.push(ins.text);
    else attachments++;
  }
  if (attachments > 0) leftOut.push(`${attachments} attachment${attachments === 1 ? '' : 's'} given outside the recorded messages (view --at ${call} lists them under "instructions")`);
  return { format, call, calls: session.calls.length, model: modelAt(session, at.index), expanded, messages, instructions, left_out: leftOut };
}

// ---------------------------------------------------------------------------------------------
// Turns: the input with every tool call followed by its result

/** One turn of a request, provider-neutral. */
export type Turn =
  | { kind: 'system'; index: number; text: string }
  | { kind: 'user'; index: number; pieces: Piece[] }
  | { kind: 'assistant'; index: number; pieces: Piece[]; calls: ToolCall[]; thinking?: { text: string; signature: string } }
  | { kind: 'result'; index: number; id: string; pieces: Piece[]; is_error?: boolean; placeholder?: boolean };

/** The text a placeholder result holds: the file records no result for the call. */
export const NO_RESULT_RECORDED = '(no result recorded)';

/**
 * The input as turns in which every tool call is followed (after its call's other results) by
 * exactly one result of its id, and every result follows its call: a call with no result before
 * the next message gets a placeholder result; a result whose call is not pending (its call was
 * cleared, or answered already) is given as a user message. Both are named in `adjusted`.
 */
export function pairedTurns(messages: readonly InputMessage[], adjusted: string[]): Turn[] {
  const turns: Turn[] = [];
  let pending: string[] = [];
  const flush = (): void => {
    for (const id of pending) {
      turns.push({ kind: 'result', index: -1, id, pieces: [{ text: NO_RESULT_RECORDED }], placeholder: true });
      adjusted.push(`tool call ${id} has no recorded result: a result reading ${JSON.stringify(NO_RESULT_RECORDED)} stands in its place`);
    }
    pending = [];
  };
  for (const m of messages) {
    if (m.role === 'tool') {
      const id = m.tool_call_id ?? '';
      const k = pending.indexOf(id);
      if (k !== -1) {
        pending.splice(k, 1);
        turns.push({ kind: 'result', index: m.index, id, pieces: m.pieces, ...(m.is_error ? { is_error: true } : {}) });
        continue;
      }
      flush();
      adjusted.push(`the tool result at message ${m.index} (${JSON.stringify(id)}) follows no pending call of its id: given as a user message`);
      turns.push({ kind: 'user', index: m.index, pieces: m.pieces });
      continue;
    }
    flush();
    if (m.role === 'assistant') {
      const calls = m.tool_calls ?? [];
      turns.push({ kind: 'assistant', index: m.index, pieces: m.pieces, calls, ...(m.thinking ? { thinking: m.thinking } : {}) });
      // A repeated id is answered once.
      pending = [...new Set(calls.map((c) => c.id))];
    } else if (m.role === 'system') turns.push({ kind: 'system', index: m.index, text: textOf(m.pieces) });
    else turns.push({ kind: 'user', index: m.index, pieces: m.pieces });
  }
  flush();
  return turns;
}

/** The text pieces joined (a system message has no images). */
export function textOf(pieces: readonly Piece[]): string {
  return pieces.flatMap((p) => ('text' in p ? [p.text] : [])).join('\n');
}

/** Tool arguments as an object (Anthropic's `input`): the JSON when it is an object, else `{"input": text}`, named in `adjusted`. */
export function argumentsObject(call: ToolCall, adjusted: string[]): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(call.arguments);
    if (isObj(v)) return v;
  } catch {
    // not JSON: kept whole below
  }
  adjusted.push(`tool call ${call.id}'s arguments are not a JSON object: given as {"input": <the text>}`);
  return { input: call.arguments };
}

/** What no agent's file records and every request may carry (sampling, tool schemas). */
export const NEVER_RECORDED = ['tools (the tool schemas)', 'tool_choice', 'sampling parameters (temperature, top_p, stop sequences)'];
