/**
 * Claude Code transcripts (`claude-code`, SPEC §10.1) behind the source seam. Detected by content:
 * the first JSON line is an object whose `type` is a Claude Code record type and that carries
 * Claude Code's envelope (`uuid`, `sessionId`, `leafUuid` or `messageId`). The file is indexed in
 * passes, each line parsed once as it is read, and the session built by the importer; originals of `<persisted-output>` are read
 * from `<session>/tool-results/` beside it, never written.
 */
import { isUtf8 } from 'node:buffer';
import { readSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import type { Finding } from '../../../shared/index';
import { arrayList } from '../../../shared/index';
import { jsonValueOf } from '../common/json';
import { readExactly } from '../common/lines';
import { safeClose, unreadable } from '../common/openFile';
import type { TakenLine } from '../common/takenLine';
import { LineSource, takeLineText } from '../common/lineSource';
import type { ContentServices } from '../content/contentServices';
import { createContentServices } from '../content/contentServices';
import type { LargeText, Text } from '../content/largeStrings';
import { LARGE_STRING_BYTES, MAX_WHOLE_VALUE_BYTES, TranscriptMemo, leavesStringsInFile, readTakenLine, scanTakenLine, sourceText } from '../content/largeStrings';
import { COMPANION_READ_BACK_BYTES, companionSource } from '../content/companionFile';
import type { Refused } from '../common/safeRead';
import { openWithin, readWithin, sessionFolderRoots } from '../common/safeRead';
import type { CachePolicy, CountWhileBuilding, FormatAdapter, IndexPass, IndexStop, OpenFile, SourceIndex } from '../common/source';
import type { ClaudeLine, ImportedSession, ParsedClaudeLines } from './importer';
import { ClearedAsParsed, KNOWN_TYPES, buildClaudeSession, callKeyOf, contentsBeforeCall, importClaudeCode, keepContentOut, largeContentsCleared, parseClaudeLine, parseClaudeLines, withNonUtf8Lines } from './importer';
import type { KeptStrings } from '../content/keptString';
import { CLAUDE_KEPT_STRING_CHARS, KEPT_CACHE_BYTES, keptStrings, lineKeeper } from '../content/keptString';
import { subagentFiles } from './subagents';

const DETECT_BYTES = 1024 * 1024;
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** True when `value` (a parsed line) is a Claude Code record. */
export function isClaudeRecord(value: unknown): boolean {
  if (!isObj(value) || typeof value.type !== 'string' || !KNOWN_TYPES.has(value.type)) return false;
  return typeof value.uuid === 'string' || typeof value.sessionId === 'string' || typeof value.leafUuid === 'string' || typeof value.messageId === 'string';
}

/** The most lines of a file's head that detection reads (looksLikeClaudeCode). */
const DETECT_LINES = 20;

/**
 * The text of `head` up to and including its `lines`-th newline (all of it when it has fewer):
 * what looksLikeClaudeCode reads of it, without decoding the rest of a 1 MiB head (a repro
 * bundle's oracle loads a file hundreds of times; docs/bundles.md "Figures").
 */
export function headLines(head: Buffer, lines: number): string {
  let at = -1;
  for (let k = 0; k < lines; k++) {
    at = head.indexOf(0x0a, at + 1);
    if (at < 0) return head.toString('utf8');
  }
  return head.subarray(0, at + 1).toString('utf8');
}

/** Claims a file whose first parseable line (in its first MB) is a Claude Code record. */
export function looksLikeClaudeCode(head: string): boolean {
  const lines = head.split('\n');
  for (let i = 0; i < lines.length && i < DETECT_LINES; i++) {
    const t = lines[i]!.trim();
    if (t === '') continue;
    const record = jsonValueOf(t);
    if (record) return isClaudeRecord(record.value);
    if (i === lines.length - 1) return false; // cut by the head: undecided, not ours
  }
  return false;
}

/** Splits a whole file into its lines; a last line without its newline is `torn`. */
export function splitClaudeLines(text: string): ClaudeLine[] {
  const parts = text.split('\n');
  const out: ClaudeLine[] = [];
  for (let i = 0; i < parts.length; i++) {
    const last = i === parts.length - 1;
    if (last && parts[i] === '') break;
    out.push({ line: i + 1, text: parts[i]!.replace(/\r$/, ''), ...(last ? { torn: true } : {}) });
  }
  return out;
}

/** The `tool-results/` folder of a session file: `<dir>/<stem>/tool-results/`. */
export function toolResultsDir(path: string): string {
  return join(dirname(path), basename(path).replace(/\.jsonl$/, ''), 'tool-results');
}

/**
 * Reads a companion file whole (safeRead.ts: non-blocking, a regular file inside `roots`, bounded);
 * undefined when it is not there, else its text or why it was not read.
 */
function readCompanion(path: string, roots: readonly string[]): string | Refused | undefined {
  const read = companionBytes(path, roots);
  return Buffer.isBuffer(read) ? read.toString('utf8') : read;
}

/** A companion file's bytes (readWithin); undefined when it is not there, else why it was not read. */
function companionBytes(path: string, roots: readonly string[]): Buffer | Refused | undefined {
  const read = readWithin(path, roots);
  if ('bytes' in read) return read.bytes;
  return read.missing === true ? undefined : read;
}

const textOf = (read: string | Refused | undefined): string | undefined => (typeof read === 'string' ? read : undefined);

/**
 * A `tool-results/` file as the original of a persisted output: read whole once (as a companion is,
 * to know it is there, bounded and valid UTF-8), then, from COMPANION_READ_BACK_BYTES on, read back
 * from its file when asked instead of held (companionFile.ts); shorter, or not valid UTF-8 (its
 * string then has U+FFFD for each bad sequence, as before), its string.
 */
function toolResultText(path: string, roots: readonly string[], readBack?: Map<string, LargeText>): Text | Refused | undefined {
  // A followed session is built again at each append: a file read back by an earlier build, as long
  // as it was, is the same text (its bytes are checked when read), so the compactions' transcripts
  // measured over it are taken up, not hashed again (TranscriptMemo compares texts by identity).
  const known = readBack?.get(path);
  if (known !== undefined) {
    const opened = openWithin(path, roots);
    if (!('refused' in opened)) {
      safeClose(opened.fd);
      if (opened.size === known.source.length) return known;
    }
  }
  const bytes = companionBytes(path, roots);
  if (!Buffer.isBuffer(bytes)) return bytes;
  if (bytes.length < COMPANION_READ_BACK_BYTES || !isUtf8(bytes)) return bytes.toString('utf8');
  const text = sourceText(companionSource(path, roots, bytes.length));
  readBack?.set(path, text);
  return text;
}

/**
 * Imports the transcript `text` (or its lines parsed so far) of the file at `path`, and lists the sessions it holds: its own
 * (main and inline sidechains) and its subagent files. `session` picks one: an inline sidechain's
 * id, or a subagent's id (its file is then imported instead). Undefined when no session has that id.
 * Every companion (tool-results, subagents and their meta files) is read only inside `roots` (the
 * host's, else the session file's folder: docs/safe-reads.md); one refused is a finding.
 */
export function importClaudeFile(
  path: string,
  text: string | ParsedClaudeLines,
  session?: string,
  roots: readonly string[] = sessionFolderRoots(path),
  transcripts?: TranscriptMemo,
  readBack?: Map<string, LargeText>,
): ImportedSession | undefined {
  const dir = toolResultsDir(path);
  const toolResult = (name: string): Text | Refused | undefined => (name.includes('/') || name.includes('\\') || name === '..' || name === '.' ? undefined : toolResultText(join(dir, name), roots, readBack));
  const found = subagentFiles(path, text, roots);
  const subagents = found.files;
  const sub = session !== undefined && session !== '' ? subagents.find((a) => a.id === session) : undefined;
  const main = buildClaudeSession(typeof text === 'string' ? parseClaudeLines(splitClaudeLines(text)) : text, { toolResult, ...(session !== undefined && !sub ? { session } : {}), ...(transcripts ? { transcripts } : {}) });
  if (session !== undefined && session !== '' && !sub && !main.sessions.some((s) => s.id === session)) return undefined;
  const listed = [...main.sessions];
  const refusals: Finding[] = found.refused.map((r) => companionFinding(path, r.path, r.refused));
  let chosen = main;
  for (const a of subagents) {
    const subRead = readCompanion(a.path, roots);
    if (subRead === undefined) continue;
    if (typeof subRead !== 'string') {
      refusals.push(companionFinding(path, a.path, subRead.refused));
      continue;
    }
    const subText = subRead;
    const imported = importClaudeCode(splitClaudeLines(subText), { toolResult });
    const metaRead = readCompanion(a.path.replace(/\.jsonl$/, '.meta.json'), roots);
    if (typeof metaRead === 'object') refusals.push(companionFinding(path, a.path.replace(/\.jsonl$/, '.meta.json'), metaRead.refused));
    const meta = textOf(metaRead);
    let title: string | undefined;
    try {
      const m: unknown = meta === undefined ? undefined : JSON.parse(meta);
      if (typeof m === 'object' && m !== null && typeof (m as { description?: unknown }).description === 'string') title = (m as { description: string }).description;
    } catch {
      title = undefined;
    }
    title ??= imported.messages.find((m) => m.role === 'user')?.content.slice(0, 80);
    listed.push({ id: a.id, ...(title !== undefined ? { title } : {}), messages: imported.messages.length });
    if (sub === a) chosen = { ...imported, session_id: a.id };
  }
  return { ...chosen, sessions: listed, findings: refusals.length === 0 ? chosen.findings : [...refusals, ...chosen.findings] };
}

/** A companion of the session file at `path` that was not read: a finding naming it (relative to the session's folder) and why. */
function companionFinding(path: string, companion: string, why: string): Finding {
  return { code: 'malformed_line', severity: 'error', message: `${relative(dirname(path), companion)}, found beside ${basename(path)}, was not read: ${why}; its session is not listed` };
}

/**
 * A transcript indexed in passes (LineSource): each line is parsed once as it is read and kept;
 * `indexed()` builds the session from the lines parsed so far. Before the last pass that is a
 * provisional view — the live branch over the records read so far (its leaf is the last message
 * read) — which the final view replaces. A source opened for a `--session` was imported whole at
 * detection (`preloaded`) and only answers that.
 */
export class ClaudeCodeSource extends LineSource {
  readonly format = 'claude-code' as const;
  private readonly parsed: ParsedClaudeLines = { records: [], findings: [] };
  /** A finding per line that is not valid UTF-8 (it reads with U+FFFD). */
  private readonly nonUtf8: Finding[] = [];
  private cached: SourceIndex | undefined;
  /** The main conversation's calls the pass has met while a call's input waits to be offered (`offerAsParsed`). */
  private readonly callsMet = new Set<string>();
  /** `log`'s cleared tool results, offered as the pass meets their boundaries (`offerAsParsed`). */
  private cleared: ClearedAsParsed | undefined;
  /** The compactions' transcripts as the last build hashed them (a followed file is built again at each append). */
  private readonly transcripts = new TranscriptMemo();
  /** The `tool-results/` files read back by range, by path, as the builds found them (toolResultText). */
  private readonly readBack = new Map<string, LargeText>();
  /** The file its kept message texts are read back from, and their cache. */
  private readonly kept: KeptStrings;

  constructor(
    file: OpenFile,
    private readonly session?: string,
    private readonly preloaded?: ImportedSession,
    /** Where its companions may be read (DetectContext.roots); undefined: the session file's folder. */
    private readonly roots?: readonly string[],
    /** A string value this many raw bytes long or longer is read from the file when needed, not kept (docs/large-lines.md). */
    private readonly largeStringBytes: number = LARGE_STRING_BYTES,
    /** What its large contents read with (DetectContext.services, docs/content-services.md); fresh ones when not given. */
    private readonly services: ContentServices = createContentServices(),
    /** A value outside a message's text longer than this is cut, not read whole (docs/large-lines.md). */
    private readonly wholeValueBytes: number = MAX_WHOLE_VALUE_BYTES,
    /** Budget of the cache of message texts read back from the file, in bytes (DetectContext.cacheBytes). */
    cacheBytes: number = KEPT_CACHE_BYTES,
    /** A message text this many characters long or longer stays in the file once its line is parsed (docs/streaming-import.md). */
    private readonly keptChars: number = CLAUDE_KEPT_STRING_CHARS,
    /** How that cache takes a text once full (DetectContext.cachePolicy). */
    cachePolicy?: CachePolicy,
    /** Told, before the first build, what the command will count (DetectContext.countWhileBuilding). */
    private countWhileBuilding?: CountWhileBuilding,
  ) {
    super(file);
    this.kept = keptStrings(file.fd, readSync, () => this.isOpen, cacheBytes, cachePolicy);
  }

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

  /** A transcript imported whole at detection (`--session`) is read again on any change (SPEC §13). */
  override get appends(): boolean {
    return this.preloaded === undefined;
  }

  override indexTo(end: number, pass: IndexPass): Promise<IndexStop> {
    if (!this.preloaded) return super.indexTo(end, pass);
    pass.progress.add(this.file.size);
    return Promise.resolve({ offset: this.file.size, line: 1 });
  }

  protected take(line: number, bytes: TakenLine, length: number, torn: boolean, pass: IndexPass): void {
    const before = this.parsed.records.length;
    this.takeLine(line, bytes, length, torn, pass);
    if (this.countWhileBuilding && this.parsed.records.length > before) this.offerAsParsed(before);
  }

  /**
   * Offers what `countWhileBuilding` asks for as soon as the pass meets it, so the thread counts it
   * while the rest of the file is read and the session built (docs/token-estimates.md "Counted
   * while the session is built"): a call's input (by number) at that call's first record, as what
   * the guess reads (`contentsBeforeCall`) all lies before it; `log`'s originals, the tool
   * results each microcompaction clears, at its boundary (`ClearedAsParsed`). The latest view is
   * offered after the pass.
   */
  private offerAsParsed(from: number): void {
    const told = this.countWhileBuilding;
    if (!told || this.preloaded) return;
    const { records } = this.parsed;
    if (told.wants === 'hidden') {
      const cleared = (this.cleared ??= new ClearedAsParsed(told.maxBytes));
      for (let k = from; k < records.length && !cleared.full; k++) {
        const sources = cleared.take(records[k]!);
        if (sources.length > 0) told.offer(sources);
      }
      return;
    }
    if (told.wants.input === null) return;
    for (let k = from; k < records.length; k++) {
      const r = records[k]!;
      const key = r.isSidechain === true ? undefined : callKeyOf(r);
      if (key === undefined) continue;
      this.callsMet.add(key);
      if (this.callsMet.size === told.wants.input) {
        this.countWhileBuilding = undefined;
        told.offer(contentsBeforeCall(records, told.wants.input, told.maxBytes));
        return;
      }
    }
  }

  private takeLine(line: number, bytes: TakenLine, length: number, torn: boolean, pass: IndexPass): void {
    this.cached = undefined;
    if (length <= pass.maxRecordBytes && length >= this.largeStringBytes && this.takeLarge(line, bytes, length, torn, pass)) return;
    if (!readTakenLine(this.file.fd, pass.read, bytes, length)) {
      this.parsed.findings.push({ code: 'malformed_line', severity: 'error', line, message: `line ${line} was not read: the file shrank while it was being read` });
      return;
    }
    const lineBytes = bytes.bytes;
    const taken = takeLineText(bytes);
    if (!taken) {
      this.parsed.findings.push({ code: 'malformed_line', severity: 'error', line, message: `line ${line} is a record of ${length} bytes, longer than the limit of ${pass.maxRecordBytes}; it is skipped` });
      return;
    }
    // Lines split at \n bytes decode as the whole file would (no UTF-8 sequence holds a 0x0a byte).
    if (!taken.utf8) this.nonUtf8.push({ code: 'malformed_line', severity: 'error', line, message: `${basename(this.file.path)} line ${line} holds bytes that are not valid UTF-8; they read as U+FFFD` });
    const before = this.parsed.records.length;
    parseClaudeLine({ line, text: taken.text, ...(torn ? { torn: true } : {}) }, this.parsed);
    // Its long message texts stay in the file, read back when asked for (keptString.ts).
    const rec = this.parsed.records.length > before ? this.parsed.records[before] : undefined;
    this.kept.read = pass.read;
    if (rec && lineBytes) keepContentOut(rec, lineKeeper(this.kept, this.keptChars, lineBytes, bytes.offset));
  }

  /**
   * A long line read without its large string values (largeStrings.ts): they stay in the file,
   * read by range when asked for. False when the line has none, or is not one well-formed record
   * (it is then read whole, for the answer the whole line gets).
   */
  private takeLarge(line: number, taken: TakenLine, length: number, torn: boolean, pass: IndexPass): boolean {
    const scan = scanTakenLine(this.file.fd, pass.read, taken, length, this.largeStringBytes, () => this.isOpen, this.services, this.wholeValueBytes, this.scannedAhead(taken.offset, length));
    if (!scan) return false;
    if (!scan.utf8) this.nonUtf8.push({ code: 'malformed_line', severity: 'error', line, message: `${basename(this.file.path)} line ${line} holds bytes that are not valid UTF-8; they read as U+FFFD` });
    try {
      return parseClaudeLine({ line, text: scan.rest, ...(torn ? { torn: true } : {}) }, this.parsed, scan.large);
    } finally {
      scan.large.release();
    }
  }

  indexed(): SourceIndex {
    if (this.cached) return this.cached;
    if (this.countWhileBuilding && !this.preloaded) {
      // Once, at the first build: counted on another thread while this one builds.
      const told = this.countWhileBuilding;
      this.countWhileBuilding = undefined;
      const { records } = this.parsed;
      // `log`'s, offered as the pass went when it went through `take`.
      if (told.wants !== 'hidden') told.offer(contentsBeforeCall(records, told.wants.input, told.maxBytes));
      else if (this.cleared === undefined) told.offer(largeContentsCleared(records, told.maxBytes));
      this.cleared = undefined;
    }
    const imported = this.preloaded ?? importClaudeFile(this.file.path, this.parsed, this.session, this.roots, this.transcripts, this.readBack) ?? importClaudeFile(this.file.path, this.parsed, undefined, this.roots, this.transcripts, this.readBack)!;
    const findings = this.nonUtf8.length === 0 || this.preloaded ? imported.findings : [...this.nonUtf8, ...imported.findings].sort((x, y) => (x.line ?? 0) - (y.line ?? 0));
    this.cached = {
      snapshot: {
        session_id: imported.session_id,
        model: imported.model,
        messages: arrayList(imported.messages),
        reductions: imported.reductions,
        findings,
        sessions: imported.sessions,
        ...(imported.messageLines ? { messageLines: imported.messageLines } : {}),
        ...(imported.ended ? { ended: imported.ended } : {}),
        ...(imported.instructions ? { instructions: imported.instructions } : {}),
        ...(imported.usage ? { usage: imported.usage } : {}),
      },
    };
    return this.cached;
  }
}

export const claudeCodeFormat: FormatAdapter = {
  name: 'claude-code',
  reads: 'Claude Code transcripts',
  formats: ['claude-code'],
  detect(file, context) {
    const head = readExactly(file.fd, 0, Math.min(file.size, DETECT_BYTES), context.read);
    if (!head) return { ok: false, error: unreadable(file.path, 'the file shrank while it was being read') };
    if (!looksLikeClaudeCode(headLines(head, DETECT_LINES))) return { ok: false, error: { code: 'unrecognized_file', message: `${file.path} is not a Claude Code transcript` } };
    if (context.session === undefined) return { ok: true, source: new ClaudeCodeSource(file, undefined, undefined, context.roots, context.largeStringBytes, context.services, context.wholeValueBytes, context.cacheBytes, context.keptStringChars, context.cachePolicy, context.countWhileBuilding) };
    // A session asked for by id: the file is read now, so an id it does not hold is an error.
    const whole = readExactly(file.fd, 0, file.size, context.read);
    if (!whole) return { ok: false, error: unreadable(file.path, 'the file shrank while it was being read') };
    const imported = importClaudeFile(file.path, whole.toString('utf8'), context.session, context.roots);
    if (!imported) {
      const all = importClaudeFile(file.path, whole.toString('utf8'), undefined, context.roots);
      return { ok: false, error: { code: 'usage', message: `${file.path} holds no session ${JSON.stringify(context.session)}: its sessions are ${(all?.sessions ?? []).map((x) => x.id || '(main)').join(', ')}` } };
    }
    const checked = isUtf8(whole) ? imported : { ...imported, findings: withNonUtf8Lines(whole, basename(file.path), imported.findings) };
    return { ok: true, source: new ClaudeCodeSource(file, context.session, checked, context.roots) };
  },
  assemble(opened) {
    if (opened.length > 1) return { error: { code: 'usage', message: `${opened.length} Claude Code transcripts given: pass one (its subagents and tool-results are found beside it)` } };
    return { sources: [...opened] };
  },
};
