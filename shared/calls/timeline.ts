/**
 * §3.1–§3.2: resolving a sidecar's records, in file order, into the current timeline (the minted
 * view before caps), the recorded copies, the live log and the model switches. Generic over the
 * message payload `M`, so the file loader can run it over light handles (offsets into the file)
 * while tests run it over whole messages.
 */
import { floorSourceBoundary, memorySource } from '../format/bytes';
import type { ReductionSpan } from './calls';
import type { Cap, ChatMessage, Finding, Reduction, SidecarRecord } from '../format/types';
import { isRangeKind } from '../format/types';
import { utf8Decode, utf8Encode } from '../format/utf8';

export interface Located<M> {
  value: M;
  /** 1-based line of the record. */
  line: number;
}

export interface TimelineMessage<M> extends Located<M> {
  cap?: Cap;
}

export interface ModelChange {
  line: number;
  at: number;
  from: string;
  to: string;
  reasoning_artifacts_filtered: number;
  /** The recount over the view before `at`, skipping messages an earlier switch already filtered. */
  recount: number;
  /**
   * The view indices the recount counted — the messages whose reasoning artifacts
   * this switch stripped (§5.5). Absent where the builder did not replay the switch (an importer's).
   */
  stripped?: number[];
}

/**
 * A `rewind` record (§3.1) and the view entries it dropped — the abandoned branch,
 * `abandoned[k]` at view index `to + k` (undefined for a hole). Only the payloads (light handles
 * in the loader) are kept: content is read back from the file by range when asked for.
 */
export interface Rewind<M> {
  /** 1-based line of the rewind record. */
  line: number;
  to: number;
  abandoned: (TimelineMessage<M> | undefined)[];
}

export interface Timeline<M> {
  system?: Located<M>;
  /** The current timeline by view index; a hole is an index whose record was never read. */
  view: (TimelineMessage<M> | undefined)[];
  /** The last `message` record at each index, whatever its timeline. */
  recorded: (Located<M> | undefined)[];
  log: Reduction[];
  /** 1-based line of each live log entry's record, parallel to `log`. */
  logLines: number[];
  modelChanges: ModelChange[];
  findings: Finding[];
  /**
   * §11: every reduction ever logged, in file order, with the lines over which it was live (the
   * model calls' inputs are derived from these). The live log is the spans without an end.
   */
  spans: ReductionSpan[];
  /** Every rewind in file order, with the messages it abandoned. */
  rewinds: Rewind<M>[];
}

/** A sidecar record whose message payloads are `M`. */
export type TimelineRecord<M> =
  | { t: 'system'; msg: M }
  | { t: 'message'; i: number; msg: M; cap?: Cap }
  | Exclude<SidecarRecord, { t: 'header' } | { t: 'system' } | { t: 'message' }>;

/** The highest view index a reduction addresses, canonical included: a rewind to `to` drops it when this is `>= to`. */
export function lastAddressed(r: Reduction): number {
  const own = isRangeKind(r.kind) ? (r.end ?? r.ptr.index + 1) - 1 : r.ptr.index;
  return Math.max(own, r.canonical?.index ?? -1);
}

/**
 * Folds records into a Timeline one at a time, so a loader can stream. `hasArtifacts` tells whether
 * a message payload carries reasoning artifacts (§5.5) for the model-switch recount.
 */
export class TimelineBuilder<M> {
  private readonly t: Timeline<M> = { view: [], recorded: [], log: [], logLines: [], modelChanges: [], findings: [], spans: [], rewinds: [] };
  /**
   * Where the span of each live log entry sits in `t.spans`, parallel to `t.log`: an invert or
   * rewind closes it. A span is never mutated once in `t.spans` (a closed one is a new object in
   * its place), so a snapshot copies the array, not the spans (a look costs O(new records)).
   */
  private liveSpans: number[] = [];
  /**
   * The lowest view index set, emptied or cut since `touchedFrom()` was last read; a
   * snapshot's consumers recompute what they derived from the view from there on only.
   */
  private touched = Number.POSITIVE_INFINITY;
  /**
   * How far `shared()` answers read `t.view` and `t.recorded`; a record that writes
   * below that copies the array first (copy on write), so what was handed out never changes.
   */
  private viewShared = 0;
  private recordedShared = 0;
  /** The copies `shared()` handed out last, reused while their arrays are unchanged. */
  private lastShared: SharedTimeline<M> | undefined;
  /** The live log (log, logLines, spans) changed since `shared()` last copied it. */
  private logChanged = true;
  /** Per view index of the current timeline: already stripped by an earlier model switch. */
  private filtered: boolean[] = [];
  /** Unreadable lines of unknown index since the last message record (see lostRecord). */
  private lost = 0;

