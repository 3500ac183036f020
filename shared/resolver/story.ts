/**
 * What the model saw inside an expanded reduction, computed once by the host so
 * the renderer never parses or measures text: the hidden span(s) of the original (§3.5, §5.2), the
 * message boundaries of a cleared or summarized range's transcript (§3.5's layout), where a row's
 * stub stands in its text, and where a search match inside a range lands in its transcript. Pure.
 */
import { findReduction, hiddenSpan, resolveMessage, resolveOriginal, transcriptHeader, unknownReduction, withContent, addressedRange } from './original';
import type { ResolvedMessage } from './original';
import { expandReduction } from './expand';
import type { ChatMessage, ExpandOutcome, MessageList, Reduction, Result, Role } from '../format/types';
import { err, isRangeKind, ok } from '../format/types';
import { REDUCTION_SENTINEL } from '../format/constants';
import { utf8Length } from '../format/utf8';

/** One message of a range's transcript: `[start, content_start)` is its header, `[content_start, end)` its content and closing newline. */
export interface TranscriptBoundary {
  index: number;
  role: Role;
  tool_call_id?: string;
  /** Byte offset of the header `⟨role[ id]⟩\n` in the transcript. */
  start: number;
  /** Byte offset of the message's content. */
  content_start: number;
  /** Byte offset just past the message's closing `\n` (the next message's `start`). */
  end: number;
}

/**
 * The boundaries of each message in `transcriptOf(messages)`: consecutive, starting at 0 and
 * ending at the transcript's length (they tile it exactly). `contentBytes` is each content's
 * UTF-8 length (a large message's content is not in memory).
 */
export function transcriptBoundaries(messages: readonly { index: number; minted: ChatMessage; contentBytes: number }[]): TranscriptBoundary[] {
  const out: TranscriptBoundary[] = [];
  let at = 0;
  for (const m of messages) {
    const content_start = at + utf8Length(transcriptHeader(m.minted));
    const end = content_start + m.contentBytes + 1;
    out.push({ index: m.index, role: m.minted.role, ...(m.minted.tool_call_id !== undefined ? { tool_call_id: m.minted.tool_call_id } : {}), start: at, content_start, end });
    at = end;
  }
  return out;
}

function boundariesOf(messages: readonly ResolvedMessage[]): TranscriptBoundary[] {
  return transcriptBoundaries(messages.map((m) => ({ index: m.index, minted: m.minted, contentBytes: m.bytes.length })));
}

/** An expand outcome and what the model saw of it. */
export interface ExpandStory {
  outcome: ExpandOutcome;
  /** The hidden span(s) over the whole original, `[start, end)` in bytes; empty when nothing is hidden (a duplicate whose canonical is visible). */
  hidden: [number, number][];
  /** For a range kind: every message of the transcript that meets the returned range. */
  messages?: TranscriptBoundary[];
  /** For a duplicate: its canonical's index and whether the model could still see it (nothing else reduces it). */
  canonical?: { index: number; visible: boolean };
}

/**
 * `expandReduction` plus its story. Resolves the original once more for the spans (a hash over
 * bytes already read); both answers are about the same bytes since the session's lists are fixed.
 */
export function expandStory(...args: Parameters<typeof expandReduction>): Result<ExpandStory> {
  const [log, id, minted, recorded, , options = {}] = args;
  const expanded = expandReduction(...args);
  if (!expanded.ok) return expanded;
  const outcome = expanded.value;
  const r = findReduction(log, id);
  if (!r) return err(unknownReduction(id, log));
  return withContent(r, () => {
    const resolved = resolveOriginal(r, minted, recorded, options);
    if (!resolved.ok) return resolved;
    const span = hiddenSpan(r, resolved.value.bytes, log);
    const story: ExpandStory = { outcome, hidden: span && span[1] > span[0] ? [span] : [] };
    if (isRangeKind(r.kind)) story.messages = meeting(boundariesOf(resolved.value.messages), outcome.range);
    const canonical = r.canonical?.index;
    if (r.kind === 'duplicate_output' && canonical !== undefined) story.canonical = { index: canonical, visible: span === null };
    return ok(story);
  });
}

/** The boundaries that meet `[from, to)` (an empty range meets the message it starts in). */
export function meeting(boundaries: readonly TranscriptBoundary[], [from, to]: readonly [number, number]): TranscriptBoundary[] {
  let lo = 0;
  let hi = boundaries.length;
  // First boundary whose end is past `from`.
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((boundaries[mid]?.end ?? 0) <= from) lo = mid + 1;
    else hi = mid;
  }
  const out: TranscriptBoundary[] = [];
  for (let k = lo; k < boundaries.length; k++) {
    const b = boundaries[k];
    if (!b || (b.start >= to && out.length > 0)) break;
    out.push(b);
  }
  return out;
}

/**
 * The transcript offset of byte `offset` of message `index`'s content, in range reduction `r`'s
 * transcript; undefined when `index` is outside the range. Reads no content: only each message's
 * header and content length (the copy §5.1 step 3 picks, as the transcript does).
 */
export function transcriptOffset(r: Reduction, minted: MessageList, recorded: MessageList | undefined, index: number, offset: number): number | undefined {
  const [start, end] = addressedRange(r);
  if (!isRangeKind(r.kind) || index < start || index >= end) return undefined;
  let at = 0;
  for (let i = start; i < index; i++) {
    const m = minted.at(i);
    if (m === undefined) return undefined;
    at += utf8Length(transcriptHeader(m)) + resolveMessage(i, m, recorded).bytes.length + 1;
  }
  const m = minted.at(index);
  return m === undefined ? undefined : at + utf8Length(transcriptHeader(m)) + offset;
}

/** Where a row's stub stands in its whole text, in bytes (§3.5: the stub is the text's tail), and the hidden bytes it states. */
export function stubPosition(text: string, r: Reduction): { id: string; start: number; end: number; hidden_bytes?: number } | undefined {
  // Only a stub as §3.5 writes it stands for hidden bytes; a summary (§10.1) or an importer's own
  // marker is text the model read, shown as text with the chip after it.
  if (!r.stub.startsWith(`${REDUCTION_SENTINEL} id=${r.id}`) || !text.endsWith(r.stub)) return undefined;
  const end = utf8Length(text);
  const hidden = stubStatedHiddenBytes(r.stub);
  return { id: r.id, start: end - utf8Length(r.stub), end, ...(hidden !== undefined ? { hidden_bytes: hidden } : {}) };
}

/** `hidden_bytes=<n>` of a stub, when it says so (a chip's size before `verify` answers). */
export function stubStatedHiddenBytes(stub: string): number | undefined {
  const m = /hidden_bytes=(\d{1,15})/.exec(stub);
  return m ? Number(m[1]) : undefined;
}
