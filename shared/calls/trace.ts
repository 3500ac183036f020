/**
 * SPEC §16 `trace`: follow a piece of text through the model calls. Every match of the query in
 * the whole content of a view message (shared/search `messageSearchSteps`, §5.3's query semantics
 * and bounds) is one occurrence; for each, the calls whose input showed it, the reduction and call
 * at which it left the model's view (and whether it came back), and where its bytes are now.
 *
 * Invariants (held by shared/calls/trace.properties.test.ts):
 * - `visible_calls` are inclusive `[from, to]` ranges, sorted, disjoint and not adjacent, within
 *   `first_call..C`; `first_call` is the first call whose input holds the message (C+1 when none
 *   does: only the latest view, "the next call", holds it).
 * - An occurrence is visible at a call when its input holds the message and no reduction live in
 *   that input hides any byte of the match (a truncation hides what lies past its kept prefix; an
 *   elision, a duplicate whose canonical is not fully visible, a cleared or summarized range hide
 *   the whole message). Which reduction hid it: one of that message alone before a range that
 *   encloses it (as §5.3 attributes matches), else the first in log order.
 * - `hidden_by` is null when the latest view shows the match; else it names the hiding that
 *   began the hidden stretch the latest view is in: its call is the one after the last visible
 *   range (`first_call` when it was never visible, C+1 when only the latest view hides it).
 * - `hidings` lists every call at which the match left the view, in order; a visible range after a
 *   hiding is the match coming back (a reduction inverted, a rewind, a compaction ended).
 * The core reads no clock: it yields after each occurrence and looks at `signal` there.
 */
import type { ResolveOptions, ResolvedMessage } from '../resolver/original';
import { addressedRange, canonicalFullyVisible, resolveOriginal, transcriptHeader } from '../resolver/original';
import { messageSearchSteps } from '../search/engine';
import type { MessageMatch } from '../search/engine';
import type { MessageList, Reduction, ReductionKind, Result, SearchMode } from '../format/types';
import { err, isRangeKind, ok } from '../format/types';
import { utf8Length } from '../format/utf8';
import type { CallTimeline, ModelCall, ReductionSpan } from './calls';
import { callLog } from './calls';

/** Occurrences listed at most by default; every match is still counted (`total_matches`). */
export const TRACE_MAX_OCCURRENCES = 200;

export interface TraceOptions extends ResolveOptions {
  mode?: SearchMode;
  case_sensitive?: boolean;
  /** At most this many occurrences (default TRACE_MAX_OCCURRENCES); `truncated` says when more matched. */
  max_occurrences?: number;
  /** Looked at by the search and after each occurrence; a raised signal answers `cancelled`. */
  signal?: { readonly aborted: boolean };
  /**
   * The call `bytes_at` and `at` are about (1…C); absent or null: the latest view. Calls past C
   * are refused by the callers (a usage error), not here: an unknown call is the latest view.
   */
  at?: number | null;
}

/** A reduction that took a match out of the model's view, and the first call that no longer saw it. */
export interface TraceHiding {
  reduction: string;
  kind: ReductionKind;
  /** 1-based; C+1 names the latest view (what a next call would be given). */
  call: number;
}

/**
 * Where a hidden match's bytes are: the reduction whose original holds them, the byte range of the
 * match in that original (what `expand --id ID --range S:E` gives: for a cleared or summarized
 * range, an offset into its transcript), and whether the original verifies against its hash.
 */
export interface TraceBytesAt {
  reduction: string;
  kind: ReductionKind;
  /** Null when the original cannot be resolved (see `original`). */
  range: [number, number] | null;
  original: { verified: true; source: 'minted' | 'recorded' } | { verified: false; error: string; message: string };
}

export interface TraceOccurrence {
  /** The view index of the message whose content holds the match. */
  message_index: number;
  first_call: number;
  visible_calls: [number, number][];
  hidden_by: TraceHiding | null;
  /** Byte offset and length of the match in the message's whole content. */
  offset: number;
  length: number;
  /** At most SNIPPET_MAX_BYTES around the match, and the match inside it, in bytes. */
  snippet: string;
  snippet_match: [number, number];
  /** The latest view shows the match. */
  visible_now: boolean;
  /** Every call at which the match left the model's view, in order. */
  hidings: TraceHiding[];
  /** At `at` (the latest view by default): where the bytes are when hidden there, else null. */
  bytes_at: TraceBytesAt | null;
  /** At `at`: whether that input holds the message, and whether it showed the match. */
  at: { call: number | null; in_input: boolean; visible: boolean };
}

export interface TraceResult {
  query: string;
  mode: SearchMode;
  case_sensitive: boolean;
  /** C: the session's model calls. */
  calls: number;
  occurrences: TraceOccurrence[];
  /** Every match counted, listed or not. */
  total_matches: number;
  truncated: boolean;
}

