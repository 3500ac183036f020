/**
 * Opening a session (SPEC §3): one or two files told apart by content, a sidecar indexed in one
 * streaming pass into light handles, and lazy message lists that read content back from disk
 * through a byte-budgeted cache. Host-agnostic Node: the worker, the HTTP host and the command
 * line all load through here. Files are opened read-only and never written.
 */
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type {
  ByteRange,
  CheckReport,
  SessionFile,
  ChatMessage,
  ExpandOutcome,
  Finding,
  LineParse,
  MessageList,
  ModelChange,
  Reduction,
  ReductionKind,
  ResolverError,
  ResolverErrorCode,
  Result,
  Role,
  SearchOptions,
  Sha256,
  SidecarHeader,
  SidecarRecord,
  SidecarSearchResult,
  SnapshotParse,
  Timeline,
  TimelineRecord,
} from '../../shared/index';
import {
  ContentUnavailableError,
  REDUCTION_KINDS,
  err,
  TimelineBuilder,
  applyCap,
  chatMessageSchema,
  floorSourceBoundary,
  checkIntegrity,
  compareLogs,
  expandReduction,
  hasReasoningArtifacts,
  isSnapshotValue,
  parseSidecarLine,
  parseSnapshot,
  sidecarSearch,
  sidecarSearchSteps,
} from '../../shared/index';
import type { ReadSync, SplitLine } from './lines';
import { readExactly, splitLines } from './lines';
import { MessageCache } from './messageCache';
import { FileContent } from './fileContent';
import { FileGuard } from './fileGuard';
import type { RawContent } from './rawRecord';
import { scanMessageRecord } from './rawRecord';

/** SHA-256 through node:crypto: the resolver's hash on the Node side (far faster than the portable one). */
export const nodeSha256: Sha256 = (chunks) => {
  const h = createHash('sha256');
  for (const c of chunks) h.update(c);
  return h.digest('hex');
};

export const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;
/** A record longer than this is not decoded into one string (V8 strings stop near 512 MB). */
export const MAX_RECORD_BYTES = 256 * 1024 * 1024;
/**
 * A message record at least this long is indexed without decoding its content: the content is
 * located in the file, walked and read back by range (rawRecord.ts, fileContent.ts).
 */
export const RAW_SCAN_MIN_BYTES = 4 * 1024;
/** A content at least this long is hashed while indexing, so its stub verifies at once. */
export const HASH_AT_INDEX_BYTES = 1024 * 1024;
/** A line longer than this is never held in memory whole by the indexing pass. */
export const IN_MEMORY_LINE_BYTES = 16 * 1024 * 1024;
/** A content read from the file keeps this much of its start as text, for display. */
export const PREVIEW_BYTES = 64 * 1024;
/** A sidecar this large gets a preview (LoadOptions.onPreview) while it is indexed. */
export const PREVIEW_MIN_BYTES = 8 * 1024 * 1024;
/** Snapshots are parsed whole for now; past this, refuse rather than exhaust memory. */
export const MAX_SNAPSHOT_BYTES = 400 * 1000 * 1000;

const PROGRESS_BYTES = 1024 * 1024;
const PROGRESS_MS = 4;
/** How long the indexing pass runs before it lets the event loop turn (progress, cancellation). */
const YIELD_MS = 16;

export interface LoadProgress {
  bytesRead: number;
  totalBytes: number;
}

export interface LoadOptions {
  onProgress?(p: LoadProgress): void;
  /**
   * Called once, early, while a large sidecar (PREVIEW_MIN_BYTES or more, without a snapshot) is
   * still being indexed: a session over the records read so far, so its first rows can be shown.
   * It shares the final session's file and cache and must not be closed; it is never updated.
   */
  onPreview?(preview: LoadedSession): void;
  /** Checked while indexing: an aborted load closes its files and answers `cancelled`. */
  signal?: { readonly aborted: boolean };
  /** Budget of the message cache, in content bytes (default 64 MiB). */
  cacheBytes?: number;
  /** Read buffer size of the indexing pass (default 1 MiB). */
  chunkSize?: number;
  /** Records longer than this become `malformed_line` findings (default 256 MiB). */
  maxRecordBytes?: number;
  /** Positional synchronous read; tests inject one to count reads. */
  readSync?: ReadSync;
}

export type LoadErrorCode = 'unreadable_file' | 'unrecognized_file' | 'usage' | 'cancelled';

export interface LoadError {
  code: LoadErrorCode;
  message: string;
}

export type LoadResult = { ok: true; session: LoadedSession } | { ok: false; error: LoadError };

/**
 * A resolver error, or `file_changed`: a file of the session changed on disk since it was opened,
 * so nothing read from it is served (its bytes could no longer be proven to be the hashed ones).
 */
export type SessionError = Omit<ResolverError, 'code'> & { code: ResolverErrorCode | 'file_changed' };

/** A session file that changed on disk since it was opened, and what changed. */
export interface FileChange {
  path: string;
  message: string;
}

