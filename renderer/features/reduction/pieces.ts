/**
 * An expansion's window of up to 1 MiB, parsed once (`terminalSegments`: colours carry
 * across lines), cut into pieces so the browser lays out only the pieces in sight of the content's
 * scroll box (`content-visibility: auto`) and the app styles only those (the others show their
 * text plain until they come near). Pieces hold whole lines (about PIECE_CHARS, at most
 * MAX_PIECE_CHARS: a longer line is cut) and are blocks; the text through the first newline and
 * the text after the last one stay inline, so what comes before and after (the seen prefix, the
 * neighbouring windows' lines) continues on the same line. Nothing is added or dropped: the
 * pieces' texts, in order, are the segments' texts.
 */
import type { Segment } from '../../text/terminalText';
import { terminalSegments } from '../../text/terminalText';

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
  return splitSegments(segments, pieceRanges(segments.map((s) => s.text).join(''), pieceChars, maxChars));
}

/** `segments` cut at `ranges` (string indices of their text, contiguous from 0 to its length). */
export function splitSegments(segments: readonly Segment[], ranges: readonly PieceRange[]): Piece[] {
  const text = segments.map((s) => s.text).join('');
  const pieces: Piece[] = ranges.map((r) => ({ start: r.start, end: r.end, block: r.block, segments: [], text: text.slice(r.start, r.end), marked: false, lines: 0 }));
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

// ---------------------------------------------------------------------------------------------
// The text first, the colours after: a window's pieces show their characters at once,
// from a quick pass; the parse that gives colours runs when the app is idle.

/** SGR sequences (colours): dropped from the text shown, as terminalSegments drops them (it reads at most 256 characters of one). */
// eslint-disable-next-line no-control-regex -- the escape character is exactly what this looks for
const SGR = /\u001b\[[0-9;:]{0,250}m/g;
/** What only terminalSegments shows right: any other escape or control, invisible and bidi characters, surrogates. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this looks for
const NEEDS_PARSE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\ud800-\udfff]/;

/** The characters terminalSegments shows for `raw`, when a quick pass can tell (only colours to drop), else undefined. */
export function quickDisplayText(raw: string): string | undefined {
  const stripped = raw.indexOf('\u001b') < 0 ? raw : raw.replace(SGR, '');
  return NEEDS_PARSE.test(stripped) ? undefined : stripped;
}

/** A window's pieces as the quick pass gives them: ranges in the raw text and in the text shown. */
export interface QuickPieces {
  raw: PieceRange[];
  shown: PieceRange[];
  /** The text shown of each piece. */
  texts: string[];
}

/**
 * The pieces of `raw` (cut at its newlines) and the text each shows, without parsing; undefined
 * when a piece holds more than colours to interpret (its text needs terminalSegments, whose
 * escapes may run across a cut): the caller parses the whole window then.
 */
export function quickPieces(raw: string, pieceChars = PIECE_CHARS, maxChars = MAX_PIECE_CHARS): QuickPieces | undefined {
  const ranges = pieceRanges(raw, pieceChars, maxChars);
  const texts: string[] = [];
  const shown: PieceRange[] = [];
  let at = 0;
  for (const r of ranges) {
    const piece = raw.slice(r.start, r.end);
    // A cut inside a long line may fall inside an escape.
    if (r.block && !piece.endsWith('\n') && piece.includes('\u001b')) return undefined;
    const text = quickDisplayText(piece);
    if (text === undefined) return undefined;
    texts.push(text);
    shown.push({ start: at, end: at + text.length, block: r.block });
    at += text.length;
  }
  return { raw: ranges, shown, texts };
}

/** The styled pieces of `raw` cut where `quick` cut it: the full parse, for when there is time. */
export function parsedPieces(raw: string, quick: QuickPieces, marks: readonly (readonly [number, number])[] = []): Piece[] {
  return splitSegments(terminalSegments(raw, { marks }), quick.shown);
}
