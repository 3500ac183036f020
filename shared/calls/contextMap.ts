/**
 * The Context map's figures (SPEC §11): per model call, the bytes the model was
 * given and the bytes hidden from it, and the marks (reductions minted since the call before,
 * rewinds, model switches).
 *
 * Computed in one sweep over the calls in line order, never by projecting each call's input: at
 * 100,000 calls over 1,000,000 messages that would be 10^11 steps. A reduction is counted at a call
 * when it is live at the call's line and addresses a message inside its input (`callInput`'s rule),
 * found with a Fenwick tree over view indices: O((calls + reductions) · log messages).
 *
 * Invariants (electron/worker/calls.test): `hidden` is the sum of the stated hidden bytes of
 * `callInput(N).log` (a duplicate counts the bytes it keeps out of the input even where its
 * canonical is visible: the map shows what the input holds, not where else the bytes are; a
 * reduction that states no size, `ptr.bytes: null`, hides 0 here); `given` is the UTF-8 bytes of
 * the input's projected rows — the content of its messages with each live reduction's addressed
 * content replaced by its kept prefix and its stub. A single-message reduction inside a live range
 * (a truncation later cleared with its turn) is covered by the range: it counts for neither, as
 * projectView shows the range's one row, however many live ranges cover it (ranges overlapping is
 * an `overlapping_reductions` finding: a call whose input has one is not modelled, but the calls
 * after the overlap ends are counted right; UncoveredSums). A live reduction is assumed to address
 * messages inside the call's input (a sidecar's always do: a rewind drops the reductions past its cut).
 */
import { contentSource } from '../format/bytes';
import type { CallTimeline } from './calls';
import { addressedRange, statedHiddenBytes } from '../resolver/original';
import type { ModelChange } from './timeline';
import type { MessageList } from '../format/types';
import { ContentUnavailableError, isRangeKind } from '../format/types';
import { lowerBound } from '../format/sorted';
import { utf8Length } from '../format/utf8';

export interface ContextMap {
  /** Number of calls; every array below but the marks has this length, call N at `[N - 1]`. */
  calls: number;
  /** View index of the message each call produced (its input is `[0, index)`). */
  index: number[];
  /** Bytes of the input the model was given: its rows' text, kept prefixes and stubs included. */
  given: number[];
  /** Bytes the live reductions kept out of the input. */
  hidden: number[];
  /** Reductions logged since the call before (after the previous call's message, up to this one's). */
  minted: number[];
  /** Rewinds recorded since the call before: `call` is the first call after them. */
  rewinds: { call: number; to: number }[];
  /** Model switches recorded since the call before. */
  model_switches: { call: number; from: string; to: string }[];
  /**
   * What `minted` leaves out, so its sum and the latest view's count of live reductions (the status
   * bar's) can be told apart: the live ones are `sum(minted) + minted_after_last + unplaced - ended`.
   * `minted_after_last`: reductions logged after the last call (in the latest view, in no call's input).
   */
  minted_after_last: number;
  /** Reductions of no known line (live at every call; SPEC §3.5 `minted_at` absent from a snapshot alone). */
  unplaced: number;
  /** Reductions logged and since taken out of the live log (inverted, rewound, superseded). */
  ended: number;
}

/** Content bytes of one message; 0 for a hole or content that can no longer be read. */
function messageBytes(minted: MessageList, i: number): number {
  // An indexed file knows its contents' sizes: a million messages are not read back for this.
  const known = minted.contentBytes?.(i);
  if (known !== undefined) return known;
  const m = minted.at(i);
  if (!m) return 0;
  try {
    return contentSource(m).length;
  } catch (e) {
    if (e instanceof ContentUnavailableError) return 0;
    throw e;
  }
}

/** Prefix sums over view indices, with point updates (a Fenwick tree). */
class Fenwick {
  private readonly tree: Float64Array;
  constructor(size: number) {
    this.tree = new Float64Array(size + 1);
  }
  add(i: number, delta: number): void {
    for (let k = i + 1; k < this.tree.length; k += k & -k) this.tree[k] = (this.tree[k] ?? 0) + delta;
  }
  /** Sum over indices `[0, n)`. */
  before(n: number): number {
    let sum = 0;
    for (let k = Math.min(n, this.tree.length - 1); k > 0; k -= k & -k) sum += this.tree[k] ?? 0;
    return sum;
  }
}

/**
 * The figures of single-message reductions over their positions (the singles' distinct view
 * indices, in order) with each position's range coverage: a segment tree whose nodes keep the
 * least coverage below them and the sums at positions with that coverage, so a single under two
 * ranges is covered until both have ended. O(log singles) per change and query.
 */
class UncoveredSums {
  private readonly least: Int32Array;
  private readonly pending: Int32Array;
  private readonly hidden: Float64Array;
  private readonly removed: Float64Array;

  constructor(private readonly size: number) {
    const nodes = 4 * Math.max(1, size);
    this.least = new Int32Array(nodes);
    this.pending = new Int32Array(nodes);
    this.hidden = new Float64Array(nodes);
    this.removed = new Float64Array(nodes);
  }

