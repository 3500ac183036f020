/**
 * Policy replay. Re-runs a reduction policy (§3.4) over a sidecar's records, pass by
 * pass, and compares what it mints (§5.4 `mintReductions`) with what the agent recorded.
 *
 * The rule, following how the agent (and the sample generator) produced the session:
 * - **The recorded originals at a pass** are the view as history held it at that point of the
 *   file: for each index of the current timeline, the last `message` record there, with its `cap`
 *   applied (legacy runtimes hashed the capped copy). Rewinds truncate it; a message record that
 *   skips ahead is left out (it is `address_out_of_range` elsewhere).
 * - **A pass** runs where the agent ran its projection pass: after every assistant message without
 *   tool calls (the end of a turn), and wherever a run of `reduction` records sits in the file (so
 *   a batch recorded at an unusual place is still compared at its own place), and once more at the
 *   end of the file. The batch of a pass is the run of `reduction` records right after it.
 * - **The log a pass sees** is the policy's own live log (what it minted before, rewinds and
 *   inverts applied), so one missing record is reported once, where it should have been minted.
 *   An index the agent inverted is left alone by later passes (restoring it was the agent's choice).
 * - **`clear_turns_before`** is the one field that grows during a session; the header holds its
 *   last value. A pass clears up to the `end` of the `turns_cleared` recorded in its batch (none:
 *   no new clearing), never beyond the policy's value; the final pass clears up to the policy's
 *   value itself, so a clearing the agent never did is still reported.
 * - **Ids** continue the agent's counter (one past the highest id seen), and a minted reduction
 *   matched to a recorded one (same pass, same index; the range kinds by kind) takes its id, so a
 *   stub is compared with its id replaced: an id the policy cannot know is no divergence.
 * Model switches are not replayed: reasoning artifacts are never read by the pass (it reads roles,
 * content and image parts only).
 */
import { sourceWindows } from '../format/bytes';
import { stubText } from '../format/constants';
import { sha256Hex } from '../format/hash';
import { mintReductions } from '../resolver/mint';
import { arrayList } from '../resolver/session';
import { applyCap, lastAddressed } from './timeline';
import type { ByteSource, ChatMessage, Finding, FindingCode, LocatedRecord, Reduction, ReductionPolicy, Sha256 } from '../format/types';
import { isRangeKind } from '../format/types';
import { isWellFormed, utf8Encode, utf8Length } from '../format/utf8';

/** Finding codes only a replay reports (`check --replay`, the app's check): no broken sample plants them. */
export const REPLAY_FINDING_CODES: readonly FindingCode[] = ['policy_divergence'];

export type { LocatedRecord } from '../format/types';

/** One place where the recorded log and the policy's pass disagree. */
export interface PolicyDivergence {
  /** Line of the recorded reduction; for one only the policy mints, the line its pass follows (0: before any record). */
  line: number;
  /** View index the reduction addresses (a range's start). */
  index: number;
  /** The recorded reduction's id; absent when only the policy mints one there. */
  reduction_id?: string;
  /** The fields that differ (`kind`, `bytes`, `hash`, `kept_bytes`, `canonical`, `index`, `end`, `stub`, `minted_at`); empty when one side is missing. */
  fields: string[];
  recorded: Reduction | null;
  /** What the policy mints there (with the recorded id when matched). */
  minted: Reduction | null;
}

export interface PolicyReplayResult {
  /** Passes run (the final one included). */
  passes: number;
  divergences: PolicyDivergence[];
  /** The view after the last record, as history held it. */
  view: (ChatMessage | undefined)[];
  /** The recorded live log after the last record. */
  recordedLog: Reduction[];
  /** The policy's live log after the last record. */
  policyLog: Reduction[];
}

export interface ReplayOptions {
  sha256?: Sha256;
  /**
   * What-if mode: the policy numbers its reductions with its own counter (as an agent running it
   * would), instead of taking the id of the recorded reduction it matches. Divergences are still
   * listed, but a what-if compares the two logs by address (`whatIf`).
   */
  ownIds?: boolean;
  /**
   * The byte counts of the message objects (what `contentBytes` of the records gave, and what the
   * passes measured), for a caller that measures the same messages afterwards (`whatIf`).
   */
  sizes?: WeakMap<ChatMessage, number>;
}

