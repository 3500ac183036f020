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
import { projectView, readOnUse, type ProjectedRow } from '../resolver/project';
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
    spans: log.map((reduction, k) => ({ reduction, from: fromOf(reduction, k) ?? Number.NEGATIVE_INFINITY })),
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

/** The view's first `length` messages. */
export function prefixList(minted: MessageList, length: number): MessageList {
  const n = Math.max(0, Math.min(length, minted.length));
  return { length: n, at: (i) => (i < n ? minted.at(i) : undefined) };
}

/**
 * The input of `call` (one of `timeline.calls`) over the session's minted view. A live reduction
 * that addresses a message past the input (one of no known line, or a record that pointed past the
 * view) is left out: the call was given nothing there to hide.
 */
export function callInput(timeline: CallTimeline, minted: MessageList, call: ModelCall): CallInput {
  return { minted: prefixList(minted, call.index), log: liveAt(timeline.spans, call.line).filter((r) => r.ptr.index < call.index) };
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
  const added: DiffMessage[] = [];
  const removed: DiffMessage[] = [];
  for (let i = a.minted.length; i < b.minted.length; i++) added.push(diffMessage(b.minted, i));
  for (let i = b.minted.length; i < a.minted.length; i++) removed.push(diffMessage(a.minted, i));
  const reduced = tailB.filter((r) => !inA.has(r)).map((r) => diffReduction(r, b));
  const restored = tailA.filter((r) => !inB.has(r)).map((r) => diffReduction(r, a, endedBy?.(r)));
  return { added, removed, reduced: reduced.sort(byIndex), restored: restored.sort(byIndex) };
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
}

/**
 * The entries of an input: one per projected row, content exactly as the model was given it. The
 * later runs of a compaction (`group`) showed the model nothing of their own — it saw the summary
 * once, at the first run — so they are no entry; their ids join the summary's entry.
 */
export function viewEntries(input: CallInput): ViewEntry[] {
  const rows = projectView(input.minted, input.log);
  const entries: ViewEntry[] = [];
  const summaryEntry = new Map<string, ViewEntry>();
  for (const row of rows) {
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

function entryOf(row: ProjectedRow, ids: string[]): ViewEntry {
  const entry: ViewEntry = {
    index: row.index,
    // projectView gives a range's row and a hole's no role.
    role: row.role ?? null,
    content: '',
    ...(row.tool_call_id !== undefined ? { tool_call_id: row.tool_call_id } : {}),
    ...(row.tool_calls !== undefined ? { tool_calls: row.tool_calls } : {}),
    reductions: ids,
  };
  // A row whose text is read on use (a content left in its file) gives an entry read on use.
  if (Object.getOwnPropertyDescriptor(row, 'text')?.get) readOnUse(entry, 'content', () => row.text);
  else entry.content = row.text;
  return entry;
}
