/** §5.4 projectView (display rows of what the model saw) and invertOne (a preview of splicing one reduction back). */
import type { ResolveOptions } from './original';
import { contentPrefixSource, floorSourceBoundary, isMemorySource } from '../format/bytes';
import { findReduction, resolveOriginal, unknownReduction } from './original';
import type { ChatMessage, MessageList, Reduction, ReductionKind, Result, Role, ToolCall } from '../format/types';
import { COMPACT_SUMMARY_KEY, ContentUnavailableError, isRangeKind, ok } from '../format/types';
import { lowerBound } from '../format/sorted';
import { utf8Decode } from '../format/utf8';

/** Where the projected view's rows start: one row per view message, one per cleared range. */
export interface ProjectionLayout {
  rowCount: number;
  /** First view index of each row; a row spans `[rowStarts[row], rowStarts[row + 1] ?? viewLength)`. */
  rowStarts: Int32Array;
  viewLength: number;
}

export interface ProjectedRow {
  row: number;
  /** View range `[index, end)` the row stands for: one message, or a whole cleared range. */
  index: number;
  end: number;
  /** Absent for a cleared range and for a hole (a message whose record could not be read). */
  role?: Role;
  tool_call_id?: string;
  tool_calls?: ToolCall[];
  name?: string;
  /** Exactly the text the model saw at this row: content, prefix + stub, or stub. */
  text: string;
  /** Every live reduction addressing a message of this row, in log order. */
  reductions: { id: string; kind: ReductionKind }[];
  /** The reduction whose stub the row shows, if any. */
  applied?: string;
  missing?: boolean;
  /**
   * A row of a `summarized` reduction that is one run of a compaction (`group`): `summary` is the
   * id of the group's first run, whose row shows the summary. The other runs' rows have empty text:
   * the model saw the summary once, at the first run. Also the row of a message the compaction
   * moved (a `duplicate_output` of the group): empty too, `moved_to` the view index of the copy the
   * model was given instead. `summary_role`: the role of the message the summary was given as,
   * where the file says (the summary reduction's own).
   */
  compaction?: ProjectedCompaction;
  /**
   * The message is a compaction's summary kept as the message it was (COMPACT_SUMMARY_KEY): the
   * file opens with the compaction, so nothing before it is in the file to reduce.
   */
  compact_summary?: true;
}

export interface ProjectedCompaction {
  group: string;
  summary: string;
  moved_to?: number;
  summary_role?: Role;
}

/** The compaction a row belongs to: the group's summary run, where it moved a message, how the summary was given. */
function projectedCompaction(r: Reduction, summary: Reduction): ProjectedCompaction {
  return {
    group: summary.group ?? '',
    summary: summary.id,
    ...(r.kind === 'duplicate_output' && r.canonical ? { moved_to: r.canonical.index } : {}),
    ...(summary.summary_role !== undefined ? { summary_role: summary.summary_role } : {}),
  };
}

/** The first run of each compaction group (lowest `ptr.index`, then log order): its row holds the summary. */
export function compactionSummaries(log: readonly Reduction[]): Map<string, Reduction> {
  const first = new Map<string, Reduction>();
  for (const r of log) {
    if (r.kind !== 'summarized' || r.group === undefined) continue;
    const known = first.get(r.group);
    if (!known || r.ptr.index < known.ptr.index) first.set(r.group, r);
  }
  return first;
}

/**
 * Row boundaries of the projected view. Live `turns_cleared` and `summarized` ranges inside the view collapse into
 * one row each; ranges that overlap are merged into one row.
 */
export function projectionLayout(viewLength: number, log: readonly Reduction[]): ProjectionLayout {
  // Once per log and view length: a call's input is projected, and its rows looked up, many times
  // (the calibration's walk asks each step's two inputs for a row start again and again).
  const known = layoutsByLog.get(log);
  if (known && known.viewLength === viewLength && known.logLength === log.length) return known.layout;
  const layout = layOut(viewLength, log);
  layoutsByLog.set(log, { viewLength, logLength: log.length, layout });
  return layout;
}

/**
 * Layouts made, by log array: a log is not changed once made (a followed session's grows, and its
 * length then differs), as `addressesOf` in original.ts also relies on.
 */
