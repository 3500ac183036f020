/**
 * VirtualScroller over a fake scroller that behaves like Chromium's where it matters: scrollTop is
 * clamped to the content and rounded to a pixel, and a scroll event follows a change once per frame.
 * "Rendering" is what React and the ResizeObserver do: the range's rows are placed and measured.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RowHeights } from './rowHeights';
import { scrollExtents, toPhysical } from './scrollScale';
import { VirtualScroller } from './virtualScroller';

const VIEWPORT = 729;

/** The real height of row `row` (px): 40–359, as varied as real messages. */
const realHeight = (row: number): number => 40 + ((row * 7919) % 320);

class FakeScroller {
  readonly clientHeight = VIEWPORT;
  private top = 0;
  private changed = false;
  private readonly listeners = new Map<string, Set<(e?: unknown) => void>>();
  constructor(private readonly sizer: { style: { height: string } }) {}
  get scrollHeight(): number {
    return Math.max(Number.parseFloat(this.sizer.style.height || '0'), this.clientHeight);
  }
  get scrollTop(): number {
    return this.top;
  }
  set scrollTop(value: number) {
    const next = Math.max(0, Math.min(Math.round(value), this.scrollHeight - this.clientHeight));
    if (next !== this.top) {
      this.top = next;
      this.changed = true;
    }
  }
  addEventListener(type: string, listener: (e?: unknown) => void): void {
    const set = this.listeners.get(type) ?? new Set();
    set.add(listener);
    this.listeners.set(type, set);
  }
  removeEventListener(type: string, listener: (e?: unknown) => void): void {
    this.listeners.get(type)?.delete(listener);
  }
  /** A key pressed on the focused scroller; returns whether the list took it (the browser would not scroll). */
  key(key: string): boolean {
    const event = {
      key,
      target: this,
      ctrlKey: false,
      metaKey: false,
      altKey: false,
      shiftKey: false,
      defaultPrevented: false,
      preventDefault() {
        this.defaultPrevented = true;
      },
    };
    for (const listener of this.listeners.get('keydown') ?? []) listener(event);
    return event.defaultPrevented;
  }
  /** A frame: the scroll event, if scrollTop changed since the last one. */
  frame(): void {
    if (!this.changed) return;
    this.changed = false;
    for (const listener of this.listeners.get('scroll') ?? []) listener();
  }
}

