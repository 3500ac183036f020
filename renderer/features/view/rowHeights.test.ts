/** RowHeights against a plain array of heights. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RowHeights } from './rowHeights';

/** Row count, estimate and measurements (row, px) with fractional heights. */
const scenario = fc
  .tuple(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 120 }))
  .chain(([count, estimate]) =>
    fc.tuple(
      fc.constant(count),
      fc.constant(estimate),
      fc.array(fc.tuple(fc.integer({ min: 0, max: count - 1 }), fc.oneof(fc.integer({ min: 1, max: 600 }), fc.double({ min: 0.5, max: 600, noNaN: true }))), { maxLength: 60 }),
    ),
  );

function naive(count: number, estimate: number, sets: readonly (readonly [number, number])[]): number[] {
  const sizes = new Array<number>(count).fill(estimate);
  for (const [row, px] of sets) sizes[row] = Math.round(px * 64) / 64;
  return sizes;
}

describe('RowHeights', () => {
  it('gives the offsets, total and sizes of a plain array, whatever was measured', () => {
    fc.assert(
      fc.property(scenario, ([count, estimate, sets]) => {
        const heights = new RowHeights(count, estimate);
        for (const [row, px] of sets) heights.set(row, px);
        const sizes = naive(count, estimate, sets);
        let top = 0;
        for (let i = 0; i < count; i++) {
          expect(heights.offsetOf(i)).toBe(top);
          expect(heights.sizeOf(i)).toBe(sizes[i]);
          top += sizes[i] as number;
        }
        expect(heights.offsetOf(count)).toBe(top);
        expect(heights.total).toBe(top);
      }),
    );
  });

  it('finds the row at any offset: indexAt(offsetOf(i)) is i, and every pixel of a row maps to it', () => {
    fc.assert(
      fc.property(scenario, fc.double({ min: 0, max: 1, noNaN: true }), ([count, estimate, sets], t) => {
        const heights = new RowHeights(count, estimate);
        for (const [row, px] of sets) heights.set(row, px);
        for (let i = 0; i < count; i++) {
          expect(heights.indexAt(heights.offsetOf(i))).toBe(i);
          expect(heights.indexAt(heights.offsetOf(i) + t * (heights.sizeOf(i) - 1 / 64))).toBe(i);
        }
        expect(heights.indexAt(-5)).toBe(0);
        expect(heights.indexAt(heights.total + 1000)).toBe(count - 1);
      }),
    );
  });

  it('returns the change of the total when a row is measured', () => {
    const heights = new RowHeights(10, 50);
    expect(heights.set(3, 80)).toBe(30);
    expect(heights.set(3, 80)).toBe(0);
    expect(heights.set(3, 20)).toBe(-60);
    expect(heights.total).toBe(9 * 50 + 20);
    expect(heights.isMeasured(3)).toBe(true);
    expect(heights.isMeasured(4)).toBe(false);
    expect(heights.measuredCount).toBe(1);
    // Out of range or not a row: ignored.
    expect(heights.set(10, 80)).toBe(0);
    expect(heights.set(-1, 80)).toBe(0);
    expect(heights.total).toBe(470);
  });

  it('keeps the measured heights of the rows that remain when resized', () => {
    const heights = new RowHeights(10, 50);
    heights.set(2, 70);
    heights.set(8, 10);
    heights.resize(5);
    expect(heights.total).toBe(4 * 50 + 70);
    heights.resize(12);
    expect(heights.sizeOf(8)).toBe(50);
    expect(heights.offsetOf(12)).toBe(11 * 50 + 70);
  });

  it('holds a million rows and answers in a few steps', () => {
    const heights = new RowHeights(1_000_000, 72);
    expect(heights.total).toBe(72_000_000);
    heights.set(999_999, 100);
    heights.set(500_000, 30);
    expect(heights.total).toBe(72_000_000 + 28 - 42);
    expect(heights.offsetOf(999_999)).toBe(999_999 * 72 - 42);
    expect(heights.indexAt(heights.total - 1)).toBe(999_999);
    expect(heights.indexAt(500_000 * 72 + 29)).toBe(500_000);
    expect(heights.indexAt(500_000 * 72 + 30)).toBe(500_001);
  });
});
