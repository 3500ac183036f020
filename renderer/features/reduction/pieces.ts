/**
 * Issue 16: an expansion's window of up to 1 MiB, parsed once (`terminalSegments`: colours carry
 * across lines), cut into pieces so the browser lays out only the pieces in sight of the content's
 * scroll box (`content-visibility: auto`) and the app styles only those (the others show their
 * text plain until they come near). Pieces hold whole lines (about PIECE_CHARS, at most
 * MAX_PIECE_CHARS: a longer line is cut) and are blocks; the text through the first newline and
 * the text after the last one stay inline, so what comes before and after (the seen prefix, the
 * neighbouring windows' lines) continues on the same line. Nothing is added or dropped: the
 * pieces' texts, in order, are the segments' texts.
 */
import type { Segment } from '../../text/terminalText';

/** Characters in a block piece, about (it ends at the first newline past this). */
export const PIECE_CHARS = 4096;
/** The most characters in a piece: a line longer than this is cut into blocks. */
export const MAX_PIECE_CHARS = 4 * PIECE_CHARS;

export interface PieceRange {
  start: number;
  end: number;
  /** Laid out as a block of its own (whole lines, or a cut of a very long one). */
  block: boolean;
}

export interface Piece extends PieceRange {
  segments: Segment[];
  /** The text shown (escapes already out, controls as symbols): the segments' texts. */
  text: string;
  /** Whether a segment is marked (a highlight or a search hit). */
  marked: boolean;
  /** Newlines in it (its height in lines, before wrapping). */
  lines: number;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** The pieces of `text`: contiguous, in order, from 0 to its length (one inline piece when short and of one line). */
export function pieceRanges(text: string, pieceChars = PIECE_CHARS, maxChars = MAX_PIECE_CHARS): PieceRange[] {
  const first = text.indexOf('\n');
  if (first < 0 && text.length <= maxChars) return [{ start: 0, end: text.length, block: false }];
  const out: PieceRange[] = [];
  let at = 0;
  if (first >= 0 && first < maxChars) {
    out.push({ start: 0, end: first + 1, block: false });
    at = first + 1;
  }
  const tail = text.lastIndexOf('\n') + 1;
  const bodyEnd = tail > at && text.length - tail <= maxChars ? tail : text.length;
  while (at < bodyEnd) {
    const nl = text.indexOf('\n', at + pieceChars - 1);
    let end = nl >= 0 && nl + 1 <= bodyEnd && nl + 1 - at <= maxChars ? nl + 1 : Math.min(bodyEnd, at + maxChars);
    // Never between the two halves of a surrogate pair.
    if (end < bodyEnd && end - 1 > at && isHighSurrogate(text.charCodeAt(end - 1))) end--;
    out.push({ start: at, end, block: true });
    at = end;
  }
  if (at < text.length) out.push({ start: at, end: text.length, block: false });
  return out;
}

function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** `segments` cut at `pieceRanges` of their text; a segment that straddles a cut is split in two of the same style. */
export function cutPieces(segments: readonly Segment[], pieceChars = PIECE_CHARS, maxChars = MAX_PIECE_CHARS): Piece[] {
  const text = segments.map((s) => s.text).join('');
  const ranges = pieceRanges(text, pieceChars, maxChars);
  const pieces: Piece[] = ranges.map((r) => ({ ...r, segments: [], text: text.slice(r.start, r.end), marked: false, lines: 0 }));
  let k = 0;
  let pos = 0;
  for (const seg of segments) {
    const end = pos + seg.text.length;
    let from = pos;
    while (from < end) {
      const piece = pieces[k] as Piece;
      const to = Math.min(end, piece.end);
      piece.segments.push(from === pos && to === end ? seg : { ...seg, text: seg.text.slice(from - pos, to - pos) });
      if (seg.mark) piece.marked = true;
      from = to;
      if (to === piece.end && k < pieces.length - 1) k++;
    }
    pos = end;
  }
  for (const p of pieces) p.lines = countLines(p.text);
  return pieces;
}
