/**
 * The model of an exported session document (SPEC §16 `export --as markdown|html`), apart from
 * how it is written (markdown.ts, html.ts). One section per model call N: the context reduced
 * since call N−1 (each reduction with the bytes it hides, what the model was shown instead and the
 * original), the messages new in call N's input since call N−1's response — as call N was given
 * them — and the response of call N. Each message thus appears once, in the first call that saw
 * it; a reduction appears at the first call it applied to. What follows the last call (messages the
 * next call would be given, reductions logged after it) is a last section.
 *
 * Bounded: every text (a message, an original, a tool call's arguments) is cut at `capBytes`
 * (DOCUMENT_TEXT_CAP_BYTES by default) and says its whole size. Reading stops a margin past the
 * cap, so `transform` (redaction) runs over a little more than is kept: a secret that straddles the
 * cut is found whole before the cut is made.
 *
 * Pure: the source is the session's own interface (a LoadedSession satisfies it).
 */
import { diffCallInputs, viewEntries, type CallInput, type ModelCall, type ViewEntry } from '../calls/calls';
import { inSource } from '../calls/whatIf';
import { floorSourceBoundary } from '../format/bytes';
import type { ByteSource, ExpandOutcome, MessageList, ReductionKind, Result, Role, ToolCall } from '../format/types';
import { ContentUnavailableError } from '../format/types';
import { floorCharBoundary, utf8Decode, utf8Encode, utf8Length } from '../format/utf8';
import type { TokenEstimate } from '../tokens/estimate';

/** Each text of a document is cut at this many UTF-8 bytes (docs/export-documents.md). */
export const DOCUMENT_TEXT_CAP_BYTES = 64 * 1024;
/** Read past the cap, so that redaction sees a secret cut by it whole. */
const READ_MARGIN_BYTES = 8 * 1024;

/** What a session offers a document (LoadedSession's members of those names). */
export interface DocumentSource {
  readonly calls: readonly ModelCall[];
  readonly minted: MessageList;
  callInput(call: number | null): CallInput | undefined;
  expand(id: string, range?: [number, number], call?: number | null): Result<ExpandOutcome, { code: string; message: string }>;
  /** The usage the file recorded for a call (SPEC §15, LoadedSession.callTokens); absent or undefined: none recorded. */
  callTokens?(call: number): { context: number } | undefined;
  /** SPEC §15: the estimated context of a call's input (for a call with no recorded usage); absent: not estimated. */
  contextEstimate?(call: number): TokenEstimate | undefined;
  /** SPEC §15 `hidden_tokens_est`: the estimate of what a reduction hides; null or undefined where it cannot be counted. */
  hiddenTokens?(reductionId: string): TokenEstimate | null | undefined;
}

/** A text of the session as the document holds it. */
export interface DocText {
  /** Transformed (redacted) and cut at the cap. */
  text: string;
  /** UTF-8 bytes of the whole text as the session holds it (before redaction). */
  bytes: number;
  /** True when `text` stops at the cap. */
  cut: boolean;
}

export interface DocToolCall {
  id: DocText;
  name: DocText;
  arguments: DocText;
}

export interface DocMessage {
  /** View index (a cleared or summarized range's start). */
  index: number;
  /** null: a range's stub (several messages), or a hole. */
  role: Role | null;
  content: DocText;
  tool_call_id?: DocText;
  /** The name of the tool call a tool result answers, when an earlier message names it. */
  tool_name?: DocText;
  tool_calls?: DocToolCall[];
  /** Ids of the reductions that shape what the model was shown here. */
  reductions: DocText[];
  /** A compaction's summary kept as the message it was (ViewEntry.compact_summary): the writers say so (compactSummaryNote). */
  compact_summary?: true;
}

export interface DocReduction {
  id: DocText;
  kind: ReductionKind;
  index: number;
  /** A range's end (exclusive): turns_cleared, summarized. */
  end?: number;
  /** As the reduction states them where it applies; null when it states none. */
  hidden_bytes: number | null;
  /** The tokens it hides, estimated (SPEC §15 `hidden_tokens_est`); null where they cannot be counted (an original not held). */
  hidden_tokens: TokenEstimate | null;
  /** What the model was shown at the address instead (stub, summary, kept prefix and stub). */
  shown: DocText | null;
  /** The original, or why it cannot be shown. */
  original: DocText | { unavailable: string };
}

export interface DocRestored {
  id: DocText;
  kind: ReductionKind;
  index: number;
  end?: number;
  by?: 'inverted' | 'rewound';
}

