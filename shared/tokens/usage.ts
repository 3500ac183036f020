/**
 * Recorded token usage per model call (SPEC §15, docs/tokens.md "Recorded usage"): what a file
 * states a provider counted, normalised to one shape whatever the provider's own.
 *
 * Invariants of every CallTokens made here:
 *  - `input` counts every input token of the call, cache reads and writes included, so
 *    `input >= cache_read + cache_write`;
 *  - `context === input` (what occupied the window at that call);
 *  - every count is a non-negative safe integer; a count the file does not state is 0.
 *
 * Anthropic's `input_tokens` excludes the cache (add `cache_read_input_tokens` and
 * `cache_creation_input_tokens`); OpenAI's includes the cached tokens (never add them twice).
 */

/** One model call's usage as the file recorded it. */
export interface CallTokens {
  /** Every input token, cache reads and writes included. */
  input: number;
  /** Input tokens read from the provider's prompt cache (a part of `input`). */
  cache_read: number;
  /** Input tokens written to the prompt cache (a part of `input`; 0 where the provider reports none). */
  cache_write: number;
  output: number;
  /** Reasoning tokens, a part of `output`, where the file states them. */
  reasoning?: number;
  /** What occupied the context window at the call: `input`. */
  context: number;
  /** The model's context window, when known (the file's own figure, else shared/tokens/windows.ts). */
  window?: number;
  source: 'recorded';
}

/** The recorded usage of a session's calls, by the line of the message each call produced (SPEC §11's lines). */
export type UsageByLine = ReadonlyMap<number, CallTokens>;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A count as the file states it: a non-negative safe integer, else undefined. */
export function tokenCount(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined;
}

function made(parts: { input: number; cache_read: number; cache_write: number; output: number; reasoning?: number | undefined; window?: number | undefined }): CallTokens {
  return {
    input: parts.input,
    cache_read: parts.cache_read,
    cache_write: parts.cache_write,
    output: parts.output,
    ...(parts.reasoning !== undefined ? { reasoning: parts.reasoning } : {}),
    context: parts.input,
    ...(parts.window !== undefined ? { window: parts.window } : {}),
    source: 'recorded',
  };
}

/**
 * An Anthropic-shaped count, where the input count excludes the cache: input is the sum of the
 * fresh input, the cache reads and the cache writes. Undefined when no input count is stated.
 */
export function additiveTokens(counts: { fresh: unknown; read?: unknown; write?: unknown; output?: unknown; reasoning?: unknown }, window?: number): CallTokens | undefined {
  const fresh = tokenCount(counts.fresh);
  if (fresh === undefined) return undefined;
  // Counts past the largest safe integer (only a damaged file states them) are cut so their sum stays one.
  const read = Math.min(tokenCount(counts.read) ?? 0, Number.MAX_SAFE_INTEGER - fresh);
  const write = Math.min(tokenCount(counts.write) ?? 0, Number.MAX_SAFE_INTEGER - fresh - read);
  return made({ input: fresh + read + write, cache_read: read, cache_write: write, output: tokenCount(counts.output) ?? 0, reasoning: tokenCount(counts.reasoning), window });
}

/**
 * An Anthropic Messages `usage` object (Claude Code's `message.usage`): `input_tokens` excludes
 * `cache_read_input_tokens` and `cache_creation_input_tokens`. Undefined when it states no input count.
 */
export function anthropicTokens(usage: unknown, window?: number): CallTokens | undefined {
  if (!isObj(usage)) return undefined;
  return additiveTokens({ fresh: usage.input_tokens, read: usage.cache_read_input_tokens, write: usage.cache_creation_input_tokens, output: usage.output_tokens }, window);
}

/**
 * An OpenAI-shaped count, where input already includes the cached tokens (Codex's TokenUsage,
 * Chat `prompt_tokens`, LiteLLM): `cached` is a part of `input`, never added to it. A cached count
 * larger than the input (a damaged file) is cut to it, so the invariants hold.
 */