/** What a trace reads of a session: its calls and spans, its minted view and recorded copies, its live log. */
export interface TraceSession {
  timeline: CallTimeline;
  minted: MessageList;
  recorded?: MessageList;
  /** The latest view's log (the live log). */
  log: readonly Reduction[];
}

/** A view position a match is checked at: a call's input, or the latest view. */
interface Position {
  /** 1-based; C+1 for the latest view. */
  call: number;
  /** Messages the input holds (`[0, length)`). */
  length: number;
  /** Whether `span` is live in this input. */
  live: (span: ReductionSpan) => boolean;
  /** The input's log (for a duplicate's canonical), computed once when asked. */
  log: () => readonly Reduction[];
}

function callPosition(timeline: CallTimeline, call: ModelCall): Position {
  let log: readonly Reduction[] | undefined;
  return {
    call: call.call,
    length: call.index,
    live: (s) => s.from <= call.line && (s.to === undefined || call.line < s.to) && s.reduction.ptr.index < call.index,
    log: () => (log ??= callLog(timeline, call)),
  };
}

function latestPosition(session: TraceSession): Position {
  const live = new Set(session.log);
  return { call: session.timeline.calls.length + 1, length: session.minted.length, live: (s) => live.has(s.reduction), log: () => session.log };
}

/** Whether `r`, live in `at`'s input, hides any byte of `[offset, offset + length)` of its message. */
function hides(r: Reduction, offset: number, length: number, at: Position): boolean {
  switch (r.kind) {
    case 'tool_output_truncated':
      // Matches end on character boundaries, so comparing with the unfloored kept_bytes is exact.
      return offset + length > Math.max(0, r.kept_bytes ?? 0);
    case 'duplicate_output':
      return !canonicalFullyVisible(r, at.log());
    default:
      return true;
  }
}

/** The spans that address message `index`: its own first (log order), then the ranges enclosing it. */
function spansAddressing(index: number, own: ReadonlyMap<number, ReductionSpan[]>, ranges: readonly ReductionSpan[]): ReductionSpan[] {
  const enclosing = ranges.filter((s) => {
    const [start, end] = addressedRange(s.reduction);
    return start <= index && index < end;
  });
  return [...(own.get(index) ?? []), ...enclosing];
}

/** The reduction hiding the match at `at`, or null when that input shows it. */
function hiderAt(spans: readonly ReductionSpan[], m: MessageMatch, at: Position): Reduction | null {
  for (const s of spans) if (at.live(s) && hides(s.reduction, m.offset, m.length, at)) return s.reduction;
  return null;
}

/** A reduction's original as a trace resolved it, and, for a range, where its transcript's messages start (laid out when first asked). */
interface TracedOriginal {
  resolved: ReturnType<typeof resolveOriginal>;
  layout?: TranscriptLayout;
}

/** Where each message's content starts in a range's §3.5 transcript (after its header), and the transcript's length. */
interface TranscriptLayout {
  starts: Map<number, number>;
  end: number;
}

/** The transcript of §3.5: per message `⟨role[ id]⟩\n` + content + `\n`. */
function transcriptLayout(messages: readonly ResolvedMessage[]): TranscriptLayout {
  const starts = new Map<number, number>();
  let end = 0;
  for (const msg of messages) {
    end += utf8Length(transcriptHeader(msg.minted));
    if (!starts.has(msg.index)) starts.set(msg.index, end);
    end += msg.bytes.length + 1;
  }
  return { starts, end };
}

/**
 * Where the bytes of a match hidden by `r` are, read from its original once per reduction (`known`,
 * one trace's): the occurrences of a common word are most often hidden by the same compaction, whose
 * original is the transcript of everything before it (docs/trace.md "Where the bytes are").
 */
function bytesAt(r: Reduction, m: MessageMatch, session: TraceSession, options: ResolveOptions, known: Map<Reduction, TracedOriginal>): TraceBytesAt {
  let traced = known.get(r);
  if (!traced) {
    traced = { resolved: resolveOriginal(r, session.minted, session.recorded, options) };
    known.set(r, traced);
  }
  const { resolved } = traced;
  if (!resolved.ok) return { reduction: r.id, kind: r.kind, range: null, original: { verified: false, error: resolved.error.code, message: resolved.error.message } };
  let start = m.offset;
  if (isRangeKind(r.kind)) {
    // A match of a message the transcript does not hold is placed at its end.
    const { starts, end } = (traced.layout ??= transcriptLayout(resolved.value.messages));
    const found = starts.get(m.index);
    start = found === undefined ? end : found + m.offset;
  }
  return { reduction: r.id, kind: r.kind, range: [start, start + m.length], original: { verified: true, source: resolved.value.source } };
}

const hidingOf = (r: Reduction, call: number): TraceHiding => ({ reduction: r.id, kind: r.kind, call });

