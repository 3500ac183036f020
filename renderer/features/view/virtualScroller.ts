/**
 * The DOM side of the projected view's virtual list, for any number of rows (a million and more).
 *
 * - Row heights are measured (ResizeObserver) into a RowHeights: O(log n) per row measured.
 * - Where the list stands is an Anchor (listLayout.ts): measuring rows never moves the row in view,
 *   and a command ("row 41 231, centred") stays exact once the rows around it are measured.
 * - The scroller's content is at most MAX_SCROLL_PX tall; above that, offsets are scaled
 *   (scrollScale.ts): a scrollbar drag is mapped with `follow`, a command writes the linear
 *   `toPhysical`, and after a scroll settles the scrollbar is put back on the line. Both ends of the
 *   scrollbar are exact: the top shows row 0, the bottom the last row's bottom. The wheel and the
 *   scroller's own keys (arrows, Page Up/Down, Space) still move the content pixel for pixel, as in
 *   any list: a scaled list takes them over. It takes Home and End too: the browser's own scroll to
 *   an end of a 15M px scroller can stop a pixel short (Chromium's Home, under load, ends at
 *   scrollTop 1), which would leave row 0 cut; a command lands on the end exactly.
 * - The rendered rows sit in a window as tall as the viewport; the rows' `translateY` inside it
 *   puts the first rendered row where the anchor says. While the list is scaled, the window sticks
 *   to the viewport's top (`position: sticky`, `overflow: clip`), so nothing is ever laid out
 *   millions of pixels down and the rows never add to the scroll height. While it is not (one to
 *   one), the window sits in the sizer where the scrollbar was when it was placed and does not
 *   clip (the sizer does): a scroll the browser makes by itself — `scrollIntoView`, a focus, a
 *   find — moves the rendered rows with it at once, as in any page, and the scroll event that
 *   follows re-places them where they already are. Stuck to the top, they stayed put until that
 *   event: an element scrolled into view was still out of it for a moment, and a click aimed at it
 *   then landed on whatever came under the pointer once the rows moved (docs/testing.md,
 *   "Fourth pass"). The sizer's height, the window's place and height and that transform are set
 *   here, never by React: a scroll that does not change the rendered rows costs no render.
 *
 * Markup it expects: `scroller` (overflow-y: auto) > `sizer` > `window` (position: sticky; top: 0;
 * overflow: clip) > `rows` > the row elements, each carrying `data-row`.
 */
import type { Align, Anchor, RowRange } from './listLayout';
import { TOP, anchorAt, anchorForRow, anchorOffset, bottomAnchor, maxOffset, rowRange, sameRange } from './listLayout';
import { RowHeights } from './rowHeights';
import { MAX_SCROLL_PX, follow, isScaled, physicalHeight, scrollExtents, toPhysical } from './scrollScale';

export interface VirtualScrollerOptions {
  count: number;
  /** Height assumed for a row not measured yet (px). */
  estimate: number;
  /** Rows rendered beyond each edge of the viewport. */
  overscan: number;
  /** Rows rendered at most, whatever their heights. */
  maxRendered: number;
  /** The scroller's content height at most (px). */
  maxScrollPx?: number;
  /** The rows to render changed; `sync` when it happened in a scroll (render before the next paint). */
  onRangeChange: (sync: boolean) => void;
}

export interface ScrollerElements {
  /** The scrolling element. */
  scroller: HTMLElement;
  /** Its content: as tall as the list, or MAX_SCROLL_PX. */
  sizer: HTMLElement;
  /** The viewport-tall window: stuck to the scroller's top while scaled, else where the scrollbar was when placed. */
  window: HTMLElement;
  /** The rows' container inside the window. */
  rows: HTMLElement;
}

/** Without `scrollend` (older engines), a scroll that stopped this long ago has settled. */
const SETTLE_MS = 150;
/** A wheel "line" and an arrow key, in px (as Chromium scrolls). */
const LINE_PX = 40;
/** Page Up/Down and Space scroll this much of the viewport. */
const PAGE_FRACTION = 0.875;

