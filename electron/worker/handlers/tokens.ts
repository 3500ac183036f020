/**
 * The context map in tokens (SPEC §15, docs/tokens.md "In the app"): `tokenMap` and `callTokens`.
 * Their work is in ../tokenMap.ts, imported on the first request so that opening a session never
 * loads the tokenizer; the estimates are kept for the open (OpenSession.tokens). `tokenMap` counts
 * a slice per request (its `progress` says there is more), never the whole session at once, and
 * sends an asker only the calls it lacks (`known`).
 */
import type { Reply } from '../../../shared/index';
import { TOKEN_MAP_SLICE_CALLS, TOKEN_MAP_SLICE_MS } from '../../../shared/index';
import type { OpenSession } from '../state';
import { fail, ok } from '../replies';
import { contextMapOf } from './calls';
import type { Handler } from './handler';

type TokenMapModule = typeof import('../tokenMap');
let loading: Promise<TokenMapModule> | undefined;

/** The module, loaded once; then `body` runs over the session as any handler's does. */
async function withTokens<M extends 'tokenMap' | 'callTokens'>(state: Parameters<Handler<M>>[1], method: M, body: (open: OpenSession, module: TokenMapModule) => Reply<M>): Promise<Reply<M>> {
  const module = await (loading ??= import('../tokenMap'));
  return state.withSession(method, (open) => body(open, module));
}

/**
 * One slice of the map's pass (docs/tokens.md "How the pass runs"): the reply comes within
 * TOKEN_MAP_SLICE_MS (one call at least), so a request sent meanwhile waits one slice at most, and
 * says with `progress` that there is more; the pass goes on only when asked again.
 */
export const tokenMap: Handler<'tokenMap'> = (request, state) =>
  withTokens(state, 'tokenMap', (open, m) =>
    ok(m.tokenMapReply(open.session, contextMapOf(open), (open.tokens ??= m.tokenCache(open.session)), { ms: TOKEN_MAP_SLICE_MS, calls: TOKEN_MAP_SLICE_CALLS }, request.known)),
  );

/** A call's token counting holds the worker this long at a time. */
export const CALL_TOKENS_SLICE_MS = 20;
/** What a slice of the counting answers while there is more to count (never sent). */
const COUNTING: Reply<'callTokens'> = fail('cancelled', 'callTokens: still counting');

/**
 * Call N's tokens (SPEC §15). Counting a call's view the map's pass did not count takes seconds on a
 * large session (6,511 messages, 2.9 s of the tokenizer, at the last call of the bench's 537 MB
 * session), so it runs out of the worker's queue in slices of CALL_TOKENS_SLICE_MS: requests sent
 * meanwhile are answered between two slices, and no slice starts while a search runs
 * (docs/tokens.md "The breakdown in slices"). The reply is made once every message is counted, in
 * one slice, checked as every session request is (`withSession`); it answers `cancelled` when the
 * session was closed or another opened meanwhile.
 */
export const callTokens: Handler<'callTokens'> = async (request, state) => {
  const module = await (loading ??= import('../tokenMap'));
  const open = state.current;
  // No session, or one not read: withSession answers why.
  if (!open || open.session.stopped) return state.withSession('callTokens', () => fail('not_supported', 'callTokens needs a session whose content is read'));
  const steps = module.callTokensSteps(open.session, request.call, (open.tokens ??= module.tokenCache(open.session)));
  for (;;) {
    await state.whenNoSearch();
    // A followed session's update is the same open: the counting goes on over the view it started with.
    if (state.current?.token !== open.token) return fail('cancelled', 'callTokens: the session was closed or replaced while its tokens were counted');
    const sliceEnd = performance.now() + CALL_TOKENS_SLICE_MS;
    const reply: Reply<'callTokens'> = state.withSession('callTokens', (): Reply<'callTokens'> => {
      let step = steps.next();
      while (!step.done && performance.now() < sliceEnd) step = steps.next();
      if (!step.done) return COUNTING;
      const calls = open.session.calls.length;
      return step.value ? ok(step.value) : fail('invalid_request', `call ${request.call} is no model call of this session: it has ${calls === 0 ? 'none' : `calls 1 to ${calls}`}`);
    });
    if (reply !== COUNTING) return reply;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
};
