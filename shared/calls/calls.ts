/**
 * SPEC §11: model calls. Call N (1-based) produced the N-th assistant message of the live
 * timeline; its input is the view just before that message was pushed — the live messages before
 * it, with every reduction live at that point applied. Nothing is stored per call: a session keeps
 * each call's view index and the line of its message record, and every reduction ever logged with
 * the interval of lines over which it was live. A call's input is then a prefix of the minted view
 * and the reductions whose interval holds the call's line, in log order — the latest view is the
 * minted view with the live log, what a next call would be given.
 *
 * "Lines" are positions in one order shared by messages and reductions: the 1-based lines of the
 * file for a sidecar or an importer's source, view lengths for a snapshot alone (§3.5 `minted_at`).
 */
import { addressedRange, canonicalFullyVisible, statedHiddenBytes } from '../resolver/original';
import { contentSource } from '../format/bytes';
import { projectView, projectionLayout, readOnUse, rowOfIndex, type ProjectedRow } from '../resolver/project';
import type { MessageList, Reduction, ReductionKind, Role, ToolCall } from '../format/types';
import { ContentUnavailableError } from '../format/types';

/** One model call of the live timeline. */
export interface ModelCall {
  /** 1-based. */
  call: number;
  /** View index of the assistant message it produced: its input is the view's `[0, index)`. */
  index: number;
  /** Line of that message's record. */
  line: number;
}

/** A reduction with the interval of lines `[from, to)` over which it was in the live log. */
export interface ReductionSpan {
  reduction: Reduction;
  /** Line of the record that logged it. */
  from: number;
  /** Line of the record that took it out of the live log; absent while it is live. */
  to?: number;
  /** What took it out: an `invert` of its id, or a `rewind` below an index it addresses. */
  ended?: 'inverted' | 'rewound';
}

/** What a session knows of its model calls: each call, and every reduction's live interval. */
export interface CallTimeline {
  calls: readonly ModelCall[];
  /** In the order they were logged (the live log's order, for the ones still live). */
  spans: readonly ReductionSpan[];
}

/** What the model was given at a call: `projectView(minted, log)` shows its rows. */
export interface CallInput {
  minted: MessageList;
  log: Reduction[];
}

export const NO_CALLS: CallTimeline = { calls: [], spans: [] };

/**
 * The calls of a view: each message that is an assistant's and whose record line is known, in
 * view order. A hole (`roleAt` undefined: the record could not be read) is no call — nothing says
 * it was the assistant's — but it stays inside the input of every later call.
 */
export function callsOf(length: number, roleAt: (index: number) => Role | undefined, lineAt: (index: number) => number | undefined): ModelCall[] {
  const calls: ModelCall[] = [];
  for (let i = 0; i < length; i++) {
    if (roleAt(i) !== 'assistant') continue;
    const line = lineAt(i);
    if (line === undefined) continue;
    calls.push({ call: calls.length + 1, index: i, line });
  }
  return calls;
}

/** The calls of a replayed sidecar (TimelineBuilder): its view's assistant messages and its spans. */
export function replayedCalls<M>(timeline: { view: readonly ({ value: M; line: number } | undefined)[]; spans: readonly ReductionSpan[] }, roleOf: (msg: M) => Role): CallTimeline {
  const view = timeline.view;
  const roleAt = (i: number): Role | undefined => {
    const entry = view[i];
    return entry ? roleOf(entry.value) : undefined;
  };
  return { calls: callsOf(view.length, roleAt, (i) => view[i]?.line), spans: timeline.spans };
}

/**
 * The timeline of a view whose reductions are all live at the end (an importer's, or a snapshot's):
 * each reduction is live from its line on (`fromOf`; a reduction of no known line is live for
 * every call — nothing shows the model saw its original).
 */
