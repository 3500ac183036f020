/**
 * Indexing a sidecar (SPEC §3.1) in streaming passes into light handles: where each record is,
 * never its content. A pass resumes where the previous one stopped (a line boundary), so a file
 * that grows can be indexed as it is appended to; one pass over the whole file is today's load.
 */
import { isUtf8 } from 'node:buffer';
import type { CallTimeline, ChatMessage, Finding, LineParse, Located, ModelCall, ModelChange, Reduction, Rewind, SidecarHeader, SidecarRecord, TimelineMessage, TimelineRecord } from '../../../shared/index';
import { NO_CALLS, TimelineBuilder, byLineThenIndex, callsOf, hasReasoningArtifacts, parseSidecarLine } from '../../../shared/index';
import type { SplitEnd, SplitLine } from '../common/lines';
import { readExactly, splitLines } from '../common/lines';
import type { RawContent } from '../content/rawRecord';
import { ScratchBuffers } from '../content/scratch';
import type { IndexPass, IndexStop, OpenFile } from '../common/source';
import { LoadCancelled, PREVIEW_AFTER_BYTES } from '../common/source';
import type { LongScan, ScanPool, ScanSlot } from './indexPool';
import { ScanQueue, defaultScanPool, scanLongLine } from './indexPool';
import type { MessageHandle } from './sidecarReader';
import { isPlainObject, parseJson, stripBom } from '../common/json';
import { RECORD_TYPE_HEAD } from './recordHead';

/**
 * A message record at least this long is indexed without decoding its content: the content is
 * located in the file, walked and read back by range (rawRecord.ts, fileContent.ts).
 */
export const RAW_SCAN_MIN_BYTES = 4 * 1024;
export { HASH_AT_INDEX_BYTES } from './indexPool';
/** A line longer than this is never held in memory whole by the indexing pass. */
export const IN_MEMORY_LINE_BYTES = 16 * 1024 * 1024;
/** How long the indexing pass runs before it lets the event loop turn (progress, cancellation). */
const YIELD_MS = 16;
/**
 * With a pool, the pass reads ahead of the line it folds in by up to LOOKAHEAD_LINES lines, holding
 * up to this many bytes of the short ones, so the workers scan the long lines ahead while it folds
 * the short ones. Long lines are not held (a worker reads its line itself), so a 50 MB record being
 * scanned does not stop the lines after it from going to the other workers.
 */
const LOOKAHEAD_BYTES = 16 * 1024 * 1024;
const LOOKAHEAD_LINES = 4096;
/** Long lines go to a worker in batches of about this many bytes (one message each way per batch). */
const BATCH_BYTES = 2 * 1024 * 1024;
const BATCH_LINES = 64;

/** Where long lines are scanned, and how far the pass reads ahead for that. */
export interface IndexerOptions {
  /** undefined: the default pool for a pass large enough, on the bundled app (defaultScanPool); null: this thread. */
  pool?: ScanPool | null;
  /** Tests shrink these to cross batch and lookahead boundaries in small files. */
  lookaheadBytes?: number;
  lookaheadLines?: number;
  batchBytes?: number;
  batchLines?: number;
  /** Batches sent and unanswered, at most (default two per worker). */
  inFlight?: number;
  /** The buffers of the lines scanned on the pass's thread (the load's, contentServices.ts; default: the indexer's own). */
  scratch?: ScratchBuffers;
}

/** A record as the timeline folded it in, and its line. */
export interface LocatedTimelineRecord {
  record: TimelineRecord<MessageHandle>;
  line: number;
}

/** A line read ahead: its scan, when a worker does it. */
interface Ahead {
  line: SplitLine;
  slot?: ScanSlot;
}


