/**
 * SPEC §16 `diff --from N --to M`: what changed in the model's input between any two calls (either
 * order, or a call and the latest view). It generalises `diffCallInputs` (calls.ts: added or dropped
 * messages, reductions that left or came back) to the message level, with the text the model was
 * given at each end:
 *
 * - `added` / `dropped`: messages one input holds past the end of the other (view indices);
 * - `changed`: runs of messages both inputs hold whose reductions differ — `reduced` names the
 *   reductions applied in `to` and not in `from`, `restored` those undone. A run is one entry per
 *   maximal stretch of indices with the same two sets (a compaction's range is one entry, not one per
 *   message), with the text the model was given over it at each end and a line-level diff of the two;
 * - `between`: the reductions logged or taken out of the log between the two calls, in line order,
 *   with the call that first saw the change; `compactions`: the `summarized` ones grouped as one
 *   compaction, with its dropped ranges and its summary.
 *
 * Messages are compared by identity (view index of one session's minted view), reductions by
 * identity (the session hands out one object per logged reduction). The line diff is jsdiff's
 * (docs/diff.md says why that library and how it is bounded): a side over DIFF_TEXT_MAX_BYTES or
 * DIFF_TEXT_MAX_LINES, a diff past DIFF_TIMEOUT_MS, or one past the diff's DIFF_TOTAL_MAX_BYTES is
 * not diffed, and `text.note` says so.
 */
import { structuredPatch } from 'diff';
import { addressedRange } from '../resolver/original';
import { projectView, projectionLayout, rowOfIndex } from '../resolver/project';
import type { ProjectionLayout, ProjectedRow } from '../resolver/project';
import { contentSource } from '../format/bytes';
import type { MessageList, Reduction, ReductionKind, Role } from '../format/types';
import { ContentUnavailableError } from '../format/types';
import { utf8Decode, utf8Encode, utf8Length } from '../format/utf8';
import type { CallDiff, CallInput, CallTimeline, DiffMessage } from './calls';
import { diffCallInputs } from './calls';

/** A side over this many bytes of text is summarised, not diffed. */
export const DIFF_TEXT_MAX_BYTES = 256 * 1024;
/** A side over this many lines is summarised, not diffed. */
export const DIFF_TEXT_MAX_LINES = 10_000;
/** The hunk lines of one diff, all its messages together, stop at this many bytes; later messages are summarised. */
export const DIFF_TOTAL_MAX_BYTES = 4 * 1024 * 1024;
/** jsdiff gives up on one message after this long (two wholly different 10,000-line texts take about a second). */
export const DIFF_TIMEOUT_MS = 1000;
/** Lines of context around each hunk. */
export const DIFF_CONTEXT_LINES = 3;
/** A compaction's summary is given up to this many bytes (floored to a character); `summary_bytes` is its length. */
export const COMPACTION_SUMMARY_MAX_BYTES = 16 * 1024;

/** One hunk of a unified diff: lines prefixed `' '` (both), `'-'` (from only) or `'+'` (to only). */
export interface DiffHunk {
  from_start: number;
  from_count: number;
  to_start: number;
  to_count: number;
  lines: string[];
}

/** The line diff of one changed entry: `hunks` null when it was not diffed, `note` saying why. */
export interface TextDiff {
  /** Lines of each side's text; null where the text was not read (over the byte cap). */
  lines: { from: number | null; to: number | null };
  hunks: DiffHunk[] | null;
  note?: string;
}

/** A run of messages both inputs hold, given to the model differently. */
export interface ChangedMessages {
  /** View range `[index, end)`. */
  index: number;
  end: number;
  /** The message's role; null for a run of several, or a hole. */
  role: Role | null;
  /** Ids of the reductions applied in `to` and not in `from` over the run (log order). */
  reduced: string[];
  /** Ids of the reductions applied in `from` and not in `to` over the run: undone (inverted, rewound, replaced). */
  restored: string[];
  /** Bytes the model was given over the run at each end. */
  bytes: { from: number | null; to: number | null };
  text: TextDiff;
}

/** A message one input holds and the other does not, with the reductions applied to it there. */
export interface DiffedMessage extends DiffMessage {
  reductions: string[];
}

