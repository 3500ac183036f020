/**
 * Indexing one listed session (docs/library.md): the whole file read by the loader every command
 * uses (electron/loader/session.ts), so the counts are those `view`, `log` and `check` give on the
 * same file — `messages` check's summary's, `calls` view's, `reductions` log's — and, with a query,
 * the session searched (./query.ts). Companions (subagents, tool results) are read only inside the
 * session's root. Runs in a library thread (./pool.ts), or on the caller's thread without one.
 */
import type { LoadedSession, Reduction } from '../../shared/index';
import { loadSession } from '../loader/session';
import { evalHeaderInfo } from './evalHeader';
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
}

export interface IndexJob {
  path: string;
  /** The real path of the root the file was listed under. */
  root: string;
  place: SessionPlace;
  query?: LibraryQuery;
}

export type IndexReply = { ok: true; counts: IndexedCounts; matches?: SessionMatches } | { ok: false; message: string };

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

/** Reads the whole file and counts (and searches) it; a file that cannot be read is a reply saying why. */
export async function indexFile(job: IndexJob, signal?: { readonly aborted: boolean }): Promise<IndexReply> {
  const loaded = await loadSession([job.path], { roots: [job.root], ...(signal ? { signal } : {}) });
  if (!loaded.ok) return { ok: false, message: loaded.error.message };
  const session = loaded.session;
  try {
    const counts = countsOf(session);
    if (session.files[0]?.format === 'inspect-eval') {
      const h = await evalHeaderInfo(job.path, job.root);
      if (h) {
        for (const m of h.models) if (!counts.models.includes(m)) counts.models.push(m);
        counts.head = { ...(h.title !== null ? { title: h.title } : {}), ...(h.id !== null ? { id: h.id } : {}), ...(h.status !== undefined ? { status: h.status } : {}), ...(h.started !== null ? { started: h.started } : {}), ...(h.updated !== null ? { updated: h.updated } : {}) };
      }
    }
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