const COMPARED = ['kind', 'index', 'bytes', 'hash', 'kept_bytes', 'canonical', 'end', 'stub', 'minted_at'] as const;

function hiddenBytes(r: Reduction): number {
  const total = r.ptr.bytes ?? 0;
  return r.kind === 'tool_output_truncated' ? total - (r.kept_bytes ?? 0) : total;
}

function field(r: Reduction, name: (typeof COMPARED)[number]): unknown {
  switch (name) {
    case 'index':
      return r.ptr.index;
    case 'bytes':
      return r.ptr.bytes;
    case 'hash':
      return r.ptr.hash;
    case 'canonical':
      return r.canonical ? `${r.canonical.index} ${r.canonical.hash ?? ''}` : undefined;
    default:
      return r[name];
  }
}

/** Where a reduction sits within one pass: ranges are matched by kind, the rest by index. */
function keyOf(r: Reduction): string {
  return isRangeKind(r.kind) ? `range:${r.kind}` : `index:${r.ptr.index}`;
}

function idNumber(id: string): number {
  const m = /^r(\d+)$/.exec(id);
  return m ? Number(m[1]) : 0;
}

/** `kind of index N` / `kind of [s, e)`, with what it keeps: one side of a divergence, in words. */
export function describeReduction(r: Reduction): string {
  const where = r.end !== undefined ? `[${r.ptr.index}, ${r.end})` : `index ${r.ptr.index}`;
  const kept = r.kept_bytes !== undefined ? `, kept_bytes ${r.kept_bytes}` : '';
  return `${r.kind} of ${where} (${r.ptr.bytes ?? '?'} bytes${kept}, ${hiddenBytes(r)} hidden, minted_at ${r.minted_at})`;
}

function show(v: unknown): string {
  return v === undefined ? 'none' : JSON.stringify(v);
}

/** The `policy_divergence` finding (warning) of a divergence: it names the reduction or index and both sides. */
export function divergenceFinding(d: PolicyDivergence): Finding {
  let message: string;
  if (d.recorded && d.minted) {
    const diffs = d.fields.map((f) => `${f} recorded ${show(field(d.recorded as Reduction, f as (typeof COMPARED)[number]))}, policy ${show(field(d.minted as Reduction, f as (typeof COMPARED)[number]))}`);
    message = `reduction ${d.recorded.id} differs from what the policy mints at its pass: ${diffs.join('; ')}`;
  } else if (d.recorded) {
    message = `reduction ${d.recorded.id} is recorded (${describeReduction(d.recorded)}), but the policy mints nothing there at its pass`;
  } else {
    message = `the policy mints a ${describeReduction(d.minted as Reduction)} at the pass after line ${d.line}, but the log records none`;
  }
  return { code: 'policy_divergence', severity: 'warning', message, line: d.line > 0 ? d.line : undefined, ...(d.reduction_id ? { reduction_id: d.reduction_id } : {}), index: d.index };
}

/**
 * Which contents are equal, as a number per message object (worked out once per object, since every
 * pass asks again). Contents of different byte counts differ. Of one byte count, contents kept in
 * memory are equal when their strings are; once a content kept in a ByteSource (`large`: valid
 * UTF-8, read from the file) has that count, contents are compared by SHA-256, a string only when
 * well-formed (a lone surrogate is no UTF-8, and JSON.parse would have kept it). So a content is
 * hashed only when it shares its byte count with one kept in a source.
 */
class ContentClasses {
  private next = 0;
  private readonly memo = new WeakMap<ChatMessage, number>();
  private readonly counts = new Map<number, SameCount>();

  constructor(
    private readonly bytesOf: (msg: ChatMessage) => number,
    private readonly sha256: Sha256,
  ) {}