/** What a sidecar's indexing holds: handles into the file, never content. */
export interface SidecarIndex {
  header: SidecarHeader | null;
  system?: MessageHandle;
  /**
   * The current timeline: the builder's entries themselves (a capped copy carries its cap), in an
   * array shared with the builder, of which only the first `viewLength` are this index's.
   */
  view: readonly (TimelineMessage<MessageHandle> | undefined)[];
  viewLength: number;
  /** The last copy per index, shared as `view` is: the first `recordedLength` are this index's. */
  recorded: readonly (Located<MessageHandle> | undefined)[];
  recordedLength: number;
  log: Reduction[];
  logLines: number[];
  modelChanges: ModelChange[];
  findings: Finding[];
  /** §11: the model calls (from the handles' roles and record lines) and the reductions' live intervals. */
  calls: CallTimeline;
  /** Each rewind with the handles of the messages it abandoned (`to + k`). */
  rewinds: Rewind<MessageHandle>[];
  /**
   * Every record the timeline folded in, in file order with its line (the header and unreadable
   * lines left out), shared as `view` is: the first `trailLength` are this index's. Policy replay
   * runs over it instead of reading the file again (docs/policy-replay.md).
   */
  trail: readonly LocatedTimelineRecord[];
  trailLength: number;
  /** An `unsupported_version` header: the pass stopped there. */
  stopped?: Finding;
}

/**
 * What the previous `index()` derived, so the next derives only what the records read
 * since changed: the calls from the lowest view index touched on, the findings merged in.
 */
interface Derived {
  viewLength: number;
  calls: readonly ModelCall[];
  /** `findings` merged (sorted by line then index) from this many of the pass's and the builder's. */
  findings: Finding[];
  passFindings: number;
  builderFindings: number;
}

/**
 * The state of a sidecar's indexing between passes. Invariant: every line before `position` has
 * been folded into the timeline exactly once, and `position` is the start of a line (a line cut
 * by a pass's end, or still being written, is left whole for the next pass).
 */
export class SidecarIndexer {
  private readonly builder = new TimelineBuilder<MessageHandle>((h) => h.hasArtifacts);
  private readonly findings: Finding[] = [];
  private readonly trail: LocatedTimelineRecord[] = [];
  private header: SidecarHeader | null = null;
  private system: MessageHandle | undefined;
  private seenRecord = false;
  private stopped: Finding | undefined;
  private position: IndexStop = { offset: 0, line: 1 };
  private derived: Derived = { viewLength: 0, calls: [], findings: [], passFindings: 0, builderFindings: 0 };

  /** The buffers of a pass given none (IndexerOptions.scratch). */
  private readonly ownScratch = new ScratchBuffers();

  /** See IndexerOptions: the index is the same whatever they are. */
  constructor(
    private readonly file: OpenFile,
    private readonly options: IndexerOptions = {},
  ) {}

  /** Where the next pass starts. */
  get stop(): IndexStop {
    return { ...this.position };
  }