export interface DocSection {
  /** The model call, or null for what follows the last call. */
  call: number | null;
  /** The call's context in tokens as the file recorded it (SPEC §15); null where it records none. */
  tokens: number | null;
  /** Where the file records none: the estimate of the call's input; else null. */
  tokens_est: TokenEstimate | null;
  reduced: DocReduction[];
  restored: DocRestored[];
  /** New in this input since the previous call's response, as this call was given them. */
  messages: DocMessage[];
  /** The assistant message this call produced (absent for the section after the last call). */
  response?: DocMessage;
}

/** What a document says before its sections. */
export interface DocumentHead {
  title: DocText | null;
  format: string;
  files: DocText[];
  /** Model calls of the session. */
  calls: number;
  /** The calls the document covers, inclusive; null when it covers none. */
  range: [number, number] | null;
  capBytes: number;
  redacted: boolean;
}

export interface SessionDocument extends DocumentHead {
  sections: DocSection[];
}

export interface DocumentOptions {
  format: string;
  files: readonly string[];
  title?: string | null;
  /** Inclusive; default every call. The section after the last call is included when `to` is the last call. */
  range?: [number, number];
  /** Applied to every text of the session before it is cut (redaction). */
  transform?: (text: string) => string;
  redacted?: boolean;
  capBytes?: number;
}

/** What a document is handed to as it is made (writeDocument): its head, then each section; either answering false stops it. */
export interface DocumentVisitor {
  head(head: DocumentHead): boolean | void;
  section(section: DocSection): boolean | void;
}

/** A document's text made as the document is (markdown.ts, html.ts): `end` after the last section. */
export interface DocumentWriter {
  head(head: DocumentHead): void;
  section(section: DocSection): void;
  end(): void;
}

/** A whole document's text as `writerOf`'s writer makes it (markdownWriter, htmlWriter), its pieces joined. */
export function documentText(doc: SessionDocument, writerOf: (write: (piece: string) => void) => DocumentWriter): string {
  const pieces: string[] = [];
  const writer = writerOf((piece) => pieces.push(piece));
  writer.head(doc);
  for (const s of doc.sections) writer.section(s);
  writer.end();
  return pieces.join('');
}

/** Why a `--calls` range is not one of the session's. */
export class CallRangeError extends Error {}

const EMPTY_INPUT: CallInput = { minted: { length: 0, at: () => undefined }, log: [] };

class Texts {
  constructor(
    private readonly transform: (text: string) => string,
    readonly cap: number,
  ) {}

  /**
   * `head` (the first bytes of a text of `bytes` bytes, or all of it) transformed, then cut at the
   * cap. Untransformed, the head's size is its encoding's, not counted again.
   */
  of(head: string, bytes?: number): DocText {
    const text = this.transform(head);
    const encoded = utf8Encode(text);
    const headBytes = text === head ? encoded.length : utf8Length(head);
    const whole = bytes ?? headBytes;
    if (encoded.length <= this.cap && headBytes >= whole) return { text, bytes: whole, cut: false };
    return { text: utf8Decode(encoded.subarray(0, floorCharBoundary(encoded, Math.min(this.cap, encoded.length)))), bytes: whole, cut: true };
  }

  /** A text held as a byte source, read only to the cap and its margin. */
  ofSource(source: ByteSource): DocText {
    const end = floorSourceBoundary(source, Math.min(source.length, this.cap + READ_MARGIN_BYTES));
    return this.of(utf8Decode(source.read(0, end)), source.length);
  }

  /** A short string of the session (an id, a name): transformed, cut the same way. */
  name(value: string): DocText {
    return this.of(value);
  }
}

function checkRange(range: [number, number] | undefined, calls: number): [number, number] | null {
  if (!range) return calls === 0 ? null : [1, calls];
  const [from, to] = range;
  if (calls === 0) throw new CallRangeError(`the session has no model calls: leave out --calls`);
  if (from < 1 || to < from || to > calls) throw new CallRangeError(`--calls ${from}:${to} is not a range of the session's model calls, 1 to ${calls}`);
  return [from, to];
}

/** The names of tool calls by id, over the minted view's first `end` messages. */
function toolNames(minted: MessageList, end: number): Map<string, string> {
  const names = new Map<string, string>();
  for (let i = 0; i < end; i++) {
    let calls: ToolCall[] | undefined;
    try {
      calls = minted.at(i)?.tool_calls;
    } catch (e) {
      if (e instanceof ContentUnavailableError) continue;
      throw e;
    }
    for (const c of calls ?? []) names.set(c.id, c.name);
  }
  return names;
}

/** The whole document at once: its sections collected (a short session's, a test's). */
export function buildDocument(source: DocumentSource, options: DocumentOptions): SessionDocument {
  let made: DocumentHead | undefined;
  const sections: DocSection[] = [];
  writeDocument(source, options, {
    head: (head) => {
      made = head;
    },
    section: (section) => {
      sections.push(section);
    },
  });
  return { ...(made as DocumentHead), sections };
}