/** A reduction logged (`applied`) or taken out of the log (`undone`) between the two calls. */
export interface BetweenEvent {
  change: 'applied' | 'undone';
  reduction_id: string;
  kind: ReductionKind;
  index: number;
  end?: number;
  /** The line of the record that made the change. */
  line: number;
  /** The first call whose input shows the change; null when only the latest view does. */
  call: number | null;
  by?: 'inverted' | 'rewound';
  group?: string;
}

/** A compaction applied between the two calls: the ranges it dropped (one `summarized` run each) and the summary given instead. */
export interface DiffCompaction {
  /** The group id, or the reduction's id for a compaction of one run. */
  group: string;
  /** The reduction whose row shows the summary (the group's first run). */
  summary_id: string;
  ranges: [number, number][];
  /** Messages the ranges hold. */
  dropped: number;
  /** Where the change is recorded, and the first call that saw it. */
  line: number;
  call: number | null;
  summary: string;
  summary_bytes: number;
  summary_truncated: boolean;
}

export interface CallsDiff extends Omit<CallDiff, 'added' | 'removed'> {
  from: number | null;
  to: number | null;
  /** Bytes the model was given at each end. */
  bytes: { from: number; to: number };
  added: DiffedMessage[];
  dropped: DiffedMessage[];
  changed: ChangedMessages[];
  /** How many changed runs there are; `changed` lists the first `limit` of them. */
  changed_count: number;
  between: BetweenEvent[];
  compactions: DiffCompaction[];
}

/** One end of a diff: a call (or null, the latest view), its input and the line it stands at (Infinity for the latest). */
export interface CallSide {
  call: number | null;
  input: CallInput;
  line: number;
  /** Bytes the model was given (the context map's `given` for a call); computed when absent. */
  given?: number;
}

export interface CallsDiffOptions {
  /** Most changed runs listed with their text (all by default); the rest are counted. */
  limit?: number;
  /** For tests: the caps of one side's text and of all hunks. */
  maxTextBytes?: number;
  maxTextLines?: number;
  maxTotalBytes?: number;
}

/** Content bytes of message `i` (the indexed file's figure when it knows it); null for a hole or unreadable content. */
function messageBytes(list: MessageList, i: number): number | null {
  const known = list.contentBytes?.(i);
  if (known !== undefined) return known;
  const m = list.at(i);
  if (!m) return null;
  try {
    return contentSource(m).length;
  } catch (e) {
    if (e instanceof ContentUnavailableError) return null;
    throw e;
  }
}

/** A row's bytes as the model was given them: a message shown whole is its content (kept on disk, maybe), else the row's text. */
export function rowBytes(row: ProjectedRow, list: MessageList): number | null {
  if (row.reductions.length === 0 && row.end - row.index === 1 && !row.missing) return messageBytes(list, row.index);
  return utf8Length(row.text);
}

/** Bytes the model was given in `input`: the UTF-8 bytes of its projected rows, contents kept on disk counted whole. */
export function givenBytes(input: CallInput): number {
  let total = 0;
  for (const row of projectView(input.minted, input.log)) total += rowBytes(row, input.minted) ?? 0;
  return total;
}

/** The rows of `layout` that show view indices `[start, end)`. */
function rowsOver(input: CallInput, layout: ProjectionLayout, start: number, end: number): ProjectedRow[] {
  const first = rowOfIndex(layout, start);
  const last = rowOfIndex(layout, end - 1);
  if (first < 0 || last < 0) return [];
  return projectView(input.minted, input.log, { start: first, end: last + 1 }, layout);
}

/** The text of rows, a message kept on disk read whole when it fits `max` bytes; null text when over. */
function sideText(rows: readonly ProjectedRow[], list: MessageList, max: number): { text: string | null; bytes: number | null } {
  let bytes = 0;
  let unknown = false;
  for (const row of rows) {
    const b = rowBytes(row, list);
    if (b === null) unknown = true;
    else bytes += b;
  }
  if (bytes > max) return { text: null, bytes: unknown ? null : bytes };
  const parts: string[] = [];
  for (const row of rows) {
    const large = row.reductions.length === 0 ? list.at(row.index)?.large : undefined;
    if (!large) {
      parts.push(row.text);
      continue;
    }
    try {
      parts.push(utf8Decode(large.read(0, large.length)));
    } catch (e) {
      if (!(e instanceof ContentUnavailableError)) throw e;
      return { text: null, bytes: null };
    }
  }
  return { text: parts.join('\n'), bytes: unknown ? null : bytes };
}

