/**
 * SPEC §16 `diff --from N --to M FILE...`: what changed in the model's input between call N and
 * call M (either order): `{"format","from","to","calls","bytes":{"from","to"},"messages":{"added",
 * "dropped","reduced","restored"},"reductions":{"applied","undone"},"between","compactions"}`.
 * `messages.reduced` / `restored` are runs of messages both calls hold (shared/calls/callsDiff.ts
 * `changed`), each with the text the model was given at each end diffed by line (`text.hunks`, or
 * `text.note` saying why not: over a size cap, or too slow); a run both reduced and restored (one
 * reduction replaced by another) is in both lists. `tokens` gives each end's context (recorded
 * where the file records it, else estimated) and the estimated tokens added, dropped, reduced and
 * restored; each entry carries its `tokens_est`. docs/diff.md describes every field.
 */
import { SESSION_FORMAT_OF_FILE } from '../../shared/index';
import type { LoadedSession } from '../loader/session';
import { FileChangedError } from '../loader/session';
import { countDiffAhead, diffEntries, diffSides, diffTokens } from '../tokens/diffTokens';
import type { TextCounter } from '../tokens/textCounter';
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

/** Each entry with its estimate (`tokens_est`, as `view` gives each message's), where counted. */
function withTokens<T extends object, E>(list: readonly T[], estimates: readonly E[] | undefined): (T & { tokens_est?: E })[] {
  return list.map((x, k) => (estimates && k < estimates.length ? { ...x, tokens_est: estimates[k] as E } : x));
}

/**
 * The JSON `diff` prints, or a usage error naming the valid range. With `counter`, the tokens are
 * counted on its thread as well as this one (docs/token-estimates.md "Counting on two threads").
 */
export async function diffOutput(session: LoadedSession, from: number, to: number, counter?: TextCounter): Promise<unknown> {
  const calls = session.calls.length;
  const bad = [from, to].find((c) => c > calls);
  if (bad !== undefined) throw usageError(calls === 0 ? `the session has no model calls (no assistant message) to compare` : `call ${bad} is out of range: the session's model calls are 1 to ${calls}`);
  const before = session.fileChange();
  if (before) throw new CliError('file_changed', before.message);
  let diff;
  let counted;
  try {
    // Both ends' views, each projected once for its bytes, the count ahead and the count (docs/worker.md §7).
    const sides = diffSides(session, from, to, true);
    diff = session.callsDiff(from, to, undefined, sides && ((call) => (call === from ? sides.from.bytes : call === to ? sides.to.bytes : undefined)));
    const entries = diff && sides && diffEntries(session, diff, sides);
    if (diff && entries && counter) await countDiffAhead(session, diff, entries, counter);
    // SPEC §16: tokens each way (the tokenizer loads here, on the first count).
    counted = diff && entries && diffTokens(session, diff, entries);
  } catch (e) {
    if (e instanceof FileChangedError) throw new CliError('file_changed', e.message);
    throw e;
  }
  const after = session.fileChange();
  if (after) throw new CliError('file_changed', after.message);
  if (!diff) throw usageError(`call ${from} or ${to} is no model call of this session (calls 1 to ${calls})`);
  const file = session.files[0];
  const changed = withTokens(diff.changed, counted?.changed);
  return {
    format: file ? SESSION_FORMAT_OF_FILE[file.format] : 'supercode',
    from,
    to,
    calls,
    bytes: diff.bytes,
    ...(counted ? { tokens: counted.tokens } : {}),
    messages: {
      added: withTokens(diff.added, counted?.added),
      dropped: withTokens(diff.dropped, counted?.dropped),
      reduced: changed.filter((c) => c.reduced.length > 0),
      restored: changed.filter((c) => c.restored.length > 0),
    },
    reductions: { applied: diff.reduced, undone: diff.restored },
    between: diff.between,
    compactions: diff.compactions,
  };
}