  /** Coverage of positions `[a, b)` changes by `delta` (a range comes live, 1, or ends, -1). */
  cover(a: number, b: number, delta: number): void {
    if (a < b) this.coverIn(1, 0, this.size, a, b, delta);
  }

  /** A single's figures at position `i` change by `hidden` and `removed`. */
  add(i: number, hidden: number, removed: number): void {
    if (i >= 0 && i < this.size) this.addIn(1, 0, this.size, i, hidden, removed);
  }

  /** Hidden and removed bytes of the singles at positions `[a, b)` that no live range covers. */
  uncoveredIn(a: number, b: number): [number, number] {
    const sum = this.sum(a, b);
    return sum.least === 0 ? [sum.hidden, sum.removed] : [0, 0];
  }

  /** How many live ranges cover position `i`. */
  coverageAt(i: number): number {
    return this.sum(i, i + 1).least;
  }

  private sum(a: number, b: number): { least: number; hidden: number; removed: number } {
    const sum = { least: Infinity, hidden: 0, removed: 0 };
    if (a < b && a < this.size) this.sumIn(1, 0, this.size, a, Math.min(b, this.size), sum);
    return sum;
  }

  private coverIn(node: number, lo: number, hi: number, a: number, b: number, delta: number): void {
    if (b <= lo || hi <= a) return;
    if (a <= lo && hi <= b) {
      this.shift(node, delta);
      return;
    }
    this.pushDown(node);
    const mid = (lo + hi) >> 1;
    this.coverIn(2 * node, lo, mid, a, b, delta);
    this.coverIn(2 * node + 1, mid, hi, a, b, delta);
    this.pullUp(node);
  }

  private addIn(node: number, lo: number, hi: number, i: number, hidden: number, removed: number): void {
    if (hi - lo === 1) {
      this.hidden[node] = (this.hidden[node] ?? 0) + hidden;
      this.removed[node] = (this.removed[node] ?? 0) + removed;
      return;
    }
    this.pushDown(node);
    const mid = (lo + hi) >> 1;
    if (i < mid) this.addIn(2 * node, lo, mid, i, hidden, removed);
    else this.addIn(2 * node + 1, mid, hi, i, hidden, removed);
    this.pullUp(node);
  }

  /** Folds positions `[a, b)` under `node` into `sum` (the least coverage and the sums at it). */
  private sumIn(node: number, lo: number, hi: number, a: number, b: number, sum: { least: number; hidden: number; removed: number }): void {
    if (b <= lo || hi <= a) return;
    if (a <= lo && hi <= b) {
      const least = this.least[node] ?? 0;
      if (least < sum.least) Object.assign(sum, { least, hidden: 0, removed: 0 });
      if (least === sum.least) {
        sum.hidden += this.hidden[node] ?? 0;
        sum.removed += this.removed[node] ?? 0;
      }
      return;
    }
    this.pushDown(node);
    const mid = (lo + hi) >> 1;
    this.sumIn(2 * node, lo, mid, a, b, sum);
    this.sumIn(2 * node + 1, mid, hi, a, b, sum);
  }

  private shift(node: number, delta: number): void {
    this.least[node] = (this.least[node] ?? 0) + delta;
    this.pending[node] = (this.pending[node] ?? 0) + delta;
  }

  private pushDown(node: number): void {
    const delta = this.pending[node] ?? 0;
    if (delta === 0) return;
    this.shift(2 * node, delta);
    this.shift(2 * node + 1, delta);
    this.pending[node] = 0;
  }

  private pullUp(node: number): void {
    const [l, r] = [2 * node, 2 * node + 1];
    const least = Math.min(this.least[l] ?? 0, this.least[r] ?? 0);
    this.least[node] = least;
    this.hidden[node] = (this.least[l] === least ? (this.hidden[l] ?? 0) : 0) + (this.least[r] === least ? (this.hidden[r] ?? 0) : 0);
    this.removed[node] = (this.least[l] === least ? (this.removed[l] ?? 0) : 0) + (this.least[r] === least ? (this.removed[r] ?? 0) : 0);
  }
}

