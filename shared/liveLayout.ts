/**
 * Issue 14: the projection layout (project.ts) of a followed session, extended from the layout of
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
import { projectionLayout } from './project';
import type { Reduction } from './types';
import { isRangeKind } from './types';

/** A layout with the ranges it was computed from, what the next extension compares against. */
export interface LiveLayout {
  layout: ProjectionLayout;
  /** The range reductions' `[start, end)`, clipped to the view and sorted by start, as projectionLayout takes them. */
  ranges: readonly (readonly [number, number])[];
}

/** The clipped, sorted ranges projectionLayout lays rows out with. */
function rangesOf(viewLength: number, log: readonly Reduction[]): [number, number][] {
  const ranges: [number, number][] = [];
  for (const r of log) {
    if (!isRangeKind(r.kind)) continue;
    const s = r.ptr.index;
    const e = Math.min(r.end ?? s, viewLength);
    if (Number.isInteger(s) && s >= 0 && e > s) ranges.push([s, e]);
  }
  // Stable, as in projectionLayout: equal starts keep log order.
  return ranges.sort((a, b) => a[0] - b[0]);
}

/**
 * The layout of a view of `viewLength` messages under `log`, equal to `projectionLayout(viewLength,
 * log)`, reusing `previous` (any earlier layout of the same session) for the rows both agree on.
 */
export function extendLayout(previous: LiveLayout | undefined, viewLength: number, log: readonly Reduction[]): LiveLayout {
  const ranges = rangesOf(viewLength, log);
  if (!previous) return { layout: projectionLayout(viewLength, log), ranges };
  const old = previous.layout;
  // The first index where the inputs may differ: the end of the shorter view, or the start of the first range that differs.
  let differs = Math.min(old.viewLength, viewLength);
  const shared = Math.min(ranges.length, previous.ranges.length);
  let k = 0;
  while (k < shared && ranges[k]?.[0] === previous.ranges[k]?.[0] && ranges[k]?.[1] === previous.ranges[k]?.[1]) k++;
  if (k < ranges.length) differs = Math.min(differs, ranges[k]?.[0] ?? 0);
  if (k < previous.ranges.length) differs = Math.min(differs, previous.ranges[k]?.[0] ?? 0);
  // The last old row starting at or before `differs`: its rows before it stand (binary search).
  let lo = 0;
  let hi = old.rowCount - 1;
  if (hi < 0 || (old.rowStarts[0] ?? 0) > differs) return { layout: projectionLayout(viewLength, log), ranges };
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((old.rowStarts[mid] ?? 0) <= differs) lo = mid;
    else hi = mid - 1;
  }
  const keep = lo;
  const from = old.rowStarts[keep] ?? 0;
  const starts: number[] = [];
  // The cursor at row start `from`: past every range that starts before it.
  let r = 0;
  while (r < ranges.length && (ranges[r]?.[0] ?? 0) < from) r++;
  let i = from;
  while (i < viewLength) {
    const range = ranges[r];
    if (range && range[0] <= i) {
      starts.push(i);
      let end = range[1];
      while (r < ranges.length && (ranges[r]?.[0] ?? Infinity) < end) end = Math.max(end, ranges[r++]?.[1] ?? 0);
      i = Math.max(end, i + 1);
      continue;
    }
    starts.push(i);
    i++;
  }
  const rowStarts = new Int32Array(keep + starts.length);
  rowStarts.set(old.rowStarts.subarray(0, keep));
  rowStarts.set(starts, keep);
  return { layout: { rowCount: rowStarts.length, rowStarts, viewLength }, ranges };
}
