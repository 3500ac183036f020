/**
 * The hidden-token estimates of the contract (shared/contract.ts puts its method in the one table):
 * `<n> tokens` beside the bytes of every reduction chip, log row and search result (SPEC §15, §16.1;
 * docs/token-estimates.md "Asked lazily"). The renderer asks once rows are shown and fills the
 * figures in; the worker counts within a time budget per request and names what it has not counted
 * yet (`pending`), so a request never holds the rows asked after it for long. Pure: no I/O.
 */
import { z } from 'zod';
import { SAMPLE_ABOVE_BYTES, SAMPLE_CHUNKS, SAMPLE_CHUNK_BYTES } from './tokens/estimate';

const int = z.number().int().nonnegative();

/** Most reduction ids one request names (the same bound as `verify`). */
export const MAX_HIDDEN_TOKENS_IDS = 1000;

/** An estimate as SPEC §15 marks it: `est.` always, approximate for a Claude model, sampled when only chunks were counted. */
export const tokenEstimateSchema = z.object({
  tokens: int,
  source: z.literal('estimated'),
  approximate: z.literal(true).optional(),
  sampled: z.literal(true).optional(),
});

/** How a large original is sampled (shared/tokens/estimate.ts samplePlan): what `sampled: true` means. */
export const SAMPLING = { above_bytes: SAMPLE_ABOVE_BYTES, chunks: SAMPLE_CHUNKS, chunk_bytes: SAMPLE_CHUNK_BYTES } as const;

export const hiddenTokensMethods = {
  /**
   * Per reduction of the view shown (the latest, or call `call`'s input): `hidden`, the tokens it
   * hid from the model (its original's estimate minus what the model was shown in its place, at
   * least 0: `log`'s `hidden_tokens_est`), and `original`, the tokens of the whole original (a search
   * result's figure); null where the file does not hold the original. Ids not counted within the
   * request's time budget come back in `pending` (ask again); an id the view does not hold is in
   * `unknown`.
   */
  hiddenTokens: {
    params: z.object({ ids: z.array(z.string().max(200)).max(MAX_HIDDEN_TOKENS_IDS), call: z.number().int().min(1).nullable().optional() }),
    result: z.object({
      reductions: z.array(z.object({ id: z.string(), hidden: tokenEstimateSchema.nullable(), original: tokenEstimateSchema.nullable() })),
      pending: z.array(z.string()),
      unknown: z.array(z.string()),
      /** The sampling of an original above `above_bytes`: `chunks` evenly spaced chunks of `chunk_bytes`, the count scaled to its length. */
      sampling: z.object({ above_bytes: int, chunks: int, chunk_bytes: int }),
    }),
  },
} as const;