function setup(count: number) {
  const sizer = { style: { height: '' } };
  const window = { style: { height: '', position: '', overflow: '', transform: '' } };
  const rows = { style: { transform: '' } };
  const scroller = new FakeScroller(sizer);
  let rendered = 0;
  const list = new VirtualScroller({ count, estimate: 72, overscan: 4, maxRendered: 120, onRangeChange: () => rendered++ });
  list.attach({ scroller: scroller as unknown as HTMLElement, sizer: sizer as unknown as HTMLElement, window: window as unknown as HTMLElement, rows: rows as unknown as HTMLElement });

  /** React renders the range, the observer measures its rows, a frame passes; until nothing changes. */
  const settle = (): void => {
    for (let k = 0; k < 20; k++) {
      const { start, end } = list.range;
      list.didRender(start);
      const sizes: [number, number][] = [];
      for (let r = start; r < end; r++) sizes.push([r, realHeight(r)]);
      list.measureRows(sizes);
      scroller.frame();
      if (list.range.start === start && list.range.end === end) {
        list.didRender(start);
        return;
      }
    }
    throw new Error('the list did not settle');
  };

  /**
   * Row `row`'s top and bottom in the viewport (px), as laid out: the rows stack from their
   * translateY in the window, which is stuck to the viewport's top (sticky, the default) or sits
   * in the sizer at its own translateY (relative), moving with the scrollbar as any content does.
   */
  const place = (row: number): { top: number; bottom: number } => {
    const { start, end } = list.range;
    if (row < start || row >= end) throw new Error(`row ${row} is not rendered (${start}–${end})`);
    const translate = (transform: string): number => Number(/translateY\((-?[\d.e+]+)px\)/.exec(transform)?.[1] ?? 0);
    let top = translate(rows.style.transform);
    if (window.style.position === 'relative') top += translate(window.style.transform) - scroller.scrollTop;
    for (let r = start; r < row; r++) top += realHeight(r);
    return { top, bottom: top + realHeight(row) };
  };

  /** The rows wholly or in part in the viewport. */
  const inView = (): number[] => {
    const out: number[] = [];
    for (let r = list.range.start; r < list.range.end; r++) {
      const { top, bottom } = place(r);
      if (bottom > 0 && top < VIEWPORT) out.push(r);
    }
    return out;
  };

  const scrollTo = (p: number): void => {
    scroller.scrollTop = p;
    scroller.frame();
    settle();
  };

  settle();
  return { list, scroller, sizer, window, settle, place, inView, scrollTo, renders: () => rendered };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('VirtualScroller', () => {
  it('scrolls a million rows end to end with the scrollbar: every step moves down, the last row ends at the bottom', () => {
    vi.useFakeTimers();
    const count = 1_000_000;
    const { list, scroller, sizer, place, inView, scrollTo } = setup(count);
    expect(Number.parseFloat(sizer.style.height)).toBe(15_000_000);
    expect(list.scaled).toBe(true);
    let previous = -1;
    for (let step = 1; step <= 200; step++) {
      scrollTo((step / 200) * (scroller.scrollHeight - scroller.clientHeight));
      vi.advanceTimersByTime(200);
      const rows = inView();
      expect(rows[0]).toBeGreaterThan(previous);
      previous = rows[0] as number;
      expect(list.range.end - list.range.start).toBeLessThanOrEqual(120);
      // The viewport is covered.
      expect(place(rows[0] as number).top).toBeLessThanOrEqual(0);
      const last = rows[rows.length - 1] as number;
      expect(place(last).bottom >= VIEWPORT || last === count - 1).toBe(true);
    }
    expect(place(count - 1).bottom).toBe(VIEWPORT);
    scrollTo(0);
    expect(place(0).top).toBe(0);
  });

  it('moves the rendered rows with a scroll the browser makes by itself, before its scroll event (one to one)', () => {
    // scrollIntoView, a focus or a find scroll the scroller and read the element's box in the same
    // task; a click aimed at that box lands after the scroll event has run. The rows must be where
    // the scroll put them at once, and stay there once the list has taken the scroll.
    const { list, scroller, window, place, settle } = setup(400);
    expect(list.scaled).toBe(false);
    expect(window.style.overflow).toBe('visible');
    for (const by of [357, -195, 1, 2_000, -40]) {
      const row = list.range.start + Math.floor((list.range.end - list.range.start) / 2);
      const before = place(row).top;
      scroller.scrollTop = scroller.scrollTop + by;
      const moved = place(row).top;
      expect(moved).toBe(before - by);
      scroller.frame();
      if (row >= list.range.start && row < list.range.end) expect(place(row).top).toBe(moved);
      settle();
      if (row >= list.range.start && row < list.range.end) expect(place(row).top).toBe(moved);
    }
  });

  it('keeps the window stuck to the viewport while the list is scaled, and unclipped only one to one', () => {
    const big = setup(1_000_000);
    expect(big.list.scaled).toBe(true);
    expect(big.window.style.position).toBe('');
    expect(big.window.style.transform).toBe('');
    expect(big.window.style.overflow).toBe('');
    const small = setup(50);
    expect(small.list.scaled).toBe(false);
    expect(small.window.style.position).toBe('relative');
    expect(small.window.style.overflow).toBe('visible');
    small.scrollTo(600);
    expect(small.window.style.transform).toBe(`translateY(${small.scroller.scrollTop}px)`);
  });

  it('lands a command exactly on its row, anywhere in a million rows, and keeps it there as rows measure', () => {
    const count = 1_000_000;
    const { list, place, settle, inView } = setup(count);
    for (const row of [0, 1, 17, 123_457, 499_999, 500_000, 876_543, 999_990, 999_999]) {
      list.scrollToRow(row, 'start');
      settle();
      if (row <= 999_990) expect(place(row).top).toBe(0);
      list.scrollToRow(row, 'end');
      settle();
      if (row >= 5) expect(place(row).bottom).toBe(VIEWPORT);
      list.scrollToRow(row, 'center');
      settle();
      if (row >= 5 && row <= 999_990) expect((place(row).top + place(row).bottom) / 2).toBeCloseTo(VIEWPORT / 2, 6);
      // `auto` leaves a visible row where it is.
      const before = place(row);
      list.scrollToRow(row, 'auto');
      settle();
      expect(place(row)).toEqual(before);
      expect(inView()).toContain(row);
    }
    expect(place(999_999).bottom).toBe(VIEWPORT);
  });

  it('steps row by row like j/k: each next row ends wholly in view', () => {
    const { list, place, settle } = setup(1_000_000);
    list.scrollToRow(600_000, 'start');
    settle();
    for (let row = 600_000; row < 600_040; row++) {
      list.scrollToRow(row, 'auto');
      settle();
      expect(place(row).top).toBeGreaterThanOrEqual(0);
      expect(place(row).bottom).toBeLessThanOrEqual(VIEWPORT);
    }
    for (let row = 600_040; row > 599_980; row--) {
      list.scrollToRow(row, 'auto');
      settle();
      expect(place(row).top).toBeGreaterThanOrEqual(0);
      expect(place(row).bottom).toBeLessThanOrEqual(VIEWPORT);
    }
  });

  it('moves the content smoothly under small scrolls of a scaled list (no jump)', () => {
    const { list, scroller, place, scrollTo, inView } = setup(1_000_000);
    scrollTo(7_000_000);
    const scale = (list.heights.total - VIEWPORT) / (15_000_000 - VIEWPORT);
    for (let k = 0; k < 30; k++) {
      const row = inView()[1] as number;
      const before = place(row).top;
      scrollTo(scroller.scrollTop + 40);
      const after = list.range.start <= row && row < list.range.end ? place(row).top : Number.NEGATIVE_INFINITY;
      // Content moved up by about 40 physical px times the scale.
      expect(before - after).toBeGreaterThan(40 * scale * 0.5);
      expect(before - after).toBeLessThan(40 * scale * 1.5);
    }
  });

  it('moves a scaled list pixel for pixel by the wheel and keys (scrollBy), to its very ends', () => {
    const { list, scroller, place, settle, inView } = setup(1_000_000);
    list.scrollToRow(400_000, 'start');
    settle();
    for (const delta of [100, 40, -40, 600, -1000, 3]) {
      const row = inView()[1] as number;
      const before = place(row).top;
      list.scrollBy(delta);
      settle();
      expect(place(row).top).toBe(before - delta);
    }
    // The scrollbar follows the offset on the line.
    const e = scrollExtents(list.heights.total, VIEWPORT);
    expect(Math.abs(scroller.scrollTop - toPhysical(list.scrollOffset, e))).toBeLessThanOrEqual(1);
    list.scrollBy(1e12);
    settle();
    expect(place(999_999).bottom).toBe(VIEWPORT);
    expect(scroller.scrollTop).toBe(scroller.scrollHeight - scroller.clientHeight);
    list.scrollBy(-1e12);
    settle();
    expect(place(0).top).toBe(0);
    expect(scroller.scrollTop).toBe(0);
  });

  it('takes Home and End on a scaled list: the first row at the top, the last at the bottom, exactly', () => {
    const { list, scroller, place, settle, scrollTo } = setup(1_000_000);
    expect(list.scaled).toBe(true);
    scrollTo(123_456);
    expect(scroller.key('End')).toBe(true);
    scroller.frame();
    settle();
    expect(place(999_999).bottom).toBe(VIEWPORT);
    expect(scroller.scrollTop).toBe(scroller.scrollHeight - scroller.clientHeight);
    // The browser's own Home may stop a pixel short of the top: the list's does not.
    scrollTo(1);
    expect(place(0).top).toBeLessThan(0);
    expect(scroller.key('Home')).toBe(true);
    scroller.frame();
    settle();
    expect(place(0).top).toBe(0);
    expect(scroller.scrollTop).toBe(0);
  });

  it('leaves Home and End to the browser below the cap', () => {
    const { list, scroller } = setup(1_000);
    expect(list.scaled).toBe(false);
    expect(scroller.key('End')).toBe(false);
    expect(scroller.key('Home')).toBe(false);
  });

  it('scrolls one to one below the cap: scrollTop is the offset', () => {
    const { list, scroller, place, scrollTo, inView } = setup(2000);
    expect(list.scaled).toBe(false);
    scrollTo(5000);
    // Rows above the viewport measured taller than the estimate: scrollTop follows, the content stays.
    expect(scroller.scrollTop).toBe(list.scrollOffset);
    const row = inView()[1] as number;
    const before = place(row).top;
    scrollTo(scroller.scrollTop + 100);
    expect(place(row).top).toBe(before - 100);
    expect(scroller.scrollTop).toBe(list.scrollOffset);
    scrollTo(1e9);
    expect(place(1999).bottom).toBe(VIEWPORT);
    expect(scroller.scrollTop).toBe(list.scrollOffset);
  });

  it('after a scaled scroll settles, puts the scrollbar back on the line without moving the content', () => {
    vi.useFakeTimers();
    const { list, scroller, place, scrollTo, inView } = setup(1_000_000);
    scrollTo(3_000_000);
    // Rows measured on the way moved the offset off the line a little.
    list.scrollToRow(list.range.visibleStart + 2, 'start');
    scrollTo(scroller.scrollTop + 500);
    const row = inView()[0] as number;
    const before = place(row).top;
    vi.advanceTimersByTime(200);
    const e = scrollExtents(list.heights.total, VIEWPORT);
    expect(Math.abs(scroller.scrollTop - toPhysical(list.scrollOffset, e))).toBeLessThanOrEqual(1);
    scroller.frame();
    expect(place(row).top).toBe(before);
  });

  it('keeps what is in view when the row count changes', () => {
    const { list, place, settle } = setup(500);
    list.scrollToRow(200, 'start');
    settle();
    list.setCount(100_000);
    settle();
    expect(place(200).top).toBe(0);
    list.setCount(150);
    settle();
    expect(place(149).bottom).toBe(VIEWPORT);
  });

  it('counts heights the way RowHeights does', () => {
    const { list } = setup(10);
    expect(list.heights).toBeInstanceOf(RowHeights);
    expect(list.heights.total).toBe(Array.from({ length: 10 }, (_, r) => realHeight(r)).reduce((a, b) => a + b, 0));
  });
});