export function liveFromTimeline(minted: MessageList, lineAt: (index: number) => number | undefined, log: readonly Reduction[], fromOf: (r: Reduction, k: number) => number | undefined): CallTimeline {
  return {
    calls: callsOf(minted.length, (i) => minted.at(i)?.role, lineAt),
    // Frozen: nothing changes these spans after, so `callLog` may index them (see `LogIndex`).
    spans: Object.freeze(log.map((reduction, k) => ({ reduction, from: fromOf(reduction, k) ?? Number.NEGATIVE_INFINITY }))),
  };
}

/** A snapshot alone (§3.2) records no order: a reduction minted at view length `minted_at` applies to the calls at index `minted_at` or later. */
export function snapshotTimeline(minted: MessageList, log: readonly Reduction[]): CallTimeline {
  // The message at index i was pushed when the view held i messages: its "line" is i.
  return liveFromTimeline(minted, (i) => i, log, (r) => r.minted_at);
}

/** The reductions live at `line`, in log order. */
export function liveAt(spans: readonly ReductionSpan[], line: number): Reduction[] {
  const log: Reduction[] = [];
  for (const s of spans) if (s.from <= line && (s.to === undefined || line < s.to)) log.push(s.reduction);
  return log;
}

/**
 * What a frozen spans array allows a call's log to be read from without visiting every span. An
 * importer's and a snapshot's spans fall into a few runs, each of spans that never ended logged in
 * the order of their lines (Claude Code: the cleared tool results, then the truncated ones; older
 * compactions that ended come first, one run each): a run's part live at a line is then a prefix,
 * found by binary search. `maxIndex[k]` is the highest `ptr.index` from span k's run start to k, so
 * a call whose index lies past it keeps the whole prefix unfiltered.
 */
interface LogIndex {
  reductions: readonly Reduction[];
  /** Each run's first span; a span that ended is a run of its own. */
  runs: Uint32Array;
  from: Float64Array;
  /** `+Infinity` for a span still live. */
  to: Float64Array;
  maxIndex: Float64Array;
}

const logIndexes = new WeakMap<readonly ReductionSpan[], LogIndex>();

function logIndexOf(spans: readonly ReductionSpan[]): LogIndex | undefined {
  if (!Object.isFrozen(spans)) return undefined;
  let index = logIndexes.get(spans);
  if (index) return index;
  const from = Float64Array.from(spans, (s) => s.from);
  const to = Float64Array.from(spans, (s) => s.to ?? Number.POSITIVE_INFINITY);
  const maxIndex = new Float64Array(spans.length);
  const runs: number[] = [];
  spans.forEach((s, k) => {
    const joins = k > 0 && to[k] === Number.POSITIVE_INFINITY && to[k - 1] === Number.POSITIVE_INFINITY && (from[k - 1] as number) <= s.from;
    if (!joins) runs.push(k);
    maxIndex[k] = joins ? Math.max(maxIndex[k - 1] as number, s.reduction.ptr.index) : s.reduction.ptr.index;
  });
  index = { reductions: spans.map((s) => s.reduction), runs: Uint32Array.from(runs), from, to, maxIndex };
  logIndexes.set(spans, index);
  return index;
}

/**
 * The log of `call`'s input: the reductions live at its line, in log order, less those that address
 * a message past the input (a live reduction of no known line, or a record that pointed past the
 * view — the call was given nothing there to hide).
 */
export function callLog(timeline: CallTimeline, call: ModelCall): Reduction[] {
  const addressed = (r: Reduction): boolean => r.ptr.index < call.index;
  const index = logIndexOf(timeline.spans);
  if (!index) return liveAt(timeline.spans, call.line).filter(addressed);
  const { reductions, runs, from, to, maxIndex } = index;
  let log: Reduction[] = [];
  for (let k = 0; k < runs.length; k++) {
    const start = runs[k] as number;
    // The run's spans logged at or before the call's line: `[start, end)`.
    const end = runEnd(from, start, k + 1 < runs.length ? (runs[k + 1] as number) : reductions.length, call.line);
    if (end === start || !(call.line < (to[start] as number))) continue;
    const part = reductions.slice(start, end);
    log = log.concat((maxIndex[end - 1] as number) < call.index ? part : part.filter(addressed));
  }
  return log;
}

