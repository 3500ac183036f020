/**
 * `exportCall` (SPEC §16, docs/export.md "Provider requests"): `Export call…` in the app — call N's
 * input as a provider request body, the same as `export --call N --as PROVIDER --with-notes`
 * prints. The files are checked around the read (withSession); a body larger than
 * MAX_EXPORT_CALL_BYTES is `too_large` (the CLI writes any size).
 */
import type { LoadedSession, ParsedParams, Reply } from '../../../shared/index';
import { MAX_EXPORT_CALL_BYTES } from '../../../shared/contract';
import { callRequest } from '../../../shared/export/callRequest';
import { expandedBytesAtLeast } from '../../../shared/export/request';
import { fail, ok } from '../replies';
import type { Handler } from './handler';

export const exportCall: Handler<'exportCall'> = (request, state) => state.withSession('exportCall', ({ session }) => exportCallReply(session, request));

/**
 * The reply for one open session. An expanded body that its texts' lengths alone put past
 * `maxBytes` (`expandedBytesAtLeast`) is refused before it is built: building it held every
 * original as a string, the body, and its JSON at once (docs/export.md "Written in pieces").
 */
export function exportCallReply(session: LoadedSession, request: ParsedParams<'exportCall'>, maxBytes = MAX_EXPORT_CALL_BYTES): Reply<'exportCall'> {
  const calls = session.calls.length;
  const none = () => fail('invalid_request', `call ${request.call} is not a model call of this session: it has ${calls} ${calls === 1 ? 'call' : 'calls'}`);
  const tooLarge = (why: string) => fail('too_large', `call ${request.call}'s request is larger than ${maxBytes} bytes${why}: export it with session-inspector export --call ${request.call}${request.expanded ? ' --expanded' : ''}`);
  if (request.expanded) {
    const least = expandedBytesAtLeast(session, request.call);
    if (least === undefined) return none();
    if (least > maxBytes) return tooLarge(` (its texts alone are ${least} bytes)`);
  }
  const out = callRequest(session, request.call, request.provider, request.expanded);
  if (!out) return none();
  const text = JSON.stringify(out.request, null, 2);
  if (Buffer.byteLength(text, 'utf8') > maxBytes) return tooLarge('');
  const { provider, format, expanded, body } = out.source;
  return ok({ call: request.call, provider, format, expanded, request: text, not_recorded: out.not_recorded, adjusted: out.adjusted ?? [], body, notes: out.notes ?? [], filename: `call-${request.call}-${provider}${expanded ? '-expanded' : ''}.json` });
}
