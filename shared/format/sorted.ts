/** Searches over sorted arrays. */

/** The first position in the ascending `values` at or after `x` (`values.length` when none is). */
export function lowerBound(values: readonly number[], x: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((values[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