/** Thrown by `check()` when a file changed while it was checked: a report over changed bytes would be wrong. */
export class FileChangedError extends Error {
  readonly code = 'file_changed';
  constructor(readonly change: FileChange) {
    super(change.message);
  }
}

export interface LoadedSession {
  readonly files: readonly SessionFile[];
  /** The sidecar's header, or null without a sidecar (or when its first record is not a header). */
  readonly header: SidecarHeader | null;
  readonly sessionId: string | null;
  /** The model the session ends on: the snapshot's, else the last model switch's, else the header's. */
  readonly model: string | null;
  /** The minted view (§3.2): the snapshot's messages, else the sidecar's timeline with caps applied. */
  readonly minted: MessageList;
  /** The sidecar's last record per index; absent without a sidecar. */
  readonly recorded?: MessageList;
  /** The live log (§3.2). */
  readonly log: readonly Reduction[];
  /** Sidecar line of each log entry, parallel to `log`; undefined when the log is the snapshot's. */
  readonly logLines?: readonly number[];
  readonly modelChanges: readonly ModelChange[];
  /** Findings of reading the files: malformed lines, timeline problems, `log_differs`. */
  readonly loadFindings: readonly Finding[];
  /** A file's format version is newer than supported: nothing else was read. */
  readonly stopped: boolean;
  /** The system prompt (`history[0]`) recorded in the sidecar, if any. */
  system(): ChatMessage | undefined;
  /** §5.1 over the files; `file_changed` when a file changed on disk before or while it was read. */
  expand(id: string, range?: ByteRange): Result<ExpandOutcome, SessionError>;
  /** §5.3 over the files; `file_changed` as for expand. */
  search(query: string, options?: Omit<SearchOptions, 'sha256'>): Result<SidecarSearchResult, SessionError>;
  /**
   * `search` one step at a time (sidecarSearchSteps): the worker serves other requests between
   * steps. The files are checked before the first step, after every step and at the end.
   */
  searchSteps(query: string, options?: Omit<SearchOptions, 'sha256'>): Generator<void, Result<SidecarSearchResult, SessionError>>;
  /**
   * Load findings plus the integrity check of §5.6, sorted by line then index, and a summary.
   * Throws FileChangedError when a file changed on disk before or while it was checked.
   */
  check(): CheckReport;
  /**
   * Undefined while every open file is as it was opened; else the first change seen, and from then
   * on always that one (bytes read around a change may sit in caches). Anything else that reads
   * the files (rows, verify) checks it before and after reading.
   */
  fileChange(): FileChange | undefined;
  /** Closes the files; the lists read nothing afterwards. */
  close(): void;
}

/** What the indexing pass keeps of a message record: where it is, never its content. */
export interface MessageHandle {
  line: number;
  offset: number;
  length: number;
  role: Role;
  tool_call_id?: string;
  contentBytes: number;
  hasArtifacts: boolean;
  /** Where the content lies in the file, for a record indexed without decoding it. */
  content?: RawContent;
  /** The content as a ByteSource, made on first read and kept: one per record. */
  source?: FileContent;
}

// ---------------------------------------------------------------------------------------------
// Opening and telling files apart

interface OpenFile {
  path: string;
  fd: number;
  size: number;
  /** The file as it was when opened: whatever is served from it later is checked against this. */
  guard: FileGuard;
}

type Detected =
  | { kind: 'sidecar'; file: OpenFile }
  | { kind: 'snapshot'; file: OpenFile; value: Record<string, unknown>; invalidUtf8?: boolean }
  | { kind: 'error'; error: LoadError };

function osReason(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  const code = typeof err.code === 'string' ? err.code : undefined;
  const reasons: Record<string, string> = {
    ENOENT: 'no such file or directory',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EISDIR: 'it is a directory',
    ENOTDIR: 'a component of the path is not a directory',
    ELOOP: 'too many symbolic links',
    ENAMETOOLONG: 'the name is too long',
    EMFILE: 'too many open files',
  };
  if (code && reasons[code]) return `${reasons[code]} (${code})`;
  return err.message ?? String(e);
}

function isSystemError(e: unknown): e is NodeJS.ErrnoException {
  return e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string' && typeof (e as NodeJS.ErrnoException).syscall === 'string';
}

function unreadable(path: string, reason: string): LoadError {
  return { code: 'unreadable_file', message: `cannot read ${path}: ${reason}` };
}

/**
 * Read-only and non-blocking: a path that is (or was swapped for) a FIFO or a device must never
 * block the open; what was opened is then checked on the descriptor itself (fstat), so nothing can
 * change between the check and the open.
 */
const READ_ONLY_NONBLOCK = constants.O_RDONLY | constants.O_NONBLOCK;