  /** See SessionSource.indexTo. */
  async indexTo(end: number, pass: IndexPass): Promise<IndexStop> {
    if (this.stopped || end <= this.position.offset) return this.stop;
    const file = this.file;
    const options = pass;
    const findings = this.findings;
    const builder = this.builder;
    let onFirstPause = pass.onFirstPause;
    let reported = this.position.offset;

    const pool = this.options.pool === undefined ? defaultScanPool(options.read, end - this.position.offset) : this.options.pool;
    const lines = splitLines(file.fd, {
      chunkSize: options.chunkSize,
      start: this.position.offset,
      firstLine: this.position.line,
      end,
      maxLineBytes: Math.min(options.maxRecordBytes, IN_MEMORY_LINE_BYTES),
      // With a pool, a long line is read by its worker: the pass does not gather its bytes (a line
      // parsed whole after all is read again below, as one longer than maxLineBytes is).
      ...(pool ? { keepBytesBelow: RAW_SCAN_MIN_BYTES } : {}),
      readSync: options.read,
      onRead: (position) => {
        // With a pool the pass reads far ahead of what it has folded in: progress follows the folding (below).
        if (pool) return;
        options.progress.add(position - reported);
        reported = position;
      },
    });

    const { lookaheadBytes = LOOKAHEAD_BYTES, lookaheadLines = LOOKAHEAD_LINES, batchBytes: batchLimit = BATCH_BYTES, batchLines = BATCH_LINES, inFlight } = this.options;
    const maxLineBytes = Math.min(options.maxRecordBytes, IN_MEMORY_LINE_BYTES);
    // Lines read ahead (only with a pool: without one, each line is folded in before the next is read).
    const ahead: Ahead[] = [];
    let aheadHead = 0;
    /** Bytes of the short lines read ahead and not yet folded in. */
    let held = 0;
    let splitDone: SplitEnd | undefined;
    let firstOfPass = !this.seenRecord;
    const scratch = this.options.scratch ?? this.ownScratch;
    const queue = pool ? new ScanQueue(pool, file.fd, options.read, { batchBytes: batchLimit, batchLines, inFlight: inFlight ?? 2 * pool.size }, scratch) : undefined;
    const readAhead = () => {
      while (splitDone === undefined && (aheadHead === ahead.length || (pool && ahead.length - aheadHead < lookaheadLines && held < lookaheadBytes))) {
        const next = lines.next();
        if (next.done) {
          splitDone = next.value;
          break;
        }
        const line = next.value;
        if (aheadHead === ahead.length) {
          ahead.length = 0;
          aheadHead = 0;
        }
        const first = firstOfPass;
        firstOfPass = false;
        const entry: Ahead = { line };
        if (queue && line.length >= RAW_SCAN_MIN_BYTES && !first && (line.terminated || pass.final)) {
          // Scanned by a worker, which reads the line itself.
          entry.slot = queue.add({ offset: line.offset, length: line.length, number: line.number, terminated: line.terminated, maxLineBytes });
        } else if (pool && line.bytes) {
          // A view of the splitter's buffer is valid only until the next line is read.
          line.bytes = Buffer.from(line.bytes);
          held += line.bytes.length;
        }
        ahead.push(entry);
      }
      queue?.pump();
    };

    let sliceStart = performance.now();
    let sinceClock = 0;
    let complete: SplitEnd;
    for (;;) {
      readAhead();
      const entry = ahead[aheadHead];
      if (entry === undefined) {
        complete = splitDone as SplitEnd;
        break;
      }
      ahead[aheadHead++] = undefined as unknown as Ahead;
      if (aheadHead >= 1024) {
        // Drop the folded-in lines' slots: the array holds at most about lookaheadLines + 1024.
        ahead.splice(0, aheadHead);
        aheadHead = 0;
      }
      if (pool && !entry.slot && entry.line.bytes) held -= entry.line.bytes.length;
      let line = entry.line;
      if (!line.terminated && !pass.final) {
        // Still being written, or cut by `end`: the next pass reads it whole.
        complete = { offset: line.offset, line: line.number };
        break;
      }
      if (++sinceClock >= 64) {
        sinceClock = 0;
        // Owed a preview, the pass pauses once it has indexed PREVIEW_AFTER_BYTES, however fast it went.
        if (performance.now() - sliceStart >= YIELD_MS || (onFirstPause !== undefined && line.offset >= PREVIEW_AFTER_BYTES)) {
          if (pool && line.offset > reported) {
            options.progress.add(line.offset - reported);
            reported = line.offset;
          }
          if (onFirstPause && line.offset >= PREVIEW_AFTER_BYTES) {
            onFirstPause();
            onFirstPause = undefined;
          }
          await new Promise<void>((resolve) => setImmediate(resolve));
          if (options.signal?.aborted) throw new LoadCancelled('the load was cancelled');
          sliceStart = performance.now();
        }
      }
      let scanned: LongScan;
      const isFirst = !this.seenRecord;
      if (entry.slot && queue) {
        scanned = await queue.take(entry.slot);
        if (options.signal?.aborted) throw new LoadCancelled('the load was cancelled');
      } else if (line.length >= RAW_SCAN_MIN_BYTES && !isFirst) {
        scanned = scanLongLine(file.fd, options.read, { offset: line.offset, length: line.length, number: line.number, terminated: line.terminated, maxLineBytes }, scratch, line.bytes);
      }
      this.seenRecord = true;

      const read = scanned && 'rest' in scanned ? recordOfRest(scanned.rest, line) : undefined;
      if (scanned && 'rest' in scanned && read) {
        const record = read;
        const { content } = scanned;
        if (content.validUtf8 === false) {
          findings.push({
            code: 'malformed_line',
            severity: 'error',
            message: `line ${line.number} (${formatBytes(line.length)}) holds bytes that are not valid UTF-8 and is too long to read with replacement characters; skipped`,
            line: line.number,
            index: record.i,
          });
          builder.addHole(record.i);
          continue;
        }
        this.fold({ t: 'message', i: record.i, msg: handleOf(record.msg, line, content), ...(record.cap ? { cap: record.cap } : {}) }, line.number);
        continue;
      }
      if (line.bytes === undefined && line.length <= options.maxRecordBytes) {
        // Longer than the splitter keeps, short enough to read as one record.
        const bytes = readExactly(file.fd, line.offset, line.length, options.read);
        if (bytes) line.bytes = bytes;
      }

      if (line.bytes === undefined || line.length > options.maxRecordBytes) {
        // Too long to decode as one string. Its index, when its head says it is a message, becomes a
        // hole so later records keep their addresses.
        const head = readExactly(file.fd, line.offset, Math.min(line.length, 4096), options.read)?.toString('utf8') ?? '';
        const m = MESSAGE_HEAD.exec(head);
        const index = m ? Number(m[1]) : undefined;
        // Skipped, even a header: the first record was not a readable header.
        if (isFirst) findings.push(headerExpected(line.number, RECORD_TYPE_HEAD.exec(head)?.[1]));
        findings.push({
          code: 'malformed_line',
          severity: 'error',
          message: `line ${line.number} is ${formatBytes(line.length)}, too long to read as one record (the limit is ${formatBytes(options.maxRecordBytes)}); skipped`,
          line: line.number,
          ...(index !== undefined ? { index } : {}),
        });
        if (index !== undefined) builder.addHole(index);
        continue;
      }

      let lineBytes: Buffer = line.bytes;
      let text: string;
      try {
        text = lineBytes.toString('utf8');
      } catch (e) {
        findings.push({ code: 'malformed_line', severity: 'error', message: `line ${line.number} (${formatBytes(line.length)}) cannot be decoded: ${(e as Error).message}`, line: line.number });
        continue;
      }
      if (isFirst) text = stripBom(text);

      let parse: LineParse;
      try {
        parse = parseSidecarLine(text, line.number, line.terminated);
      } catch (e) {
        // JSON.parse or validation can run out of room on a pathological record (RangeError).
        findings.push({ code: 'malformed_line', severity: 'error', message: `line ${line.number} (${formatBytes(line.length)}) cannot be parsed: ${(e as Error).message}`, line: line.number });
        continue;
      }

      let record: SidecarRecord;
      if (parse.ok) {
        record = parse.record;
      } else {
        if (parse.stop) {
          if (isFirst) {
            // An `unsupported_version` header: nothing else is read, now or by a later pass.
            this.stopped = parse.finding;
            return this.stoppedAt({ offset: end, line: line.number + 1 });
          }
          findings.push({ code: 'malformed_line', severity: 'error', message: `line ${line.number} is a header record after the first record; skipped (${parse.finding.message})`, line: line.number });
          continue;
        }
        // An invalid header is reported once, by its own finding.
        if (isFirst && firstRecordType(text) !== 'header') findings.push(headerExpected(line.number, firstRecordType(text)));
        const recovered = isFirst || !line.terminated ? undefined : recordAfterTornRecord(text, line);
        const lostText = recovered ? text.slice(0, recovered.at) : text;
        // What the unreadable record (or fragment) held: a hole at its index when its head names it,
        // else, when it looks like a torn record, a record lost at an index the next message shows.
        // A last line without its newline is a record still being written, not a lost one.
        const holeIndex = parse.holeIndex ?? (line.terminated ? tornMessageIndex(lostText) : undefined);
        const finding = recovered ? recovered.finding : parse.finding;
        findings.push(holeIndex !== undefined && finding.index === undefined ? { ...finding, index: holeIndex } : finding);
        if (holeIndex !== undefined) builder.addHole(holeIndex);
        else if (line.terminated && mayBeLostMessage(lostText)) builder.lostRecord();
        if (!recovered) continue;
        record = recovered.record;
        line = recovered.line;
        lineBytes = recovered.bytes;
      }

      if (!isUtf8(lineBytes)) {
        // JSON text is UTF-8 (RFC 8259 §8.1). The record is still read, each invalid sequence as
        // U+FFFD, so its content shows and addresses hold; a hash over the writer's bytes will not verify.
        findings.push({ code: 'malformed_line', severity: 'error', message: `line ${line.number} holds bytes that are not valid UTF-8; they read as U+FFFD`, line: line.number });
      }
      if (record.t === 'header') {
        if (isFirst) this.header = record;
        else findings.push({ code: 'malformed_line', severity: 'error', message: `line ${line.number} is a header record after the first record; skipped`, line: line.number });
        continue;
      }
      if (isFirst) findings.push(headerExpected(line.number, record.t));

      let timelineRecord: TimelineRecord<MessageHandle>;
      if (record.t === 'message') {
        timelineRecord = { t: 'message', i: record.i, msg: handleOf(record.msg, line), ...(record.cap ? { cap: record.cap } : {}) };
      } else if (record.t === 'system') {
        this.system = handleOf(record.msg, line);
        timelineRecord = { t: 'system', msg: this.system };
      } else {
        timelineRecord = record;
      }
      this.fold(timelineRecord, line.number);
    }
    options.progress.add(end - reported);
    // A final pass has read the unterminated last line too: nothing before `end` is left.
    return this.stoppedAt(pass.final && complete.offset < end ? { offset: end, line: complete.line + 1 } : complete);
  }