/** The end of `[start, hi)`'s prefix of spans logged at or before `line` (a run's spans are in line order). */
function runEnd(from: Float64Array, start: number, hi: number, line: number): number {
  let end = start;
  while (end < hi) {
    const mid = (end + hi) >>> 1;
    if ((from[mid] as number) <= line) end = mid + 1;
    else hi = mid;
  }
  return end;
}

/**
 * What the logs of two calls' inputs do not share: `reduced`, the reductions `b`'s log holds and
 * `a`'s not; `restored`, the reverse; each in log order — the sets `diffCallInputs` compares, found
 * from an indexed timeline without making either log (between two calls, each run of spans
 * changes by the spans logged between their lines).
 */
export function logChanges(timeline: CallTimeline, a: ModelCall, b: ModelCall): { reduced: Reduction[]; restored: Reduction[] } {
  const index = logIndexOf(timeline.spans);
  if (!index) {
    const logA = callLog(timeline, a);
    const logB = callLog(timeline, b);
    const inA = new Set(logA);
    const inB = new Set(logB);
    return { reduced: logB.filter((r) => !inA.has(r)), restored: logA.filter((r) => !inB.has(r)) };
  }
  const { reductions, runs, from, to, maxIndex } = index;
  const reduced: Reduction[] = [];
  const restored: Reduction[] = [];
  const least = Math.min(a.index, b.index);
  for (let k = 0; k < runs.length; k++) {
    const start = runs[k] as number;
    const next = k + 1 < runs.length ? (runs[k + 1] as number) : reductions.length;
    // Each input holds the run's `[start, end)` (less what addresses a message past it).
    const endA = a.line < (to[start] as number) ? runEnd(from, start, next, a.line) : start;
    const endB = b.line < (to[start] as number) ? runEnd(from, start, next, b.line) : start;
    const lo = Math.min(endA, endB);
    const hi = Math.max(endA, endB);
    // Below `lo` both hold each span unless its index leaves it out of one: looked at only when an
    // index there reaches an input's end.
    const first = lo > start && !((maxIndex[lo - 1] as number) < least) ? start : lo;
    for (let s = first; s < hi; s++) {
      const r = reductions[s] as Reduction;
      const inA = s < endA && r.ptr.index < a.index;
      const inB = s < endB && r.ptr.index < b.index;
      if (inB && !inA) reduced.push(r);
      else if (inA && !inB) restored.push(r);
    }
  }
  return { reduced, restored };
}

/** The view's first `length` messages. */
export function prefixList(minted: MessageList, length: number): MessageList {
  const n = Math.max(0, Math.min(length, minted.length));
  return { length: n, at: (i) => (i < n ? minted.at(i) : undefined) };
}

/** The input of `call` (one of `timeline.calls`) over the session's minted view (its log: `callLog`). */
export function callInput(timeline: CallTimeline, minted: MessageList, call: ModelCall): CallInput {
  return { minted: prefixList(minted, call.index), log: callLog(timeline, call) };
}

// ---------------------------------------------------------------------------------------------
// The diff of two inputs

/** A reduction that left or came back into the context between two inputs. */
export interface DiffReduction {
  /** The view index it addresses (a range's start). */
  index: number;
  /** A range's end (turns_cleared, summarized). */
  end?: number;
  reduction_id: string;
  kind: ReductionKind;
  /** The bytes it hides in the input where it applies, as the reduction states them; null when it states none. */
  hidden_bytes: number | null;
  /** For a reduction that came back: what took it out of the log, when the session knows. */
  by?: 'inverted' | 'rewound';
}

export interface DiffMessage {
  index: number;
  /** Absent for a hole. */
  role?: Role;
  /** Content bytes; null for a hole or content that can no longer be read. */
  bytes: number | null;
}

