/**
 * Scroll scaling for lists taller than a browser can scroll. Chromium caps an element's height near
 * 33.5 million px, so a million rows of 60–100 px cannot be laid out at their real offsets. The list
 * keeps its own *virtual* offsets (row tops in px, as if nothing were capped) and gives the scroller
 * a *physical* height of at most MAX_SCROLL_PX; a physical scrollTop stands for a virtual offset.
 *
 * - Below the cap the two are the same (the scale is 1): nothing changes for ordinary sessions.
 * - Above it the map is linear over the scroll ranges: physical `0 … pMax` ↔ virtual `0 … vMax`
 *   (`pMax`, `vMax`: content height minus viewport height). The ends map to the ends exactly, so
 *   the scrollbar's bottom shows the last row and its top the first.
 * - A user scroll moves from where the list is (a physical/virtual pair that may have drifted a
 *   little off the line as rows were measured) toward the end it heads for: `follow` interpolates
 *   between the current pair and that end, so the content never jumps and the ends stay exact.
 *
 * Pure functions, no DOM: see scrollScale.test.ts.
 */

/** The tallest scroll height the list gives the browser: well under Chromium's ~33.5M px cap. */
export const MAX_SCROLL_PX = 15_000_000;

/** How far the scroller can scroll, physically (the DOM) and virtually (the list's own offsets). */
export interface ScrollExtents {
  /** Virtual scroll range: content height minus viewport height, ≥ 0. */
  virtualMax: number;
  /** Physical scroll range: scroller height minus viewport height, ≥ 0. */
  physicalMax: number;
}

/** A physical scrollTop and the virtual offset it stands for. */
export interface ScrollPair {
  physical: number;
  virtual: number;
}

const clamp = (x: number, lo: number, hi: number): number => Math.max(lo, Math.min(hi, x));

/** The height the scroller's content gets for a list of `virtualHeight` px. */
export function physicalHeight(virtualHeight: number, max: number = MAX_SCROLL_PX): number {
  return Math.max(0, Math.min(virtualHeight, max));
}

/** The extents of a list `virtualHeight` px tall in a viewport `viewport` px tall. */
export function scrollExtents(virtualHeight: number, viewport: number, max: number = MAX_SCROLL_PX): ScrollExtents {
  return {
    virtualMax: Math.max(0, virtualHeight - viewport),
    physicalMax: Math.max(0, physicalHeight(virtualHeight, max) - viewport),
  };
}

/** Whether offsets are scaled (the list is taller than the scroller can be). */
export function isScaled(e: ScrollExtents): boolean {
  return e.virtualMax > e.physicalMax;
}

/** The physical scrollTop that shows virtual offset `virtual` (linear over the ranges). */
export function toPhysical(virtual: number, e: ScrollExtents): number {
  if (!isScaled(e)) return clamp(virtual, 0, e.physicalMax);
  if (e.virtualMax <= 0) return 0;
  return clamp((virtual / e.virtualMax) * e.physicalMax, 0, e.physicalMax);
}

/** The virtual offset physical scrollTop `physical` stands for (linear over the ranges). */
export function toVirtual(physical: number, e: ScrollExtents): number {
  if (!isScaled(e)) return clamp(physical, 0, e.virtualMax);
  if (e.physicalMax <= 0) return 0;
  if (physical >= e.physicalMax) return e.virtualMax;
  return clamp((physical / e.physicalMax) * e.virtualMax, 0, e.virtualMax);
}

/**
 * The virtual offset after the user scrolled from `from` to physical `to`: linear from the current
 * pair to the end the scroll heads for (`0 ↔ 0` going up, `pMax ↔ vMax` going down). Monotonic in
 * `to`, continuous (no jump at `to = from.physical`), exact at both ends, and equal to `toVirtual`
 * when `from` lies on the line.
 */
export function follow(from: ScrollPair, to: number, e: ScrollExtents): number {
  const { physicalMax: pMax, virtualMax: vMax } = e;
  if (to <= 0 || pMax <= 0) return 0;
  if (to >= pMax) return vMax;
  const p0 = clamp(from.physical, 0, pMax);
  const v0 = clamp(from.virtual, 0, vMax);
  if (to >= p0) return p0 >= pMax ? vMax : clamp(v0 + ((to - p0) * (vMax - v0)) / (pMax - p0), 0, vMax);
  return p0 <= 0 ? 0 : clamp((v0 * to) / p0, 0, vMax);
}