  /** Folds a record into the timeline, and keeps it on the trail. */
  private fold(record: TimelineRecord<MessageHandle>, line: number): void {
    this.builder.add(record, line);
    this.trail.push({ record, line });
  }

  private stoppedAt(stop: IndexStop): IndexStop {
    this.position = stop;
    return this.stop;
  }

  /**
   * The index so far, as a copy later passes do not change. A followed file asks after
   * every pass, so what is derived from the whole timeline is extended, not rebuilt: the calls
   * from the lowest view index the records read since touched, the findings merged with the new
   * ones. The answer equals a derivation from scratch (follow.test.ts compares it with fresh opens).
   */
  index(): SidecarIndex {
    if (this.stopped) return { header: null, view: [], viewLength: 0, recorded: [], recordedLength: 0, log: [], logLines: [], modelChanges: [], findings: [], calls: NO_CALLS, rewinds: [], trail: [], trailLength: 0, stopped: this.stopped };
    const timeline = this.builder.shared();
    const previous = this.derived;
    const from = Math.min(this.builder.touchedFrom(), previous.viewLength);
    const derived: Derived = {
      viewLength: timeline.viewLength,
      calls: callsFrom(previous.calls, from, timeline.view, timeline.viewLength),
      findings: mergedFindings(previous, this.findings, timeline.findings),
      passFindings: this.findings.length,
      builderFindings: timeline.findings.length,
    };
    this.derived = derived;
    return {
      header: this.header,
      ...(this.system ? { system: this.system } : {}),
      view: timeline.view,
      viewLength: timeline.viewLength,
      recorded: timeline.recorded,
      recordedLength: timeline.recordedLength,
      log: timeline.log,
      logLines: timeline.logLines,
      modelChanges: timeline.modelChanges,
      findings: derived.findings,
      calls: { calls: derived.calls, spans: timeline.spans },
      rewinds: timeline.rewinds,
      trail: this.trail,
      trailLength: this.trail.length,
    };
  }
}

