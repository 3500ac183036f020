/**
 * The context map aggregated into buckets, one per horizontal pixel column at
 * most — the chart's DOM is the same few paths at 40 calls and at 100,000 (never one node per call).
 * Pure, so the aggregation is tested without a DOM.
 */
import type { ContextMapInfo } from '../../../shared/contract';
import { countOf } from '../../text/format';

/** What the map's charts are given: the figures, the call shown (null: the latest view), and what a click on a call does. */
export interface MapProps {
  map: ContextMapInfo;
  shownCall: number | null;
  onSelect: (call: number) => void;
}

/** Bars across the chart: about one per pixel column of its usual width. */
export const MAP_BUCKETS = 600;
/** Rows of the figures table at most (above, one row per group of calls). */
export const FIGURE_ROWS = 200;
/** Height of the bars' area, in the chart's units. */
export const HEIGHT = 60;
/** Height of the marks' lane under the bars. */
export const MARKS = 12;

/** One bucket of consecutive calls `[first, last]` (1-based). */
export interface MapBucket {
  first: number;
  last: number;
  /** The largest given and hidden bytes of a call in the bucket (a peak is never averaged away). */
  given: number;
  hidden: number;
  minted: number;
  rewinds: { call: number; to: number }[];
  switches: { call: number; from: string; to: string }[];
}

/** Buckets of at most `maxBuckets` over the map's calls, in call order; each call is in exactly one. */
export function bucketize(map: ContextMapInfo, maxBuckets: number): MapBucket[] {
  const n = map.calls;
  if (n === 0) return [];
  const count = Math.max(1, Math.min(n, Math.floor(maxBuckets)));
  const buckets: MapBucket[] = [];
  for (let b = 0; b < count; b++) {
    const first = Math.floor((b * n) / count) + 1;
    const last = Math.floor(((b + 1) * n) / count);
    let given = 0;
    let hidden = 0;
    let minted = 0;
    for (let k = first - 1; k < last; k++) {
      given = Math.max(given, map.given[k] ?? 0);
      hidden = Math.max(hidden, map.hidden[k] ?? 0);
      minted += map.minted[k] ?? 0;
    }
    buckets.push({ first, last, given, hidden, minted, rewinds: [], switches: [] });
  }
  // Marks are few (one per record): each goes to its call's bucket.
  const bucketOf = (call: number): MapBucket | undefined => buckets[Math.min(count - 1, Math.floor(((call - 1) * count) / n))];
  for (const r of map.rewinds) bucketOf(r.call)?.rewinds.push(r);
  for (const s of map.model_switches) bucketOf(s.call)?.switches.push(s);
  return buckets;
}

/** The call at horizontal position `x` of `width` (a click on the chart), 1…calls. */
export function callAtX(x: number, width: number, calls: number): number {
  if (calls <= 0 || width <= 0) return 1;
  return Math.max(1, Math.min(calls, Math.floor((x / width) * calls) + 1));
}

/** The reductions live in the latest view (the status bar's count), from the map's own figures. */
export function liveReductions(map: ContextMapInfo): number {
  return map.minted.reduce((a, b) => a + b, 0) + map.minted_after_last + map.unplaced - map.ended;
}

/**
 * How the reductions minted before the calls (the map's marks) become the latest view's live ones,
 * when they differ: one minted after the last call is in no call's input; one taken out since is
 * in none after. Empty when the two counts are the same reductions.
 */
export function latestViewNote(map: ContextMapInfo): string {
  const why = [
    ...(map.minted_after_last > 0 ? [`${countOf(map.minted_after_last, 'reduction')} minted after the last call`] : []),
    ...(map.unplaced > 0 ? [`${countOf(map.unplaced, 'reduction')} of no recorded time, in every call's input`] : []),
    ...(map.ended > 0 ? [`${countOf(map.ended, 'reduction')} since taken out (rewound, inverted or superseded)`] : []),
  ];
  return why.length === 0 ? '' : `The latest view holds ${countOf(liveReductions(map), 'reduction')}: ${why.join('; ')}.`;
}

/** The text alternative of the chart: one sentence, and latestViewNote's when it has one. */
export function mapSummary(map: ContextMapInfo, formatBytes: (n: number) => string): string {
  const note = latestViewNote(map);
  if (map.calls === 0) return `Context map: this session has no model calls.${note === '' ? '' : ` ${note}`}`;
  let peakGiven = 0;
  let peakHidden = 0;
  let minted = 0;
  for (let k = 0; k < map.calls; k++) {
    peakGiven = Math.max(peakGiven, map.given[k] ?? 0);
    peakHidden = Math.max(peakHidden, map.hidden[k] ?? 0);
    minted += map.minted[k] ?? 0;
  }
  const lastGiven = map.given[map.calls - 1] ?? 0;
  const lastHidden = map.hidden[map.calls - 1] ?? 0;
  return (
    `Context map of ${countOf(map.calls, 'model call')}: the last call was given ${formatBytes(lastGiven)} with ${formatBytes(lastHidden)} hidden; ` +
    `at most ${formatBytes(peakGiven)} given and ${formatBytes(peakHidden)} hidden at one call; ` +
    `${countOf(minted, 'reduction')} minted before a call, ${countOf(map.rewinds.length, 'rewind')}, ${countOf(map.model_switches.length, 'model switch', 'model switches')}.` +
    (note === '' ? '' : ` ${note}`)
  );
}
