/**
 * `replay` and `whatIf` (docs/worker.md): the policy replay and the what-if view, bounded like
 * every reply (lists capped, counts whole). The passes themselves are electron/loader/replay.ts's,
 * shared with the CLI.
 */
import type { LoadedSession, ReductionPolicy, ResultOf } from '../../../shared/index';
import { MAX_REPLY_FINDINGS, MAX_WHAT_IF_ENTRIES, divergenceFinding } from '../../../shared/index';
import { replaySession, whatIfSession } from '../../loader/replay';
import { ok } from '../replies';
import type { Handler } from './handler';

export function replayReply(session: LoadedSession): ResultOf<'replay'> {
  const { summary, result } = replaySession(session);
  const findings = (result?.divergences ?? []).slice(0, MAX_REPLY_FINDINGS).map(divergenceFinding);
  return { replayed: summary.replayed, ...(summary.note ? { note: summary.note } : {}), policy: summary.policy, passes: summary.passes, findings, divergences: summary.divergences };
}

export function whatIfReply(session: LoadedSession, policy: ReductionPolicy): ResultOf<'whatIf'> {
  const outcome = whatIfSession(session, policy);
  if (!outcome.ok) return { note: outcome.note, counts: { added: 0, removed: 0, changed: 0, messages: 0 }, bytes: { recorded: 0, policy: 0 }, added: [], removed: [], changed: [], messages: [] };
  const { diff } = outcome.value;
  const cap = <T>(list: T[]) => list.slice(0, MAX_WHAT_IF_ENTRIES);
  return {
    counts: diff.counts,
    bytes: diff.bytes,
    added: cap(diff.reductions.added),
    removed: cap(diff.reductions.removed),
    changed: cap(diff.reductions.changed),
    messages: cap(diff.messages),
  };
}

export const replay: Handler<'replay'> = (_request, state) => state.withSession('replay', ({ session }) => ok(replayReply(session)));

export const whatIf: Handler<'whatIf'> = (request, state) => state.withSession('whatIf', ({ session }) => ok(whatIfReply(session, request.policy)));