const MESSAGE_HEAD = /^\s*\{\s*"t"\s*:\s*"message"\s*,\s*"i"\s*:\s*(\d{1,15})\s*[,}]/;

/** A record's rest (the line less its content's body) up to this long is kept with its handle. */
const KEPT_REST_BYTES = 4096;

function handleOf(msg: ChatMessage, line: SplitLine, content?: RawContent): MessageHandle {
  return {
    line: line.number,
    offset: line.offset,
    length: line.length,
    role: msg.role,
    ...(msg.tool_call_id !== undefined ? { tool_call_id: msg.tool_call_id } : {}),
    contentBytes: content ? content.length : Buffer.byteLength(msg.content, 'utf8'),
    hasArtifacts: hasReasoningArtifacts(msg),
    ...(content ? { content } : {}),
    // The record's rest as indexing validated it, so the first read of the message (the
    // first search reads every one) parses nothing again; a large rest is read back as before.
    ...(content && line.length - content.rawLength <= KEPT_REST_BYTES ? { rest: msg } : {}),
  };
}

/** The message record whose content a scan cut out, validated; undefined when it is not one (the line is then parsed whole). */
function recordOfRest(rest: string, line: SplitLine): { t: 'message'; i: number; msg: ChatMessage; cap?: { kept_bytes: number; notice: string } } | undefined {
  const parse = parseSidecarLine(rest, line.number, line.terminated);
  return parse.ok && parse.record.t === 'message' && parse.record.msg.content === '' ? parse.record : undefined;
}

