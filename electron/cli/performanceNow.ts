/**
 * The `performance` of the command line's chunks (scripts/build.mjs injects it for the global):
 * Node makes its global `performance` on first use, loading its perf_hooks modules, about 1.3 ms
 * of a cold start, and the loader reads only `performance.now()` from it, to time its
 * slices and throttles. Times here count from this module's first evaluation rather than from the
 * process's start: every use takes differences, which are the same.
 */
const origin = process.hrtime.bigint();

export const performance = {
  /** Milliseconds, fractional, monotonic (as performance.now()). */
  now: (): number => Number(process.hrtime.bigint() - origin) / 1e6,
};
