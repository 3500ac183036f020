/**
 * The heights of a virtual list's rows: the measured ones, an estimate for the rest, and the
 * offset of any row and the row at any offset in O(log n) (a Fenwick tree over the heights).
 * Measuring a row costs O(log n), never a pass over the list. Memory is fixed whatever is
 * measured: two Float64Arrays and a byte per row (17 MB for a million rows, outside the JS heap).
 *
 * Heights are rounded to 1/64 px (the layout unit of Chromium): every sum is then exact in a
 * double, so `indexAt(offsetOf(i)) === i` holds without a rounding error.
 */

const UNIT = 64;

function quantize(px: number): number {
  return Number.isFinite(px) && px > 0 ? Math.round(px * UNIT) / UNIT : 0;
}

export class RowHeights {
  /** Fenwick tree over the sizes, 1-based. */
  private tree: Float64Array;
  private sizes: Float64Array;
  /** 1 where the size was measured. */
  private measured: Uint8Array;
  private measuredRows = 0;
  private n: number;
  private sum = 0;
  private readonly estimate: number;

  constructor(count: number, estimate: number) {
    this.estimate = quantize(estimate) || 1;
    this.n = Math.max(0, Math.floor(count));
    this.tree = new Float64Array(this.n + 1);
    this.sizes = new Float64Array(this.n).fill(this.estimate);
    this.measured = new Uint8Array(this.n);
    this.rebuild();
  }

  get count(): number {
    return this.n;
  }

  /** The height of all rows. */
  get total(): number {
    return this.sum;
  }

  /** Rows measured so far. */
  get measuredCount(): number {
    return this.measuredRows;
  }

  sizeOf(row: number): number {
    return this.sizes[row] ?? this.estimate;
  }

  isMeasured(row: number): boolean {
    return this.measured[row] === 1;
  }

  /** Records row `row`'s measured height; returns how much the total changed. */
  set(row: number, px: number): number {
    if (!Number.isInteger(row) || row < 0 || row >= this.n) return 0;
    const size = quantize(px);
    const delta = size - (this.sizes[row] as number);
    if (this.measured[row] !== 1) {
      this.measured[row] = 1;
      this.measuredRows++;
    }
    if (delta !== 0) {
      this.sizes[row] = size;
      for (let i = row + 1; i <= this.n; i += i & -i) this.tree[i] = (this.tree[i] as number) + delta;
      this.sum += delta;
    }
    return delta;
  }

  /** The top of row `row` (the height of rows `[0, row)`); `offsetOf(count)` is the total. */
  offsetOf(row: number): number {
    let i = Math.max(0, Math.min(Math.floor(row), this.n));
    let s = 0;
    for (; i > 0; i -= i & -i) s += this.tree[i] as number;
    return s;
  }

  /** The row at offset `px` (the last row whose top is at or above it), clamped to the list. */
  indexAt(px: number): number {
    if (this.n === 0) return 0;
    let pos = 0;
    let rest = px;
    for (let step = 1 << Math.floor(Math.log2(this.n)); step > 0; step >>= 1) {
      const next = pos + step;
      if (next <= this.n && (this.tree[next] as number) <= rest) {
        pos = next;
        rest -= this.tree[next] as number;
      }
    }
    return Math.min(pos, this.n - 1);
  }

  /** Changes the number of rows, keeping the measured heights of the rows that remain. */
  resize(count: number): void {
    const n = Math.max(0, Math.floor(count));
    if (n === this.n) return;
    const keep = Math.min(n, this.n);
    const sizes = new Float64Array(n).fill(this.estimate);
    sizes.set(this.sizes.subarray(0, keep));
    const measured = new Uint8Array(n);
    measured.set(this.measured.subarray(0, keep));
    let measuredRows = 0;
    for (let i = 0; i < keep; i++) measuredRows += measured[i] as number;
    this.sizes = sizes;
    this.measured = measured;
    this.measuredRows = measuredRows;
    this.n = n;
    this.tree = new Float64Array(n + 1);
    this.rebuild();
  }

  /** Builds the tree from the sizes in O(n). */
  private rebuild(): void {
    const { tree, sizes, n } = this;
    let sum = 0;
    for (let i = 1; i <= n; i++) {
      const size = sizes[i - 1] as number;
      tree[i] = size;
      sum += size;
    }
    for (let i = 1; i <= n; i++) {
      const parent = i + (i & -i);
      if (parent <= n) tree[parent] = (tree[parent] as number) + (tree[i] as number);
    }
    this.sum = sum;
  }
}
