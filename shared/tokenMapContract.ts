/**
 * The token side of the context map (SPEC §15 "The app", docs/tokens.md "In the app"):
 * `tokenMap` gives every call's estimated context and estimated hidden tokens for the map's
 * `Tokens` view, `callTokens` one call's estimates (per message, the context breakdown) and the
 * calibration behind them. shared/contract.ts puts both in the one table. The worker counts them
 * lazily, after the map has drawn, and keeps them for the open. Pure: no I/O.
 */
import { z } from 'zod';

const int = z.number().int().nonnegative();

/** The most one `tokenMap` request counts for, in milliseconds (at least one call, so every ask makes progress). */
export const TOKEN_MAP_SLICE_MS = 50;
/** The most calls one `tokenMap` request counts (with TOKEN_MAP_SLICE_MS, whichever comes first). */
export const TOKEN_MAP_SLICE_CALLS = 64;

/** Most per-message figures a `callTokens` reply carries; the rest are counted in `messages_total`. */
export const MAX_CALL_TOKEN_MESSAGES = 100_000;

/** A file's own fit (shared/tokens/calibration.ts Fit). */
const fitSchema = z.object({
  /** Rounded to 3 decimals: a refused fit's may round to 0. */
  factor: z.number().nonnegative(),
  /** Median absolute percentage error, as a fraction (0.094 = 9.4 %). */
  error: z.number().nonnegative(),
  calls: int,
});
/** How estimates relate to the file's tokens (shared/tokens/calibration.ts Calibration). */
export const calibrationSchema = fitSchema.extend({
  factor: z.number().positive(),
  source: z.enum(['file', 'default', 'none']),
  /** The file's own fit, refused as implausible: the estimates use the factor above instead. */
  refused: fitSchema.optional(),
});

/** A token estimate (shared/tokens/estimate.ts TokenEstimate). */
const estimateSchema = z.object({ tokens: int, source: z.literal('estimated'), approximate: z.literal(true).optional(), sampled: z.literal(true).optional() });

/** A call's recorded usage (shared/tokens/usage.ts CallTokens). */
const recordedSchema = z.object({
  input: int,
  cache_read: int,
  cache_write: int,
  output: int,
  reasoning: int.optional(),
  context: int,
  window: int.optional(),
  source: z.literal('recorded'),
});

/** SPEC §15 context breakdown (shared/tokens/breakdown.ts ContextBreakdown); `not_in_file` may be negative. */
const breakdownSchema = z.object({
  system: int,
  user: int,
  assistant: int,
  tool_results: int,
  summaries: int,
  other: int,
  in_file: int,
  source: z.literal('estimated'),
  approximate: z.literal(true).optional(),
  recorded: int.optional(),
  not_in_file: z.number().int().optional(),
});

/** What an asker of `tokenMap` holds from an earlier reply of the same pass: its `pass`, and how many calls its `estimated` holds. */
const knownSchema = z.object({ pass: int, calls: int });
export type TokenMapKnown = z.output<typeof knownSchema>;

const tokenMapResult = z.object({
  /** Names the pass (one per open): sent back in `known`, it says what the asker holds. */
  pass: int,
  /** `estimated` and `hidden` hold the calls from `from + 1` on; the asker keeps its first `from` (0: every call known so far). */
  from: int,
  progress: z.object({ stage: z.enum(['calibrating', 'estimating']), done: int, calls: int }).nullable(),
  estimated: z.array(int.nullable()),
  hidden: z.array(int.nullable()),
  /** Every call's; null when the asker holds a reply of this pass (`known`): they are the same for the whole open. */
  window: z.array(int.nullable()).nullable(),
  calibration: calibrationSchema.nullable(),
  approximate: z.boolean(),
  sampled: z.boolean(),
  partial: z.boolean(),
});

/** A `tokenMap` reply as sent: only what the asker lacked. */
export type TokenMapReply = z.output<typeof tokenMapResult>;
/** Every call known so far, merged from a pass's replies (mergeTokenMap): what the map draws. */
export type TokenMapFigures = Omit<TokenMapReply, 'from' | 'window'> & { window: (number | null)[] };

/**
 * The figures after `reply`, given those held from the same pass's earlier replies (`held`, null
 * for none); undefined when the reply builds on figures not held (another pass's, or fewer calls),
 * which an asker that sent `known` from `held` never gets.
 */
export function mergeTokenMap(held: TokenMapFigures | null, reply: TokenMapReply): TokenMapFigures | undefined {
  const { from, window, ...rest } = reply;
  if (from === 0 && window !== null) return { ...rest, window };
  if (!held || held.pass !== reply.pass || held.estimated.length < from || held.hidden.length < from) return undefined;
  return {
    ...rest,
    estimated: held.estimated.slice(0, from).concat(reply.estimated),
    hidden: held.hidden.slice(0, from).concat(reply.hidden),
    window: window ?? held.window,
  };
}

/** `known` for the next ask after `held`: what it holds, so the reply carries only what is new. */
export function knownOf(held: TokenMapFigures | null): TokenMapKnown | undefined {
  return held ? { pass: held.pass, calls: held.estimated.length } : undefined;
}

export const tokenMapMethods = {
  /**
   * Every call's estimate, columnar like the `calls` reply (call N at `[N - 1]`, from `from`): `estimated` the
   * input's messages (null where the file records the call's context: the map shows the recorded
   * figure there, so the input is not estimated), `hidden` the tokens its live reductions kept out (null where no original can
   * be read), `window` the window of the model answering it by the shipped table (null: unknown).
   * Estimates are in the file's tokens where `calibration` applies; `approximate` for a Claude
   * model, `sampled` when a large original was counted in samples. `partial`: the session was too
   * large to estimate every call; the calls from `estimated.length + 1` on have none.
   *
   * Each request counts for a bounded slice (TOKEN_MAP_SLICE_MS, TOKEN_MAP_SLICE_CALLS) and
   * answers what is known so far (docs/tokens.md "How the pass runs"): while `progress` is not
   * null the pass has more to count — first the calibration's walk over the calls that record
   * their context (`stage: 'calibrating'`, nothing estimated yet; `calls` the calls it walks: all of
   * them, or an evenly spaced sample of a long session, docs/token-estimates.md "Long sessions"),
   * then every call's estimate (`stage: 'estimating'`, `done` = the calls estimated) — and the
   * renderer asks again while it still wants the map; a pass nobody asks for does no work. Null:
   * complete, and kept for the open.
   *
   * With `known` (what the asker holds of this `pass`) the reply carries only the calls after
   * those it holds, and no `window`: a reply's size no longer grows with the session at every ask
   * (mergeTokenMap puts them together). Without it, or for another pass, everything.
   */
  tokenMap: {
    params: z.object({ known: knownSchema.optional() }),
    result: tokenMapResult,
  },
  /**
   * Call `call`'s tokens: the recorded usage (null where the file records none), the estimate of
   * each message of its input (`index` their view indices, in the file's tokens), their total, the
   * context breakdown (what the file holds, and `not_in_file` where the context is recorded), and
   * the calibration the estimates use.
   */
  callTokens: {
    params: z.object({ call: z.number().int().min(1) }),
    result: z.object({
      call: int,
      recorded: recordedSchema.nullable(),
      index: z.array(int).max(MAX_CALL_TOKEN_MESSAGES),
      messages: z.array(int).max(MAX_CALL_TOKEN_MESSAGES),
      messages_total: int,
      total: estimateSchema,
      breakdown: breakdownSchema,
      calibration: calibrationSchema.nullable(),
    }),
  },
} as const;