/**
 * The document handed to `visitor` as it is made: its head, then one section at a time, so a long
 * session's is never held whole. Returns false when the visitor stopped it. Throws
 * CallRangeError for a range that is none of the session's, before anything is handed over.
 */
export function writeDocument(source: DocumentSource, options: DocumentOptions, visitor: DocumentVisitor): boolean {
  const texts = new Texts(options.transform ?? ((t) => t), options.capBytes ?? DOCUMENT_TEXT_CAP_BYTES);
  const calls = source.calls;
  const range = checkRange(options.range, calls.length);
  const going = visitor.head({
    title: options.title ? texts.name(options.title) : null,
    format: options.format,
    files: options.files.map((f) => texts.name(f)),
    calls: calls.length,
    range,
    capBytes: texts.cap,
    redacted: options.redacted ?? false,
  });
  if (going === false) return false;
  const hand = (section: DocSection): boolean => visitor.section(section) !== false;
  const latest = source.callInput(null) ?? EMPTY_INPUT;
  const names = toolNames(source.minted, latest.minted.length);
  const message = (entry: ViewEntry, input: CallInput): DocMessage => entryMessage(entry, input, texts, names);
  if (range) {
    let previous = range[0] > 1 ? (source.callInput(range[0] - 1) ?? EMPTY_INPUT) : EMPTY_INPUT;
    for (let n = range[0]; n <= range[1]; n++) {
      const call = calls[n - 1] as ModelCall;
      const input = source.callInput(n) ?? EMPTY_INPUT;
      const after = n > 1 ? (calls[n - 2] as ModelCall).index : -1;
      const tokens = source.callTokens?.(n)?.context ?? null;
      const estimate = tokens === null ? source.contextEstimate?.(n) : undefined;
      if (!hand({ ...changes(source, texts, previous, input, n, after, message), tokens, tokens_est: estimate ?? null, call: n, response: responseOf(source.minted, call.index, texts) })) return false;
      previous = input;
    }
  }
  if (!range || range[1] === calls.length) {
    const last = calls[calls.length - 1];
    const previous = last ? (source.callInput(last.call) ?? EMPTY_INPUT) : EMPTY_INPUT;
    const section = { ...changes(source, texts, previous, latest, null, last ? last.index : -1, message), tokens: null, tokens_est: null, call: null };
    if (section.messages.length > 0 || section.reduced.length > 0 || section.restored.length > 0) return hand(section);
  }
  return true;
}

/** What input `input` holds that `previous` did not: reductions applied and lifted, messages past `after`. */
function changes(
  source: DocumentSource,
  texts: Texts,
  previous: CallInput,
  input: CallInput,
  call: number | null,
  after: number,
  message: (entry: ViewEntry, input: CallInput) => DocMessage,
): Pick<DocSection, 'reduced' | 'restored' | 'messages'> {
  const entries = viewEntries(input);
  const diff = diffCallInputs(previous, input);
  // The entry each reduction shapes (the first, for an id minted twice): one pass, not one per reduction.
  const shownBy = new Map<string, ViewEntry>();
  for (const e of entries) for (const id of e.reductions) if (!shownBy.has(id)) shownBy.set(id, e);
  const reduced = diff.reduced.map((r): DocReduction => {
    const shown = shownBy.get(r.reduction_id);
    return {
      id: texts.name(r.reduction_id),
      kind: r.kind,
      index: r.index,
      ...(r.end !== undefined ? { end: r.end } : {}),
      hidden_bytes: r.hidden_bytes,
      hidden_tokens: source.hiddenTokens?.(r.reduction_id) ?? null,
      shown: shown ? message(shown, input).content : null,
      original: originalOf(source, texts, r.reduction_id, call),
    };
  });
  const restored = diff.restored.map((r): DocRestored => ({ id: texts.name(r.reduction_id), kind: r.kind, index: r.index, ...(r.end !== undefined ? { end: r.end } : {}), ...(r.by ? { by: r.by } : {}) }));
  const messages = entries.filter((e) => e.index > after).map((e) => message(e, input));
  return { reduced, restored, messages };
}

function originalOf(source: DocumentSource, texts: Texts, id: string, call: number | null): DocText | { unavailable: string } {
  const outcome = source.expand(id, [0, texts.cap + READ_MARGIN_BYTES], call);
  if (!outcome.ok) return { unavailable: texts.name(outcome.error.message).text };
  return texts.of(outcome.value.content, outcome.value.total_bytes);
}

