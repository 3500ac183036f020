/**
 * One session per tab (SPEC §14): the HTTP host's open sessions, each a SessionHost with its own
 * resolver worker, named by an unguessable handle (docs/sessions-and-links.md).
 *
 * Invariants:
 *  - A handle is 24 random bytes (base64url, 32 characters) drawn by this process: it names one
 *    session of this run of the host, is accepted only beside the run's access token (http.ts checks
 *    the token first), and is never derived from a path, a name or another handle.
 *  - The host's one session (`defaultHost`: what a request without a handle means, so scripts
 *    written against one session keep working) is handed to the first tab that asks; every later
 *    tab gets a session of its own. Two handles never name one session at the same time.
 *  - At most `max` sessions are open, the host's one included. A session is in use while a request
 *    or an event stream holds its handle; one unused for `idleMs` is closed (the host's one is kept,
 *    under a new handle, for the next tab), and when a tab needs room the least recently used other
 *    session is closed, preferring one no stream holds. A closed handle answers `session_closed`;
 *    its streams are told why (`handleClosed`) and ended.
 *  - A closed session's worker is stopped and its uploads discarded (SessionHost.dispose).
 */
import { randomBytes } from 'node:crypto';
import type { SessionHost } from './types';

/** Open sessions a host keeps, its one session included. */
export const DEFAULT_MAX_SESSIONS = 8;
/** How long a session nothing holds stays open. */
export const DEFAULT_IDLE_MS = 10 * 60_000;

/** A session made for a tab, and how to close it (its host, then its worker). */
export interface PooledSession {
  host: SessionHost;
  dispose(): Promise<void>;
}

export interface SessionPoolOptions {
  /** The host's one session: requests without a handle; the first tab is handed it. Never closed here. */
  defaultHost: SessionHost;
  /** Makes a session for a new tab. */
  create(): PooledSession;
  max?: number;
  idleMs?: number;
  /** The clock (tests move it). */
  now?: () => number;
  /** How often unused sessions are looked for; 0: never by itself (tests call `sweep`). */
  sweepEveryMs?: number;
}

export interface SessionPool {
  /** A handle for a new tab. */
  mint(): string;
  /** The session `handle` names, held until `release` is called (a request, an event stream); undefined when it names none. */
  acquire(handle: string): { host: SessionHost; release(): void } | undefined;
  /** Calls `listener` with the reason once `handle`'s session is closed; returns the unsubscribe function. */
  onClosed(handle: string, listener: (reason: string) => void): () => void;
  /** Closes the sessions unused for `idleMs`. */
  sweep(): Promise<void>;
  /** Sessions open now, the host's one included. */
  size(): number;
  /** Closes every session made for a tab (the host's one belongs to whoever made it). */
  dispose(): Promise<void>;
}

interface Entry {
  handle: string;
  host: SessionHost;
  dispose?: () => Promise<void>;
  /** Requests and event streams holding it now. */
  holders: number;
  lastUsed: number;
  closedListeners: Set<(reason: string) => void>;
}

/** A fresh handle: 24 random bytes, base64url. */
export function newHandle(): string {
  return randomBytes(24).toString('base64url');
}

const HANDLE_SHAPE = /^[A-Za-z0-9_-]{32}$/;

export function createSessionPool(options: SessionPoolOptions): SessionPool {
  const max = Math.max(2, options.max ?? DEFAULT_MAX_SESSIONS);
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  /** The host's one session: its entry is in `entries` only while a tab holds its handle. */
  let defaultEntry: Entry = { handle: newHandle(), host: options.defaultHost, holders: 0, lastUsed: now(), closedListeners: new Set() };
  let defaultClaimed = false;
  let disposed = false;
  const closing = new Set<Promise<void>>();

  const close = (entry: Entry, reason: string): void => {
    entries.delete(entry.handle);
    for (const listener of [...entry.closedListeners]) {
      try {
        listener(reason);
      } catch {
        // One broken stream must not keep the others open.
      }
    }
    entry.closedListeners.clear();
    if (entry === defaultEntry) {
      // The host's one session stays open for requests without a handle; the next tab gets it under a new handle.
      defaultClaimed = false;
      defaultEntry = { handle: newHandle(), host: options.defaultHost, holders: 0, lastUsed: now(), closedListeners: new Set() };
      return;
    }
    const done = (entry.dispose?.() ?? Promise.resolve()).catch(() => undefined);
    closing.add(done);
    void done.finally(() => closing.delete(done));
  };

  /** Room for one more session: the least recently used other than the host's one, preferring one no stream holds. */
  const makeRoom = (): void => {
    const open = entries.size + (defaultClaimed ? 0 : 1);
    if (open < max) return;
    const others = [...entries.values()].filter((e) => e !== defaultEntry).sort((a, b) => a.lastUsed - b.lastUsed);
    const victim = others.find((e) => e.holders === 0) ?? others[0];
    if (victim) close(victim, `this tab's session was closed to make room: the host keeps ${max} sessions open, and this one was used least recently.`);
  };

  const sweepEvery = options.sweepEveryMs ?? Math.min(60_000, Math.max(1_000, idleMs / 4));
  const timer = sweepEvery > 0 ? setInterval(() => void pool.sweep(), sweepEvery) : undefined;
  timer?.unref();

  const pool: SessionPool = {
    mint() {
      if (disposed) throw new Error('the session pool is disposed');
      if (!defaultClaimed) {
        defaultClaimed = true;
        defaultEntry.lastUsed = now();
        entries.set(defaultEntry.handle, defaultEntry);
        return defaultEntry.handle;
      }
      makeRoom();
      const made = options.create();
      const entry: Entry = { handle: newHandle(), host: made.host, dispose: () => made.dispose(), holders: 0, lastUsed: now(), closedListeners: new Set() };
      entries.set(entry.handle, entry);
      return entry.handle;
    },
    acquire(handle) {
      if (!HANDLE_SHAPE.test(handle)) return undefined;
      const entry = entries.get(handle);
      if (!entry) return undefined;
      entry.holders++;
      entry.lastUsed = now();
      let released = false;
      return {
        host: entry.host,
        release() {
          if (released) return;
          released = true;
          entry.holders--;
          entry.lastUsed = now();
        },
      };
    },
    onClosed(handle, listener) {
      const entry = entries.get(handle);
      if (!entry) {
        listener("this tab's session is no longer open.");
        return () => undefined;
      }
      entry.closedListeners.add(listener);
      return () => void entry.closedListeners.delete(listener);
    },
    async sweep() {
      const t = now();
      const minutes = Math.round(idleMs / 60_000);
      for (const entry of [...entries.values()]) {
        if (entry.holders === 0 && t - entry.lastUsed >= idleMs) close(entry, `this tab's session was closed after ${minutes >= 1 ? `${minutes} minute${minutes === 1 ? '' : 's'}` : `${Math.round(idleMs / 1000)} s`} unused.`);
      }
      await Promise.all([...closing]);
    },
    size: () => entries.size + (defaultClaimed ? 0 : 1),
    async dispose() {
      disposed = true;
      if (timer) clearInterval(timer);
      for (const entry of [...entries.values()]) close(entry, 'the host is stopping.');
      await Promise.all([...closing]);
    },
  };
  return pool;
}
