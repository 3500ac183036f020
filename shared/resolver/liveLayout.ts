/**
 * The projection layout (project.ts) of a followed session, extended from the layout of
 * the session before the last look instead of computed again. A look mostly appends messages, so
 * only the rows from the last one on are laid out again; a rewind, a re-recorded message or a new
 * range reduction moves the restart point back to where they reach. Pure.
 *
 * Why it is exact: projectionLayout scans view indices from 0 with a cursor into the ranges
 * (sorted by start, clipped to the view). At a row start `i` the cursor has consumed exactly the
 * ranges that start before `i`, and no consumed range reaches past `i`. So the rows before a row
 * start `p` depend only on the ranges that start before `p` and on `p` being inside the view: when
 * both layouts agree on those, the new layout keeps the old rows before `p` and scans on from `p`.
 */
import type { ProjectionLayout } from './project';
import { layRows, projectionLayout } from './project';
import type { Reduction } from '../format/types';
import { isRangeKind } from '../format/types';

/** A layout with the ranges it was computed from, what the next extension compares against. */
export interface LiveLayout {
  layout: ProjectionLayout;
  /** The range reductions' `[start, end)`, clipped to the view and sorted by start, as projectionLayout takes them. */
  ranges: readonly (readonly [number, number])[];
  /** The log the ranges were taken from, and whether the view's end clipped one of them. */
  log: readonly Reduction[];
  clipped: boolean;
  /**
   * The buffer `layout.rowStarts` is a view of, shared by the layouts extended from one another:
   * entries below `published` belong to a layout handed out and are never changed (copy on write).
   */
  store: { buffer: Int32Array; published: number };
}

/** The clipped, sorted ranges projectionLayout lays rows out with; `clipped` when the view's end cut one. */
function rangesOf(viewLength: number, log: readonly Reduction[]): { ranges: [number, number][]; clipped: boolean } {
  const ranges: [number, number][] = [];
  let clipped = false;
  for (const r of log) {
    if (!isRangeKind(r.kind)) continue;
    const s = r.ptr.index;
    const end = r.end ?? s;
    if (end > viewLength) clipped = true;
    const e = Math.min(end, viewLength);
    if (Number.isInteger(s) && s >= 0 && e > s) ranges.push([s, e]);
  }
  // Stable, as in projectionLayout: equal starts keep log order.
  return { ranges: ranges.sort((a, b) => a[0] - b[0]), clipped };
}

/** A layout whose rows are all in a fresh buffer (with room to grow). */
function fresh(layout: ProjectionLayout, log: readonly Reduction[], taken: { ranges: [number, number][]; clipped: boolean }): LiveLayout {
  const buffer = new Int32Array(Math.max(1024, Math.ceil(layout.rowCount * 1.5)));
  buffer.set(layout.rowStarts);
  return { layout: { ...layout, rowStarts: buffer.subarray(0, layout.rowCount) }, ranges: taken.ranges, log, clipped: taken.clipped, store: { buffer, published: layout.rowCount } };
}

/**
 * The layout of a view of `viewLength` messages under `log`, equal to `projectionLayout(viewLength,
 * log)`, reusing `previous` (any earlier layout of the same session) for the rows both agree on.
 */
export function extendLayout(previous: LiveLayout | undefined, viewLength: number, log: readonly Reduction[]): LiveLayout {
  // The same log (a followed sidecar hands the same array over while it is unchanged) over a view
  // no shorter, none of whose ranges was clipped: the same ranges.
  const same = previous !== undefined && previous.log === log && !previous.clipped && viewLength >= previous.layout.viewLength;
  const taken = same ? { ranges: previous.ranges as [number, number][], clipped: false } : rangesOf(viewLength, log);
  const ranges = taken.ranges;
  if (!previous) return fresh(projectionLayout(viewLength, log), log, taken);
  const old = previous.layout;
  // The first index where the inputs may differ: the end of the shorter view, or the start of the first range that differs.
  let differs = Math.min(old.viewLength, viewLength);
  const shared = Math.min(ranges.length, previous.ranges.length);
  let k = same ? shared : 0;
  while (k < shared && ranges[k]?.[0] === previous.ranges[k]?.[0] && ranges[k]?.[1] === previous.ranges[k]?.[1]) k++;
  if (k < ranges.length) differs = Math.min(differs, ranges[k]?.[0] ?? 0);
  if (k < previous.ranges.length) differs = Math.min(differs, previous.ranges[k]?.[0] ?? 0);
  // The last old row starting at or before `differs`: its rows before it stand (binary search).
  let lo = 0;
  let hi = old.rowCount - 1;
  if (hi < 0 || (old.rowStarts[0] ?? 0) > differs) return fresh(projectionLayout(viewLength, log), log, taken);
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((old.rowStarts[mid] ?? 0) <= differs) lo = mid;
    else hi = mid - 1;
  }
  const keep = lo;
  const from = old.rowStarts[keep] ?? 0;
  // The cursor at row start `from`: past every range that starts before it.
  let r = 0;
  while (r < ranges.length && (ranges[r]?.[0] ?? 0) < from) r++;
  const starts = layRows(ranges, from, r, viewLength);
  const rowCount = keep + starts.length;
  const store = previous.store;
  // Rows are written into the shared buffer when it has room and no published row would change
  // (an append rewrites only its last row, with the same start); otherwise into a fresh one.
  let shareable = rowCount <= store.buffer.length;
  for (let j = keep; shareable && j < Math.min(store.published, rowCount); j++) shareable = store.buffer[j] === starts[j - keep];
  if (!shareable) {
    const grown = new Int32Array(Math.max(1024, Math.ceil(rowCount * 1.5)));
    grown.set(old.rowStarts.subarray(0, keep));
    grown.set(starts, keep);
    return { layout: { rowCount, rowStarts: grown.subarray(0, rowCount), viewLength }, ranges, log, clipped: taken.clipped, store: { buffer: grown, published: rowCount } };
  }
  store.buffer.set(starts, keep);
  store.published = Math.max(store.published, rowCount);
  return { layout: { rowCount, rowStarts: store.buffer.subarray(0, rowCount), viewLength }, ranges, log, clipped: taken.clipped, store };
}
