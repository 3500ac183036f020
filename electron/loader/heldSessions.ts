/**
 * §10.1 `--session ID`: the sessions an opened file holds, and whether an id names one of them. The
 * loader refuses an id the file does not hold, whatever the format (a file of one session holds
 * only its own id, and '' — the main session — always).
 */
import type { LoadedSession } from '../../shared/index';

/** Every session the file holds, main first (one for a native file, `id` '' when it names none). */
export function allSessions(session: LoadedSession): readonly { id: string; title?: string; messages: number }[] {
  return session.sessions ?? [{ id: session.sessionId ?? '', messages: session.minted.length }];
}

/** Why `asked` names no session of the file, or undefined when it names one. '' is always the main session. */
export function sessionNotHeld(session: LoadedSession, asked: string | undefined): string | undefined {
  if (asked === undefined || asked === '') return undefined;
  const all = allSessions(session);
  if (all.some((s) => s.id === asked)) return undefined;
  const ids = all.map((s) => s.id || '(main)');
  const shown = ids.length > 20 ? `${ids.slice(0, 20).join(', ')} and ${ids.length - 20} more` : ids.join(', ');
  return `${session.files.map((f) => f.path).join(' + ')} holds no session ${JSON.stringify(asked.slice(0, 200))}: its sessions are ${shown}`;
}