function formatBytes(n: number): string {
  const mib = n / (1024 * 1024);
  return mib >= 1 ? `${n} bytes (${mib.toFixed(1)} MiB)` : `${n} bytes`;
}

/** The index a torn message record names in its head (`{"t":"message","i":3,…`), if it got that far. */
function tornMessageIndex(text: string): number | undefined {
  const m = MESSAGE_HEAD.exec(text);
  return m ? Number(m[1]) : undefined;
}

/**
 * True for an unreadable line that may be a torn record of a message: it starts like a JSON object
 * and, when its `t` got written, that `t` is message. A stray line of tool output is not a record.
 */
function mayBeLostMessage(text: string): boolean {
  if (!/^\s*\{/.test(text)) return false;
  const t = RECORD_TYPE_HEAD.exec(text)?.[1];
  return t === undefined ? !/^\s*\{\s*"t"\s*:\s*"[\w-]{64}/.test(text) : t === 'message';
}

/** How a record starts as the agent writes it; a JSON string cannot hold these bytes unescaped. */
const RECORD_START = '{"t":"';
/** Bounds the re-parses of one line (each is linear in the rest of the line). */
const MAX_RECOVERY_TRIES = 8;

/**
 * A line that does not parse because a writer crashed mid-append and a later append started right
 * after the fragment: the complete record after the fragment, if one is there. Sound because the
 * record must parse, whole and valid, from a `{"t":"` to the end of the line — a start that lies
 * inside the fragment would leave the fragment's tail or the next record's start unparsed.
 */
function recordAfterTornRecord(text: string, line: SplitLine): { at: number; record: SidecarRecord; line: SplitLine; bytes: Buffer; finding: Finding } | undefined {
  // No record starts after the line's first character: nothing to recover, and no second parse
  // of a line that did not parse (a file of garbage lines: docs/streaming-import.md "Lines that do
  // not parse"). Offsets in the text are byte offsets only when no bytes were replaced in decoding.
  if (text.indexOf(RECORD_START, 1) === -1 || !line.bytes || !isUtf8(line.bytes) || parseJson(text).ok) return undefined;
  let from = 1;
  for (let tries = 0; tries < MAX_RECOVERY_TRIES; tries++) {
    const at = text.indexOf(RECORD_START, from);
    if (at === -1) return undefined;
    from = at + 1;
    const parse = parseSidecarLine(text.slice(at), line.number, true);
    if (!parse.ok || parse.record.t === 'header') continue;
    const skipped = Buffer.byteLength(text.slice(0, at), 'utf8');
    const bytes = line.bytes.subarray(skipped);
    return {
      at,
      record: parse.record,
      line: { number: line.number, offset: line.offset + skipped, length: line.length - skipped, terminated: line.terminated, bytes },
      bytes,
      finding: {
        code: 'malformed_line',
        severity: 'error',
        message: `line ${line.number} starts with ${skipped} bytes of a torn record (a writer stopped mid-append); the complete ${parse.record.t} record after them is read`,
        line: line.number,
      },
    };
  }
  return undefined;
}

/**
 * The model calls of `view` (replayedCalls), reusing `previous` — the calls of an earlier view that
 * agrees with this one below index `from` — for the calls below `from`.
 */
function callsFrom(previous: readonly ModelCall[], from: number, view: readonly (TimelineMessage<MessageHandle> | undefined)[], viewLength: number): readonly ModelCall[] {
  // Calls are in index order: keep those before `from` (binary search for the first at or after it).
  let lo = 0;
  let hi = previous.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((previous[mid]?.index ?? 0) < from) lo = mid + 1;
    else hi = mid;
  }
  const start = Math.min(from, viewLength);
  // Nothing touched and nothing new (a look that only logged reductions): the same calls, never mutated.
  if (lo === previous.length && start === viewLength) return previous;
  const calls = previous.slice(0, lo);
  const rest = callsOf(viewLength - start, (k) => view[start + k]?.value.role, (k) => view[start + k]?.line);
  for (const c of rest) calls.push({ call: calls.length + 1, index: c.index + start, line: c.line });
  return calls;
}

/**
 * The pass's and the builder's findings sorted by line then index, as `[...pass, ...builder].sort`
 * gives them. Both lists only grow; when every new finding lies on a line after the last one
 * merged, the new ones sort after the old ones (a stable sort keeps the old order), so they are
 * sorted alone and appended. Otherwise (a finding of no line) everything is sorted again.
 */
function mergedFindings(previous: Derived, pass: readonly Finding[], builder: readonly Finding[]): Finding[] {
  if (pass.length === previous.passFindings && builder.length === previous.builderFindings) return previous.findings;
  const fresh = [...pass.slice(previous.passFindings), ...builder.slice(previous.builderFindings)];
  const lastLine = previous.findings.length === 0 ? 0 : previous.findings[previous.findings.length - 1]?.line;
  if (lastLine === undefined || fresh.some((f) => f.line === undefined || f.line <= lastLine)) return [...pass, ...builder].sort(byLineThenIndex);
  const merged = previous.findings.slice();
  for (const f of fresh.sort(byLineThenIndex)) merged.push(f);
  return merged;
}

/** The `t` of a line that did not validate, when it is a JSON object with a string `t`. */
function firstRecordType(text: string): string | undefined {
  const parsed = parseJson(text);
  return parsed.ok && isPlainObject(parsed.value) && typeof parsed.value.t === 'string' ? parsed.value.t : undefined;
}

function headerExpected(line: number, t: string | undefined): Finding {
  return {
    code: 'malformed_line',
    severity: 'error',
    message: `line ${line}: a sidecar starts with a header record, but its first record is ${t === undefined ? 'not a readable record' : `t=${JSON.stringify(t)}`}`,
    line,
  };
}
