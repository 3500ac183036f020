import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { terminalSegments } from '../../text/terminalText';
import { PIECE_CHARS, cutPieces, parsedPieces, pieceRanges, quickDisplayText, quickPieces } from './pieces';

/** Small pieces, so short texts have many (the sizes are parameters). */
const P = 8;
const MAX = 32;

/** Text of lines of random lengths (some longer than a piece may be), with colours, multi-byte characters and surrogate pairs. */
const logText = fc
  .array(
    fc.record({
      len: fc.integer({ min: 0, max: 3 * MAX }),
      filler: fc.constantFrom('a', 'é', '😀', '\u001b[31mred\u001b[0m', '\u0007'),
      newline: fc.boolean(),
    }),
    { maxLength: 20 },
  )
  .map((lines) => lines.map((l) => l.filler.repeat(Math.ceil(l.len / l.filler.length)) + (l.newline ? '\n' : '')).join(''));

describe('pieces of an output window', () => {
  it('cover the text in order; blocks are whole lines (or cuts of a too-long line), inline only first and last (fast-check)', () => {
    fc.assert(
      fc.property(logText, (text) => {
        const ranges = pieceRanges(text, P, MAX);
        expect(ranges.map((r) => text.slice(r.start, r.end)).join('')).toBe(text);
        ranges.forEach((r, k) => {
          if (k > 0) expect(r.start).toBe(ranges[k - 1]?.end);
          expect(r.end - r.start).toBeLessThanOrEqual(MAX);
          if (r.end < text.length) expect(text.charCodeAt(r.end - 1) >= 0xd800 && text.charCodeAt(r.end - 1) <= 0xdbff, 'a surrogate pair is never cut').toBe(false);
          if (!r.block) expect(k === 0 || k === ranges.length - 1, 'inline: only the first or the last piece').toBe(true);
          // A block ends a line, unless it is a cut of a line longer than a piece may be (or the end of the text).
          if (r.block && text[r.end - 1] !== '\n') expect(r.end - r.start >= MAX - 1 || r.end === text.length).toBe(true);
        });
      }),
      { numRuns: 200 },
    );
  });

  it('keep every parsed segment: same characters, same styles, same marks, in order (fast-check)', () => {
    fc.assert(
      fc.property(logText, fc.array(fc.tuple(fc.nat(), fc.nat({ max: 50 })), { maxLength: 4 }), (text, raw) => {
        const marks = raw.map(([a, n]) => [a % (text.length + 1), Math.min(text.length, (a % (text.length + 1)) + n)] as const);
        const segments = terminalSegments(text, { marks });
        const pieces = cutPieces(segments, P, MAX);
        const perChar = (segs: readonly { text: string; style?: unknown; mark?: boolean; control?: unknown }[]) => segs.flatMap((s) => [...s.text].map((c) => [c, s.style, s.mark === true, s.control !== undefined]));
        expect(perChar(pieces.flatMap((p) => p.segments))).toEqual(perChar(segments));
        for (const p of pieces) {
          expect(p.segments.map((s) => s.text).join('')).toBe(p.text);
          expect(p.marked).toBe(p.segments.some((s) => s.mark === true));
          expect(p.lines).toBe(p.text.split('\n').length - 1);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('a 1 MiB window of short lines is a few hundred pieces of about PIECE_CHARS', () => {
    const text = 'x'.repeat(79).concat('\n').repeat((1024 * 1024) / 80);
    const ranges = pieceRanges(text);
    expect(ranges.length).toBeGreaterThan(200);
    expect(ranges.length).toBeLessThan(300);
    for (const r of ranges.slice(1, -1)) expect(r.end - r.start).toBeGreaterThanOrEqual(PIECE_CHARS);
  });

  it('the quick pass shows the characters the parse shows, cut where the parse is cut, or leaves it to the parse (fast-check)', () => {
    const withEscapes = fc
      .array(fc.constantFrom('abc', 'é', '😀', '\n', '\u001b[31m', '\u001b[0m', '\u001b[38;5;200m', '\u001b]0;title\u0007', '\u001b[2J', '\u0007', '\u202e', '\ud800', 'x'.repeat(40)), { maxLength: 60 })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(withEscapes, (raw) => {
        const parsed = terminalSegments(raw).map((s) => s.text).join('');
        const quick = quickDisplayText(raw);
        if (quick !== undefined) expect(quick).toBe(parsed);
        const pieces = quickPieces(raw, P, MAX);
        if (pieces === undefined) return;
        expect(pieces.texts.join('')).toBe(parsed);
        const full = parsedPieces(raw, pieces);
        expect(full.map((p) => p.text)).toEqual(pieces.texts);
        expect(full.map((p) => p.block)).toEqual(pieces.raw.map((r) => r.block));
      }),
      { numRuns: 300 },
    );
  });
});
