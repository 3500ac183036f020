/**
 * A Codex rollout as a source: its lines are indexed in passes (LineSource: resumable, for live
 * tailing; a large rollout is previewed from its first pause) and kept parsed; `indexed()` rebuilds
 * the three inputs from them (build.ts), before the last pass over the lines read so far. The
 * rollout is read once: the view holds the messages themselves, so nothing is read back afterwards
 * but the large string values a long line keeps in the file (docs/large-lines.md).
 */
import { readSync } from 'node:fs';
import { arrayList } from '../../../shared/resolver/session';
import type { ContentServices } from '../content/contentServices';
import { createContentServices } from '../content/contentServices';
import { LARGE_STRING_BYTES, MAX_WHOLE_VALUE_BYTES, leavesStringsInFile, readTakenLine, scanTakenLine } from '../content/largeStrings';
import type { TakenLine } from '../common/takenLine';
import { LineSource, takeLineText } from '../common/lineSource';
import type { CachePolicy, IndexPass, OpenFile, SourceIndex } from '../common/source';
import { parseCappedJson, stripBom } from '../common/json';
import type { MeasuredRun, RolloutLine } from './build';
import { buildRollout } from './build';
import { keepRolloutStrings, keepRolloutTexts, untypedStrings } from './largeLines';
import type { KeptStrings } from '../content/keptString';
import { KEPT_CACHE_BYTES, KEPT_STRING_CHARS, keptStrings, lineKeeper } from '../content/keptString';

export class RolloutSource extends LineSource {
  readonly format = 'codex-rollout' as const;
  private readonly lines: RolloutLine[] = [];
  private cached: SourceIndex | undefined;
  /** The builds made, and each compaction run's transcript as measured, once built twice (buildRollout). */
  private builds = 0;
  private measured: Map<string, MeasuredRun> | undefined;

  constructor(
    file: OpenFile,
    /** A string value this many raw bytes long or longer stays in the file (docs/large-lines.md). */
    private readonly largeStringBytes: number = LARGE_STRING_BYTES,
    /** What its large contents read with (DetectContext.services, docs/content-services.md); fresh ones when not given. */
    private readonly services: ContentServices = createContentServices(),
    /** A value outside a message's text longer than this is cut, not read whole (docs/large-lines.md). */
    private readonly wholeValueBytes: number = MAX_WHOLE_VALUE_BYTES,
    /** Budget of the cache of message texts read back from the file, in bytes (DetectContext.cacheBytes). */
    cacheBytes: number = KEPT_CACHE_BYTES,
    /** A message text or tool output this many characters long or longer stays in the file once its line is parsed (docs/streaming-import.md). */
    private readonly keptChars: number = KEPT_STRING_CHARS,
    /** How that cache takes a text once full (DetectContext.cachePolicy). */
    cachePolicy?: CachePolicy,
  ) {
    super(file);
    this.kept = keptStrings(file.fd, readSync, () => this.isOpen, cacheBytes, cachePolicy);
  }

  /** The texts left in the file, read back through a byte-budgeted cache. */
  private readonly kept: KeptStrings;

  /** Texts left in the file are read back after the pass (largeStrings.ts `leavesStringsInFile`). */
  override get readsAfterIndexing(): boolean {
    return leavesStringsInFile(this.largeStringBytes, this.keptChars);
  }

  /** A line too long to keep in memory is scanned from the file for its large strings (`take`). */
  protected override takesByRange(): boolean {
    return true;
  }

  /** Its lines of `largeStringBytes` or more are scanned for their large values (`takeLarge`). */
  protected override scansLines(): { lowBytes: number; minRawBytes: number } {
    return { lowBytes: this.largeStringBytes, minRawBytes: this.largeStringBytes };
  }

  /** One line, kept parsed (a record longer than the limit, or not JSON, is kept as its error). */
  protected take(line: number, raw: TakenLine, length: number, torn: boolean, pass: IndexPass): void {
    this.cached = undefined;
    if (length <= pass.maxRecordBytes && length >= this.largeStringBytes && this.takeLarge(line, raw, length, pass)) return;
    if (!readTakenLine(this.file.fd, pass.read, raw, length)) {
      this.lines.push({ line, error: 'the line was not read: the file shrank while it was being read' });
      return;
    }
    // The line's bytes, before taking its text lets them go: a kept text is found in them.
    const lineBytes = raw.bytes;
    const taken = takeLineText(raw);
    if (!taken) {
      this.lines.push({ line, error: `record of ${length} bytes is longer than the limit of ${pass.maxRecordBytes}` });
      return;
    }
    const text = stripBom(taken.text);
    if (text.trim().length === 0) return;
    const parsed = parseCappedJson(text);
    if (!parsed.ok) {
      this.lines.push({ line, error: `not JSON (${parsed.reason})`, ...(torn ? { torn: true } : {}) });
      return;
    }
    // Its long texts stay in the file, read back when asked for (keptString.ts).
    if (lineBytes) {
      this.kept.read = pass.read;
      keepRolloutTexts(parsed.value, lineKeeper(this.kept, this.keptChars, lineBytes, raw.offset));
    }
    this.lines.push({ line, value: parsed.value, ...(taken.utf8 ? {} : { notUtf8: true as const }), ...(parsed.cut ? { deep: parsed.cut } : {}) });
  }

  /**
   * A long line read without its large string values (largeStrings.ts): a message's text or a tool
   * output stays in the file, read by range when asked for (./largeLines.ts). False when the line
   * has none or is not one well-formed record (it is then read whole, for the answer it gets).
   */
  private takeLarge(line: number, raw: TakenLine, length: number, pass: IndexPass): boolean {
    const scan = scanTakenLine(this.file.fd, pass.read, raw, length, this.largeStringBytes, () => this.isOpen, this.services, this.wholeValueBytes, this.scannedAhead(raw.offset, length));
    if (!scan) return false;
    const parsed = parseCappedJson(scan.rest);
    if (!parsed.ok) return false;
    const { value, cut } = parsed;
    const large = scan.large;
    try {
      // The types are strings again before the record is looked at.
      large.materialize(value, new Set(untypedStrings(value)));
      keepRolloutStrings(value, large);
      // Anywhere else a value must be a string: read whole.
      large.materialize(value);
    } finally {
      large.release();
    }
    this.lines.push({ line, value, ...(scan.utf8 ? {} : { notUtf8: true as const }), ...(cut ? { deep: cut } : {}), ...(large.cut.length > 0 ? { cut: large.cut } : {}) });
    return true;
  }

  indexed(): SourceIndex {
    if (this.cached) return this.cached;
    // From its second build on (a followed rollout's), its compactions' transcripts are remembered:
    // a command that builds once keeps none (docs/streaming-import.md "Building the view").
    this.builds++;
    if (this.builds > 1) this.measured ??= new Map();
    const built = buildRollout(this.lines, this.measured);
    const view = arrayList(built.view);
    const system = built.system;
    this.cached = {
      records: {
        header: null,
        view,
        recorded: view,
        log: built.log,
        logLines: built.logLines,
        messageLines: built.messageLines,
        modelChanges: built.modelChanges,
        findings: built.findings,
        system: () => system,
        instructions: built.instructions,
        ...(built.usage.size > 0 ? { usage: built.usage } : {}),
      },
      // The session's id and model travel as a snapshot's: a rollout has no native header.
      snapshot: { session_id: built.sessionId ?? '', model: built.model ?? '', messages: view, findings: [] },
    };
    return this.cached;
  }
}