export function openAiTokens(counts: { input: unknown; cached?: unknown; cacheWrite?: unknown; output?: unknown; reasoning?: unknown }, window?: number): CallTokens | undefined {
  const input = tokenCount(counts.input);
  if (input === undefined) return undefined;
  const cached = Math.min(tokenCount(counts.cached) ?? 0, input);
  const write = Math.min(tokenCount(counts.cacheWrite) ?? 0, input - cached);
  return made({ input, cache_read: cached, cache_write: write, output: tokenCount(counts.output) ?? 0, reasoning: tokenCount(counts.reasoning), window });
}

/**
 * LiteLLM's usage (OpenHands V0 `model_response.usage`, mini-swe-agent 2.x `extra.response.usage`;
 * docs/tokens.md): OpenAI's shape, `prompt_tokens` counting every input token (cache hits and
 * Anthropic's cache writes included), the cached ones in `prompt_tokens_details.cached_tokens` (or
 * Anthropic's `cache_read_input_tokens`), writes in `cache_creation_input_tokens`, reasoning in
 * `completion_tokens_details.reasoning_tokens`.
 */
export function liteLlmTokens(usage: unknown, window?: number): CallTokens | undefined {
  if (typeof usage !== 'object' || usage === null || Array.isArray(usage)) return undefined;
  const u = usage as Record<string, unknown>;
  const object = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
  const prompt = object(u.prompt_tokens_details);
  const completion = object(u.completion_tokens_details);
  return openAiTokens({ input: u.prompt_tokens, cached: prompt.cached_tokens ?? u.cache_read_input_tokens, cacheWrite: u.cache_creation_input_tokens, output: u.completion_tokens, reasoning: completion.reasoning_tokens }, window);
}

/** `tokens` with `window` set (the file's own figure wins: a window already there is kept). */
export function withWindow(tokens: CallTokens, window: number | undefined): CallTokens {
  return window === undefined || tokens.window !== undefined ? tokens : { ...tokens, window };
}

/**
 * The figures of a compaction in tokens (SPEC §15): `before` as the file records it (Claude Code's
 * `preTokens`), else the recorded context of the last call before line `line` (where the compaction
 * is first live); `after` as the file records it, else the recorded context of the first call at
 * or after that line. Lines are SPEC §11's.
 */
export function compactionTokens(line: number, usage: UsageByLine | undefined, recorded: { before?: number | undefined; after?: number | undefined } = {}): { tokens_before?: number; tokens_after?: number } {
  let before = recorded.before;
  let after = recorded.after;
  if (usage && (before === undefined || after === undefined)) {
    let last: number | undefined;
    let next: number | undefined;
    for (const l of usage.keys()) {
      if (l < line && (last === undefined || l > last)) last = l;
      if (l >= line && (next === undefined || l < next)) next = l;
    }
    if (before === undefined && last !== undefined) before = usage.get(last)?.context;
    if (after === undefined && next !== undefined) after = usage.get(next)?.context;
  }
  return { ...(before !== undefined ? { tokens_before: before } : {}), ...(after !== undefined ? { tokens_after: after } : {}) };
}

// ---------------------------------------------------------------------------------------------
// Cache breaks (SPEC §15)

/** A fall of cache reads smaller than this is block rounding, not a break. */
export const CACHE_BREAK_MIN_TOKENS = 1024;
/** …and smaller than this fraction of the call before's cache reads. */
export const CACHE_BREAK_MIN_FRACTION = 0.1;

/** True when cache reads fell from `prev` to `cur` by at least 1,024 tokens and 10 %. */
export function isCacheBreak(prev: number, cur: number): boolean {
  const fall = prev - cur;
  return fall >= CACHE_BREAK_MIN_TOKENS && fall >= prev * CACHE_BREAK_MIN_FRACTION;
}
