/**
 * Scanning one hidden span (SPEC §5.3): held as text, or read from a byte source window by window.
 * A source's own fast paths are used where it has them (`findAll` for a literal in raw bytes,
 * `findAllFolded`, `findAllDirect`); a regex with a required literal runs the engine only around
 * the literal's occurrences (`scanCandidates`). Matches stay leftmost-first and non-overlapping
 * across windows, and every step yields within SEARCH_STEP_WORK of engine work.
 */
import { floorSourceBoundary, memorySource } from '../format/bytes';
import type { ByteSource } from '../format/types';
import { DecodedBytes, Utf16ToUtf8Cursor, utf16IndexOfByte, utf8Encode, utf8Length, utf8SequenceAt, wellFormed } from '../format/utf8';
import type { SimpleMatcher } from './simpleMatcher';
import type { CandidatePrefilter, CompiledMatcher } from './matcher';
import { matchInSteps, windowsFor } from './matcher';
import { snippetOf, sourceSnippet } from './snippets';
import type { AddMatch } from './types';

/**
 * Searches a hidden span held as text. Its lone surrogates are read as U+FFFD, as its bytes are
 * (same offsets: one unit for one, three bytes for three). A span too long for one call of the
 * engine is searched in windows over its bytes, as a large content is.
 */
export function* scanText(
  unit: { content: string; bytes: number; span: [number, number] },
  matcher: CompiledMatcher,
  counted: () => boolean,
  add: AddMatch,
  snippetMax: number,
  isAborted: () => boolean,
  windowBytes: number,
): Generator<void, void> {
  const content = wellFormed(unit.content);
  if (matcher.cost > 0 && matcher.cost * (unit.span[1] - unit.span[0]) > matcher.stepWork) {
    yield* scanSource(memorySource(utf8Encode(content)), unit.span, matcher, undefined, counted, add, snippetMax, isAborted, windowBytes);
    return;
  }
  // Spans mostly start at 0 or a short kept prefix and end at the content's end: no walk needed there.
  const from = unit.span[0] === 0 ? 0 : utf16IndexOfByte(content, unit.span[0]);
  const to = unit.span[1] === unit.bytes ? content.length : utf16IndexOfByte(content, unit.span[1]);
  const text = content.slice(from, to);
  const cursor = new Utf16ToUtf8Cursor(text, unit.span[0]);
  yield* matchInSteps(
    matcher,
    text,
    0,
    (s, e) => {
      if (!counted()) return false;
      const before = cursor.bytesTo(s);
      // A difference of counts from 0: a small integer, whatever number the span starts at.
      const length = cursor.bytesTo(e) - before;
      add(unit.span[0] + before, length, () => snippetOf(text, s, e, length, snippetMax));
      return true;
    },
    isAborted,
  );
}

/**
 * Searches a hidden span of a large content. A case-sensitive substring goes through the source's
 * own search when it has one (a file-backed source searches its raw bytes); anything else is
 * decoded window by window, each window starting where the previous match ended so matches stay
 * leftmost-first and non-overlapping across windows. Yields between windows and engine steps.
 */
