/**
 * The `sessions` command optimizes later (docs/library.md "Optimized later in a listing"). A cold
 * listing runs thousands of short jobs on three V8 isolates (the caller's thread and the indexing
 * threads), and each isolate compiles its own optimized code: in a cold listing of the bench's
 * 2,000 sessions V8 optimized some 270 functions (`--trace-opt`), the largest of them again on each
 * thread, for code that ran a few hundred milliseconds. With V8's interrupt budget four times its
 * own, a function must run four times as long before V8 optimizes it: code hot only for a short
 * while stays in its first tiers, and the loops over a large file are optimized as before.
 *
 * The flag is the process's (a Worker takes no V8 flags of its own), so it is set for the listing
 * and set back to V8's own once the listing ends. Back, because V8 refuses a code cache made under
 * other flags (the command line writes its chunks' cache after a run: ./chunkLoader.ts). V8's own
 * value is known for the V8 it was measured on; on another V8, or when the user gave the flag, the
 * listing keeps the flags it has.
 */
import type { GivenFlags } from './v8Flags';
import { gaveV8Flag, withV8Flag } from './v8Flags';

/** The V8 this was measured on (Node 20), and its own interrupt budget there (`node --v8-options`). */
export const MEASURED_V8 = '11.3.';
export const V8_OWN_INTERRUPT_BUDGET = 66 * 1024;
/** The listing's: four times V8's own. */
export const LISTING_INTERRUPT_BUDGET = 4 * V8_OWN_INTERRUPT_BUDGET;

const FLAG = '--interrupt-budget';

export interface TieringContext extends GivenFlags {
  /** process.versions.v8 */
  v8?: string;
}

/** The budget a listing runs with, or undefined when it keeps the flags it has. */
export function listingInterruptBudget(context: TieringContext = {}): number | undefined {
  if (!(context.v8 ?? process.versions.v8).startsWith(MEASURED_V8)) return undefined;
  return gaveV8Flag([FLAG], context) ? undefined : LISTING_INTERRUPT_BUDGET;
}

/** Runs `listing` with the listing's interrupt budget (listingInterruptBudget), and sets V8's own back when it ends, however it ends. */
export function withListingTiering<T>(listing: () => Promise<T>, context: TieringContext = {}): Promise<T> {
  const budget = listingInterruptBudget(context);
  return budget === undefined ? listing() : withV8Flag(FLAG, budget, V8_OWN_INTERRUPT_BUDGET, listing);
}
