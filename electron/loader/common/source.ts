/**
 * The seam between the pure session model (shared/resolver/session.ts) and the files: each format is an
 * adapter that claims files by content and opens each as a SessionSource, which indexes the file
 * (resumably, for live tailing) and reads it back by byte range behind the lists it hands over.
 * loadSession wires detect → index → resolveSession and knows no format.
 */
import type { ByteSource, Finding, IndexedRecords, IndexedSnapshot, SessionFileFormat } from '../../../shared/index';
import type { ContentServices } from '../content/contentServices';
import type { ReadSync } from './lines';
import type { FileGuard } from './fileGuard';
import type { CachePolicy } from '../native/messageCache';

/** How a source's cache takes an entry once full: the formats' sources name it from here. */
export type { CachePolicy };

/** A session file opened for reading (openFile.ts openReadOnly): read-only, non-blocking, a regular file. */
export interface OpenFile {
  path: string;
  fd: number;
  size: number;
  /** The file as it was when opened: whatever is served from it later is checked against this (its samples taken once the loader knows it will be read back: fileGuard.ts). */
  guard: FileGuard;
}

export type LoadErrorCode = 'unreadable_file' | 'unrecognized_file' | 'usage' | 'cancelled';

export interface LoadError {
  code: LoadErrorCode;
  message: string;
}

/** Counts the bytes an indexing pass has read, for the progress bar. */
export interface Progress {
  add(bytes: number): void;
}

/** Thrown by an indexing pass whose load was cancelled; loadSession answers `cancelled`. */
export class LoadCancelled extends Error {}

/**
 * What a command will count once the session is built, told before it is read: a source whose
 * format can guess which of its contents that call's input shows offers them, once, as soon as it
 * knows them (in or after its pass) and before its build, and the command counts them on another
 * thread meanwhile
 * (docs/token-estimates.md "Counted while the session is built").
 */
export interface CountWhileBuilding {
  /** What the command will count: call `input`'s input (1-based; null: the latest view), or every reduction's original (`hidden`). */
  readonly wants: { readonly input: number | null } | 'hidden';
  /** Offer contents of at most about this many bytes: the newest first, then stop once past it. */
  readonly maxBytes: number;
  /** The contents the source guesses it will count, newest first (a guess: any may not be asked for). */
  offer(contents: readonly OfferedContent[]): void;
}

/**
 * A content offered to be counted while the session is built: its bytes kept in the file (a
 * source), or its text held in memory, whose estimate is that of any equal text (`textPlan`).
 */
export type OfferedContent = ByteSource | string;

/** What detection may use besides the file. */
export interface DetectContext {
  read: ReadSync;
  /** Records longer than this are not decoded as one string. */
  maxRecordBytes: number;
  /** Budget of the source's message cache, in content bytes. */
  cacheBytes: number;
  /** How the source's message cache takes an entry once full (LoadOptions.cachePolicy; default least-recently-used). */
  cachePolicy?: CachePolicy;
  /** SPEC §10.1 `--session ID`: the session to open in a file that holds several (default: the main one). */
  session?: string;
  /**
   * The folders the host was given (real paths; `serve DIR`): every file opened — the session's own
   * and every companion found beside it — must really be inside one of them, and no link in a last
   * component is followed. Absent: the files are as the user named them, and each session's folder
   * bounds its companions (docs/safe-reads.md).
   */
  roots?: readonly string[];
  /** A string value of an imported record this many raw bytes long or longer stays in the file (docs/large-lines.md; default 64 KiB). */
  largeStringBytes?: number;
  /**
   * A message text of a parsed line this many UTF-16 units long or longer is left in the file and read
   * back when asked for (docs/streaming-import.md; default 4096).
   */
  keptStringChars?: number;
  /** A large value outside a message's text longer than this is cut, not read whole (docs/large-lines.md; default 16 MiB). */
  wholeValueBytes?: number;
  /**
   * A file of at most this many bytes is read with its strings in memory: `largeStringBytes` and
   * `keptStringChars` are set aside for it, so no line is scanned for long strings and no text is
   * left in the file. For a one-shot read of a small file that only counts it (the library's index,
   * docs/library.md "Scale"): the same answers, less work; memory is the file's.
   */
  inMemoryUpToBytes?: number;
  /**
   * What the sources' contents use besides their file (contentServices.ts): loadSession always
   * passes the load's; a source detected without them (tests) gets fresh ones of its own.
   */
  services?: ContentServices;
  /** LoadOptions.countWhileBuilding. */
  countWhileBuilding?: CountWhileBuilding;
  /** LoadOptions.onLogHeader. */
  onLogHeader?: (doc: unknown) => void;
}

