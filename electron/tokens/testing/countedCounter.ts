/**
 * The tokenizer's module with each call that counts text tallied, for tests that ask when, and how
 * often, the estimator counts: `vi.mock('../tokens/counter', async (real) =>
 * (await import('../tokens/testing/countedCounter')).countedCounter(await real(), tally))`, the
 * tally made with `vi.hoisted`. Calls inside the module are not tallied (only the ones made through
 * its exports).
 */
import type * as Counter from '../counter';

export function countedCounter(real: typeof Counter, tally: { calls: number }): typeof Counter {
  return {
    ...real,
    countText: (...a) => (tally.calls++, real.countText(...a)),
    countPlan: (...a) => (tally.calls++, real.countPlan(...a)),
    estimateText: (...a) => (tally.calls++, real.estimateText(...a)),
    estimateSource: (...a) => (tally.calls++, real.estimateSource(...a)),
  };
}