  of(msg: ChatMessage): number {
    let cls = this.memo.get(msg);
    if (cls === undefined) this.memo.set(msg, (cls = this.classify(msg)));
    return cls;
  }

  private hashOf(m: Content): string | undefined {
    if (m.source !== undefined) return m.source.sha256 ?? this.sha256(sourceWindows(m.source));
    return isWellFormed(m.text) ? this.sha256([utf8Encode(m.text)]) : undefined;
  }

  private classify(msg: ChatMessage): number {
    const bytes = this.bytesOf(msg);
    const item: Content = msg.large ? { source: msg.large } : { text: msg.content };
    let same = this.counts.get(bytes);
    if (!same) this.counts.set(bytes, (same = { byText: new Map(), items: [], sources: false }));
    if (item.text !== undefined) {
      const known = same.byText.get(item.text);
      if (known !== undefined) return known;
    }
    if (!same.byHash) {
      same.sources ||= item.source !== undefined;
      if (same.items.length === 0 || !same.sources) {
        const cls = this.next++;
        if (item.text !== undefined) same.byText.set(item.text, cls);
        same.items.push({ ...item, cls });
        return cls;
      }
      // A second content of this count, one of them kept in a source: compared by hash from now on.
      same.byHash = new Map();
      for (const earlier of same.items) {
        const h = this.hashOf(earlier);
        if (h !== undefined && !same.byHash.has(h)) same.byHash.set(h, earlier.cls);
      }
      same.items = [];
    }
    const h = this.hashOf(item);
    const cls = (h !== undefined ? same.byHash.get(h) : undefined) ?? this.next++;
    if (h !== undefined && !same.byHash.has(h)) same.byHash.set(h, cls);
    if (item.text !== undefined) same.byText.set(item.text, cls);
    return cls;
  }
}

/** A content as ContentClasses compares it: a string, or a source. */
type Content = { text: string; source?: undefined } | { source: ByteSource; text?: undefined };

/** The contents of one byte count ContentClasses has seen. */
interface SameCount {
  byText: Map<string, number>;
  /** Until they are compared by hash, the contents of this count. */
  items: (Content & { cls: number })[];
  /** Whether one of them is kept in a source. */
  sources: boolean;
  /** Once two are, one kept in a source: the classes by SHA-256. */
  byHash?: Map<string, number>;
}

/**
 * Replays `policy` over `records` (in file order, the header left out). Pure; never throws on odd
 * records (a message that skips ahead, an invert of an unknown id are ignored, as the timeline does).
 */