const layoutsByLog = new WeakMap<readonly Reduction[], { viewLength: number; logLength: number; layout: ProjectionLayout }>();

function layOut(viewLength: number, log: readonly Reduction[]): ProjectionLayout {
  const ranges = log
    .filter((r) => isRangeKind(r.kind))
    .map((r) => [r.ptr.index, Math.min(r.end ?? r.ptr.index, viewLength)] as const)
    .filter(([s, e]) => Number.isInteger(s) && s >= 0 && e > s)
    .sort((a, b) => a[0] - b[0]);
  const starts = layRows(ranges, 0, 0, viewLength);
  return { rowCount: starts.length, rowStarts: Int32Array.from(starts), viewLength };
}

/**
 * The row starts from view index `i` to `viewLength`, `k` being the first of `ranges` (clipped,
 * sorted by start) that starts at or after `i`: a row is a message, or every range that overlaps
 * one another merged. liveLayout.ts lays out a followed session's new rows with it.
 */
export function layRows(ranges: readonly (readonly [number, number])[], i: number, k: number, viewLength: number): number[] {
  const starts: number[] = [];
  while (i < viewLength) {
    const range = ranges[k];
    if (range && range[0] <= i) {
      starts.push(i);
      let end = range[1];
      // Merge every range that starts before this row ends.
      while (k < ranges.length && (ranges[k]?.[0] ?? Infinity) < end) end = Math.max(end, ranges[k++]?.[1] ?? 0);
      i = Math.max(end, i + 1);
      continue;
    }
    starts.push(i);
    i++;
  }
  return starts;
}