/**
 * An adapter's answer for one file: a source in one of its formats, or an error — `unrecognized_file`
 * when the content is not its format (another adapter may claim it), anything else when the file
 * is its format but cannot be opened.
 */
export type Detection = { ok: true; source: SessionSource } | { ok: false; error: LoadError };

/** One agent's file formats (SPEC §10): native, and one more per importer, each in its own folder. */
export interface FormatAdapter {
  /** The agent's format name (SPEC §10.1). */
  readonly name: string;
  /** What it reads, in users' words (named with the format where a file is refused). */
  readonly reads?: string;
  /** The file formats its sources have. */
  readonly formats: readonly SessionFileFormat[];
  /**
   * Claims an open file by its content, never its name. Only reads; leaves `file` open whether it
   * claims it or not (the caller closes it); may throw on an I/O error.
   */
  detect(file: OpenFile, context: DetectContext): Detection;
  /**
   * The files of one session from those the user opened in this format (in the user's order):
   * checked against the format's rules (how many of each), completed with files found beside
   * them through `find` (which detects by content and keeps what it opens for the caller to
   * close), and put in the order they are to be indexed. Opens nothing itself, closes nothing.
   */
  assemble(opened: readonly SessionSource[], find: (path: string) => { source: SessionSource } | { error: LoadError }): { sources: SessionSource[] } | { error: LoadError };
}

/** A pass offers its preview once this many bytes were indexed: a first screen of rows, not a header alone. */
export const PREVIEW_AFTER_BYTES = 256 * 1024;

/** One indexing pass: how to read, where to report, when to give way. */
export interface IndexPass {
  /** Read buffer size. */
  chunkSize: number;
  maxRecordBytes: number;
  read: ReadSync;
  progress: Progress;
  /**
   * True when the file has stopped growing: a last line without its newline is then indexed (as a
   * truncated record). Otherwise it is left for the next pass.
   */
  final: boolean;
  /**
   * Called once, at the first pause of a long pass after PREVIEW_AFTER_BYTES were indexed (the
   * pass pauses there whatever its clock says): `indexed()` then shows the records so far.
   */
  onFirstPause?: () => void;
  /** Checked at every pause: an aborted pass throws LoadCancelled. */
  signal?: { readonly aborted: boolean };
}

/** Where a pass stopped: the first byte it did not index, and that line's number. */
export interface IndexStop {
  offset: number;
  line: number;
}

/** What a source has indexed so far: one of the pure model's inputs, or why reading stopped. */
export interface SourceIndex {
  records?: IndexedRecords;
  snapshot?: IndexedSnapshot;
  /** An `unsupported_version` file: nothing else was read, and the session is stopped. */
  stopped?: Finding[];
}

/** One opened file of a session, in one format. */
export interface SessionSource {
  readonly format: SessionFileFormat;
  readonly file: OpenFile;
  /**
   * Indexes from where the previous pass stopped (the start of the file at first) up to the file
   * offset `end`, complete records only unless `pass.final`, and answers where it stopped: always a
   * line boundary at or before `end`. Passes are resumable: indexing in several passes gives the
   * same `indexed()` as one pass over the same bytes.
   */
  indexTo(end: number, pass: IndexPass): Promise<IndexStop>;
  /**
   * A copy of what is indexed so far, which later passes do not change. Its message lists read
   * content back from the file by byte range, through the source's cache; a record that can no
   * longer be read (the file changed, or the source is closed) reads as a hole.
   */
  indexed(): SourceIndex;
  /** True when the file is read after indexing (so its changes must be watched); a snapshot is parsed whole. */
  readonly readsAfterIndexing: boolean;
  /**
   * True when the format only grows by appended lines (a sidecar, a Claude Code transcript, a Codex
   * rollout): a file that grew with its indexed prefix unchanged is indexed on from the last
   * complete line (SPEC §13). Otherwise any change re-reads the file from scratch.
   */
  readonly appends?: boolean;
  /**
   * Counts the sessions the file holds that indexing listed without counting them (`counting:
   * 'pending'`, `messages: 0`: an Inspect log's samples other than the one opened), one at a time,
   * each read once and dropped. Each count replaces its entry in the sessions list `indexed()` gave
   * (`onCounted` after each); one that cannot be counted is `counting: 'failed'` and a finding of
   * the index (seen by a session resolved after the count: `check`'s). Stops when `signal` is
   * aborted (the rest stay pending; a later call goes on). Never rejects.
   */
  countSessions?(onCounted: () => void, signal: { readonly aborted: boolean }): Promise<void>;
  /** Closes the file; the lists read nothing afterwards. Idempotent. */
  close(): void;
}