/** Whether an element between `target` and `scroller` can itself scroll by `deltaY` (it gets the wheel). */
function innerScrollable(target: EventTarget | null, scroller: HTMLElement, deltaY: number): boolean {
  for (let el = target instanceof Element ? target : null; el && el !== scroller; el = el.parentElement) {
    if (el.scrollHeight <= el.clientHeight + 1) continue;
    const overflow = getComputedStyle(el).overflowY;
    if (overflow !== 'auto' && overflow !== 'scroll') continue;
    if (deltaY > 0 ? el.scrollTop + el.clientHeight < el.scrollHeight - 1 : el.scrollTop > 0) return true;
  }
  return false;
}

function hasScrollEnd(): boolean {
  return typeof window !== 'undefined' && 'onscrollend' in window;
}

/**
 * The scroller's inner height, rounded down. `clientHeight` rounds to the nearest pixel: with a
 * height like 648.6 px the browser scrolls to a whole pixel past the fractional end, the window
 * sticks to the sizer's bottom and the list's last row would end a fraction of a pixel below the
 * viewport. Rounded down, the list ends at most a pixel above it.
 */
function viewportHeight(scroller: HTMLElement): number {
  const height = typeof scroller.getBoundingClientRect === 'function' ? scroller.getBoundingClientRect().height : 0;
  if (!(height > 0)) return scroller.clientHeight;
  // Less its borders and a horizontal scrollbar, if it has any.
  return Math.max(0, Math.floor(height - (scroller.offsetHeight - scroller.clientHeight) + 1e-3));
}

export class VirtualScroller {
  readonly heights: RowHeights;
  private readonly options: VirtualScrollerOptions;
  private readonly maxScrollPx: number;
  private anchor: Anchor = TOP;
  /** Virtual scroll offset: the anchor's, clamped. */
  private offset = 0;
  /** The scroller's scrollTop as last seen or written. */
  private physical = 0;
  /** A scrollTop we wrote: its scroll event is ours, not the user's. */
  private echo: number | null = null;
  private viewport = 0;
  private rows: RowRange;
  private renderedStart = 0;
  private elements: ScrollerElements | null = null;
  private readonly rowObserver: ResizeObserver | null;
  private settleTimer: ReturnType<typeof setTimeout> | undefined;
  /** Whether the wheel listener is on (only while scaled: it is not passive). */
  private wheelOn = false;
  private readonly onWheel = (e: WheelEvent): void => this.wheeled(e);

  constructor(options: VirtualScrollerOptions) {
    this.options = options;
    this.maxScrollPx = options.maxScrollPx ?? MAX_SCROLL_PX;
    this.heights = new RowHeights(options.count, options.estimate);
    this.rows = rowRange(0, 0, this.heights, options.overscan, options.maxRendered);
    this.rowObserver = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver((entries) => this.measured(entries));
  }

  /** The rows to render and the rows in view. */
  get range(): RowRange {
    return this.rows;
  }

  /** The virtual scroll offset (px from the list's top to the viewport's top). */
  get scrollOffset(): number {
    return this.offset;
  }

  /** Whether the list is taller than the scroller's content may be (offsets are scaled). */
  get scaled(): boolean {
    return isScaled(scrollExtents(this.heights.total, this.viewport, this.maxScrollPx));
  }

  /** Starts driving the elements; returns what stops it. */
  attach(elements: ScrollerElements): () => void {
    const { scroller } = elements;
    this.elements = elements;
    this.viewport = viewportHeight(scroller);
    this.physical = scroller.scrollTop;
    const onScroll = (): void => this.scrolled();
    const onScrollEnd = (): void => this.settle();
    const onKeyDown = (e: KeyboardEvent): void => this.keyed(e);
    scroller.addEventListener('scroll', onScroll, { passive: true });
    scroller.addEventListener('scrollend', onScrollEnd, { passive: true });
    scroller.addEventListener('keydown', onKeyDown);
    const viewportObserver =
      typeof ResizeObserver === 'undefined'
        ? null
        : new ResizeObserver(() => {
            const height = viewportHeight(scroller);
            if (height === this.viewport) return;
            this.viewport = height;
            this.update(false);
          });
    viewportObserver?.observe(scroller);
    this.update(false);
    return () => {
      scroller.removeEventListener('scroll', onScroll);
      scroller.removeEventListener('scrollend', onScrollEnd);
      scroller.removeEventListener('keydown', onKeyDown);
      scroller.removeEventListener('wheel', this.onWheel);
      this.wheelOn = false;
      viewportObserver?.disconnect();
      clearTimeout(this.settleTimer);
      this.elements = null;
    };
  }

