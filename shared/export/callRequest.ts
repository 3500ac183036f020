/**
 * SPEC §16 `export --call N --as PROVIDER`: the request body that reproduces call N's input for a
 * provider, with what the file does not record and where the body had to differ from the input
 * (docs/export.md, "Provider requests"). One table of providers; the CLI and the worker call this.
 */
import type { LoadedSession } from '../resolver/session';
import { anthropicRequest } from './anthropic';
import { openaiChatRequest } from './openaiChat';
import { openaiResponsesRequest } from './openaiResponses';
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
    source: { format: input.format, call: input.call, calls: input.calls, provider, expanded: input.expanded },
  };
}

/**
 * Call `call`'s input as `provider`'s request (the provider the session's agent speaks when
 * undefined); undefined for a number that is no call of the session. Reads the message contents
 * (a caller checks the files before and after).
 */
export function callRequest(session: LoadedSession, call: number, provider: Provider | undefined, expanded: boolean): ProviderExport | undefined {
  const input = exportInput(session, call, expanded);
  if (!input) return undefined;
  return requestFor(input, provider ?? defaultProvider(input.format, input.model));
}
