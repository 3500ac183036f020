/**
 * SPEC §16 `export --call N --as PROVIDER`: the request body that reproduces call N's input for a
 * provider, with what the file does not record and where the body had to differ from the input
 * (docs/export.md, "Provider requests"). One table of providers; the CLI and the worker call this.
 * Where the file records the request as sent for that provider (Inspect), that body is the export
 * (docs/export.md, "Recorded requests").
 */
import type { LoadedSession } from '../resolver/session';
import { anthropicRequest } from './anthropic';
import { openaiChatRequest } from './openaiChat';
import { openaiResponsesRequest } from './openaiResponses';
import type { RecordedRequest } from './providers';
import type { ExportInput, Provider, ProviderExport } from './request';
import { defaultProvider, exportInput } from './request';

const BODIES: { readonly [P in Provider]: (input: ExportInput, adjusted: string[]) => { request: Record<string, unknown>; not_recorded: string[] } } = {
  anthropic: anthropicRequest,
  'openai-chat': openaiChatRequest,
  'openai-responses': openaiResponsesRequest,
};

/** The body for one input (tests build inputs directly). */
export function requestFor(input: ExportInput, provider: Provider): ProviderExport {
  const adjusted: string[] = [];
  const { request, not_recorded } = BODIES[provider](input, adjusted);
  return {
    request,
    not_recorded: [...not_recorded, ...input.left_out],
    ...(adjusted.length > 0 ? { adjusted } : {}),
    source: { format: input.format, call: input.call, calls: input.calls, provider, expanded: input.expanded, body: 'converted' },
  };
}

/** Keys of a recorded body that are arguments of the provider's Python SDK, not fields of the HTTP body. */
const SDK_ARGUMENTS = ['extra_headers', 'extra_query', 'extra_body', 'timeout'];

/** A recorded request as the export of its own provider: the body as the file records it. */
function recordedExport(recorded: RecordedRequest, input: ExportInput, provider: Provider): ProviderExport {
  const notes = [`the request the file records as sent (${recorded.where}), exported as is`];
  const sdk = SDK_ARGUMENTS.filter((k) => Object.prototype.hasOwnProperty.call(recorded.body, k));
  if (sdk.length > 0) notes.push(`${sdk.join(', ')} ${sdk.length === 1 ? 'is an argument' : 'are arguments'} of the provider's Python SDK as recorded (headers, query or extra fields of the HTTP request), kept as recorded`);
  return { request: recorded.body, not_recorded: [], notes, source: { format: input.format, call: input.call, calls: input.calls, provider, expanded: false, body: 'recorded' } };
}

/** Why a recorded request is not the body asked for, or undefined when it is. */
function notAsIs(recorded: RecordedRequest, provider: Provider, expanded: boolean): string | undefined {
  if (expanded) return '--expanded asks for the call without its reductions, which the recorded request holds';
  if (recorded.provider === provider) return undefined;
  return `it was sent to ${recorded.api === '' ? 'an unnamed provider' : JSON.stringify(recorded.api)}${recorded.provider ? ` (${recorded.provider})` : ''}, not as ${provider}`;
}

/**
 * Call `call`'s input as `provider`'s request (the provider the session's agent speaks when
 * undefined); undefined for a number that is no call of the session. Reads the message contents
 * (a caller checks the files before and after).
 */
export function callRequest(session: LoadedSession, call: number, provider: Provider | undefined, expanded: boolean): ProviderExport | undefined {
  const input = exportInput(session, call, expanded);
  if (!input) return undefined;
  const recorded = session.recordedRequest(call);
  // Without --as: the provider the recorded request was sent to, where the file records one of ours.
  const chosen = provider ?? (!expanded && recorded?.provider ? recorded.provider : defaultProvider(input.format, input.model));
  if (!recorded) return requestFor(input, chosen);
  const why = notAsIs(recorded, chosen, expanded);
  if (why === undefined) return recordedExport(recorded, input, chosen);
  const out = requestFor(input, chosen);
  return { ...out, notes: [`the file records call ${call}'s request as sent (${recorded.where}), not exported as is: ${why}; the body is converted from the call's input`] };
}