  /** The ref of a row element: measured while mounted. */
  readonly observeRow = (node: HTMLElement | null): (() => void) | undefined => {
    const observer = this.rowObserver;
    if (!node || !observer) return undefined;
    observer.observe(node, { box: 'border-box' });
    return () => observer.unobserve(node);
  };

  setCount(count: number): void {
    if (count === this.heights.count) return;
    this.heights.resize(count);
    this.update(false);
  }

  /** Brings `row` into view (`auto`: only if it is not wholly visible, by the nearer edge). */
  scrollToRow(row: number, align: Align): void {
    if (this.heights.count === 0) return;
    const anchor = anchorForRow(row, align, this.offset, this.viewport, this.heights);
    if (!anchor) return;
    this.anchor = anchor;
    this.update(false, true);
  }

  /** Moves the content by `delta` px (virtual: pixel for pixel, at any scale). */
  scrollBy(delta: number): void {
    if (this.heights.count === 0 || delta === 0) return;
    const target = this.offset + delta;
    this.anchor = target >= maxOffset(this.heights, this.viewport) ? bottomAnchor(this.heights) : target <= 0 ? TOP : anchorAt(target, this.heights);
    this.update(true, true);
  }

  /** React rendered rows from `start`: place them. */
  didRender(start: number): void {
    this.renderedStart = start;
    this.place(false);
  }

  /** Rows measured (by the ResizeObserver; by a test): the list re-anchors and re-ranges once. */
  measureRows(sizes: Iterable<readonly [row: number, px: number]>): void {
    let changed = false;
    for (const [row, px] of sizes) if (this.heights.set(row, px) !== 0) changed = true;
    if (changed) this.update(false);
  }

  private measured(entries: readonly ResizeObserverEntry[]): void {
    const sizes: [number, number][] = [];
    for (const entry of entries) {
      const element = entry.target as HTMLElement;
      if (!element.isConnected) continue;
      const box = entry.borderBoxSize?.[0];
      sizes.push([Number(element.dataset.row), box ? box.blockSize : element.getBoundingClientRect().height]);
    }
    this.measureRows(sizes);
  }

  /** The wheel on a scaled list: pixel for pixel, not scaled (a notch is a few rows, not a few hundred). */
  private wheeled(e: WheelEvent): void {
    const scroller = this.elements?.scroller;
    if (!scroller || !this.scaled || e.defaultPrevented || e.ctrlKey || e.deltaY === 0) return;
    if (innerScrollable(e.target, scroller, e.deltaY)) return;
    e.preventDefault();
    this.scrollBy(e.deltaMode === 1 ? e.deltaY * LINE_PX : e.deltaMode === 2 ? e.deltaY * this.viewport : e.deltaY);
  }

  /** The scroller's own keys on a scaled list. */
  private keyed(e: KeyboardEvent): void {
    const scroller = this.elements?.scroller;
    if (!scroller || e.target !== scroller || !this.scaled || e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === 'Home' || e.key === 'End') {
      // The ends exactly: the browser's own scroll there may stop short of them (see the top).
      e.preventDefault();
      this.anchor = e.key === 'Home' ? TOP : bottomAnchor(this.heights);
      this.update(true, true);
      return;
    }
    const page = Math.max(LINE_PX, this.viewport * PAGE_FRACTION);
    const delta = e.key === 'ArrowDown' ? LINE_PX : e.key === 'ArrowUp' ? -LINE_PX : e.key === 'PageDown' ? page : e.key === 'PageUp' ? -page : e.key === ' ' ? (e.shiftKey ? -page : page) : 0;
    if (delta === 0) return;
    e.preventDefault();
    this.scrollBy(delta);
  }

  private scrolled(): void {
    if (!this.takeScroll()) return;
    this.update(true);
    clearTimeout(this.settleTimer);
    // Settled at `scrollend` (a write before it would stop a smooth scroll half-way), else after a pause.
    if (this.scaled && !hasScrollEnd()) this.settleTimer = setTimeout(() => this.settle(), SETTLE_MS);
  }