/** What changed from input `a` to input `b`, each list by view index. */
export interface CallDiff {
  /** Messages `b` holds past the end of `a`. */
  added: DiffMessage[];
  /** Messages `a` holds past the end of `b` (b is earlier, or a rewind dropped them). */
  removed: DiffMessage[];
  /** Reductions applied in `b` and not in `a`: what left the context. */
  reduced: DiffReduction[];
  /** Reductions applied in `a` and not in `b`: what came back. */
  restored: DiffReduction[];
}

/**
 * The bytes `r` hides in an input, as it states them (`ptr.bytes` less a kept prefix): a duplicate
 * hides nothing while its canonical is fully visible in that input (inside it and reduced by nothing).
 */
export function inputHiddenBytes(r: Reduction, input: CallInput): number | null {
  if (r.kind === 'duplicate_output') {
    const c = r.canonical?.index;
    if (c !== undefined && c < input.minted.length && canonicalFullyVisible(r, input.log)) return 0;
  }
  return statedHiddenBytes(r);
}

function diffReduction(r: Reduction, input: CallInput, by?: 'inverted' | 'rewound'): DiffReduction {
  const [index, end] = addressedRange(r);
  return {
    index,
    ...(r.end !== undefined || end !== index + 1 ? { end } : {}),
    reduction_id: r.id,
    kind: r.kind,
    hidden_bytes: inputHiddenBytes(r, input),
    ...(by ? { by } : {}),
  };
}

function diffMessage(list: MessageList, index: number): DiffMessage {
  const m = list.at(index);
  if (!m) return { index, bytes: null };
  let bytes: number | null;
  try {
    bytes = contentSource(m).length;
  } catch (e) {
    if (!(e instanceof ContentUnavailableError)) throw e;
    bytes = null;
  }
  return { index, role: m.role, bytes };
}

const byIndex = <T extends { index: number }>(a: T, b: T): number => a.index - b.index;

/**
 * The diff of two inputs of one session. Reductions are compared as the same record (object
 * identity: the session hands out one object per logged reduction), so an id minted twice is two
 * reductions. `endedBy` says why a reduction left the log, for those that came back.
 */
export function diffCallInputs(a: CallInput, b: CallInput, endedBy?: (r: Reduction) => 'inverted' | 'rewound' | undefined): CallDiff {
  // Two calls' logs mostly share their start (a log only grows between calls until one ends a
  // reduction): only what follows the shared start is compared as sets, so a session's cache
  // breaks cost the logs' changes, not their lengths. A log holds each record once.
  const most = Math.min(a.log.length, b.log.length);
  let shared = 0;
  while (shared < most && a.log[shared] === b.log[shared]) shared++;
  const tailA = a.log.slice(shared);
  const tailB = b.log.slice(shared);
  const inA = new Set(tailA);
  const inB = new Set(tailB);
  return diffOf(
    a,
    b,
    tailB.filter((r) => !inA.has(r)),
    tailA.filter((r) => !inB.has(r)),
    endedBy,
  );
}

/**
 * `diffCallInputs` of two calls of one timeline, their logs compared through `logChanges`: each
 * log is made only when a duplicate that left or came back needs it (whether its canonical is
 * visible), so a session's cache breaks cost the spans logged between calls, not the logs' lengths.
 */
export function diffOfCalls(timeline: CallTimeline, minted: MessageList, a: ModelCall, b: ModelCall, endedBy?: (r: Reduction) => 'inverted' | 'rewound' | undefined): CallDiff {
  const { reduced, restored } = logChanges(timeline, a, b);
  return diffOf(lazyInput(timeline, minted, a), lazyInput(timeline, minted, b), reduced, restored, endedBy);
}

/** `callInput`, its log made when first read. */
function lazyInput(timeline: CallTimeline, minted: MessageList, call: ModelCall): CallInput {
  let log: Reduction[] | undefined;
  return {
    minted: prefixList(minted, call.index),
    get log() {
      return (log ??= callLog(timeline, call));
    },
  };
}

