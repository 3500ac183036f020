/**
 * SPEC §11 `view [--at N] FILE...`: what the model was given at call N (1-based), or the latest
 * view without `--at` — `{"format","call","calls","messages":[{"index","role","content",
 * "tool_call_id"?,"tool_calls"?,"reductions"}]}`, content exactly as the model saw it (kept
 * prefixes and stubs in place, a cleared or summarized range one entry at its start, `role` null
 * there and for a message whose record could not be read).
 */
import { SESSION_FORMAT_OF_FILE, viewEntries } from '../../shared/index';
import type { LoadedSession } from '../loader/session';
import { CliError, usageError } from './errors';

/** `--at N` as given (checked before any file is read); undefined without it: the latest view. */
export function parseAt(flags: ReadonlyMap<string, string | true>): number | undefined {
  const at = flags.get('at');
  if (typeof at !== 'string') return undefined;
  if (!/^\d+$/.test(at) || !Number.isSafeInteger(Number(at))) throw usageError(`--at must be a model call number (1, 2, …), not ${JSON.stringify(at)}`);
  return Number(at);
}

/** The JSON `view` prints, or a usage error naming the valid range when `at` is no call of the session. */
export function viewOutput(session: LoadedSession, at: number | undefined): unknown {
  const calls = session.calls.length;
  const input = session.callInput(at ?? null);
  if (!input) {
    throw usageError(calls === 0 ? `--at ${at}: the session has no model calls (no assistant message); leave out --at for the latest view` : `--at ${at} is out of range: the session's model calls are 1 to ${calls}`);
  }
  // A session's files are all of one agent's format (the adapters pair only their own).
  const file = session.files[0];
  const before = session.fileChange();
  if (before) throw new CliError('file_changed', before.message);
  const messages = viewEntries(input);
  const after = session.fileChange();
  if (after) throw new CliError('file_changed', after.message);
  return { format: file ? SESSION_FORMAT_OF_FILE[file.format] : 'supercode', call: at ?? null, calls, messages };
}
