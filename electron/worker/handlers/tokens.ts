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

export const callTokens: Handler<'callTokens'> = (request, state) =>
  withTokens(state, 'callTokens', (open, m) => {
    const value = m.callTokensReply(open.session, request.call, (open.tokens ??= m.tokenCache(open.session)));
    const calls = open.session.calls.length;
    return value ? ok(value) : fail('invalid_request', `call ${request.call} is no model call of this session: it has ${calls === 0 ? 'none' : `calls 1 to ${calls}`}`);
  });
