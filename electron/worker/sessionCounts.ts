/**
 * The sessions an open file lists without their counts (an Inspect log's samples, SPEC §10.1:
 * `counting: 'pending'`), counted after the open has replied: the loader reads one sample at a
 * time, asynchronously, so the worker answers other requests between reads. The picker hears the
 * counts as they arrive (`sessionCounts`), at most once per COUNTS_EVERY_MS and once at the end.
 */
import type { EventPayload, LoadedSession, SessionInfo } from '../../shared/index';
import { listedSessions } from './sessions';
import type { OpenSession, SessionState } from './state';

/** Least time between two `sessionCounts` events of one open (the last is sent whenever counting ends). */
export const COUNTS_EVERY_MS = 200;

export type SessionCountsPayload = EventPayload<'sessionCounts'>;

/** `info` with the sessions as `session` lists them now, and the event that says so. */
export function withCounts(session: LoadedSession, info: SessionInfo): { info: SessionInfo; payload: SessionCountsPayload } {
  const listed = listedSessions(session, info.session);
  const { sessions_omitted: _before, ...rest } = info;
  const omitted = listed.omitted > 0 ? { sessions_omitted: listed.omitted } : {};
  return { info: { ...rest, sessions: listed.sessions, ...omitted }, payload: { generation: info.generation, sessions: listed.sessions, ...omitted } };
}

/**
 * Counts `session`'s pending sessions from the next turn of the event loop on (the open's reply goes
 * first); `onCounts` hears that counts arrived. Undefined when there is nothing to count; `stop`
 * ends it after the read in flight.
 */
export function countInBackground(session: LoadedSession, onCounts: () => void, everyMs = COUNTS_EVERY_MS): { stop(): void } | undefined {
  if (!session.countSessions || !session.sessions?.some((s) => s.counting === 'pending')) return undefined;
  const signal = { aborted: false };
  let last = performance.now();
  let unsent = false;
  const counted = (): void => {
    unsent = true;
    const now = performance.now();
    if (now - last < everyMs || signal.aborted) return;
    last = now;
    unsent = false;
    onCounts();
  };
  setImmediate(() => {
    if (signal.aborted) return;
    void session.countSessions?.(counted, signal).then(() => {
      if (!signal.aborted && unsent) onCounts();
    });
  });
  return {
    stop() {
      signal.aborted = true;
    },
  };
}

/** Counts the open session's pending sessions in the background; each batch updates the info and is reported (SessionOptions.onSessionCounts). */
export function countAfterReply(state: SessionState, open: OpenSession): void {
  state.counting?.stop();
  state.counting = countInBackground(open.session, () => {
    const current = state.current;
    if (current?.session !== open.session) return;
    const counted = withCounts(current.session, current.info);
    current.info = counted.info;
    state.options.onSessionCounts?.(counted.payload);
  });
}