  /**
   * Reads the scroller's scrollTop: a user scroll (anything but our own write) re-anchors the list
   * where it went. Returns whether it did. Also called before anything else moves the list, so a
   * scroll whose event has not run yet is never overwritten.
   */
  private takeScroll(): boolean {
    const scroller = this.elements?.scroller;
    if (!scroller) return false;
    const p = scroller.scrollTop;
    if (this.echo !== null && Math.abs(p - this.echo) < 1) {
      // Our own write: the anchor already says where the list is.
      this.echo = null;
      this.physical = p;
      return false;
    }
    this.echo = null;
    if (p === this.physical) return false;
    const extents = scrollExtents(this.heights.total, this.viewport, this.maxScrollPx);
    if (extents.physicalMax > 0 && p >= extents.physicalMax - 1) this.anchor = bottomAnchor(this.heights);
    else if (p <= 0) this.anchor = TOP;
    else this.anchor = anchorAt(follow({ physical: this.physical, virtual: this.offset }, p, extents), this.heights);
    this.physical = p;
    return true;
  }

  /** After a scaled scroll: the scrollbar back on the line of the offset (a sub-pixel move of the thumb). */
  private settle(): void {
    if (!this.elements) return;
    if (this.takeScroll()) {
      // Still scrolling (its event is on its way): settle after it.
      this.update(false);
      if (!hasScrollEnd()) this.settleTimer = setTimeout(() => this.settle(), SETTLE_MS);
      return;
    }
    const extents = scrollExtents(this.heights.total, this.viewport, this.maxScrollPx);
    if (!isScaled(extents)) return;
    const target = Math.round(toPhysical(this.offset, extents));
    if (Math.abs(target - this.physical) < 1) return;
    this.writePhysical(target);
    this.place(false);
  }

  private update(sync: boolean, command = false): void {
    // A scroll not yet seen goes first (a command replaces the anchor anyway).
    if (!command && !sync) this.takeScroll();
    this.offset = anchorOffset(this.anchor, this.heights, this.viewport);
    const next = rowRange(this.offset, this.viewport, this.heights, this.options.overscan, this.options.maxRendered);
    const changed = !sameRange(next, this.rows);
    this.rows = next;
    this.place(command);
    if (changed) this.options.onRangeChange(sync);
  }

  /** Sizes the scroller's content, puts the scrollbar where the offset is, and places the rendered rows. */
  private place(command: boolean): void {
    const elements = this.elements;
    if (!elements) return;
    const total = this.heights.total;
    elements.sizer.style.height = `${physicalHeight(total, this.maxScrollPx)}px`;
    const extents = scrollExtents(total, this.viewport, this.maxScrollPx);
    if (isScaled(extents) !== this.wheelOn) {
      this.wheelOn = !this.wheelOn;
      if (this.wheelOn) elements.scroller.addEventListener('wheel', this.onWheel, { passive: false });
      else elements.scroller.removeEventListener('wheel', this.onWheel);
    }
    if (!isScaled(extents)) {
      // One to one: the scrollbar is the offset (as when rows above the viewport grow).
      if (Math.abs(this.physical - this.offset) >= 0.5) this.writePhysical(this.offset);
    } else if (command) {
      this.writePhysical(Math.round(toPhysical(this.offset, extents)));
    }
    const { style } = elements.window;
    style.height = `${this.viewport}px`;
    if (isScaled(extents)) {
      style.position = '';
      style.overflow = '';
      style.transform = '';
    } else {
      style.position = 'relative';
      style.overflow = 'visible';
      style.transform = `translateY(${this.physical}px)`;
    }
    elements.rows.style.transform = `translateY(${this.heights.offsetOf(this.renderedStart) - this.offset}px)`;
  }

  private writePhysical(p: number): void {
    const scroller = this.elements?.scroller;
    if (!scroller) return;
    const before = scroller.scrollTop;
    scroller.scrollTop = p;
    const after = scroller.scrollTop;
    this.physical = after;
    if (after !== before) this.echo = after;
  }
}
