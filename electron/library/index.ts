/**
 * Indexing one listed session (docs/library.md): the whole file read by the loader every command
 * uses (electron/loader/session.ts), so the counts are those `view`, `log` and `check` give on the
 * same file — `messages` check's summary's, `calls` view's, `reductions` log's — and, with a query,
 * the session searched (./query.ts). Companions (subagents, tool results) are read only inside the
 * session's root. Runs in a library thread (./pool.ts), or on the caller's thread without one.
 */
import { readSync, statSync } from 'node:fs';
import type { LoadedSession, Reduction, SessionFileFormat, SessionFormat } from '../../shared/index';
import { COMPACT_SUMMARY_KEY } from '../../shared/index';
import type { ReadSync } from '../loader/common/lines';
import { SessionFollower } from '../loader/follow';
import { loadSession } from '../loader/session';
import { evalHeaderInfo } from './evalHeader';
import type { HeadInfo } from './head';
import { headInfoOfInspectLog, promptTitle } from './head';
import type { SessionPlace } from './link';
import type { LibraryQuery, SessionMatches } from './query';
import { searchSession } from './query';

export interface IndexedCounts {
  messages: number;
  calls: number;
  reductions: number;
  compactions: number;
  /** SPEC §15: the recorded context of the session's last call whose usage the file records; null when it records none. */
  tokens: number | null;
  /** The samples or sidechains the file holds, when it lists them (SPEC §10.1). */
  sessions?: number;
  /** Models the loaded session names (the last one's, and every switch's). */
  models: string[];
  /** What only a full read finds of the entry's head fields (an Inspect `.eval` archive's header). */
  head?: { title?: string; id?: string; status?: string; started?: string; updated?: string };
  /**
   * The first user prompt of the loaded session, one line (headInfo's rules): the entry's title
   * when its head gave none (a prompt past the head's first 64 KiB).
   */
  firstPrompt?: string;
}

export interface IndexJob {
  path: string;
  /** The real path of the root the file was listed under. */
  root: string;
  place: SessionPlace;
  query?: LibraryQuery;
  /**
   * Keep the file open after indexing it (a live file of a format that only appends): the next
   * index of the same path reads only the bytes appended since (the live follow's own rule,
   * electron/loader/follow.ts: the indexed prefix's fingerprint unchanged, else read again whole).
   */
  hold?: boolean;
  /** The format the walk sniffed the file as: its adapter is asked first (LoadOptions.likelyFormat). */
  format?: SessionFileFormat;
  /** The entry's head holds no title: the session's first prompt is looked for (IndexedCounts.firstPrompt). */
  untitled?: boolean;
  /** The file's size as walked: a pool's calling thread indexes only small files itself (IndexPool.help). */
  bytes?: number;
}

/** How much of the file the indexing read: every byte read, and those before `from` (the size already indexed; 0 when read whole). */
export interface IndexRead {
  bytes: number;
  from: number;
  before: number;
}

export type IndexReply = { ok: true; counts: IndexedCounts; matches?: SessionMatches; read?: IndexRead } | { ok: false; message: string };

/** The session formats whose files only grow by appended records (SessionSource.appends): a held file is indexed on from where it stopped. */
export const APPENDING_FORMATS: ReadonlySet<SessionFormat> = new Set<SessionFormat>(['supercode', 'claude-code', 'codex']);
/**
 * A file indexed once (not held) of at most this many bytes is read with its strings in memory
 * (LoadOptions.inMemoryUpToBytes): nothing is asked of it but its counts, and the thread holds one
 * file at a time. Above it, and for a held file that may grow, the loader's bounds hold.
 */
export const INDEX_IN_MEMORY_BYTES = 8 * 1024 * 1024;
/** Files held open for incremental indexing, per thread, at most (the least recently indexed is closed first). */
export const MAX_HELD = 8;

interface Held {
  follower: SessionFollower;
  /** Counts the bytes the follower reads (its reads go through here). */
  meter: { bytes: number; before: number; from: number };
  /** The file's size when it was last indexed (where the next index's appended bytes start). */
  size: number;
}

/** The files held, by path, least recently indexed first. */
const held = new Map<string, Held>();

function release(path: string): void {
  held.get(path)?.follower.close();
  held.delete(path);
}

/** Closes every held file (the pool closing, tests). */
export function releaseHeld(): void {
  for (const path of [...held.keys()]) release(path);
}

