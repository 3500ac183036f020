/**
 * The model calls (docs/worker.md): which view a request reads (the latest, or a call's input),
 * the context map's figures, and the session's story between calls — the diff between two inputs,
 * the events where they happened and the messages a rewind abandoned (their replies: ../story.ts).
 */
import type { HostError, Reduction } from '../../../shared/index';
import { compactionCalls, contextMap, projectionLayout, recordedColumns } from '../../../shared/index';
import type { CallView, OpenSession } from '../state';
import { fail, ok } from '../replies';
import { abandonedReply, callDiffReply, noSuchCall, sessionEventsReply } from '../story';
import type { Handler } from './handler';

/**
 * Call inputs kept with their layouts: a layout is one pass over the input (a million rows is tens
 * of milliseconds), so it is made once per call shown, not per request; a few are kept for going
 * back and forth with the slider.
 */
const CALL_VIEWS_KEPT = 4;

/** The view a request reads: the latest for null or absent, else call N's input (its layout cached), or why there is none. */
export function callView(open: OpenSession, call: number | null | undefined): CallView | { ok: false; error: HostError } {
  const { session } = open;
  if (call === null || call === undefined) return { minted: session.minted, log: session.log as Reduction[], layout: open.layout };
  const views = (open.callViews ??= new Map<number, CallView>());
  const kept = views.get(call);
  if (kept) {
    views.delete(call);
    views.set(call, kept);
    return kept;
  }
  const input = session.callInput(call);
  if (!input) return fail('invalid_request', `call ${call} is not a model call of this session: it has ${session.calls.length} ${session.calls.length === 1 ? 'call' : 'calls'} (1…${session.calls.length})`);
  const view = { ...input, layout: projectionLayout(input.minted.length, input.log) };
  views.set(call, view);
  for (const oldest of views.keys()) {
    if (views.size <= CALL_VIEWS_KEPT) break;
    views.delete(oldest);
  }
  return view;
}

/** The context map's figures (shared/calls/contextMap.ts) and each call's recorded usage (§15), computed once per open. */
export const calls: Handler<'calls'> = (_request, state) =>
  state.withSession('calls', (open) => {
    let map = open.contextMap;
    if (!map) {
      const recorded = recordedColumns(open.session);
      const compactions = compactionCalls(open.session.callTimeline);
      map = { ...contextMap(open.session.callTimeline, open.session.minted, open.session.modelChanges, open.session.rewinds), compactions, ...(recorded ? { recorded } : {}) };
      open.contextMap = map;
    }
    return ok(map);
  });

export const callDiff: Handler<'callDiff'> = (request, state) =>
  state.withSession('callDiff', ({ session, contextMap }) => {
    // The context map, once computed, has each call's bytes: the diff need not project both inputs for them.
    const value = callDiffReply(session, request, contextMap ? (call) => contextMap.given[call - 1] : undefined);
    return value ? ok(value) : fail('invalid_request', noSuchCall(session, request));
  });

export const sessionEvents: Handler<'sessionEvents'> = (request, state) => state.withSession('sessionEvents', ({ session }) => ok(sessionEventsReply(session, request)));

export const abandoned: Handler<'abandoned'> = (request, state) =>
  state.withSession('abandoned', ({ session }) => {
    const value = abandonedReply(session, request);
    return value ? ok(value) : fail('invalid_request', `rewind ${request.rewind} is none of this session's ${session.rewinds.length}`);
  });
