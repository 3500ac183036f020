/**
 * `trace` (SPEC §16, shared/calls/trace.ts): a text followed through the model calls, for the
 * app's `Where did it go?`. Run in slices between other requests as a search is (handlers/search.ts
 * `inSlices`): cancelled by a newer search or `cancelSearch` of its `searchId`, or when the session
 * is closed or replaced, and stopped at the search's time limit. The trace reads the session's
 * lists, so the files are checked before it starts and once it has ended.
 */
import { traceSteps } from '../../../shared/calls/trace';
import { nodeSha256 } from '../../loader/session';
import { fail } from '../replies';
import type { Handler } from './handler';
import { inSlices } from './search';

export const trace: Handler<'trace'> = async (request, state, context) => {
  const open = state.current;
  // No session, or one not read: withSession answers why.
  if (!open || open.session.stopped) return state.withSession('trace', () => fail('not_supported', 'trace needs a session whose content is read'));
  const { session } = open;
  const changed = () => session.fileChange();
  const before = changed();
  if (before) return fail('file_changed', `trace: ${before.message}`);
  const traced = { timeline: session.callTimeline, minted: session.minted, ...(session.recorded ? { recorded: session.recorded } : {}), log: session.log };
  const reply = await inSlices(
    state,
    open,
    request,
    (options) => traceSteps(traced, request.query, { mode: request.mode, case_sensitive: request.case_sensitive, sha256: nodeSha256, ...(options.signal ? { signal: options.signal } : {}) }),
    (value) => value,
    context,
  );
  const after = changed();
  return after ? fail('file_changed', `trace: ${after.message}`) : reply;
};