function openReadOnly(path: string): OpenFile | LoadError {
  let fd: number;
  try {
    fd = openSync(path, READ_ONLY_NONBLOCK);
  } catch (e) {
    return unreadable(path, osReason(e));
  }
  let stats: Stats;
  try {
    stats = fstatSync(fd);
  } catch (e) {
    safeClose(fd);
    return unreadable(path, osReason(e));
  }
  if (stats.isFile()) {
    try {
      return { path, fd, size: stats.size, guard: new FileGuard(path, fd) };
    } catch (e) {
      safeClose(fd);
      return unreadable(path, osReason(e));
    }
  }
  safeClose(fd);
  if (stats.isDirectory()) return unreadable(path, 'it is a directory (EISDIR)');
  const what = stats.isFIFO() ? 'a FIFO (named pipe)' : stats.isSocket() ? 'a socket' : stats.isCharacterDevice() || stats.isBlockDevice() ? 'a device' : 'not a regular file';
  return unreadable(path, `it is ${what}, not a regular file`);
}

function isLoadError(v: OpenFile | LoadError): v is LoadError {
  return 'code' in v;
}

function safeClose(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already closed: nothing to release.
  }
}

function firstNonSpaceByte(bytes: Buffer): number | undefined {
  let i = 0;
  // A UTF-8 byte order mark is not content.
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = 3;
  for (; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if (b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) return b;
  }
  return undefined;
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  }
}