export function* scanSource(
  source: ByteSource,
  span: [number, number],
  matcher: CompiledMatcher,
  literal: Uint8Array | undefined,
  counted: () => boolean,
  add: AddMatch,
  snippetMax: number,
  isAborted: () => boolean,
  windowBytes: number,
): Generator<void, void> {
  if (literal && source.findAll) {
    source.findAll(literal, span[0], span[1], (at) => {
      if (!counted()) return false;
      add(at(), literal.length, () => sourceSnippet(source, span, at(), literal.length, snippetMax));
      return true;
    });
    return;
  }
  if (matcher.folded !== undefined && source.findAllFolded) {
    const done = source.findAllFolded(matcher.folded, span[0], span[1], (at, length) => {
      if (!counted()) return false;
      add(at(), length, () => sourceSnippet(source, span, at(), length, snippetMax));
      return true;
    });
    if (done) return;
  }
  let next = span[0];
  const p = matcher.prefilter;
  if (p?.direct && p.rawSafe && source.findAllDirect && Number.isFinite(p.before)) {
    // Matched in the source's raw bytes: only the matches kept ask their offsets.
    const done = source.findAllDirect(p.bytes, p.direct, p.before, p.before + p.after, span[0], span[1], (at, length) => {
      if (!counted()) return false;
      add(at, length, () => sourceSnippet(source, span, at(), length, snippetMax));
      return true;
    });
    if (done !== undefined) {
      if (done >= span[1] || isAborted()) return;
      // Bytes the direct matcher could not read as UTF-8, or a match longer than the source reads
      // past a window: the rest goes the decoded way, from the end of the last match reported.
      next = done;
    }
  }
  if (matcher.prefilter && source.findAll) {
    const resume = yield* scanCandidates(source, next === span[0] ? span : [next, span[1]], matcher, matcher.prefilter, counted, add, snippetMax, isAborted);
    if (resume === null) return;
    // A line too long for a window around one candidate: the rest is searched window by window.
    next = resume;
  }
  const { own: ownBytes, overlap } = windowsFor(matcher, windowBytes);
  /** Where the last match reported ended: an empty match there is not reported, in this window or the next. */
  let lastEnd = -1;
  // The last window owns the span's end too (an empty match there), and an empty span is one window.
  let a = span[0];
  do {
    if (isAborted()) return;
    // A window ends on a character boundary, at least one character on.
    const own = span[1] - a <= ownBytes ? span[1] : Math.max(floorSourceBoundary(source, a + ownBytes), floorSourceBoundary(source, Math.min(span[1], a + 4)));
    const last = own === span[1];
    const from = Math.max(a, next);
    if (from < own || (last && from === own)) {
      const start = Math.max(span[0], floorSourceBoundary(source, from - snippetMax));
      const end = Math.min(span[1], floorSourceBoundary(source, Math.min(span[1], own + overlap)));
      const textEnd = Math.max(end, own);
      // Offsets from the bytes: a byte that is not UTF-8 is one byte of them, not U+FFFD's three.
      const decoded = new DecodedBytes(source.read(start, textEnd), start);
      const { text } = decoded;
      let stop = false;
      const stopped = yield* matchInSteps(
        matcher,
        text,
        decoded.indexOfByte(from),
        (s, e) => {
          const offset = decoded.byteOffsetOf(s);
          if (offset > own || (offset === own && !last)) return false;
          const endOffset = decoded.byteOffsetOf(e);
          next = endOffset > offset ? endOffset : decoded.charEndOf(s);
          lastEnd = endOffset;
          if (!counted()) {
            stop = true;
            return false;
          }
          const length = endOffset - offset;
          // A snippet needs up to snippetMax bytes of context on either side: read it when the window holds less.
          const roomy = (start === span[0] || offset - start >= snippetMax) && (textEnd === span[1] || textEnd - endOffset >= snippetMax);
          add(offset, length, () => (roomy ? snippetOf(text, s, e, length, snippetMax) : sourceSnippet(source, span, offset, length, snippetMax)));
          return true;
        },
        isAborted,
        lastEnd >= start ? decoded.indexOfByte(lastEnd) : -1,
      );
      if (stop || (stopped && isAborted())) return;
      yield;
    }
    a = own;
  } while (a < span[1]);
}

/**
 * The leftmost-first match starting in `[at, q]` of the window `bytes` (which starts at byte `at`
 * and holds every match starting there whole, see scanCandidates), by `direct`: its byte span,
 * null when none starts there, undefined when the window is not well-formed UTF-8 there (the
 * engine then decides).
 */
function directMatch(direct: SimpleMatcher, bytes: Uint8Array, at: number, q: number): [number, number] | null | undefined {
  for (let s = 0; s <= q - at; ) {
    const end = direct.matchAt(bytes, s, bytes.length);
    if (end === undefined) return undefined;
    if (end >= 0) return [at + s, at + end];
    const d = utf8SequenceAt(bytes, s, bytes.length);
    if (d < 0) return undefined;
    s += d % 8;
  }
  return null;
}

/** A window around a candidate: its byte range in the content, on character boundaries, and its bytes. */
interface Window {
  w: [number, number];
  bytes: Uint8Array;
}