export function contextMap(timeline: CallTimeline, minted: MessageList, modelChanges: readonly ModelChange[] = [], rewindRecords: readonly { line: number; to: number }[] = []): ContextMap {
  const calls = [...timeline.calls].sort((a, b) => a.line - b.line);
  const n = timeline.calls.length;
  const lastLine = calls[calls.length - 1]?.line ?? Number.NEGATIVE_INFINITY;
  const map: ContextMap = {
    calls: n,
    index: new Array<number>(n).fill(0),
    given: new Array<number>(n).fill(0),
    hidden: new Array<number>(n).fill(0),
    minted: new Array<number>(n).fill(0),
    rewinds: [],
    model_switches: [],
    minted_after_last: timeline.spans.filter((s) => Number.isFinite(s.from) && s.from > lastLine).length,
    unplaced: timeline.spans.filter((s) => !Number.isFinite(s.from)).length,
    ended: timeline.spans.filter((s) => s.to !== undefined).length,
  };
  if (n === 0) return map;
  // Content bytes before each index (a reduction's addressed range can reach past the last call).
  const last = minted.length;
  const prefix = new Float64Array(last + 1);
  for (let i = 0; i < last; i++) prefix[i + 1] = (prefix[i] ?? 0) + messageBytes(minted, i);
  const contentOf = (start: number, end: number): number => (prefix[Math.min(end, last)] ?? 0) - (prefix[Math.min(start, last)] ?? 0);

  const starts = timeline.spans.map((s, k) => ({ line: s.from, k })).sort((a, b) => a.line - b.line);
  const ends = timeline.spans.flatMap((s, k) => (s.to !== undefined ? [{ line: s.to, k }] : [])).sort((a, b) => a.line - b.line);
  const rewinds = [...rewindRecords].sort((a, b) => a.line - b.line);
  const switches = [...modelChanges].sort((a, b) => a.line - b.line);
  // Reductions may address indices past the final view (a rewind later cut them): the trees reach
  // them, so a range's coverage of a single past `last` is counted and uncounted alike.
  let extent = last;
  for (const s of timeline.spans) extent = Math.max(extent, addressedRange(s.reduction)[1]);
  const hiddenTree = new Fenwick(extent + 1);
  /** What each reduction takes out of the given bytes: its addressed content, less its kept prefix and stub. */
  const removedTree = new Fenwick(extent + 1);
  const bytesOf = timeline.spans.map((s) => statedHiddenBytes(s.reduction) ?? 0);
  const removedOf = timeline.spans.map(({ reduction: r }) => {
    const [start, end] = addressedRange(r);
    return contentOf(start, end) - (r.kind === 'tool_output_truncated' ? (r.kept_bytes ?? 0) : 0) - utf8Length(r.stub);
  });
  const indexOf = timeline.spans.map((s) => s.reduction.ptr.index);
  // Live single-message reductions, and what the ones a live range covers count (kept as ranges
  // and singles come and go: a query per change, none per call).
  const isRange = timeline.spans.map((s) => isRangeKind(s.reduction.kind));
  const rangeOf = timeline.spans.map((s) => addressedRange(s.reduction));
  const positions = [...new Set(timeline.spans.flatMap((s, k) => (isRange[k] ? [] : [s.reduction.ptr.index])))].sort((a, b) => a - b);
  const singles = new UncoveredSums(positions.length);
  let coveredHidden = 0;
  let coveredRemoved = 0;
  /** Adds (sign 1) or takes out (sign -1) span `k` of the live set. */
  const apply = (k: number, sign: 1 | -1): void => {
    const at = indexOf[k] ?? 0;
    const hidden = sign * (bytesOf[k] ?? 0);
    const removed = sign * (removedOf[k] ?? 0);
    hiddenTree.add(at, hidden);
    removedTree.add(at, removed);
    if (isRange[k]) {
      const [a, b] = rangeOf[k] ?? [at, at + 1];
      const [from, to] = [lowerBound(positions, a), lowerBound(positions, b)];
      // The singles this range alone covers: uncovered before it comes, or once it has gone.
      if (sign === -1) singles.cover(from, to, -1);
      const [alone, aloneRemoved] = singles.uncoveredIn(from, to);
      coveredHidden += sign * alone;
      coveredRemoved += sign * aloneRemoved;
      if (sign === 1) singles.cover(from, to, 1);
    } else {
      const i = lowerBound(positions, at);
      singles.add(i, hidden, removed);
      if (singles.coverageAt(i) > 0) {
        coveredHidden += hidden;
        coveredRemoved += removed;
      }
    }
  };
  let si = 0;
  let ei = 0;
  let ri = 0;
  let mi = 0;
  for (const c of calls) {
    const k = c.call - 1;
    // Live at line L: from <= L < to. Starts first, so a span opened and closed before L nets 0.
    for (; si < starts.length && (starts[si]?.line ?? Infinity) <= c.line; si++) {
      const s = starts[si];
      if (!s) continue;
      apply(s.k, 1);
      if (Number.isFinite(s.line)) map.minted[k] = (map.minted[k] ?? 0) + 1;
    }
    for (; ei < ends.length && (ends[ei]?.line ?? Infinity) <= c.line; ei++) {
      const e = ends[ei];
      if (e) apply(e.k, -1);
    }
    for (; ri < rewinds.length && (rewinds[ri]?.line ?? Infinity) <= c.line; ri++) map.rewinds.push({ call: c.call, to: rewinds[ri]?.to ?? 0 });
    for (; mi < switches.length && (switches[mi]?.line ?? Infinity) <= c.line; mi++) {
      const m = switches[mi];
      if (m) map.model_switches.push({ call: c.call, from: m.from, to: m.to });
    }
    map.index[k] = c.index;
    // Singles under a live range count for neither figure: the range's row shows in their place.
    map.hidden[k] = hiddenTree.before(c.index) - coveredHidden;
    map.given[k] = Math.max(0, (prefix[c.index] ?? 0) - (removedTree.before(c.index) - coveredRemoved));
  }
  return map;
}