/** The `t` of a record from its first bytes (`{"t":"message",…`), a UTF-8 byte order mark allowed. */
const RECORD_TYPE_HEAD = /^\uFEFF?\s*\{\s*"t"\s*:\s*"([\w-]{1,64})"/;
/** How a sidecar record starts (`{"t":"…`), a UTF-8 byte order mark allowed. */
const SIDECAR_RECORD_HEAD = /^\uFEFF?\s*\{\s*"t"\s*:\s*"/;

/**
 * Tells a sidecar from a snapshot by content: a sidecar's first non-empty line is a JSON object with
 * a string `t`; a snapshot is one JSON document, an object with `format: "supercode-session"`.
 */
function detect(path: string, read: ReadSync, maxRecordBytes: number): Detected {
  const opened = openReadOnly(path);
  if (isLoadError(opened)) return { kind: 'error', error: opened };
  const file = opened;
  const fail = (error: LoadError): Detected => {
    safeClose(file.fd);
    return { kind: 'error', error };
  };
  const unrecognized = (why: string): Detected =>
    fail({ code: 'unrecognized_file', message: `${path} is neither a sidecar nor a session snapshot: ${why}` });

  try {
    const head = readExactly(file.fd, 0, Math.min(file.size, 64 * 1024), read) ?? Buffer.alloc(0);
    const first = firstNonSpaceByte(head);
    if (first === undefined) return unrecognized(file.size === 0 ? 'it is empty' : 'it holds only white space');
    if (first !== 0x7b /* { */) return unrecognized('it does not start with a JSON object');

    let firstLine: SplitLine | undefined;
    for (const line of splitLines(file.fd, { readSync: read, maxLineBytes: maxRecordBytes, chunkSize: 64 * 1024 })) {
      firstLine = line.bytes ? { ...line, bytes: Buffer.from(line.bytes) } : line;
      break;
    }
    let firstValue: unknown;
    if (firstLine?.bytes) {
      const parsed = parseJson(stripBom(firstLine.bytes.toString('utf8')));
      if (parsed.ok) {
        firstValue = parsed.value;
        if (isPlainObject(firstValue) && typeof firstValue.t === 'string') return { kind: 'sidecar', file };
      }
    } else if (firstLine && SIDECAR_RECORD_HEAD.test(head.toString('utf8'))) {
      // A first record too long to decode that starts like one: a sidecar, whose indexing pass
      // reports the line. Reading the file whole as a snapshot would build the very string the
      // record limit exists to avoid.
      return { kind: 'sidecar', file };
    }

    // A compact snapshot is one line: reuse its parse when nothing but white space follows it.
    if (firstLine && isSnapshotValue(firstValue)) {
      const restStart = firstLine.offset + firstLine.length;
      const rest = file.size - restStart <= 4096 ? readExactly(file.fd, restStart, file.size - restStart, read) : undefined;
      if (rest && firstNonSpaceByte(rest) === undefined) return { kind: 'snapshot', file, value: firstValue, ...(firstLine.bytes && !isUtf8(firstLine.bytes) ? { invalidUtf8: true } : {}) };
    }

    if (file.size > MAX_SNAPSHOT_BYTES) {
      if (head.toString('utf8').includes('"supercode-session"')) {
        return fail(unreadable(path, `snapshot is ${file.size} bytes; snapshots over 400 MB are not supported yet`));
      }
      return unrecognized('its first line is not a sidecar record and it is too large to be a snapshot');
    }
    const whole = readExactly(file.fd, 0, file.size, read);
    if (!whole) return fail(unreadable(path, 'the file shrank while it was being read'));
    const parsed = parseJson(stripBom(whole.toString('utf8')));
    if (!parsed.ok) return unrecognized(`its first line is not a sidecar record and the file is not one JSON document (${parsed.reason})`);
    if (isSnapshotValue(parsed.value)) return { kind: 'snapshot', file, value: parsed.value, ...(isUtf8(whole) ? {} : { invalidUtf8: true }) };
    return unrecognized('it is a JSON document without "format": "supercode-session"');
  } catch (e) {
    return fail(unreadable(path, osReason(e)));
  }
}

/** `<stem>.session.json` → `<stem>.sidecar.jsonl` in the same folder; undefined for other names. */
export function siblingSidecarPath(snapshotPath: string): string | undefined {
  const name = basename(snapshotPath);
  const suffix = '.session.json';
  if (!name.endsWith(suffix) || name.length === suffix.length) return undefined;
  return join(dirname(snapshotPath), `${name.slice(0, -suffix.length)}.sidecar.jsonl`);
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Indexing a sidecar

interface SidecarIndex {
  header: SidecarHeader | null;
  system?: MessageHandle;
  view: ({ handle: MessageHandle; cap?: { kept_bytes: number; notice: string } } | undefined)[];
  recorded: (MessageHandle | undefined)[];
  log: Reduction[];
  logLines: number[];
  modelChanges: ModelChange[];
  findings: Finding[];
  /** An `unsupported_version` header: the pass stopped there. */
  stopped?: Finding;
}

const MESSAGE_HEAD = /^\s*\{\s*"t"\s*:\s*"message"\s*,\s*"i"\s*:\s*(\d{1,15})\s*[,}]/;

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
  };
}

/** How a message record starts when written by the agent: `{"t":"message",…`. */
const MESSAGE_START = /^\s*\{\s*"t"\s*:\s*"message"/;

/**
 * A long message record indexed without decoding its content; undefined when it cannot be read that
 * way (the caller parses it whole, which reports why).
 */
function scanLongMessage(
  file: OpenFile,
  line: SplitLine,
  read: ReadSync,
): { record: { t: 'message'; i: number; msg: ChatMessage; cap?: { kept_bytes: number; notice: string } }; content: RawContent } | { failed: string } | undefined {
  const head = line.bytes ? line.bytes.toString('latin1', 0, 64) : (readExactly(file.fd, line.offset, Math.min(64, line.length), read)?.toString('latin1') ?? '');
  if (!MESSAGE_START.test(head)) return undefined;
  const scan = scanMessageRecord({
    fd: file.fd,
    read,
    offset: line.offset,
    length: line.length,
    ...(line.bytes ? { bytes: line.bytes } : {}),
    hash: line.length >= HASH_AT_INDEX_BYTES,
    maxRestBytes: 1024 * 1024,
  });
  if (!scan.ok) return { failed: scan.reason };
  const parse = parseSidecarLine(scan.rest, line.number, line.terminated);
  if (!parse.ok || parse.record.t !== 'message' || parse.record.msg.content !== '') return { failed: parse.ok ? 'the record is not a message with one content' : parse.finding.message };
  return { record: parse.record, content: scan.content };
}

function formatBytes(n: number): string {
  const mib = n / (1024 * 1024);
  return mib >= 1 ? `${n} bytes (${mib.toFixed(1)} MiB)` : `${n} bytes`;
}

interface Progress {
  add(bytes: number): void;
}

interface IndexOptions extends Required<Pick<LoadOptions, 'chunkSize' | 'maxRecordBytes'>> {
  read: ReadSync;
  progress: Progress;
  /** Called once at the first pause of a long pass, with the index so far. */
  preview?: (index: SidecarIndex) => void;
  signal?: { readonly aborted: boolean };
}

class LoadCancelled extends Error {}

async function indexSidecar(file: OpenFile, options: IndexOptions): Promise<SidecarIndex> {
  const builder = new TimelineBuilder<MessageHandle>((h) => h.hasArtifacts);
  const findings: Finding[] = [];
  let header: SidecarHeader | null = null;
  let system: MessageHandle | undefined;
  let seenRecord = false;
  let reported = 0;

  const lines = splitLines(file.fd, {
    chunkSize: options.chunkSize,
    end: file.size,
    maxLineBytes: Math.min(options.maxRecordBytes, IN_MEMORY_LINE_BYTES),
    readSync: options.read,
    onRead: (position) => {
      options.progress.add(position - reported);
      reported = position;
    },
  });

  let sliceStart = performance.now();
  let sinceClock = 0;
  for (let line of lines) {
    if (++sinceClock >= 64) {
      sinceClock = 0;
      if (performance.now() - sliceStart >= YIELD_MS) {
        if (options.preview) {
          options.preview(indexOf(builder.snapshot(), header, system, findings));
          options.preview = undefined;
        }
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (options.signal?.aborted) throw new LoadCancelled('the load was cancelled');
        sliceStart = performance.now();
      }
    }
    const isFirst = !seenRecord;
    seenRecord = true;

    // A line that is not valid UTF-8 is read as text (each bad sequence as U+FFFD), as JSON.parse
    // would see it; only lines too long for that are scanned regardless, and then refused below.
    if (line.length >= RAW_SCAN_MIN_BYTES && !isFirst && (line.bytes === undefined || isUtf8(line.bytes))) {
      const scanned = scanLongMessage(file, line, options.read);
      if (scanned && 'record' in scanned) {
        const { record, content } = scanned;
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
        builder.add({ t: 'message', i: record.i, msg: handleOf(record.msg, line, content), ...(record.cap ? { cap: record.cap } : {}) }, line.number);
        continue;
      }
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
          return { header: null, view: [], recorded: [], log: [], logLines: [], modelChanges: [], findings: [], stopped: parse.finding };
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
      if (isFirst) header = record;
      else findings.push({ code: 'malformed_line', severity: 'error', message: `line ${line.number} is a header record after the first record; skipped`, line: line.number });
      continue;
    }
    if (isFirst) findings.push(headerExpected(line.number, record.t));

    let timelineRecord: TimelineRecord<MessageHandle>;
    if (record.t === 'message') {
      timelineRecord = { t: 'message', i: record.i, msg: handleOf(record.msg, line), ...(record.cap ? { cap: record.cap } : {}) };
    } else if (record.t === 'system') {
      system = handleOf(record.msg, line);
      timelineRecord = { t: 'system', msg: system };
    } else {
      timelineRecord = record;
    }
    builder.add(timelineRecord, line.number);
  }
  options.progress.add(file.size - reported);

  return indexOf(builder.finish(), header, system, findings);
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
  // Offsets in the text are byte offsets only when no bytes were replaced in decoding.
  if (!line.bytes || !isUtf8(line.bytes) || parseJson(text).ok) return undefined;
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

function indexOf(timeline: Timeline<MessageHandle>, header: SidecarHeader | null, system: MessageHandle | undefined, findings: readonly Finding[]): SidecarIndex {
  return {
    header,
    ...(system ? { system } : {}),
    view: timeline.view.map((e) => (e ? { handle: e.value, ...(e.cap ? { cap: e.cap } : {}) } : undefined)),
    recorded: timeline.recorded.map((e) => e?.value),
    log: timeline.log,
    logLines: timeline.logLines,
    modelChanges: timeline.modelChanges,
    findings: [...findings, ...timeline.findings].sort(byLineThenIndex),
  };
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

function byLineThenIndex(a: Finding, b: Finding): number {
  const la = a.line ?? Number.POSITIVE_INFINITY;
  const lb = b.line ?? Number.POSITIVE_INFINITY;
  if (la !== lb) return la < lb ? -1 : 1;
  const ia = a.index ?? Number.POSITIVE_INFINITY;
  const ib = b.index ?? Number.POSITIVE_INFINITY;
  return ia === ib ? 0 : ia < ib ? -1 : 1;
}

// ---------------------------------------------------------------------------------------------
// Lazy message lists

/** Reads message records back from the sidecar by handle, through one cache shared by all lists. */
class SidecarReader {
  private closed = false;

  constructor(
    private readonly fd: number,
    private readonly read: ReadSync,
    private readonly cache: MessageCache<ChatMessage>,
  ) {}

  /** The record's `msg`, validated; with `cap`, the capped copy history held. */
  message(handle: MessageHandle, cap?: { kept_bytes: number; notice: string }): ChatMessage | undefined {
    if (this.closed) return undefined;
    const key = cap ? `${handle.line}:cap` : `${handle.line}`;
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    let msg: ChatMessage | undefined;
    if (cap) {
      const full = this.message(handle);
      msg = full && applyCap(full, cap);
    } else {
      msg = handle.content ? this.readAround(handle, handle.content) : this.readRecord(handle);
    }
    // Charged by the record's length, not only its content: tool_calls arguments can be large too.
    const cost = cap ? Buffer.byteLength(msg?.content ?? '', 'utf8') : handle.content ? handle.length - handle.content.rawLength + 256 : Math.max(handle.length, handle.contentBytes);
    if (msg !== undefined) this.cache.set(key, msg, cost);
    return msg;
  }

  /**
   * A record indexed without its content: the rest of the record is read and validated, the
   * content stays in the file behind a FileContent, and `content` is its first PREVIEW_BYTES,
   * decoded when asked for.
   */
  private readAround(handle: MessageHandle, content: RawContent): ChatMessage | undefined {
    try {
      const head = readExactly(this.fd, handle.offset, content.start - handle.offset, this.read);
      const tailStart = content.start + content.rawLength;
      const tail = readExactly(this.fd, tailStart, handle.offset + handle.length - tailStart, this.read);
      if (!head || !tail) return undefined;
      const value = JSON.parse(Buffer.concat([head, tail]).toString('utf8')) as unknown;
      if (!isPlainObject(value)) return undefined;
      const parsed = chatMessageSchema.safeParse(value.msg);
      if (!parsed.success) return undefined;
      const source = (handle.source ??= new FileContent(this.fd, this.read, content, () => !this.closed));
      const msg: ChatMessage = { ...parsed.data, large: source };
      // Decoded on each use and never kept, so a cached message costs only its rest.
      Object.defineProperty(msg, 'content', { enumerable: true, configurable: true, get: () => previewOf(source) });
      return msg;
    } catch {
      // The file changed under us since it was indexed: the message reads as a hole.
      return undefined;
    }
  }

  private readRecord(handle: MessageHandle): ChatMessage | undefined {
    try {
      const bytes = readExactly(this.fd, handle.offset, handle.length, this.read);
      if (!bytes) return undefined;
      const value = JSON.parse(bytes.toString('utf8')) as unknown;
      if (!isPlainObject(value)) return undefined;
      const parsed = chatMessageSchema.safeParse(value.msg);
      return parsed.success ? (parsed.data) : undefined;
    } catch {
      // The file changed under us since it was indexed: the message reads as a hole.
      return undefined;
    }
  }

  close(): void {
    this.closed = true;
    this.cache.clear();
  }
}

/** The first PREVIEW_BYTES of a content as text; empty when the file no longer holds it. */
function previewOf(source: FileContent): string {
  try {
    return Buffer.from(source.read(0, floorSourceBoundary(source, Math.min(source.length, PREVIEW_BYTES)))).toString('utf8');
  } catch (e) {
    if (e instanceof ContentUnavailableError) return '';
    throw e;
  }
}

function inRange(index: number, length: number): boolean {
  return Number.isInteger(index) && index >= 0 && index < length;
}

/** A MessageList over a plain array (a snapshot's messages); holes read as undefined. */
function arrayList(messages: readonly (ChatMessage | undefined)[]): MessageList {
  return { length: messages.length, at: (i) => (inRange(i, messages.length) ? messages[i] : undefined) };
}

function lazyList<E>(entries: readonly (E | undefined)[], read: (entry: E) => ChatMessage | undefined): MessageList {
  return {
    length: entries.length,
    at(i) {
      if (!inRange(i, entries.length)) return undefined;
      const entry = entries[i];
      return entry === undefined ? undefined : read(entry);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The loaded session

interface SessionParts {
  files: SessionFile[];
  header: SidecarHeader | null;
  sessionId: string | null;
  model: string | null;
  minted: MessageList;
  recorded?: MessageList;
  log: Reduction[];
  logLines?: number[];
  modelChanges: ModelChange[];
  loadFindings: Finding[];
  stopped: boolean;
  system: () => ChatMessage | undefined;
  close: () => void;
  /** The files read after loading (the sidecar; a snapshot is parsed whole when opened). */
  guards: readonly FileGuard[];
}

function countByKind(log: readonly Reduction[]): Record<ReductionKind, number> {
  const counts = Object.fromEntries(REDUCTION_KINDS.map((k) => [k, 0])) as Record<ReductionKind, number>;
  for (const r of log) counts[r.kind] = (counts[r.kind] ?? 0) + 1;
  return counts;
}

function makeSession(parts: SessionParts): LoadedSession {
  const { minted, recorded, log, logLines } = parts;
  let closed = false;
  let changed: FileChange | undefined;
  const fileChange = (): FileChange | undefined => {
    if (changed || closed) return changed;
    for (const guard of parts.guards) {
      const why = guard.change();
      if (why !== undefined) {
        changed = { path: guard.path, message: `${guard.path} changed on disk since it was opened: ${why}. Nothing more is read from it; reopen it to see what it holds now` };
        break;
      }
    }
    return changed;
  };
  /** Runs `body` between two checks of the files: its bytes are served only when neither saw a change. */
  const bracket = <T>(body: () => Result<T, SessionError>): Result<T, SessionError> => {
    const before = fileChange();
    if (before) return err({ code: 'file_changed', message: before.message });
    const result = body();
    const after = fileChange();
    if (after) return err({ code: 'file_changed', message: after.message });
    return result;
  };
  /** `bracket` for a search run in steps: the files are checked around every step. */
  function* bracketSteps<T>(steps: Generator<void, Result<T>>): Generator<void, Result<T, SessionError>> {
    for (;;) {
      const change = fileChange();
      if (change) return err({ code: 'file_changed', message: change.message });
      const step = steps.next();
      const after = fileChange();
      if (after) return err({ code: 'file_changed', message: after.message });
      if (step.done) return step.value;
      yield;
    }
  }
  return {
    files: parts.files,
    header: parts.header,
    sessionId: parts.sessionId,
    model: parts.model,
    minted,
    ...(recorded ? { recorded } : {}),
    log,
    ...(logLines ? { logLines } : {}),
    modelChanges: parts.modelChanges,
    loadFindings: parts.loadFindings,
    stopped: parts.stopped,
    system: parts.system,
    expand: (id, range) => bracket(() => expandReduction(log, id, minted, recorded, range, { sha256: nodeSha256 })),
    search: (query, options = {}) => bracket(() => sidecarSearch(log, query, minted, recorded, { ...options, sha256: nodeSha256 })),
    searchSteps: (query, options = {}) => bracketSteps(sidecarSearchSteps(log, query, minted, recorded, { ...options, sha256: nodeSha256 })),
    fileChange,
    check() {
      const before = fileChange();
      if (before) throw new FileChangedError(before);
      const report = checkSession();
      const after = fileChange();
      if (after) throw new FileChangedError(after);
      return report;
    },
    close() {
      if (closed) return;
      closed = true;
      parts.close();
    },
  };

  function checkSession(): CheckReport {
    const integrity = parts.stopped ? [] : checkIntegrity({ minted, ...(recorded ? { recorded } : {}), log, ...(logLines ? { logLines } : {}) }, { sha256: nodeSha256 });
    const findings = [...parts.loadFindings, ...integrity].sort(byLineThenIndex);
    const errors = findings.filter((f) => f.severity === 'error').length;
    return {
      findings,
      summary: {
        files: parts.files.map((f) => ({ ...f })),
        session_id: parts.sessionId,
        model: parts.model,
        gate: parts.header?.gate ?? null,
        messages: minted.length,
        reductions: log.length,
        reductions_by_kind: countByKind(log),
        errors,
        warnings: findings.length - errors,
      },
    };
  }
}

/**
 * Opens one or two files (a sidecar and/or a session snapshot, told apart by content) and resolves
 * them per SPEC §3.2. A snapshot given alone brings its sibling `<stem>.sidecar.jsonl` when it
 * exists. Bad files are errors; bad records inside a readable file are findings.
 */
export async function loadSession(paths: string[], options: LoadOptions = {}): Promise<LoadResult> {
  if (paths.length === 0) return { ok: false, error: { code: 'usage', message: 'no file given: pass a sidecar, a session snapshot, or one of each' } };
  if (paths.length > 2) return { ok: false, error: { code: 'usage', message: `${paths.length} files given: pass at most two, a sidecar and a session snapshot` } };

  const read = options.readSync ?? readSync;
  const maxRecordBytes = options.maxRecordBytes ?? MAX_RECORD_BYTES;
  const opened: OpenFile[] = [];
  const closeAll = () => {
    for (const f of opened) safeClose(f.fd);
  };
  const failWith = (error: LoadError): LoadResult => {
    closeAll();
    return { ok: false, error };
  };

  let sidecar: OpenFile | undefined;
  let snapshot: { file: OpenFile; value: Record<string, unknown>; invalidUtf8?: boolean } | undefined;
  for (const path of paths) {
    const d = detect(path, read, maxRecordBytes);
    if (d.kind === 'error') return failWith(d.error);
    opened.push(d.file);
    if (d.kind === 'sidecar') {
      if (sidecar) return failWith({ code: 'usage', message: `two sidecars given (${sidecar.path} and ${path}): pass at most one sidecar and one session snapshot` });
      sidecar = d.file;
    } else {
      if (snapshot) return failWith({ code: 'usage', message: `two session snapshots given (${snapshot.file.path} and ${path}): pass at most one sidecar and one session snapshot` });
      snapshot = { file: d.file, value: d.value, ...(d.invalidUtf8 ? { invalidUtf8: true } : {}) };
    }
  }

  if (snapshot && !sidecar) {
    const sibling = siblingSidecarPath(snapshot.file.path);
    if (sibling !== undefined && exists(sibling)) {
      const d = detect(sibling, read, maxRecordBytes);
      if (d.kind === 'error') return failWith({ ...d.error, message: `${d.error.message} (opened as the sibling sidecar of ${snapshot.file.path})` });
      opened.push(d.file);
      if (d.kind !== 'sidecar') {
        return failWith({ code: 'unrecognized_file', message: `${sibling}, the sibling of ${snapshot.file.path}, is a session snapshot, not a sidecar` });
      }
      sidecar = d.file;
    }
  }

  const totalBytes = opened.reduce((n, f) => n + f.size, 0);
  let bytesRead = 0;
  let lastBytes = 0;
  let lastTime = 0;
  const report = (force: boolean) => {
    if (!options.onProgress) return;
    const now = performance.now();
    if (!force && (bytesRead - lastBytes < PROGRESS_BYTES || now - lastTime < PROGRESS_MS)) return;
    lastBytes = bytesRead;
    lastTime = now;
    options.onProgress({ bytesRead, totalBytes });
  };
  const progress: Progress = {
    add(n) {
      bytesRead += n;
      report(false);
    },
  };

  try {
    report(true);
    const files: SessionFile[] = [];
    let snap: SnapshotParse | undefined;
    const findings: Finding[] = [];
    const stoppedFindings: Finding[] = [];

    if (snapshot) {
      files.push({ path: snapshot.file.path, format: 'supercode-snapshot', bytes: snapshot.file.size });
      const parsed = parseSnapshot(snapshot.value);
      snapshot.value = {};
      safeClose(snapshot.file.fd);
      opened.splice(opened.indexOf(snapshot.file), 1);
      progress.add(snapshot.file.size);
      if (parsed.snapshot) {
        snap = parsed.snapshot;
        if (snapshot.invalidUtf8) {
          findings.push({ code: 'malformed_line', severity: 'error', message: `session snapshot ${basename(snapshot.file.path)} holds bytes that are not valid UTF-8; they read as U+FFFD` });
        }
        for (const f of parsed.findings) findings.push(f);
      } else {
        for (const f of parsed.findings) stoppedFindings.push(f);
      }
    }

    const cache = new MessageCache<ChatMessage>(options.cacheBytes ?? DEFAULT_CACHE_BYTES);
    const reader = sidecar ? new SidecarReader(sidecar.fd, read, cache) : undefined;
    let index: SidecarIndex | undefined;
    if (sidecar) {
      files.push({ path: sidecar.path, format: 'supercode-sidecar', bytes: sidecar.size });
      if (stoppedFindings.length === 0) {
        const sidecarFile: SessionFile = { path: sidecar.path, format: 'supercode-sidecar', bytes: sidecar.size };
        const preview =
          options.onPreview && reader && !snapshot && sidecar.size >= PREVIEW_MIN_BYTES
            ? (partial: SidecarIndex) => options.onPreview?.(previewSession(partial, sidecarFile, reader, sidecar.guard))
            : undefined;
        index = await indexSidecar(sidecar, {
          chunkSize: options.chunkSize ?? 1024 * 1024,
          maxRecordBytes,
          read,
          progress,
          ...(preview ? { preview } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        });
        if (index.stopped) stoppedFindings.push(index.stopped);
      }
    }
    // Keep the user's order in `files`; the sibling, found automatically, comes last.
    files.sort((a, b) => order(paths, a.path) - order(paths, b.path));
    bytesRead = totalBytes;
    report(true);

    if (stoppedFindings.length > 0) {
      closeAll();
      return {
        ok: true,
        session: makeSession({
          files,
          header: null,
          sessionId: null,
          model: null,
          minted: arrayList([]),
          log: [],
          modelChanges: [],
          loadFindings: stoppedFindings,
          stopped: true,
          system: () => undefined,
          close: () => undefined,
          guards: [],
        }),
      };
    }

    const sidecarFd = sidecar?.fd;
    const close = () => {
      reader?.close();
      if (sidecarFd !== undefined) safeClose(sidecarFd);
    };

    let minted: MessageList;
    let recorded: MessageList | undefined;
    let log: Reduction[] = [];
    let logLines: number[] | undefined;
    if (index && reader) {
      // One by one: a spread passes every finding as an argument, and 130,000 overflow the stack.
      for (const f of index.findings) findings.push(f);
      recorded = lazyList(index.recorded, (h) => reader.message(h));
      log = index.log;
      logLines = index.logLines;
    }
    if (snap) {
      minted = arrayList(snap.messages);
      if (snap.reductions) {
        if (index) {
          const differs = compareLogs(snap.reductions, index.log);
          if (differs) findings.push(differs);
        }
        log = snap.reductions;
        logLines = undefined;
      }
    } else if (index && reader) {
      minted = lazyList(index.view, (e) => reader.message(e.handle, e.cap));
    } else {
      minted = arrayList([]);
    }

    const header = index?.header ?? null;
    const lastChange = index?.modelChanges[index.modelChanges.length - 1];
    const systemHandle = index?.system;
    return {
      ok: true,
      session: makeSession({
        files,
        header,
        sessionId: header?.session_id ?? snap?.session_id ?? null,
        model: snap?.model || lastChange?.to || header?.model || null,
        minted,
        ...(recorded ? { recorded } : {}),
        log,
        ...(logLines ? { logLines } : {}),
        modelChanges: index?.modelChanges ?? [],
        loadFindings: findings,
        stopped: false,
        system: () => (systemHandle && reader ? reader.message(systemHandle) : undefined),
        close,
        guards: sidecar ? [sidecar.guard] : [],
      }),
    };
  } catch (e) {
    if (e instanceof LoadCancelled) return failWith({ code: 'cancelled', message: `opening ${paths.map((p) => basename(p)).join(' + ')} was cancelled` });
    // An I/O error in the middle of the pass (a disk or network share gone away) is the file's;
    // anything else is a bug, and propagates.
    if (!isSystemError(e)) {
      closeAll();
      throw e;
    }
    const file = sidecar ?? snapshot?.file;
    return failWith(unreadable(file?.path ?? paths.join(', '), osReason(e)));
  }
}

/** A session over what a sidecar's indexing pass has read so far; it shares the final session's file. */
function previewSession(partial: SidecarIndex, file: SessionFile, reader: SidecarReader, guard: FileGuard): LoadedSession {
  const header = partial.header;
  const lastChange = partial.modelChanges[partial.modelChanges.length - 1];
  const systemHandle = partial.system;
  return makeSession({
    files: [{ ...file }],
    header,
    sessionId: header?.session_id ?? null,
    model: lastChange?.to || header?.model || null,
    minted: lazyList(partial.view, (e) => reader.message(e.handle, e.cap)),
    recorded: lazyList(partial.recorded, (h) => reader.message(h)),
    log: partial.log,
    logLines: partial.logLines,
    modelChanges: partial.modelChanges,
    loadFindings: partial.findings,
    stopped: false,
    system: () => (systemHandle ? reader.message(systemHandle) : undefined),
    // The file belongs to the session being loaded.
    close: () => undefined,
    guards: [guard],
  });
}

function order(paths: readonly string[], path: string): number {
  const k = paths.indexOf(path);
  return k === -1 ? paths.length : k;
}