function lineCount(text: string): number {
  if (text === '') return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n - 1 : n;
}

/**
 * The line diff of two texts (jsdiff's structuredPatch, 3 lines of context), bounded: a side over
 * the caps, or a diff that takes longer than DIFF_TIMEOUT_MS, is summarised (`hunks` null, `note`).
 */
export function lineDiff(from: string | null, to: string | null, caps: { maxBytes: number; maxLines: number } = { maxBytes: DIFF_TEXT_MAX_BYTES, maxLines: DIFF_TEXT_MAX_LINES }): TextDiff {
  const lines = { from: from === null ? null : lineCount(from), to: to === null ? null : lineCount(to) };
  if (from === null || to === null) return { lines, hunks: null, note: `not diffed: a side is over ${caps.maxBytes} bytes or could not be read` };
  if (utf8Length(from) > caps.maxBytes || utf8Length(to) > caps.maxBytes) return { lines, hunks: null, note: `not diffed: a side is over ${caps.maxBytes} bytes` };
  if ((lines.from ?? 0) > caps.maxLines || (lines.to ?? 0) > caps.maxLines) return { lines, hunks: null, note: `not diffed: a side is over ${caps.maxLines} lines` };
  if (from === to) return { lines, hunks: [] };
  const patch = structuredPatch('from', 'to', from, to, undefined, undefined, { context: DIFF_CONTEXT_LINES, timeout: DIFF_TIMEOUT_MS });
  if (!patch) return { lines, hunks: null, note: `not diffed: the line diff took over ${DIFF_TIMEOUT_MS} ms` };
  return {
    lines,
    hunks: patch.hunks.map((h) => ({
      from_start: h.oldStart,
      from_count: h.oldLines,
      to_start: h.newStart,
      to_count: h.newLines,
      // jsdiff marks a last line without a newline with a "\ No newline" line: the texts are messages, not files.
      lines: h.lines.filter((l) => !l.startsWith('\\')),
    })),
  };
}

/** The reductions of `log` addressing each index of `[start, end)`, as id lists (log order). */
function coveringIds(log: readonly Reduction[], start: number, end: number): string[][] {
  const ids: string[][] = Array.from({ length: Math.max(0, end - start) }, () => []);
  for (const r of log) {
    const [s, e] = addressedRange(r);
    for (let i = Math.max(s, start); i < Math.min(e, end); i++) ids[i - start]?.push(r.id);
  }
  return ids;
}

function diffedMessages(list: MessageList, log: readonly Reduction[], start: number, end: number, base: readonly DiffMessage[]): DiffedMessage[] {
  const ids = coveringIds(log, start, end);
  return base.map((m) => ({ ...m, reductions: ids[m.index - start] ?? [] }));
}

/**
 * Runs of `[0, common)` where the reductions of `gained` or `lost` differ: a sweep over their
 * ranges' ends, merging neighbouring stretches with the same two sets.
 */