/** Content bytes read at once around a candidate (more candidates may lie in them). */
const CANDIDATE_BLOCK_BYTES = 4 * 1024;
/** Widest window around one candidate (a line, for an unbounded pattern); past it the plain window scan takes over. */
const MAX_CANDIDATE_WINDOW_BYTES = 4 * 1024 * 1024;
/** Engine work one candidate counts for beyond its window's scan (see scanCandidates). */
const CANDIDATE_OVERHEAD_WORK = 1024;
/** Bytes read at a time while looking for a line's start or end. */
const LINE_PROBE_BYTES = 16 * 1024;

/**
 * Searches a hidden span of a source by its regex's required literal: the source's fast
 * raw-bytes `findAll` finds the literal, and the engine runs only in a window around each
 * occurrence — exactly the matches of one engine scan of the span.
 *
 * Invariant: no match starts in `[span[0], x)`. A match starting at s ≥ x contains an occurrence
 * of the literal at or after s, at most `before` code points (4 bytes each) after s, and on the
 * same line when no match can hold a newline. So for q, the first occurrence at or after x, no
 * match starts in `[x, lo)` with lo = max(x, q − 4·before, line start); and every match starting in
 * `[lo, q]` ends by hi = min(q + 4·after, line end). The engine's leftmost match in `[lo, hi)` (the
 * program has no assertions, so the window's edges change nothing) is then the span's next match
 * when it starts at or before q; when it starts after q (or there is none), none starts in `[x, q]`.
 * A simple pattern's first match starting in `[lo, q]` is found by its direct matcher
 * (`simpleMatcher`), which tries each start there, instead of the engine.
 *
 * Candidates cluster: the bytes read around one (a block) often hold the next occurrences of the
 * literal. Those are the occurrences `findAll` reports next, in its order (the literal has no
 * border, so they are all of them), and are handled from the block; `findAll`'s reports of them
 * are then passed over without asking their offsets (each costs a walk of the raw bytes).
 *
 * Returns null when the span is done, or the offset from which a plain window scan must go on (a
 * line wider than MAX_CANDIDATE_WINDOW_BYTES).
 */