/** The diff of `a` and `b` whose logs differ by `reduced` (in `b` only) and `restored` (in `a` only). */
function diffOf(a: CallInput, b: CallInput, reduced: readonly Reduction[], restored: readonly Reduction[], endedBy?: (r: Reduction) => 'inverted' | 'rewound' | undefined): CallDiff {
  const added: DiffMessage[] = [];
  const removed: DiffMessage[] = [];
  for (let i = a.minted.length; i < b.minted.length; i++) added.push(diffMessage(b.minted, i));
  for (let i = b.minted.length; i < a.minted.length; i++) removed.push(diffMessage(a.minted, i));
  return {
    added,
    removed,
    reduced: reduced.map((r) => diffReduction(r, b)).sort(byIndex),
    restored: restored.map((r) => diffReduction(r, a, endedBy?.(r))).sort(byIndex),
  };
}

// ---------------------------------------------------------------------------------------------
// SPEC §11 `view`: the input as the model was given it

/** One entry of `view`'s `messages` (SPEC §11). */
export interface ViewEntry {
  index: number;
  /** null for a cleared or summarized range (one stub stands for several messages) and for a hole. */
  role: Role | null;
  content: string;
  tool_call_id?: string;
  tool_calls?: ToolCall[];
  reductions: string[];
  /** A compaction's summary kept as the message it was: the file opens with the compaction (ProjectedRow.compact_summary). */
  compact_summary?: true;
}

/**
 * The entries of an input: one per projected row, content exactly as the model was given it. The
 * later runs of a compaction (`group`) showed the model nothing of their own — it saw the summary
 * once, at the first run — so they are no entry; their ids join the summary's entry. With `from`,
 * only the rows from the one that holds view index `from`. `eachRow` sees every projected row
 * the entries are made from, in order (a caller that also counts the rows' bytes: `givenBytes`).
 */
export function viewEntries(input: CallInput, from = 0, eachRow?: (row: ProjectedRow) => void): ViewEntry[] {
  const layout = projectionLayout(input.minted.length, input.log);
  // The rows from the one holding `from` on (none past the view): a later run of a compaction whose
  // summary lies before them is then an entry of its own.
  const first = rowOfIndex(layout, from);
  const rows = projectView(input.minted, input.log, { start: first < 0 ? layout.rowCount : first, end: layout.rowCount }, layout);
  const entries: ViewEntry[] = [];
  const summaryEntry = new Map<string, ViewEntry>();
  for (const row of rows) {
    eachRow?.(row);
    const ids = row.reductions.map((r) => r.id);
    // The summary's run has the group's lowest index, so its entry comes first.
    const summary = row.compaction && row.compaction.summary !== row.applied ? summaryEntry.get(row.compaction.summary) : undefined;
    if (summary) {
      for (const id of ids) if (!summary.reductions.includes(id)) summary.reductions.push(id);
      continue;
    }
    const entry = entryOf(row, ids);
    if (row.compaction) summaryEntry.set(row.compaction.summary, entry);
    entries.push(entry);
  }
  return entries;
}

/** The first view index of the row of `input`'s projection that holds view index `index` (its length for an index past the view). */
export function rowStartAt(input: CallInput, index: number): number {
  const layout = projectionLayout(input.minted.length, input.log);
  const row = rowOfIndex(layout, index);
  return row < 0 ? layout.viewLength : (layout.rowStarts[row] as number);
}

function entryOf(row: ProjectedRow, ids: string[]): ViewEntry {
  const entry: ViewEntry = {
    index: row.index,
    // projectView gives a range's row and a hole's no role.
    role: row.role ?? null,
    content: '',
    ...(row.tool_call_id !== undefined ? { tool_call_id: row.tool_call_id } : {}),
    ...(row.tool_calls !== undefined ? { tool_calls: row.tool_calls } : {}),
    reductions: ids,
    ...(row.compact_summary === true ? { compact_summary: true as const } : {}),
  };
  // A row whose text is read on use (a content left in its file) gives an entry read on use.
  if (Object.getOwnPropertyDescriptor(row, 'text')?.get) readOnUse(entry, 'content', () => row.text);
  else entry.content = row.text;
  return entry;
}
