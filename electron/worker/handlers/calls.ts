/**
 * The model calls (docs/worker.md): which view a request reads (the latest, or a call's input),
 * the context map's figures, and the session's story between calls — the diff between two inputs,
 * the events where they happened and the messages a rewind abandoned (their replies: ../story.ts).
 */
import type { ContextMapInfo, HostError, Reduction } from '../../../shared/index';
import { cacheBreaks, compactionCalls, contextMap, projectionLayout, recordedColumns, tokensSummary } from '../../../shared/index';
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

/**
 * The context map's figures (shared/calls/contextMap.ts) and each call's recorded usage, its
 * compactions' tokens before and after and its cache breaks (§15), computed once per open.
 */
export function contextMapOf(open: OpenSession): ContextMapInfo {
  let map = open.contextMap;
  if (!map) {
    const { session } = open;
    const recorded = recordedColumns(session);
    const compactions = compactionCalls(session.callTimeline);
    const compactionTokens = recorded ? tokensSummary(session).compactions : [];
    const breaks = recorded ? cacheBreaks(session) : [];
    map = {
      ...contextMap(session.callTimeline, session.minted, session.modelChanges, session.rewinds),
      compactions,
      ...(recorded ? { recorded } : {}),
      ...(compactionTokens.length > 0 ? { compaction_tokens: compactionTokens } : {}),
      ...(breaks.length > 0 ? { cache_breaks: breaks } : {}),
    };
    open.contextMap = map;
  }
  return map;
}

export const calls: Handler<'calls'> = (_request, state) => state.withSession('calls', (open) => ok(contextMapOf(open)));

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
