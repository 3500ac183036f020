/** The provider APIs a call's input exports to (SPEC §16): no imports, so the contract can name them. */
export const PROVIDERS = ['anthropic', 'openai-chat', 'openai-responses'] as const;
export type Provider = (typeof PROVIDERS)[number];

export function isProvider(name: string): name is Provider {
  return (PROVIDERS as readonly string[]).includes(name);
}