  constructor(private readonly hasArtifacts: (msg: M) => boolean) {}

  add(record: TimelineRecord<M>, line: number): void {
    const t = this.t;
    switch (record.t) {
      case 'system':
        t.system = { value: record.msg, line };
        return;
      case 'message': {
        const lost = this.lost;
        this.lost = 0;
        if (record.i > t.view.length && record.i - t.view.length <= lost) {
          // The skipped indices are the records of the unreadable lines just before this one: they
          // become holes, so this record and every later one keep their addresses.
          for (let k = t.view.length; k < record.i; k++) this.addHole(k);
        }
        if (record.i > t.view.length) {
          // A gap would leave holes up to an index taken from the file, however large; the record is
          // reported and kept out of the view rather than trusted.
          t.findings.push({
            code: 'address_out_of_range',
            severity: 'error',
            message: `message record i=${record.i} skips ahead: the timeline holds ${t.view.length} messages, so the next index is ${t.view.length}`,
            line,
            index: record.i,
          });
          return;
        }
        const entry: TimelineMessage<M> = { value: record.msg, line, ...(record.cap ? { cap: record.cap } : {}) };
        this.writableView(record.i)[record.i] = entry;
        this.touch(record.i);
        this.filtered[record.i] = false;
        this.writableRecorded(record.i)[record.i] = { value: record.msg, line };
        return;
      }
      case 'reduction': {
        const span: ReductionSpan = { reduction: record.r, from: line };
        this.logChanged = true;
        t.log.push(record.r);
        t.logLines.push(line);
        this.liveSpans.push(t.spans.length);
        t.spans.push(span);
        return;
      }
      case 'invert': {
        for (let k = t.log.length - 1; k >= 0; k--) {
          if (t.log[k]?.id === record.id) {
            this.drop(k, line, 'inverted');
            return;
          }
        }
        return;
      }
      case 'rewind': {
        // Entries are replaced, never mutated, by later records: the slice keeps the branch as it was.
        t.rewinds.push({ line, to: record.to, abandoned: t.view.slice(record.to) });
        if (t.view.length > record.to) {
          this.writableView(record.to).length = record.to;
          this.touch(record.to);
        }
        if (this.filtered.length > record.to) this.filtered.length = record.to;
        for (let k = t.log.length - 1; k >= 0; k--) {
          const r = t.log[k];
          if (r && lastAddressed(r) >= record.to) this.drop(k, line, 'rewound');
        }
        return;
      }
      case 'model_change': {
        let recount = 0;
        const stripped: number[] = [];
        const upTo = Math.min(record.at, t.view.length);
        for (let i = 0; i < upTo; i++) {
          const entry = t.view[i];
          if (!entry || this.filtered[i]) continue;
          if (this.hasArtifacts(entry.value)) {
            recount++;
            stripped.push(i);
          }
          this.filtered[i] = true;
        }
        t.modelChanges.push({ line, at: record.at, from: record.from, to: record.to, reasoning_artifacts_filtered: record.reasoning_artifacts_filtered, recount, stripped });
        if (recount !== record.reasoning_artifacts_filtered) {
          t.findings.push({
            code: 'model_change_count_mismatch',
            severity: 'error',
            message: `model change ${record.from} → ${record.to} at view length ${record.at} records reasoning_artifacts_filtered=${record.reasoning_artifacts_filtered}, but ${recount} message(s) before it carry reasoning artifacts`,
            line,
            index: record.at,
          });
        }
        return;
      }
    }
  }

  /** Takes live log entry `k` out of the log at `line`, closing its span. */
  private drop(k: number, line: number, why: 'inverted' | 'rewound'): void {
    const t = this.t;
    this.logChanged = true;
    t.log.splice(k, 1);
    t.logLines.splice(k, 1);
    const [at] = this.liveSpans.splice(k, 1);
    const span = at === undefined ? undefined : t.spans[at];
    if (at !== undefined && span) t.spans[at] = { ...span, to: line, ended: why };
  }

  /** `t.view`, copied first when index `index` is read by a `shared()` answer. */
  private writableView(index: number): (TimelineMessage<M> | undefined)[] {
    if (index < this.viewShared) {
      this.t.view = this.t.view.slice();
      this.viewShared = 0;
    }
    return this.t.view;
  }

  private writableRecorded(index: number): (Located<M> | undefined)[] {
    if (index < this.recordedShared) {
      this.t.recorded = this.t.recorded.slice();
      this.recordedShared = 0;
    }
    return this.t.recorded;
  }

