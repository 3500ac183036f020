/**
 * SPEC §16 `diff --from N --to M FILE...`: what changed in the model's input between call N and
 * call M (either order): `{"format","from","to","calls","bytes":{"from","to"},"messages":{"added",
 * "dropped","reduced","restored"},"reductions":{"applied","undone"},"between","compactions"}`.
 * `messages.reduced` / `restored` are runs of messages both calls hold (shared/calls/callsDiff.ts
 * `changed`), each with the text the model was given at each end diffed by line (`text.hunks`, or
 * `text.note` saying why not: over a size cap, or too slow); a run both reduced and restored (one
 * reduction replaced by another) is in both lists. `tokens` is left out until the session's token
 * figures are known. docs/diff.md describes every field.
 */
import { SESSION_FORMAT_OF_FILE } from '../../shared/index';
import type { LoadedSession } from '../loader/session';
import { FileChangedError } from '../loader/session';
import { CliError, usageError } from './errors';

/** `--from N` / `--to M`, both required, checked before any file is read. */
export function parseDiffCalls(flags: ReadonlyMap<string, string | true>): { from: number; to: number } {
  const call = (flag: 'from' | 'to'): number => {
    const v = flags.get(flag);
    if (typeof v !== 'string') throw usageError(`diff needs --from N and --to M (model call numbers, 1, 2, …)`);
    if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v)) || Number(v) < 1) throw usageError(`--${flag} must be a model call number (1, 2, …), not ${JSON.stringify(v)}`);
    return Number(v);
  };
  return { from: call('from'), to: call('to') };
}

/** The JSON `diff` prints, or a usage error naming the valid range. */
export function diffOutput(session: LoadedSession, from: number, to: number): unknown {
  const calls = session.calls.length;
  const bad = [from, to].find((c) => c > calls);
  if (bad !== undefined) throw usageError(calls === 0 ? `the session has no model calls (no assistant message) to compare` : `call ${bad} is out of range: the session's model calls are 1 to ${calls}`);
  const before = session.fileChange();
  if (before) throw new CliError('file_changed', before.message);
  let diff;
  try {
    diff = session.callsDiff(from, to);
  } catch (e) {
    if (e instanceof FileChangedError) throw new CliError('file_changed', e.message);
    throw e;
  }
  const after = session.fileChange();
  if (after) throw new CliError('file_changed', after.message);
  if (!diff) throw usageError(`call ${from} or ${to} is no model call of this session (calls 1 to ${calls})`);
  const file = session.files[0];
  return {
    format: file ? SESSION_FORMAT_OF_FILE[file.format] : 'supercode',
    from,
    to,
    calls,
    bytes: diff.bytes,
    ...(diff.tokens ? { tokens: diff.tokens } : {}),
    messages: {
      added: diff.added,
      dropped: diff.dropped,
      reduced: diff.changed.filter((c) => c.reduced.length > 0),
      restored: diff.changed.filter((c) => c.restored.length > 0),
    },
    reductions: { applied: diff.reduced, undone: diff.restored },
    between: diff.between,
    compactions: diff.compactions,
  };
}