function* scanCandidates(
  source: ByteSource,
  span: [number, number],
  matcher: CompiledMatcher,
  prefilter: CandidatePrefilter,
  counted: () => boolean,
  add: AddMatch,
  snippetMax: number,
  isAborted: () => boolean,
): Generator<void, number | null> {
  const literalBytes = prefilter.bytes.length;
  const firstCharBytes = utf8Length(String.fromCodePoint(prefilter.literal.codePointAt(0) as number));
  /**
   * The newlines around the last candidate, when found: [after the one before it, the one after it].
   * Candidates come in order, so a long line is read about once however many candidates it holds.
   */
  let line: [number | null, number | null] = [null, null];
  /** Where the line holding q starts, looking back no further than `floor` (which is returned when no newline is there). */
  const lineStart = (q: number, floor: number): number => {
    const known = line[0];
    if (known !== null && known <= q && (line[1] === null || q <= line[1])) return Math.max(floor, known);
    for (let b = q; b > floor; ) {
      const a = Math.max(floor, b - LINE_PROBE_BYTES);
      const i = source.read(a, b).lastIndexOf(0x0a);
      if (i !== -1) return (line[0] = a + i + 1);
      b = a;
    }
    return floor;
  };
  /** Where the line holding q ends (its newline), looking no further than `limit` (returned when no newline is there). */
  const lineEnd = (q: number, limit: number): number => {
    const known = line[1];
    if (known !== null && q <= known) return Math.min(limit, known);
    for (let a = q; a < limit; a += LINE_PROBE_BYTES) {
      const i = source.read(a, Math.min(limit, a + LINE_PROBE_BYTES)).indexOf(0x0a);
      if (i !== -1) return (line[1] = a + i);
    }
    return limit;
  };
  const reach = prefilter.before + prefilter.after;
  let x = span[0];
  /** Where `findAll` goes on from after a pause. */
  let resumeFrom = span[0];
  /**
   * Content bytes read around recent candidates, from `at`. Candidates cluster (in the bench's
   * dense fixture two thirds lie within 256 bytes of the one before), so one read serves several.
   */
  let block: { at: number; bytes: Uint8Array } | null = null;
  /** The last candidate whose offset findAll gave: a block is read ahead only where candidates come close together. */
  let lastAsked = -Infinity;
  let clustered = false;
  const holds = (a: number, b: number): boolean => block !== null && a >= block.at && b <= block.at + block.bytes.length;
  /** Bytes [a, b) of the content: from the block when it holds them, else read with a new block from a. */
  const bytesAt = (a: number, b: number): Uint8Array => {
    if (!holds(a, b)) block = { at: a, bytes: source.read(a, clustered ? Math.max(b, Math.min(span[1], a + CANDIDATE_BLOCK_BYTES)) : b) };
    const { at, bytes } = block as { at: number; bytes: Uint8Array };
    return bytes.subarray(a - at, b - at);
  };
  /** The source, read from the block where it holds the bytes (a snippet's context mostly lies there). */
  const viaBlock: ByteSource = { length: source.length, read: (a, b) => (holds(a, b) ? bytesAt(a, b) : source.read(a, b)) };
  /**
   * The window around candidate q and its bytes (read once, for the direct matcher or the engine),
   * or the offset a plain scan must go on from (a line wider than a window). With `held`, only a
   * bounded window the block already holds (else null).
   */
  function windowAt(q: number): Window | number;
  function windowAt(q: number, held: true): Window | null;
  function windowAt(q: number, held = false): Window | number | null {
    // A match starting in [lo, q] holds its first occurrence at most `before` code points in, and
    // ends at most `after` code points after that occurrence's start: by q + 4·(before + after).
    // Both are put on character boundaries from the window's own bytes, below.
    let lo = Number.isFinite(prefilter.before) ? Math.max(x, q - 4 * prefilter.before) : x;
    let hi = Number.isFinite(reach) ? Math.min(span[1], q + 4 * reach) : span[1];
    if (held) {
      if (!Number.isFinite(reach) || !holds(lo, hi < span[1] ? hi + 1 : hi)) return null;
    } else {
      // Only an unbounded side looks for the line's edge (a bounded one is narrower already).
      if (line[1] !== null && q > line[1]) line = [null, null];
      if (!Number.isFinite(prefilter.before)) {
        const floor = Math.max(x, q - MAX_CANDIDATE_WINDOW_BYTES);
        const ls = lineStart(q, floor);
        if (ls === floor && floor > x) return x;
        lo = Math.max(lo, ls);
      }
      if (!Number.isFinite(reach)) {
        const limit = Math.min(span[1], q + MAX_CANDIDATE_WINDOW_BYTES);
        const le = lineEnd(q, limit);
        if (le === limit && limit < span[1]) return x;
        hi = Math.min(hi, le);
      }
      if (hi - lo > MAX_CANDIDATE_WINDOW_BYTES) return x;
    }
    // One byte past hi tells whether hi splits a character (span[1] and a line's end never do).
    const bytes = bytesAt(lo, hi < span[1] ? hi + 1 : hi);
    // lo moves up to a boundary: a match starts on one, so none starts in [x, lo) still. q is a
    // boundary at or after lo, so the window still holds it. hi moves down: a match ends on one.
    let a = 0;
    while (a < hi - lo && ((bytes[a] as number) & 0xc0) === 0x80) a++;
    let b = hi - lo;
    while (b > a && b < bytes.length && ((bytes[b] as number) & 0xc0) === 0x80) b--;
    return { w: [lo + a, lo + b], bytes: bytes.subarray(a, b) };
  }
  /**
   * The next occurrence of the literal at or after `from` lying wholly in the block, or -1. The
   * literal has no border, so these are exactly the occurrences `findAll` reports, in its order.
   */
  const literal = prefilter.bytes;
  const nextInBlock = (from: number): number => {
    if (block === null || from < block.at) return -1;
    const { at, bytes } = block;
    for (let i = bytes.indexOf(literal[0] as number, from - at); i !== -1 && i + literal.length <= bytes.length; i = bytes.indexOf(literal[0] as number, i + 1)) {
      let k = 1;
      while (k < literal.length && bytes[i + k] === literal[k]) k++;
      if (k === literal.length) return at + i;
    }
    return -1;
  };
  /** Takes the first match in a candidate's window: reported when it starts by q (see above). */
  const settle = (q: number, found: [number, number] | null): boolean => {
    if (found !== null && found[0] <= q) {
      if (!counted()) return false;
      const [offset, end] = found;
      add(offset, end - offset, () => sourceSnippet(viaBlock, span, offset, end - offset, snippetMax));
      x = end;
    } else {
      x = q + firstCharBytes;
    }
    return true;
  };
  /** The engine's first match in a window. */
  const engineFirst = (window: Window): [number, number] | null => {
    const decoded = new DecodedBytes(window.bytes, window.w[0]);
    let found: [number, number] | null = null;
    matcher.find(decoded.text, (s, e) => {
      found = [decoded.byteOffsetOf(s), decoded.byteOffsetOf(e)];
      return false;
    });
    return found;
  };
  /** Engine work since the last pause, and a window too wide for one call of the engine (run in steps). */
  let work = 0;
  let wide: { q: number; window: Window } | null = null;
  /** Candidate q (at or after x) in its window: settled, or left for the engine in steps, or the search stopped. */
  const candidate = (q: number, window: Window): 'go' | 'wide' | 'stop' => {
    const { w } = window;
    // The direct matcher tries each start in [lo, q], each at most one pass over the window.
    const directWork = (q - w[0] + 1) * (w[1] - w[0]);
    const byDirect = prefilter.direct && directWork <= matcher.stepWork ? directMatch(prefilter.direct, window.bytes, w[0], q) : undefined;
    const direct = byDirect !== undefined;
    if (!direct && (w[1] - w[0]) * matcher.cost > matcher.stepWork) {
      wide = { q, window };
      return 'wide';
    }
    if (!settle(q, direct ? byDirect : engineFirst(window))) return 'stop';
    // Each candidate also costs its offset, its window's read and decode: some thousand engine
    // steps' worth, so a text dense with candidates still pauses often enough.
    work += CANDIDATE_OVERHEAD_WORK + (direct ? directWork : (w[1] - w[0]) * matcher.cost);
    return 'go';
  };
  while (x < span[1]) {
    // Candidates are handled as findAll meets them (the source keeps its place and an anchor near
    // each one, so the window reads little); it is stopped to pause every stepWork of engine work,
    // to run a wide window in steps, or for good.
    work = 0;
    wide = null;
    let paused = false;
    let outcome = 'go' as 'go' | 'stop' | number;
    /** Occurrences already handled from the block, which findAll reports next: passed over without asking their offsets. */
    let handled = 0;
    source.findAll?.(prefilter.bytes, Math.max(resumeFrom, x), span[1], (offset) => {
      if (handled > 0) {
        handled--;
        return true;
      }
      const q = offset();
      resumeFrom = q + literalBytes;
      clustered = q - lastAsked < CANDIDATE_BLOCK_BYTES;
      lastAsked = q;
      if (q < x) return true;
      const window = windowAt(q);
      if (typeof window === 'number') {
        outcome = window;
        return false;
      }
      let step = candidate(q, window);
      // The next occurrences whose windows the block holds are handled here, in findAll's order.
      for (let o = nextInBlock(resumeFrom); step === 'go' && work < matcher.stepWork && o !== -1; o = nextInBlock(resumeFrom)) {
        if (o >= x) {
          const next = windowAt(o, true);
          if (next === null) break;
          step = candidate(o, next);
        }
        handled++;
        resumeFrom = o + literalBytes;
      }
      if (step === 'stop') outcome = 'stop';
      if (step !== 'go') return false;
      if (work < matcher.stepWork) return true;
      paused = true;
      return false;
    });
    if (outcome === 'stop') return null;
    if (typeof outcome === 'number') return outcome;
    const pending = wide as { q: number; window: Window } | null;
    if (pending !== null) {
      const decoded = new DecodedBytes(pending.window.bytes, pending.window.w[0]);
      let found: [number, number] | null = null;
      yield* matchInSteps(
        matcher,
        decoded.text,
        0,
        (s, e) => {
          found = [decoded.byteOffsetOf(s), decoded.byteOffsetOf(e)];
          return false;
        },
        isAborted,
      );
      if (isAborted() || !settle(pending.q, found)) return null;
    } else if (!paused) {
      return null; // findAll met every occurrence
    }
    yield;
    if (isAborted()) return null;
  }
  return null;
}
