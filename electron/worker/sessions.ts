/**
 * The sessions of an opened file, as the app lists them (§10.1). Whether an id names one of them
 * is the loader's check (`electron/loader/heldSessions.ts`).
 */
import type { LoadedSession, SessionEntry, SessionFormat } from '../../shared/index';
import { MAX_LISTED_SESSIONS, SESSION_FORMAT_OF_FILE } from '../../shared/index';
import { allSessions } from '../loader/heldSessions';

export interface ListedSessions {
  sessions: SessionEntry[];
  /** How many were left out by MAX_LISTED_SESSIONS (0 when none were). */
  omitted: number;
}

/** Longest title listed, in code points: a title is the file's (a prompt, a subagent's description) and travels with every open. */
export const MAX_LISTED_TITLE_CHARS = 200;

function listed(entry: SessionEntry): SessionEntry {
  if (entry.title === undefined) return { ...entry };
  const chars = [...entry.title];
  return { ...entry, title: chars.length > MAX_LISTED_TITLE_CHARS ? `${chars.slice(0, MAX_LISTED_TITLE_CHARS).join('')}…` : entry.title };
}

/**
 * The sessions to list: the first MAX_LISTED_SESSIONS, and always the open one (`asked`), which
 * then takes the last place — the picker must be able to show what is open. Titles are cut to
 * MAX_LISTED_TITLE_CHARS.
 */
export function listedSessions(session: LoadedSession, asked: string): ListedSessions {
  const all = allSessions(session);
  if (all.length <= MAX_LISTED_SESSIONS) return { sessions: all.map(listed), omitted: 0 };
  const head = all.slice(0, MAX_LISTED_SESSIONS).map(listed);
  if (asked !== '' && !head.some((s) => s.id === asked)) {
    const open = all.find((s) => s.id === asked);
    if (open) head[head.length - 1] = listed(open);
  }
  return { sessions: head, omitted: all.length - MAX_LISTED_SESSIONS };
}

/** The session format of an opened session (`supercode` for a native one). */
export function formatOf(session: LoadedSession): SessionFormat {
  const first = session.files[0];
  return first ? SESSION_FORMAT_OF_FILE[first.format] : 'supercode';
}