function changedRuns(gained: readonly Reduction[], lost: readonly Reduction[], common: number): { index: number; end: number; reduced: Reduction[]; restored: Reduction[] }[] {
  type Edge = { at: number; r: Reduction; side: 0 | 1; open: boolean };
  const edges: Edge[] = [];
  const order = new Map<Reduction, number>();
  const push = (list: readonly Reduction[], side: 0 | 1): void => {
    for (const r of list) {
      const [s, e0] = addressedRange(r);
      const e = Math.min(e0, common);
      if (!(s >= 0 && e > s)) continue;
      order.set(r, order.size);
      edges.push({ at: s, r, side, open: true }, { at: e, r, side, open: false });
    }
  };
  push(gained, 0);
  push(lost, 1);
  edges.sort((a, b) => a.at - b.at);
  const active: [Set<Reduction>, Set<Reduction>] = [new Set(), new Set()];
  const runs: { index: number; end: number; reduced: Reduction[]; restored: Reduction[]; key: string }[] = [];
  const sorted = (set: Set<Reduction>): Reduction[] => [...set].sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
  let k = 0;
  while (k < edges.length) {
    const at = edges[k]?.at ?? 0;
    for (; k < edges.length && edges[k]?.at === at; k++) {
      const edge = edges[k] as Edge;
      if (edge.open) active[edge.side].add(edge.r);
      else active[edge.side].delete(edge.r);
    }
    const next = edges[k]?.at;
    if (next === undefined || (active[0].size === 0 && active[1].size === 0)) continue;
    const reduced = sorted(active[0]);
    const restored = sorted(active[1]);
    const key = `${reduced.map((r) => order.get(r)).join(',')}|${restored.map((r) => order.get(r)).join(',')}`;
    const last = runs.at(-1);
    if (last && last.end === at && last.key === key) last.end = next;
    else runs.push({ index: at, end: next, reduced, restored, key });
  }
  return runs.map(({ key: _key, ...run }) => run);
}

/** The first call at or after `line` (calls in line order); null when none is. */
function callAtOrAfter(timeline: CallTimeline, line: number): number | null {
  const calls = timeline.calls;
  let lo = 0;
  let hi = calls.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((calls[mid]?.line ?? Infinity) < line) lo = mid + 1;
    else hi = mid;
  }
  return calls[lo]?.call ?? null;
}

/** The calls that first saw a compaction (a `summarized` reduction logged before them), ascending, once each: the `Model call` slider's marks. */
export function compactionCalls(timeline: CallTimeline): number[] {
  const calls = new Set<number>();
  const groups = new Set<string>();
  for (const s of timeline.spans) {
    const r = s.reduction;
    if (r.kind !== 'summarized' || !Number.isFinite(s.from)) continue;
    const group = r.group ?? r.id;
    const call = callAtOrAfter(timeline, s.from);
    if (call === null || groups.has(`${group}@${call}`)) continue;
    groups.add(`${group}@${call}`);
    calls.add(call);
  }
  return [...calls].sort((a, b) => a - b);
}

/** Reductions logged or ended on a line in `(low, high]`: what happened between two calls. */
function betweenEvents(timeline: CallTimeline, low: number, high: number): BetweenEvent[] {
  const events: BetweenEvent[] = [];
  const inside = (line: number | undefined): line is number => line !== undefined && line > low && line <= high;
  for (const s of timeline.spans) {
    const r = s.reduction;
    const [index, end] = addressedRange(r);
    const base = { reduction_id: r.id, kind: r.kind, index, ...(r.end !== undefined ? { end } : {}), ...(r.group !== undefined ? { group: r.group } : {}) };
    // A reduction live at every call (no known line) never happened between two of them.
    if (Number.isFinite(s.from) && inside(s.from)) events.push({ change: 'applied', ...base, line: s.from, call: callAtOrAfter(timeline, s.from) });
    if (inside(s.to)) events.push({ change: 'undone', ...base, line: s.to, call: callAtOrAfter(timeline, s.to), ...(s.ended ? { by: s.ended } : {}) });
  }
  return events.sort((a, b) => a.line - b.line);
}

/** The `summarized` reductions applied between the calls, one entry per compaction (group). */
function compactionsOf(events: readonly BetweenEvent[], spans: CallTimeline['spans']): DiffCompaction[] {
  const byId = new Map<string, Reduction>();
  for (const s of spans) byId.set(s.reduction.id, s.reduction);
  const groups = new Map<string, DiffCompaction>();
  for (const e of events) {
    if (e.change !== 'applied' || e.kind !== 'summarized') continue;
    const r = byId.get(e.reduction_id);
    if (!r) continue;
    const key = r.group ?? r.id;
    const range: [number, number] = addressedRange(r);
    const known = groups.get(key);
    if (known) {
      known.ranges.push(range);
      known.dropped += range[1] - range[0];
      // The summary row is the group's first run (lowest index).
      if (range[0] < (known.ranges[0]?.[0] ?? Infinity)) Object.assign(known, summaryOf(r));
      known.ranges.sort((a, b) => a[0] - b[0]);
      continue;
    }
    groups.set(key, { group: key, ...summaryOf(r), ranges: [range], dropped: range[1] - range[0], line: e.line, call: e.call });
  }
  return [...groups.values()];
}