/** The row that shows view index `index`, or -1. */
export function rowOfIndex(layout: ProjectionLayout, index: number): number {
  if (index < 0 || index >= layout.viewLength) return -1;
  let lo = 0;
  let hi = layout.rowCount - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((layout.rowStarts[mid] ?? 0) <= index) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** A reduction touching a row, where it first does: its first view index in the row, its place in the log. */
interface Touch {
  r: Reduction;
  at: number;
  pos: number;
}

/**
 * The reductions touching view indexes `[index, rowEnd)`, for rows asked in ascending order: in
 * order of the first index each touches there, then log order, each once. A per-message reduction
 * touches its index; a range every index of it inside the view. Ranges are kept as ranges (a
 * compaction over 60,000 messages is one entry, not one per message): listing each message's
 * reductions made every projection of a long compacted session cost its whole range twice.
 */
/**
 * The view indices `[from, to)` a reduction touches in a view of `viewLength` messages, undefined
 * for none: a range from its start (at least 0) below its end, as a walk over the integers (a
 * fractional start touches no message); any other kind, the message at its index.
 */
function touchedSpan(r: Reduction, viewLength: number): { from: number; to: number } | undefined {
  const s = r.ptr.index;
  if (!Number.isInteger(s)) return undefined;
  const span = isRangeKind(r.kind) ? { from: Math.max(s, 0), to: Math.min(Math.ceil(r.end ?? s), viewLength) } : { from: s, to: Math.min(s + 1, viewLength) };
  return span.from >= 0 && span.to > span.from ? span : undefined;
}

function touchingIndex(log: readonly Reduction[], viewLength: number, from: number): (index: number, rowEnd: number) => Reduction[] {
  const single = new Map<number, Touch[]>();
  const ranges: (Touch & { end: number })[] = [];
  log.forEach((r, pos) => {
    const span = touchedSpan(r, viewLength);
    // Rows are asked from view index `from` on: what ends before it touches none of them.
    if (!span || span.to <= from) return;
    if (isRangeKind(r.kind)) {
      ranges.push({ r, at: span.from, pos, end: span.to });
      return;
    }
    const list = single.get(span.from) ?? [];
    list.push({ r, at: span.from, pos });
    single.set(span.from, list);
  });
  const indexes = [...single.keys()].sort((a, b) => a - b);
  ranges.sort((a, b) => a.at - b.at);
  let next = 0;
  let active: (Touch & { end: number })[] = [];
  return (index, rowEnd) => {
    while (next < ranges.length && (ranges[next] as Touch).at < rowEnd) active.push(ranges[next++] as Touch & { end: number });
    active = active.filter((t) => t.end > index);
    const found: Touch[] = [];
    for (const t of active) found.push(t.at >= index ? t : { r: t.r, at: index, pos: t.pos });
    for (let k = lowerBound(indexes, index); k < indexes.length && (indexes[k] as number) < rowEnd; k++) found.push(...(single.get(indexes[k] as number) as Touch[]));
    if (found.length > 1) found.sort((a, b) => a.at - b.at || a.pos - b.pos);
    // A set beside the list: a row can be touched by 100,000 reductions (a linear `includes` per
    // reduction made that quadratic).
    const touching: Reduction[] = [];
    const seen = new Set<Reduction>();
    for (const { r } of found) {
      if (seen.has(r)) continue;
      seen.add(r);
      touching.push(r);
    }
    return touching;
  };
}

/**
 * Display rows `[window.start, window.end)` of the projected view (all rows by default). Each row
 * shows what the model saw; a reduction addressing a message is applied in log order (the first one
 * wins, should two overlap — the integrity check reports that).
 */
export function projectView(
  minted: MessageList,
  log: readonly Reduction[],
  window?: { start: number; end: number },
  layout: ProjectionLayout = projectionLayout(minted.length, log),
): ProjectedRow[] {
  const start = Math.max(0, window?.start ?? 0);
  const end = Math.min(layout.rowCount, window?.end ?? layout.rowCount);
  const one = rowProjector(minted, log, layout, start < end ? (layout.rowStarts[start] ?? 0) : layout.viewLength);
  const rows: ProjectedRow[] = [];
  for (let row = start; row < end; row++) rows.push(one(row));
  return rows;
}

/**
 * Rows `rows` (row numbers, increasing; those past the view left out) of the projected view, each
 * exactly as projectView gives it: what reads a few rows of a long view reads only those
 * (docs/worker.md §7).
 */
export function projectRows(minted: MessageList, log: readonly Reduction[], rows: Iterable<number>, layout: ProjectionLayout = projectionLayout(minted.length, log)): ProjectedRow[] {
  const one = rowProjector(minted, log, layout);
  const out: ProjectedRow[] = [];
  let last = -1;
  for (const row of rows) {
    if (!(row > last)) throw new RangeError(`projectRows: rows must increase (${row} after ${last})`);
    last = row;
    if (row < layout.rowCount) out.push(one(row));
  }
  return out;
}

/**
 * The rows (increasing) that a reduction of `log` touches: where it can be applied. A row no
 * reduction touches shows its message as it is.
 */
export function rowsTouched(log: readonly Reduction[], layout: ProjectionLayout): number[] {
  const rows = new Set<number>();
  for (const r of log) {
    const span = touchedSpan(r, layout.viewLength);
    if (!span) continue;
    const first = rowOfIndex(layout, span.from);
    const last = rowOfIndex(layout, span.to - 1);
    if (first < 0 || last < 0) continue;
    for (let row = first; row <= last; row++) rows.add(row);
  }
  return [...rows].sort((a, b) => a - b);
}

/**
 * One row of the projected view at a time, asked in increasing order (the index of what touches
 * each row walks forward).
 */
function rowProjector(minted: MessageList, log: readonly Reduction[], layout: ProjectionLayout, from = 0): (row: number) => ProjectedRow {
  const touches = touchingIndex(log, minted.length, from);
  let summaries: Map<string, Reduction> | undefined;
  return (row) => {
    const index = layout.rowStarts[row] ?? 0;
    const rowEnd = layout.rowStarts[row + 1] ?? layout.viewLength;
    const touching = touches(index, rowEnd);
    const reductions = touching.map((r) => ({ id: r.id, kind: r.kind }));
    const cleared = touching.find((r) => isRangeKind(r.kind) && r.ptr.index <= index && index < (r.end ?? index));
    if (cleared) {
      const summary = cleared.group !== undefined ? (summaries ??= compactionSummaries(log)).get(cleared.group) : undefined;
      if (cleared.kind === 'summarized' && cleared.group !== undefined && summary) {
        const text = summary === cleared ? cleared.stub : '';
        return { row, index, end: rowEnd, text, reductions, applied: cleared.id, compaction: projectedCompaction(cleared, summary) };
      }
      return { row, index, end: rowEnd, text: cleared.stub, reductions, applied: cleared.id };
    }
    const msg = minted.at(index);
    if (!msg) return { row, index, end: rowEnd, text: '', reductions, missing: true };
    const applied = touching[0];
    // A message a compaction moved after the context it re-injected: the model saw nothing here
    // (its stub is the compaction's, shown at the summary's row).
    if (applied?.kind === 'duplicate_output' && applied.group !== undefined) {
      const summary = (summaries ??= compactionSummaries(log)).get(applied.group);
      return { row, index, end: rowEnd, ...messageFields(msg), text: '', reductions, applied: applied.id, ...(summary ? { compaction: projectedCompaction(applied, summary) } : {}) };
    }
    const shown: ProjectedRow = { row, index, end: rowEnd, ...messageFields(msg), text: '', reductions, ...(applied ? { applied: applied.id } : {}) };
    // A content left in its file is read when the row's text is asked for, not for every row of
    // every call's view (docs/streaming-import.md).
    if (!applied && msg.large !== undefined) readOnUse(shown, 'text', () => msg.content);
    else shown.text = visibleText(msg, applied);
    return shown;
  };
}

/**
 * `obj[key]` read through `get` at each use, in its place among the object's fields (enumerable,
 * so JSON and a copy see it); setting it makes it a plain value again.
 */
export function readOnUse<T extends object>(obj: T, key: keyof T & string, get: () => unknown): T {
  return Object.defineProperty(obj, key, {
    enumerable: true,
    configurable: true,
    get,
    set(value: unknown) {
      Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
    },
  });
}

function messageFields(msg: ChatMessage): Pick<ProjectedRow, 'role' | 'tool_call_id' | 'tool_calls' | 'name' | 'compact_summary'> {
  return {
    role: msg.role,
    ...(msg.tool_call_id !== undefined ? { tool_call_id: msg.tool_call_id } : {}),
    ...(msg.tool_calls !== undefined ? { tool_calls: msg.tool_calls } : {}),
    ...(msg.name !== undefined ? { name: msg.name } : {}),
    ...(msg.metadata?.[COMPACT_SUMMARY_KEY] === true ? { compact_summary: true as const } : {}),
  };
}

function visibleText(msg: ChatMessage, r: Reduction | undefined): string {
  if (!r) return msg.content;
  if (r.kind === 'tool_output_truncated') {
    // Only the kept prefix is encoded (a whole output at every view of every call was most of a what-if's time).
    const kept = r.kept_bytes ?? 0;
    const bytes = contentPrefixSource(msg, kept);
    try {
      return utf8Decode(bytes.read(0, floorSourceBoundary(bytes, Math.min(bytes.length, kept)))) + r.stub;
    } catch (e) {
      // The kept prefix of a large content that can no longer be read: the stub still shows.
      if (!(e instanceof ContentUnavailableError)) throw e;
      return r.stub;
    }
  }
  return r.stub;
}

/**
 * The view with reduction `id` spliced back (its verified original, upgraded from `recorded` where
 * the key holds) and its log entry removed. A preview: inputs are not changed.
 */
export function invertOne(
  view: MessageList,
  log: readonly Reduction[],
  id: string,
  recorded?: MessageList,
  options: ResolveOptions = {},
): Result<{ view: ChatMessage[]; log: Reduction[] }> {
  const r = findReduction(log, id);
  if (!r) return { ok: false, error: unknownReduction(id, log) };
  const resolved = resolveOriginal(r, view, recorded, options);
  if (!resolved.ok) return resolved;
  const out: ChatMessage[] = [];
  for (let i = 0; i < view.length; i++) out.push(view.at(i) as ChatMessage);
  for (const m of resolved.value.messages) {
    const { large: _large, ...fields } = m.minted;
    out[m.index] = isMemorySource(m.bytes) ? { ...fields, content: m.content } : { ...fields, content: m.content, large: m.bytes };
  }
  return ok({ view: out, log: log.filter((x) => x !== r) });
}
