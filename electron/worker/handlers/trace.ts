/**
 * `trace` (SPEC §16, shared/calls/trace.ts): a text followed through the model calls, for the
 * app's `Where did it go?`. Answered at once: the core is bounded (TRACE_MAX_OCCURRENCES listed,
 * the search's own bounds) and the state brackets its reads with checks of the files.
 */
import { trace as traceCore } from '../../../shared/calls/trace';
import { nodeSha256 } from '../../loader/session';
import { fail, ok } from '../replies';
import type { Handler } from './handler';

export const trace: Handler<'trace'> = (request, state) =>
  state.withSession('trace', ({ session }) => {
    const result = traceCore(
      { timeline: session.callTimeline, minted: session.minted, ...(session.recorded ? { recorded: session.recorded } : {}), log: session.log },
      request.query,
      { mode: request.mode, case_sensitive: request.case_sensitive, sha256: nodeSha256 },
    );
    return result.ok ? ok(result.value) : fail(result.error.code === 'cancelled' ? 'cancelled' : 'invalid_query', result.error.message);
  });
