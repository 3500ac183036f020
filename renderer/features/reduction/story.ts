/**
 * What an expanded reduction's region shows, cut from the host's model: the
 * shown bytes split into what the model saw and what was hidden from it, and a range's messages as
 * rows. Only byte offsets the host sent are used; the text is never searched or parsed, only cut at
 * those offsets (shared/format/utf8Offsets converts bytes to string indices).
 */
import { byteCursor } from '../../../shared/format/utf8Offsets';
import type { ResultOf } from '../../../shared/contract';

type Outcome = ResultOf<'expand'>;
export type Boundary = NonNullable<Outcome['messages']>[number];
type Span = readonly [number, number];

/** A run of shown text, all seen or all hidden; `marks` are string indices into `text`. */
export interface StorySegment {
  hidden: boolean;
  /** Byte range of the original this segment holds. */
  bytes: [number, number];
  text: string;
  marks: [number, number][];
  /** This segment holds the start of the first highlight given (the match navigated to): the one to scroll to. */
  current?: boolean;
}

/** One message of a range, as a row: its boundaries and the segments of its content that are shown. */
export interface StoryMessage {
  boundary: Boundary;
  /** The part of its content shown, in original bytes (empty when the window holds only its header). */
  shown: [number, number];
  segments: StorySegment[];
}

/** `[from, to)` cut at the hidden spans: seen and hidden runs, in order, none empty. */
export function seenAndHidden(from: number, to: number, hidden: readonly Span[]): { hidden: boolean; bytes: [number, number] }[] {
  const out: { hidden: boolean; bytes: [number, number] }[] = [];
  let at = from;
  for (const [a, b] of [...hidden].sort((x, y) => x[0] - y[0])) {
    const s = Math.max(a, at);
    const e = Math.min(b, to);
    if (e <= s) continue;
    if (s > at) out.push({ hidden: false, bytes: [at, s] });
    out.push({ hidden: true, bytes: [s, e] });
    at = e;
  }
  if (at < to) out.push({ hidden: false, bytes: [at, to] });
  return out;
}

/**
 * Cuts `content` (the bytes `[start, …)` of the original) into segments. `ranges` are byte ranges
 * of the original, ascending; `highlight` a byte range to mark.
 */
function cut(content: string, start: number, runs: { hidden: boolean; bytes: [number, number] }[], highlight: Highlights, cursor = byteCursor(content)): StorySegment[] {
  const spans = highlightSpans(highlight);
  const first = spans.length > 0 ? (typeof highlight?.[0] === 'number' ? (highlight as Span) : (highlight as readonly Span[])[0]) : undefined;
  return runs.map(({ hidden, bytes }) => {
    const a = cursor.indexOf(bytes[0] - start);
    const b = cursor.indexOf(bytes[1] - start);
    const text = content.slice(a, b);
    const marks: [number, number][] = [];
    let m0: ReturnType<typeof byteCursor> | undefined;
    for (const h of spans) {
      if (!(h[1] > bytes[0] && h[0] < bytes[1])) continue;
      m0 ??= byteCursor(text);
      marks.push([m0.indexOf(Math.max(h[0], bytes[0]) - bytes[0]), m0.indexOf(Math.min(h[1], bytes[1]) - bytes[0])]);
    }
    const current = first !== undefined && first[0] >= bytes[0] && (first[0] < bytes[1] || (first[0] === bytes[1] && first[1] === first[0]));
    return { hidden, bytes, text, marks, ...(current ? { current } : {}) };
  });
}

/** One byte range to mark, or several (every hit of the search inside the open region), ascending or not. */
export type Highlights = Span | readonly Span[] | null;

function highlightSpans(highlight: Highlights): readonly Span[] {
  if (highlight === null || highlight.length === 0) return [];
  // byteCursor walks forward: marks in byte order.
  return (typeof highlight[0] === 'number' ? [highlight as Span] : [...(highlight as readonly Span[])]).slice().sort((x, y) => x[0] - y[0]);
}

/** The shown window `[start, end)` of one reduction, whose text is `content`, cut by its hidden spans. */
export function storySegments(content: string, window: Span, hidden: readonly Span[], highlight: Highlights): StorySegment[] {
  return cut(content, window[0], seenAndHidden(window[0], window[1], hidden), highlight);
}

/**
 * The messages of a range that meet the window, each with its shown content (headers and the
 * closing newline are the host's layout, not shown as text: the row says role and index).
 */
export function storyMessages(content: string, window: Span, boundaries: readonly Boundary[], hidden: readonly Span[], highlight: Highlights): StoryMessage[] {
  const cursor = byteCursor(content);
  const out: StoryMessage[] = [];
  for (const boundary of [...boundaries].sort((x, y) => x.start - y.start)) {
    if (boundary.end <= window[0] || (boundary.start >= window[1] && window[1] > window[0])) continue;
    const from = Math.min(Math.max(boundary.content_start, window[0]), window[1]);
    const to = Math.max(from, Math.min(boundary.end - 1, window[1]));
    out.push({ boundary, shown: [from, to], segments: cut(content, window[0], seenAndHidden(from, to, hidden), highlight, cursor) });
  }
  return out;
}

/** Every shown outcome's boundaries, once each (windows appended by `Load more` may share a message). */
export function mergedBoundaries(outcomes: readonly Outcome[]): Boundary[] {
  const byStart = new Map<number, Boundary>();
  for (const o of outcomes) for (const b of o.messages ?? []) byStart.set(b.start, b);
  return [...byStart.values()].sort((a, b) => a.start - b.start);
}

/** Every shown outcome's hidden spans (they are the same spans: the original does not change). */
export function mergedHidden(outcomes: readonly Outcome[]): Span[] {
  const seen = new Map<string, Span>();
  for (const o of outcomes) for (const s of o.hidden ?? []) seen.set(`${s[0]}:${s[1]}`, s);
  return [...seen.values()];
}