function entryMessage(entry: ViewEntry, input: CallInput, texts: Texts, names: ReadonlyMap<string, string>): DocMessage {
  const whole = inSource(entry, input.minted);
  const name = entry.tool_call_id !== undefined ? names.get(entry.tool_call_id) : undefined;
  return {
    index: entry.index,
    role: entry.role,
    content: whole ? texts.ofSource(whole) : texts.of(entry.content),
    ...(entry.tool_call_id !== undefined ? { tool_call_id: texts.name(entry.tool_call_id) } : {}),
    ...(name !== undefined ? { tool_name: texts.name(name) } : {}),
    ...(entry.tool_calls ? { tool_calls: entry.tool_calls.map((c) => toolCall(c, texts)) } : {}),
    reductions: entry.reductions.map((id) => texts.name(id)),
    ...(entry.compact_summary === true ? { compact_summary: true as const } : {}),
  };
}

function toolCall(c: ToolCall, texts: Texts): DocToolCall {
  return { id: texts.name(c.id), name: texts.name(c.name), arguments: texts.of(c.arguments) };
}

/** The assistant message call `index` produced, whole as it was written (no reduction applies to a response). */
function responseOf(minted: MessageList, index: number, texts: Texts): DocMessage {
  try {
    const m = minted.at(index);
    if (!m) return { index, role: null, content: texts.of('(this message could not be read from the file)'), reductions: [] };
    return {
      index,
      role: m.role,
      content: m.large ? texts.ofSource(m.large) : texts.of(m.content),
      ...(m.tool_calls ? { tool_calls: m.tool_calls.map((c) => toolCall(c, texts)) } : {}),
      reductions: [],
    };
  } catch (e) {
    if (!(e instanceof ContentUnavailableError)) throw e;
    return { index, role: 'assistant', content: texts.of(`(content unavailable: ${e.message})`), reductions: [] };
  }
}

// ---------------------------------------------------------------------------------------------
// The words both writers use (markdown.ts, html.ts), so the two documents say the same.

/** `1234567` as `1,234,567`. */
export function groupDigits(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function bytesWords(n: number): string {
  return `${groupDigits(n)} ${n === 1 ? 'byte' : 'bytes'}`;
}

/** `message 17`, or `messages 0–16` for a range `[index, end)`. */
export function placeWords(index: number, end?: number): string {
  return end !== undefined && end > index + 1 ? `messages ${index}–${end - 1}` : `message ${index}`;
}

/** `1,234 tokens est.` (approximate for a Claude model, sampled for a huge text: said). */
export function estimateWords(e: TokenEstimate): string {
  const marks = [e.approximate ? 'approximate' : '', e.sampled ? 'sampled' : ''].filter((m) => m !== '');
  return `${groupDigits(e.tokens)} ${e.tokens === 1 ? 'token' : 'tokens'} est.${marks.length > 0 ? ` (${marks.join(', ')})` : ''}`;
}

/** What a reduction hides: bytes, and tokens (estimated) where the session counts them. */
export function hiddenWords(r: Pick<DocReduction, 'hidden_bytes' | 'hidden_tokens'>): string {
  const bytes = r.hidden_bytes === null ? 'hides bytes the file does not state' : `hides ${bytesWords(r.hidden_bytes)}`;
  return r.hidden_tokens === null ? bytes : `${bytes}, ${estimateWords(r.hidden_tokens)}`;
}

/** A section's context line: the recorded figure, else the estimate; empty when neither is known. */
export function contextWords(s: Pick<DocSection, 'tokens' | 'tokens_est'>): string {
  if (s.tokens !== null) return `Context: ${groupDigits(s.tokens)} tokens (recorded).`;
  return s.tokens_est ? `Context: ${estimateWords(s.tokens_est)} (the file records no usage for this call).` : '';
}

/** The note under a text cut at the cap; empty for a whole one. */
export function cutWords(t: DocText, capBytes: number): string {
  return t.cut ? `Cut at ${bytesWords(capBytes)}: the whole text is ${bytesWords(t.bytes)}.` : '';
}

export function sectionTitle(s: DocSection): string {
  return s.call === null ? 'After the last call' : `Call ${s.call}`;
}

/** The lines of the document's preamble that are not session content. */
export function aboutWords(doc: DocumentHead): string[] {
  const covered = doc.range ? (doc.range[0] === 1 && doc.range[1] === doc.calls ? 'all of them' : `calls ${doc.range[0]} to ${doc.range[1]}`) : 'none';
  return [
    `Model calls: ${groupDigits(doc.calls)} (this document: ${covered}).`,
    'Each call shows the context reduced since the previous call, the messages new in its input since the previous call’s response (as the model was given them), and its response.',
    `Texts longer than ${bytesWords(doc.capBytes)} are cut, with their whole size.`,
    ...(doc.redacted ? ['Redacted: every secret found is replaced by [REDACTED:kind].'] : []),
  ];
}