/** A positional read that counts what it reads into `meter`. */
function metered(meter: Held['meter']): ReadSync {
  return (fd, buffer, offset, length, position) => {
    const n = readSync(fd, buffer, offset, length, position);
    meter.bytes += n;
    if (position < meter.from) meter.before += Math.min(n, meter.from - position);
    return n;
  };
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** The session of a held file, indexed on from where it stopped (opened and held when it is not yet). */
async function heldSession(job: IndexJob): Promise<{ ok: true; session: LoadedSession; read: IndexRead } | { ok: false; message: string }> {
  const known = held.get(job.path);
  if (known) {
    held.delete(job.path);
    held.set(job.path, known);
    known.meter.bytes = 0;
    known.meter.before = 0;
    known.meter.from = known.size;
    const update = await known.follower.look();
    // A file deleted since: not a session to count any more.
    if (update?.notice?.kind === 'deleted') {
      release(job.path);
      return { ok: false, message: update.notice.message };
    }
    known.size = sizeOf(job.path);
    return { ok: true, session: known.follower.session, read: { ...known.meter } };
  }
  const meter = { bytes: 0, before: 0, from: 0 };
  const opened = await SessionFollower.open([job.path], { roots: [job.root], readSync: metered(meter) });
  if (!opened.ok) return { ok: false, message: opened.error.message };
  held.set(job.path, { follower: opened.follower, meter, size: sizeOf(job.path) });
  while (held.size > MAX_HELD) release(held.keys().next().value as string);
  return { ok: true, session: opened.follower.session, read: { ...meter } };
}

/** Compaction events: one per group of `summarized` reductions (an ungrouped one is its own event). */
export function compactionCount(log: readonly Reduction[]): number {
  const groups = new Set<string>();
  let ungrouped = 0;
  for (const r of log) {
    if (r.kind !== 'summarized') continue;
    if (r.group === undefined) ungrouped++;
    else groups.add(r.group);
  }
  return groups.size + ungrouped;
}

/** The recorded context of the last call whose usage the file records (SPEC §15), or null. */
function lastRecordedContext(session: LoadedSession): number | null {
  for (let n = session.calls.length; n >= 1; n--) {
    const t = session.callTokens(n);
    if (t) return t.context;
  }
  return null;
}

/** Messages looked at, at most, for a first prompt: it opens a session, after the instructions. */
const PROMPT_MESSAGES = 64;

/**
 * The first message of role user in the session's view whose text is a prompt (promptTitle), as a
 * title (a compaction's summary kept as a message is none); undefined when none of the first
 * PROMPT_MESSAGES is. A large content is only its first bytes here (ChatMessage.large), which is
 * all a title reads.
 */
function firstPromptOf(session: LoadedSession): string | undefined {
  const n = Math.min(session.minted.length, PROMPT_MESSAGES);
  for (let i = 0; i < n; i++) {
    const m = session.minted.at(i);
    if (m?.role !== 'user' || m.metadata?.[COMPACT_SUMMARY_KEY] === true) continue;
    const title = promptTitle(m.content);
    if (title !== null) return title;
  }
  return undefined;
}

/**
 * `counts` with the session's first prompt, when the entry has no title yet: its head gave none
 * (`job.untitled`) and neither did an archive's header (`counts.head`).
 */
function withFirstPrompt(counts: IndexedCounts, session: LoadedSession, job: IndexJob): IndexedCounts {
  if (job.untitled !== true || counts.head?.title !== undefined) return counts;
  const firstPrompt = firstPromptOf(session);
  return firstPrompt === undefined ? counts : { ...counts, firstPrompt };
}

export function countsOf(session: LoadedSession): IndexedCounts {
  const models: string[] = [];
  const add = (m: string | null | undefined): void => {
    if (typeof m === 'string' && m !== '' && m !== '<synthetic>' && !models.includes(m)) models.push(m);
  };
  for (const change of session.modelChanges) {
    add(change.from);
    add(change.to);
  }
  add(session.model);
  return {
    messages: session.minted.length,
    calls: session.calls.length,
    reductions: session.log.length,
    compactions: compactionCount(session.log),
    tokens: lastRecordedContext(session),
    ...(session.sessions && session.sessions.length > 1 ? { sessions: session.sessions.length } : {}),
    models,
  };
}

/** An `.eval` archive's header fields into its counts: its models after the loaded sample's, and what only the header says of the entry. */
export function withLogHeader(counts: IndexedCounts, h: HeadInfo): void {
  for (const m of h.models) if (!counts.models.includes(m)) counts.models.push(m);
  counts.head = { ...(h.title !== null ? { title: h.title } : {}), ...(h.id !== null ? { id: h.id } : {}), ...(h.status !== undefined ? { status: h.status } : {}), ...(h.started !== null ? { started: h.started } : {}), ...(h.updated !== null ? { updated: h.updated } : {}) };
}

/** Reads the whole file and counts (and searches) it; a file that cannot be read is a reply saying why. */
export async function indexFile(job: IndexJob, signal?: { readonly aborted: boolean }): Promise<IndexReply> {
  if (job.hold === true && job.query === undefined) {
    const found = await heldSession(job);
    if (!found.ok) return found;
    // The held session stays open for the next index: only counted here.
    return { ok: true, counts: withFirstPrompt(countsOf(found.session), found.session, job), read: found.read };
  }
  if (held.has(job.path)) release(job.path);
  // An `.eval` archive's header, as the load read it: its entry's fields without a second open.
  let logHeader: { doc: unknown } | undefined;
  const loaded = await loadSession([job.path], { roots: [job.root], inMemoryUpToBytes: INDEX_IN_MEMORY_BYTES, ...(job.format !== undefined ? { likelyFormat: job.format } : {}), ...(signal ? { signal } : {}), onLogHeader: (doc) => (logHeader = { doc }) });
  if (!loaded.ok) return { ok: false, message: loaded.error.message };
  const session = loaded.session;
  try {
    const headed = countsOf(session);
    if (session.files[0]?.format === 'inspect-eval') {
      const h = logHeader ? headInfoOfInspectLog(logHeader.doc) : await evalHeaderInfo(job.path, job.root);
      if (h) withLogHeader(headed, h);
    }
    const counts = withFirstPrompt(headed, session, job);
    if (!job.query) return { ok: true, counts };
    const found = searchSession(session, job.query, job.place, signal);
    if (!found.ok) return { ok: false, message: found.message };
    return { ok: true, counts, matches: found.matches };
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  } finally {
    session.close();
  }
}