/**
 * `trace` one step at a time: the search's steps, then one step per occurrence. Answers
 * `invalid_query` for a bad pattern and `cancelled` when the signal is raised.
 */
export function* traceSteps(session: TraceSession, query: string, options: TraceOptions = {}): Generator<void, Result<TraceResult>> {
  const { calls } = session.timeline;
  const C = calls.length;
  const max = Math.max(0, Math.floor(options.max_occurrences ?? TRACE_MAX_OCCURRENCES));
  const cancelled = () => err({ code: 'cancelled' as const, message: `trace of ${JSON.stringify(query)} was cancelled` });
  if (options.signal?.aborted) return cancelled();
  const found = yield* messageSearchSteps(session.minted, query, {
    ...(options.mode ? { mode: options.mode } : {}),
    ...(options.case_sensitive !== undefined ? { case_sensitive: options.case_sensitive } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    max_matches: max,
    // The occurrences are bounded by their count; each carries at most C / 2 ranges.
    max_result_bytes: Number.POSITIVE_INFINITY,
  });
  if (!found.ok) return found;

  const own = new Map<number, ReductionSpan[]>();
  const ranges: ReductionSpan[] = [];
  for (const s of session.timeline.spans) {
    if (isRangeKind(s.reduction.kind)) ranges.push(s);
    else own.set(s.reduction.ptr.index, [...(own.get(s.reduction.ptr.index) ?? []), s]);
  }
  // The latest view: every reduction of the live log, whether or not its span is known.
  const latestSpans = session.log.map((reduction) => ({ reduction, from: Number.NEGATIVE_INFINITY }));
  const positions = calls.map((c) => callPosition(session.timeline, c));
  const latest = latestPosition(session);
  const at = options.at != null && options.at >= 1 && options.at <= C ? options.at : null;
  const originals = options.sha256 ? { sha256: options.sha256 } : {};
  const known = new Map<Reduction, TracedOriginal>();

  const occurrences: TraceOccurrence[] = [];
  for (const m of found.value.matches) {
    if (options.signal?.aborted) return cancelled();
    const spans = spansAddressing(m.index, own, ranges);
    const ownLatest = latestSpans.filter((s) => {
      const [start, end] = addressedRange(s.reduction);
      return start <= m.index && m.index < end;
    });
    // Its own reductions before the ranges that enclose it (§5.3's attribution).
    ownLatest.sort((a, b) => Number(isRangeKind(a.reduction.kind)) - Number(isRangeKind(b.reduction.kind)));
    // Calls are in view order: the first whose input holds the message.
    let first = 0;
    while (first < C && (calls[first] as ModelCall).index <= m.index) first++;
    const visible_calls: [number, number][] = [];
    const hidings: TraceHiding[] = [];
    let hiderAtCall: Reduction | null = null;
    let wasVisible: boolean | undefined;
    for (let k = first; k < C; k++) {
      const position = positions[k] as Position;
      const hider = hiderAt(spans, m, position);
      if (position.call === at) hiderAtCall = hider;
      if (hider === null) {
        const last = visible_calls[visible_calls.length - 1];
        if (last && last[1] === position.call - 1) last[1] = position.call;
        else visible_calls.push([position.call, position.call]);
      } else if (wasVisible !== false) {
        hidings.push(hidingOf(hider, position.call));
      }
      wasVisible = hider === null;
    }
    const latestHider = m.index < latest.length ? hiderAt(ownLatest, m, latest) : null;
    if (latestHider !== null && wasVisible !== false) hidings.push(hidingOf(latestHider, C + 1));
    const hidden_by = latestHider === null ? null : (hidings[hidings.length - 1] ?? null);
    const inInput = at === null ? m.index < latest.length : m.index < (positions[at - 1] as Position).length;
    const hiderThere = at === null ? latestHider : hiderAtCall;
    occurrences.push({
      message_index: m.index,
      first_call: first + 1,
      visible_calls,
      hidden_by,
      offset: m.offset,
      length: m.length,
      snippet: m.snippet,
      snippet_match: m.snippet_match,
      visible_now: latestHider === null,
      hidings,
      bytes_at: inInput && hiderThere !== null ? bytesAt(hiderThere, m, session, originals, known) : null,
      at: { call: at, in_input: inInput, visible: inInput && hiderThere === null },
    });
    yield;
  }
  const { total_matches } = found.value;
  return ok({
    query,
    mode: found.value.mode,
    case_sensitive: found.value.case_sensitive,
    calls: C,
    occurrences,
    total_matches,
    truncated: occurrences.length < total_matches,
  });
}

/** `traceSteps` run to the end. */
export function trace(session: TraceSession, query: string, options: TraceOptions = {}): Result<TraceResult> {
  const steps = traceSteps(session, query, options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}