  private touch(index: number): void {
    if (index < this.touched) this.touched = index;
  }

  /**
   * The lowest view index that may differ from the view of the previous call (every
   * index on from the previous call's view length differs, whatever this says); resets the mark.
   * Infinity when no index was set, emptied or cut since.
   */
  touchedFrom(): number {
    const from = this.touched;
    this.touched = Number.POSITIVE_INFINITY;
    return from;
  }

  /**
   * A `message` record at `index` that could not be read (its line is reported elsewhere): the
   * index becomes a hole, so later records keep their addresses, and an earlier copy at that index
   * is no longer the last record there. An index past the end is left alone (a skip-ahead).
   */
  addHole(index: number): void {
    const t = this.t;
    if (index > t.view.length) return;
    if (index === t.view.length) this.writableView(index).length = index + 1;
    else this.writableView(index)[index] = undefined;
    this.touch(index);
    this.filtered[index] = false;
    if (index < t.recorded.length) this.writableRecorded(index)[index] = undefined;
  }

  /**
   * A line that could not be read and whose index is unknown (a record torn before its `i`): it may
   * have been the next message. Each such line since the last message record lets the next message
   * record skip one index (a hole stands for the lost record); a gap wider than the lines that
   * could explain it is still `address_out_of_range`.
   */
  lostRecord(): void {
    this.lost++;
  }

  finish(): Timeline<M> {
    return this.t;
  }

  /** The timeline so far, as a copy later records do not change (a preview while a file is read). */
  snapshot(): Timeline<M> {
    const t = this.t;
    return {
      ...(t.system ? { system: t.system } : {}),
      view: t.view.slice(),
      recorded: t.recorded.slice(),
      log: t.log.slice(),
      logLines: t.logLines.slice(),
      modelChanges: t.modelChanges.slice(),
      findings: t.findings.slice(),
      // Spans are replaced, never mutated, when an invert or rewind read later closes them.
      spans: t.spans.slice(),
      rewinds: t.rewinds.slice(),
    };
  }

  /**
   * The timeline so far, as `snapshot()` but without copying what a followed file's next
   * records only append to: the view and the recorded copies are the builder's own arrays, read
   * only below `viewLength`/`recordedLength` (a later record copies an array before writing below
   * what was handed out); the other lists are copies, reused while unchanged. So a look at a file
   * that grew costs O(new records), plus copies of the live log when it changed.
   */
  shared(): SharedTimeline<M> {
    const t = this.t;
    const last = this.lastShared;
    this.viewShared = Math.max(this.viewShared, t.view.length);
    this.recordedShared = Math.max(this.recordedShared, t.recorded.length);
    const logChanged = this.logChanged || !last;
    this.logChanged = false;
    const shared: SharedTimeline<M> = {
      ...(t.system ? { system: t.system } : {}),
      view: t.view,
      viewLength: t.view.length,
      recorded: t.recorded,
      recordedLength: t.recorded.length,
      log: logChanged ? t.log.slice() : last.log,
      logLines: logChanged ? t.logLines.slice() : last.logLines,
      // Spans are appended, or replaced when an invert or rewind closes them: both mark the log changed.
      spans: logChanged ? t.spans.slice() : last.spans,
      // Only ever appended to.
      modelChanges: last?.modelChanges.length === t.modelChanges.length ? last.modelChanges : t.modelChanges.slice(),
      findings: last?.findings.length === t.findings.length ? last.findings : t.findings.slice(),
      rewinds: last?.rewinds.length === t.rewinds.length ? last.rewinds : t.rewinds.slice(),
    };
    this.lastShared = shared;
    return shared;
  }
}

/**
 * A timeline whose view and recorded copies are shared with the builder: only the
 * entries below `viewLength` and `recordedLength` are the timeline's (the arrays may be longer).
 */
export interface SharedTimeline<M> extends Omit<Timeline<M>, 'view' | 'recorded'> {
  view: readonly (TimelineMessage<M> | undefined)[];
  viewLength: number;
  recorded: readonly (Located<M> | undefined)[];
  recordedLength: number;
}

/** The capped copy history held: `content[0..kept_bytes] + notice` (kept_bytes floored to a character boundary). */
export function applyCap(msg: ChatMessage, cap: Cap): ChatMessage {
  const { large, ...fields } = msg;
  const bytes = large ?? memorySource(utf8Encode(msg.content));
  const kept = floorSourceBoundary(bytes, Math.max(0, cap.kept_bytes));
  return { ...fields, content: utf8Decode(bytes.read(0, kept)) + cap.notice };
}
