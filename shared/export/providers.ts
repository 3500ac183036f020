/** The provider APIs a call's input exports to (SPEC §16): no imports, so the contract can name them. */
export const PROVIDERS = ['anthropic', 'openai-chat', 'openai-responses'] as const;
export type Provider = (typeof PROVIDERS)[number];

export function isProvider(name: string): name is Provider {
  return (PROVIDERS as readonly string[]).includes(name);
}

/**
 * A request body the file records as it was sent for one call (Inspect's `ModelEvent.call.request`,
 * docs/export.md "Recorded requests"), exported as is when the provider asked for is `provider`.
 */
export interface RecordedRequest {
  /** The API the body was sent to; null when it is none of PROVIDERS (Google's `contents`, Mistral's…). */
  provider: Provider | null;
  /** The provider as the file names it (Inspect's model prefix, `openai`, `anthropic`, `google`…). */
  api: string;
  /** Where the file records it, for the notes (`samples/1_epoch_1.json events[7].call.request`). */
  where: string;
  body: Record<string, unknown>;
}