export function replayPolicy(records: Iterable<LocatedRecord>, policy: ReductionPolicy, options: ReplayOptions = {}): PolicyReplayResult {
  const view: (ChatMessage | undefined)[] = [];
  let recordedLog: Reduction[] = [];
  let policyLog: Reduction[] = [];
  let inverted: Reduction[] = [];
  const divergences: PolicyDivergence[] = [];
  let maxId = 0;
  /** The highest id the policy minted itself (what-if mode numbers from it; a rewind never lowers it). */
  let ownMax = 0;
  let passes = 0;
  /** Line of the pending pass (the record it follows; 0 before any), and its recorded batch. */
  let pending: number | undefined;
  let batch: LocatedRecord[] = [];
  let lastLine = 0;
  const limit = policy.clear_turns_before ?? 0;
  // Every pass looks at every tool result of the view again; a message object's byte count is
  // measured once (the view keeps the object until a record replaces it), so a pass costs the
  // view's length plus what it mints, not the view's bytes.
  const sizes = options.sizes ?? new WeakMap<ChatMessage, number>();
  const contentBytes = (msg: ChatMessage): number => {
    let n = sizes.get(msg);
    if (n === undefined) sizes.set(msg, (n = msg.large ? msg.large.length : utf8Length(msg.content)));
    return n;
  };

  const hashes = new WeakMap<ChatMessage, string>();
  const contentSha256 = (msg: ChatMessage) => hashes.get(msg);
  const classes = new ContentClasses(contentBytes, options.sha256 ?? sha256Hex);
  const contentKey = (msg: ChatMessage) => classes.of(msg);

  const pass = (line: number, final: boolean) => {
    passes++;
    const recorded = batch.map((b) => (b.record as { t: 'reduction'; r: Reduction }).r);
    const recordedClear = recorded.filter((r) => r.kind === 'turns_cleared').reduce((m, r) => Math.max(m, r.end ?? 0), 0);
    const clear = final ? limit : Math.min(recordedClear, limit);
    const nextId = (options.ownIds ? ownMax : maxId) + 1;
    const minted = mintReductions(arrayList(view), { ...policy, clear_turns_before: clear }, [...policyLog, ...inverted], { nextId, contentBytes, contentSha256, contentKey, ...(options.sha256 ? { sha256: options.sha256 } : {}) });
    const open = new Map<string, LocatedRecord[]>();
    for (const b of batch) {
      const key = keyOf((b.record as { t: 'reduction'; r: Reduction }).r);
      open.set(key, [...(open.get(key) ?? []), b]);
    }
    for (const m of minted) {
      const match = open.get(keyOf(m))?.shift();
      if (!match) {
        divergences.push({ line, index: m.ptr.index, fields: [], recorded: null, minted: m });
        policyLog.push(m);
        continue;
      }
      const rec = (match.record as { t: 'reduction'; r: Reduction }).r;
      const renamed: Reduction = options.ownIds ? m : { ...m, id: rec.id, stub: stubText(rec.id, m.kind, hiddenBytes(m)) };
      const fields = COMPARED.filter((f) => show(field(rec, f)) !== show(field(renamed, f)));
      if (fields.length > 0) divergences.push({ line: match.line, index: rec.ptr.index, reduction_id: rec.id, fields, recorded: rec, minted: renamed });
      policyLog.push(renamed);
    }
    for (const rest of open.values()) {
      for (const b of rest) {
        const r = (b.record as { t: 'reduction'; r: Reduction }).r;
        divergences.push({ line: b.line, index: r.ptr.index, reduction_id: r.id, fields: [], recorded: r, minted: null });
      }
    }
    recordedLog.push(...recorded);
    for (const r of [...recorded, ...minted]) maxId = Math.max(maxId, idNumber(r.id));
    for (const r of minted) ownMax = Math.max(ownMax, idNumber(r.id));
    batch = [];
    pending = undefined;
  };

  for (const located of records) {
    const { record, line } = located;
    lastLine = line;
    if (record.t === 'reduction') {
      if (pending === undefined) pending = line - 1;
      batch.push(located);
      continue;
    }
    if (pending !== undefined) pass(pending, false);
    switch (record.t) {
      case 'message': {
        if (record.i > view.length) break;
        view[record.i] = record.cap ? applyCap(record.msg, record.cap) : record.msg;
        if (!record.cap && located.contentBytes !== undefined) sizes.set(record.msg, located.contentBytes);
        if (!record.cap && located.contentSha256 !== undefined) hashes.set(record.msg, located.contentSha256);
        if (record.msg.role === 'assistant' && !(record.msg.tool_calls && record.msg.tool_calls.length > 0)) pending = line;
        break;
      }
      case 'rewind': {
        if (view.length > record.to) view.length = record.to;
        const live = (r: Reduction) => lastAddressed(r) < record.to;
        recordedLog = recordedLog.filter(live);
        policyLog = policyLog.filter(live);
        inverted = inverted.filter(live);
        break;
      }
      case 'invert': {
        const k = recordedLog.findIndex((r) => r.id === record.id);
        if (k === -1) break;
        const [gone] = recordedLog.splice(k, 1) as [Reduction];
        policyLog = policyLog.filter((r) => r.id !== gone.id && !(r.kind === gone.kind && r.ptr.index === gone.ptr.index));
        inverted.push(gone);
        break;
      }
      default:
        break;
    }
  }
  if (pending !== undefined) pass(pending, false);
  pass(lastLine, true);
  return { passes, divergences, view, recordedLog, policyLog };
}
