/**
 * `exportCall` (SPEC §16, docs/export.md "Provider requests"): `Export call…` in the app — call N's
 * input as a provider request body, the same as `export --call N --as PROVIDER --with-notes`
 * prints. The files are checked around the read (withSession); a body larger than
 * MAX_EXPORT_CALL_BYTES is `too_large` (the CLI writes any size).
 */
import { MAX_EXPORT_CALL_BYTES } from '../../../shared/contract';
import { callRequest } from '../../../shared/export/callRequest';
import { fail, ok } from '../replies';
import type { Handler } from './handler';

export const exportCall: Handler<'exportCall'> = (request, state) =>
  state.withSession('exportCall', ({ session }) => {
    const out = callRequest(session, request.call, request.provider, request.expanded);
    const calls = session.calls.length;
    if (!out) return fail('invalid_request', `call ${request.call} is not a model call of this session: it has ${calls} ${calls === 1 ? 'call' : 'calls'}`);
    const text = JSON.stringify(out.request, null, 2);
    if (Buffer.byteLength(text, 'utf8') > MAX_EXPORT_CALL_BYTES) return fail('too_large', `call ${request.call}'s request is larger than ${MAX_EXPORT_CALL_BYTES} bytes: export it with session-inspector export --call ${request.call}`);
    const { provider, format, expanded, body } = out.source;
    return ok({ call: request.call, provider, format, expanded, request: text, not_recorded: out.not_recorded, adjusted: out.adjusted ?? [], body, notes: out.notes ?? [], filename: `call-${request.call}-${provider}${expanded ? '-expanded' : ''}.json` });
  });