function summaryOf(r: Reduction): Pick<DiffCompaction, 'summary_id' | 'summary' | 'summary_bytes' | 'summary_truncated'> {
  const bytes = utf8Encode(r.stub);
  if (bytes.length <= COMPACTION_SUMMARY_MAX_BYTES) return { summary_id: r.id, summary: r.stub, summary_bytes: bytes.length, summary_truncated: false };
  let cut = COMPACTION_SUMMARY_MAX_BYTES;
  // Floor to a character boundary: never cut inside a UTF-8 sequence.
  while (cut > 0 && ((bytes[cut] ?? 0) & 0xc0) === 0x80) cut--;
  return { summary_id: r.id, summary: utf8Decode(bytes.subarray(0, cut)), summary_bytes: bytes.length, summary_truncated: true };
}

/**
 * What changed in the model's input from `from` to `to` (SPEC §16 `diff`). `endedBy` says why a
 * reduction left the log, for those that came back (calls.ts `diffCallInputs`).
 */
export function diffCalls(timeline: CallTimeline, from: CallSide, to: CallSide, options: CallsDiffOptions = {}, endedBy?: (r: Reduction) => 'inverted' | 'rewound' | undefined): CallsDiff {
  const a = from.input;
  const b = to.input;
  const base = diffCallInputs(a, b, endedBy);
  const inA = new Set(a.log);
  const inB = new Set(b.log);
  const gained = b.log.filter((r) => !inA.has(r));
  const lost = a.log.filter((r) => !inB.has(r));
  const common = Math.min(a.minted.length, b.minted.length);
  const runs = changedRuns(gained, lost, common);
  const limit = options.limit ?? runs.length;
  const caps = { maxBytes: options.maxTextBytes ?? DIFF_TEXT_MAX_BYTES, maxLines: options.maxTextLines ?? DIFF_TEXT_MAX_LINES };
  let budget = options.maxTotalBytes ?? DIFF_TOTAL_MAX_BYTES;
  let layouts: [ProjectionLayout, ProjectionLayout] | undefined;
  const changed: ChangedMessages[] = [];
  for (const run of runs.slice(0, limit)) {
    layouts ??= [projectionLayout(a.minted.length, a.log), projectionLayout(b.minted.length, b.log)];
    const fromSide = sideText(rowsOver(a, layouts[0], run.index, run.end), a.minted, caps.maxBytes);
    const toSide = sideText(rowsOver(b, layouts[1], run.index, run.end), b.minted, caps.maxBytes);
    let text: TextDiff;
    if (budget <= 0) text = { lines: { from: fromSide.text === null ? null : lineCount(fromSide.text), to: toSide.text === null ? null : lineCount(toSide.text) }, hunks: null, note: `not diffed: this diff's line diffs already hold ${options.maxTotalBytes ?? DIFF_TOTAL_MAX_BYTES} bytes` };
    else {
      text = lineDiff(fromSide.text, toSide.text, caps);
      for (const h of text.hunks ?? []) for (const l of h.lines) budget -= utf8Length(l) + 1;
    }
    const role = run.end - run.index === 1 ? (a.minted.at(run.index)?.role ?? null) : null;
    changed.push({ index: run.index, end: run.end, role, reduced: run.reduced.map((r) => r.id), restored: run.restored.map((r) => r.id), bytes: { from: fromSide.bytes, to: toSide.bytes }, text });
  }
  const [low, high] = from.line <= to.line ? [from.line, to.line] : [to.line, from.line];
  const between = betweenEvents(timeline, low, high);
  return {
    from: from.call,
    to: to.call,
    bytes: { from: from.given ?? givenBytes(a), to: to.given ?? givenBytes(b) },
    added: diffedMessages(b.minted, b.log, a.minted.length, b.minted.length, base.added),
    dropped: diffedMessages(a.minted, a.log, b.minted.length, a.minted.length, base.removed),
    changed,
    changed_count: runs.length,
    reduced: base.reduced,
    restored: base.restored,
    between,
    compactions: compactionsOf(between, timeline.spans),
  };
}
