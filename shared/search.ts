/**
 * §5.3 sidecarSearch: bounded search over content currently reduced out of the view.
 *
 * Invariants: every match lies inside a hidden span of its reduction's resolved original; each
 * span is searched as its own string (a match never straddles into visible text); matches are
 * leftmost-first and non-overlapping, ordered by view index then offset; the compact JSON of the
 * result never exceeds `max_result_bytes`, matches being dropped whole and `truncated` saying so.
 *
 * Cost: a pattern compiles to at most MAX_REGEX_PROGRAM_SIZE instructions, and the regex engine is
 * never run for more than SEARCH_STEP_WORK (instructions × UTF-16 units), or for a pattern whose
 * matches are long but bounded about 8 × MAX_REGEX_PROGRAM_SIZE², between two looks at the signal,
 * however the pattern and the content are made. `sidecarSearchSteps` yields there too, so a host
 * can serve other requests while a search runs.
 */
import { RE2JS } from 're2js';
import { MAX_MATCHES, MAX_REGEX_PROGRAM_SIZE, MAX_RESULT_BYTES, SNIPPET_MAX_BYTES } from './constants';
import type { ResolveOptions } from './original';
import { canonicalFullyVisible, hiddenSpan, resolveMessage, resolveOriginal } from './original';
import { floorSourceBoundary, memorySource } from './bytes';
import type { ByteSource, MessageList, Reduction, Result, SearchMode, SidecarSearchResult } from './types';
import { ContentUnavailableError, err, isRangeKind, ok } from './types';
import { Utf16ToUtf8Cursor, utf8Decode, utf8Encode, utf8Length, wellFormed } from './utf8';
import type { LiteralPrefilter } from './literalPrefilter';
import { literalPrefilter } from './literalPrefilter';
import type { SimpleMatcher } from './simpleMatcher';
import { decodeAt, rawSafe, simpleMatcher } from './simpleMatcher';

export interface SearchOptions extends ResolveOptions {
  mode?: SearchMode;
  case_sensitive?: boolean;
  max_matches?: number;
  snippet_max_bytes?: number;
  max_result_bytes?: number;
  /** Checked between spans and while scanning (at least every SEARCH_STEP_WORK of engine work); an aborted search returns `cancelled`. */
  signal?: { readonly aborted: boolean };
  /** Window size over large contents (default 1 MiB); tests make it small to cross windows. */
  window_bytes?: number;
  /** Engine work between two looks at the signal (default SEARCH_STEP_WORK); tests make it small. */
  step_work?: number;
  /** Scan raw bytes for the literal every regex match contains, running the engine only around it (default true; tests compare both). */
  literal_prefilter?: boolean;
  /** Match a simple pattern around each literal candidate without the engine (`simpleMatcher`; default true; tests compare both). */
  direct_match?: boolean;
  /** Called as the search goes: hidden spans searched so far of all, and their bytes. */
  onProgress?: (progress: { spans_searched: number; spans: number; hidden_bytes_searched: number }) => void;
}

/**
 * Finds leftmost-first, non-overlapping matches in one string from UTF-16 index `from`; yields
 * UTF-16 [start, end) until `onMatch` returns false. `lastEnd` is where the previous match ended,
 * when resuming after one (an empty match there is not reported): resuming at `(e, e)` after a
 * match ending at `e` continues exactly as if the matcher had not stopped.
 */
type Matcher = (text: string, onMatch: (start: number, end: number) => boolean, from?: number, lastEnd?: number) => void;

/**
 * A matcher; what one UTF-16 unit scanned can cost it (the program size, 0 when it never runs the
 * regex engine); and the fewest and most code points a match can span (`max` Infinity when
 * unbounded or not known).
 */
interface CompiledMatcher {
  find: Matcher;
  cost: number;
  minRunes: number;
  maxRunes: number;
  /** The literal every match contains, as a string and as UTF-8 (`literalPrefilter`), when an exact one exists. */
  prefilter?: CandidatePrefilter;
  /** A case-insensitive printable-ASCII substring query, which a source may find in its raw bytes (`findAllFolded`). */
  folded?: string;
  /** The search's SEARCH_STEP_WORK (`step_work`). */
  stepWork: number;
}

/** A literal prefilter with the literal's UTF-8, and the direct matcher of a simple pattern (`simpleMatcher`). */
type CandidatePrefilter = LiteralPrefilter & {
  bytes: Uint8Array;
  direct?: SimpleMatcher;
  /** The direct matcher never matches a byte a JSON writer escapes (`rawSafe`): a source may match it in raw bytes. */
  rawSafe?: boolean;
};

/**
 * Regex engine work (program instructions × UTF-16 units scanned, an upper bound of the NFA's
 * steps) allowed between two looks at the signal: a quarter to half a second at the engine's
 * slowest (some 30 to 60 million steps a second). Windows over a content are sized so that one
 * call of the engine stays within it (but see `windowsFor` for patterns with long bounded
 * matches), and each match found is charged for all the engine may have read to find it.
 * Smaller steps cost ordinary patterns throughput: at 2^22, regex searches of a 256 MiB sidecar
 * took about 25% longer.
 */
export const SEARCH_STEP_WORK = 1 << 24;

/** A large content is searched in windows of this many bytes (plus an overlap, below): small enough that the strings decoded for the regex engine stay small. */
const WINDOW_BYTES = 1024 * 1024;
/**
 * How far a window reaches past its own part: a literal match always fits; a regex match in a large
 * content is searched within its window, so one longer than this can be cut at the window's end.
 * For a costly pattern both shrink (`windowsFor`).
 */
const WINDOW_OVERLAP_BYTES = 64 * 1024;

/**
 * Own part and overlap of the windows a matcher of `cost` scans: at most SEARCH_STEP_WORK / cost
 * bytes together (a UTF-16 unit is at least one byte), so no call of the engine does more than
 * SEARCH_STEP_WORK. A pattern of MAX_REGEX_PROGRAM_SIZE instructions still gets windows of kilobytes.
 */
function windowsFor(matcher: CompiledMatcher, windowBytes: number): { own: number; overlap: number } {
  if (matcher.cost === 0) return { own: windowBytes, overlap: WINDOW_OVERLAP_BYTES };
  const reach = Math.floor(matcher.stepWork / matcher.cost);
  // A match of n code points spans at most 4n bytes. When every match is that short, the overlap
  // holds any match that starts in the window's own part and at least one character after it (for
  // `\b` or `$` to see), so the windows find exactly what one search of the whole span would. That
  // exactness is kept even where it costs more than `reach`: 2 × 4 × maxRunes bytes per call at
  // most, times a program at least maxRunes long, so about 8 × MAX_REGEX_PROGRAM_SIZE² (2^25).
  // For an unbounded pattern a match longer than the overlap can be cut; the shortest still fit.
  const overlap = Number.isFinite(matcher.maxRunes)
    ? 4 * matcher.maxRunes + 8
    : Math.max(4 * matcher.minRunes + 8, Math.min(WINDOW_OVERLAP_BYTES, Math.floor(reach / 2)));
  // The own part is at least as long as the overlap (no more than half the bytes scanned are
  // scanned twice), unless `window_bytes` asks for smaller windows.
  return { own: Math.max(1, Math.min(windowBytes, Math.max(overlap, reach - overlap))), overlap };
}

const UNKNOWN_LENGTH = { minRunes: 0, maxRunes: Infinity };

/**
 * The fewest and most code points a match of `re` spans, read from its compiled program: each
 * rune instruction consumes one code point, a loop through one makes matches unbounded. re2js does
 * not publish its program, so a program that does not look as expected answers "unknown" (0,
 * Infinity), which only makes windows less exact, never a search wrong.
 */
export function matchLengthBounds(re: RE2JS): { minRunes: number; maxRunes: number } {
  const prog = (re as unknown as { re2Input?: { prog?: { inst?: unknown; start?: unknown } } }).re2Input?.prog;
  if (!prog || !Array.isArray(prog.inst) || typeof prog.start !== 'number') return UNKNOWN_LENGTH;
  const inst = prog.inst as readonly { op?: unknown; out?: unknown; arg?: unknown }[];
  const n = inst.length;
  const start = prog.start;
  // Op codes of re2js's Inst: ALT 1, ALT_MATCH 2, CAPTURE 3, EMPTY_WIDTH 4, FAIL 5, MATCH 6, NOP 7,
  // RUNE 8, RUNE1 9, RUNE_ANY 10, RUNE_ANY_NOT_NL 11, LB_WRITE 12, LB_CHECK 13.
  const next: number[][] = [];
  const consumes: boolean[] = [];
  const isMatch: boolean[] = [];
  const valid = (pc: unknown): pc is number => typeof pc === 'number' && Number.isInteger(pc) && pc >= 0 && pc < n;
  for (const i of inst) {
    const op = i.op;
    if (typeof op !== 'number' || op < 1 || op > 13) return UNKNOWN_LENGTH;
    const succ = op === 5 || op === 6 ? [] : op === 1 || op === 2 ? [i.out, i.arg] : [i.out];
    if (!succ.every(valid)) return UNKNOWN_LENGTH;
    next.push(succ);
    consumes.push(op >= 8 && op <= 11);
    isMatch.push(op === 6);
  }
  if (!valid(start)) return UNKNOWN_LENGTH;

  // Fewest: a 0-1 breadth-first search from the start to any MATCH.
  const dist = new Array<number>(n).fill(Infinity);
  dist[start] = 0;
  const deque: number[] = [start];
  let minRunes = Infinity;
  for (let head = 0; head < deque.length; head++) {
    const pc = deque[head] as number;
    const d = dist[pc] as number;
    if (isMatch[pc]) minRunes = Math.min(minRunes, d);
    for (const to of next[pc] as number[]) {
      const nd = d + (consumes[pc] ? 1 : 0);
      if (nd < (dist[to] as number)) {
        dist[to] = nd;
        deque.push(to);
      }
    }
  }
  if (!Number.isFinite(minRunes)) return { minRunes: 0, maxRunes: 0 };

  // Most: longest path by an iterative depth-first search; any loop reachable from the start counts as unbounded.
  const state = new Uint8Array(n);
  const longest = new Array<number>(n).fill(-Infinity);
  const stack: number[] = [start];
  while (stack.length > 0) {
    const pc = stack[stack.length - 1] as number;
    if (state[pc] === 0) {
      state[pc] = 1;
      for (const to of next[pc] as number[]) {
        if (state[to] === 1) return { minRunes, maxRunes: Infinity };
        if (state[to] === 0) stack.push(to);
      }
      continue;
    }
    stack.pop();
    if (state[pc] === 2) continue;
    state[pc] = 2;
    let best = isMatch[pc] ? 0 : -Infinity;
    for (const to of next[pc] as number[]) best = Math.max(best, longest[to] as number);
    longest[pc] = best + (consumes[pc] ? 1 : 0);
  }
  return { minRunes, maxRunes: Math.max(minRunes, longest[start] as number) };
}

/**
 * One string searched on its own: a hidden span of one message, attributed to a reduction (or, for
 * `textSearchSteps`, an in-memory text attributed to what the caller says). Content is resolved
 * only when the unit is searched, so a search holds one message's content at a time.
 */
interface SearchUnit<O = Reduction> {
  index: number;
  /** The whole resolved content of the message and its hidden span in bytes; null when nothing is searchable. */
  load: () => LoadedUnit<O> | null;
}

/** A unit's content: as text when it is in memory, else as a source read window by window. */
type LoadedUnit<O = Reduction> = { span: [number, number]; attribute: (offset: number, length: number) => O; searched: number } & (
  | { content: string; /** UTF-8 bytes of `content`. */ bytes: number }
  | { source: ByteSource }
);

function withDirect(prefilter: LiteralPrefilter, direct: SimpleMatcher | undefined): CandidatePrefilter {
  return { ...prefilter, bytes: utf8Encode(prefilter.literal), direct, rawSafe: direct !== undefined && rawSafe(direct) };
}

function literalMatcher(query: string): Matcher {
  return (text, onMatch, from = 0) => {
    for (let i = text.indexOf(query, from); i !== -1; i = text.indexOf(query, i + query.length)) {
      if (!onMatch(i, i + query.length)) return;
    }
  };
}

/**
 * Case-insensitive substring search without the regex engine, exact where it applies. For an
 * ASCII query, RE2's case folding (simple Unicode folding) pairs each letter with its other case,
 * plus K with U+212A KELVIN SIGN (which toLowerCase also maps to k) and s with U+017F LONG S
 * (which it does not). So `toLowerCase` on both sides finds exactly RE2's matches, at the same
 * UTF-16 positions, when lowercasing changed no length (İ becomes two units) and, for a query
 * with an s, the text has no long s. Anything else falls back to the engine.
 */
function foldedMatcher(query: string, engine: Matcher): Matcher {
  // eslint-disable-next-line no-control-regex
  if (!/^[\x00-\x7f]*$/.test(query)) return engine;
  const hasS = /s/i.test(query);
  const needle = query.toLowerCase();
  // Lowered once per text: a search that pauses resumes over the same text.
  let current: { text: string; hay: string | null } | undefined;
  return (text, onMatch, from = 0, lastEnd = -1) => {
    if (current?.text !== text) {
      const lowered = text.toLowerCase();
      current = { text, hay: lowered.length !== text.length || (hasS && text.includes('\u017F')) ? null : lowered };
    }
    const hay = current.hay;
    if (hay === null) return engine(text, onMatch, from, lastEnd);
    for (let i = hay.indexOf(needle, from); i !== -1; i = hay.indexOf(needle, i + needle.length)) {
      if (!onMatch(i, i + needle.length)) return;
    }
  };
}

function compileMatcher(query: string, mode: SearchMode, caseSensitive: boolean): Result<CompiledMatcher> {
  if (query.length === 0) return err({ code: 'invalid_query', message: 'the query is empty', position: 0 });
  if (mode === 'substring' && caseSensitive) return ok({ find: literalMatcher(query), cost: 0, minRunes: 0, maxRunes: Infinity, stepWork: SEARCH_STEP_WORK });
  const pattern = mode === 'substring' ? RE2JS.quote(query) : query;
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern, caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
  } catch (e) {
    const fragment = (e as { input?: unknown }).input;
    const at = typeof fragment === 'string' && fragment.length > 0 && fragment !== query ? query.indexOf(fragment) : query.length;
    const position = utf8Length(query.slice(0, Math.max(0, at)));
    return err({ code: 'invalid_query', message: `invalid regex at byte ${position}: ${(e as Error).message}`, position });
  }
  const size = re.programSize();
  if (size > MAX_REGEX_PROGRAM_SIZE) {
    return err({
      code: 'invalid_query',
      message: `the ${mode === 'regex' ? 'pattern' : 'query'} compiles to ${size} instructions, more than the limit of ${MAX_REGEX_PROGRAM_SIZE} (a repetition such as x{1000} counts every copy): make it smaller`,
    });
  }
  // One engine matcher per text, kept while the same text is resumed after a pause.
  let current: { text: string; m: ReturnType<RE2JS['matcher']> } | undefined;
  const engine: Matcher = (text, onMatch, from = 0, lastEnd = -1) => {
    if (current?.text !== text) current = { text, m: re.matcher(text) };
    const m = current.m;
    let pos = from;
    while (pos <= text.length && m.find(pos)) {
      const s = m.start();
      const e = m.end();
      const step = s < text.length ? codePointLength(text, s) : 1;
      if (s === e && s === lastEnd) {
        // RE2 semantics: an empty match abutting the previous match is not reported.
        pos = s + step;
        continue;
      }
      if (!onMatch(s, e)) return;
      lastEnd = e;
      pos = e > s ? e : s + step;
    }
  };
  const prefilter = mode === 'regex' ? literalPrefilter(re) : null;
  return ok({
    find: mode === 'substring' ? foldedMatcher(query, engine) : engine,
    ...(mode === 'substring' && /^[\x20-\x7e]+$/.test(query) ? { folded: query } : {}),
    cost: size,
    ...matchLengthBounds(re),
    ...(prefilter ? { prefilter: withDirect(prefilter, simpleMatcher(re)) } : {}),
    stepWork: SEARCH_STEP_WORK,
  });
}

/**
 * How far into `text` the engine may have read to report a match starting at UTF-16 index `s`. It
 * stops adding threads at the first match, and the threads left (of higher priority) started at
 * or before `s`: with matches of at most `maxRunes` code points (2 units each at most) they die by
 * `s + 2 × maxRunes`. An unbounded pattern may have read to the end (`x[\s\S]*Q|x` does).
 */
function scanReach(matcher: CompiledMatcher, text: string, s: number): number {
  return Number.isFinite(matcher.maxRunes) ? Math.min(text.length, s + 2 * matcher.maxRunes + 1) : text.length;
}

/**
 * Runs `matcher` over `text` from `from` (`lastEndBefore`: where a match reported before ended, as
 * for Matcher), with `onMatch` as for Matcher, pausing (a yield, then a look at `isAborted`) whenever the engine may have done SEARCH_STEP_WORK since the last pause.
 * Each match is charged for all the engine may have read to find it (`scanReach`): a pattern that
 * finds many short matches after long looks ahead (`x[\s\S]*Q|x`), quadratic in the text, still
 * pauses.
 * Returns true when it stopped early (onMatch said so, or the search was aborted).
 */
function* matchInSteps(
  matcher: CompiledMatcher,
  text: string,
  from: number,
  onMatch: (start: number, end: number) => boolean,
  isAborted: () => boolean,
  lastEndBefore = -1,
): Generator<void, boolean> {
  let pos = from;
  let lastEnd = lastEndBefore;
  for (;;) {
    let stopped = false;
    let paused = false;
    let work = 0;
    let scanFrom = pos;
    matcher.find(
      text,
      (s, e) => {
        if (!onMatch(s, e)) {
          stopped = true;
          return false;
        }
        pos = e;
        lastEnd = e;
        work += matcher.cost * (scanReach(matcher, text, s) - scanFrom);
        scanFrom = e;
        if (work < matcher.stepWork) return true;
        paused = true;
        return false;
      },
      pos,
      lastEnd,
    );
    if (stopped || !paused) return stopped;
    yield;
    if (isAborted()) return true;
  }
}

function codePointLength(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
}

function utf8CodePointBytes(text: string, i: number): number {
  const c = text.codePointAt(i) ?? 0;
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  if (c < 0x10000) return 3;
  return 4;
}

/** UTF-16 index of byte offset `byteOffset` in `text` (a character boundary). */
function utf16IndexOfByte(text: string, byteOffset: number): number {
  let bytes = 0;
  let i = 0;
  while (i < text.length && bytes < byteOffset) {
    bytes += utf8CodePointBytes(text, i);
    i += codePointLength(text, i);
  }
  return i;
}

/**
 * A window of at most `max` bytes around the match `[s, e)` (UTF-16, within `text`), on character
 * boundaries. Context is shared evenly before and after; what one side cannot use goes to the
 * other. A match longer than `max` is cut to its first `max` bytes.
 */
function snippetOf(text: string, s: number, e: number, matchBytes: number, max: number): { snippet: string; match: [number, number] } {
  if (matchBytes >= max) {
    let i = s;
    let used = 0;
    while (i < e) {
      const b = utf8CodePointBytes(text, i);
      if (used + b > max) break;
      used += b;
      i += codePointLength(text, i);
    }
    return { snippet: text.slice(s, i), match: [0, used] };
  }
  let budget = max - matchBytes;
  let left = s;
  let leftBytes = 0;
  const stepLeft = (limit: number): void => {
    while (left > 0) {
      const i = left >= 2 && (text.charCodeAt(left - 1) & 0xfc00) === 0xdc00 && (text.charCodeAt(left - 2) & 0xfc00) === 0xd800 ? left - 2 : left - 1;
      const b = utf8CodePointBytes(text, i);
      if (leftBytes + b > limit) break;
      leftBytes += b;
      left = i;
    }
  };
  stepLeft(Math.floor(budget / 2));
  budget -= leftBytes;
  let right = e;
  let rightBytes = 0;
  while (right < text.length) {
    const b = utf8CodePointBytes(text, right);
    if (rightBytes + b > budget) break;
    rightBytes += b;
    right += codePointLength(text, right);
  }
  stepLeft(max - matchBytes - rightBytes);
  return { snippet: text.slice(left, right), match: [leftBytes, leftBytes + matchBytes] };
}

function jsonBytes(value: unknown): number {
  return utf8Length(JSON.stringify(value));
}

/** Adds a match: its offset (or a function computing it, asked only for a match kept), length and snippet. */
type AddMatch = (offset: number | (() => number), length: number, snippet: () => { snippet: string; match: [number, number] }) => void;

/**
 * Searches a hidden span held as text. Its lone surrogates are read as U+FFFD, as its bytes are
 * (same offsets: one unit for one, three bytes for three). A span too long for one call of the
 * engine is searched in windows over its bytes, as a large content is.
 */
function* scanText(
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
      const offset = cursor.byteOffsetOf(s);
      const length = cursor.byteOffsetOf(e) - offset;
      add(offset, length, () => snippetOf(text, s, e, length, snippetMax));
      return true;
    },
    isAborted,
  );
}

/** The snippet around `[offset, offset + length)` of a source, its context kept inside `span`. */
function sourceSnippet(source: ByteSource, span: [number, number], offset: number, length: number, max: number): { snippet: string; match: [number, number] } {
  const a = Math.max(span[0], floorSourceBoundary(source, offset - max));
  const b = Math.max(offset + length, Math.min(span[1], floorSourceBoundary(source, Math.min(span[1], offset + length + max))));
  const text = utf8Decode(source.read(a, b));
  return snippetOf(text, utf16IndexOfByte(text, offset - a), utf16IndexOfByte(text, offset + length - a), length, max);
}

/**
 * Searches a hidden span of a large content. A case-sensitive substring goes through the source's
 * own search when it has one (a file-backed source searches its raw bytes); anything else is
 * decoded window by window, each window starting where the previous match ended so matches stay
 * leftmost-first and non-overlapping across windows. Yields between windows and engine steps.
 */
function* scanSource(
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
      const text = utf8Decode(source.read(start, textEnd));
      const cursor = new Utf16ToUtf8Cursor(text, start);
      let stop = false;
      const stopped = yield* matchInSteps(
        matcher,
        text,
        utf16IndexOfByte(text, from - start),
        (s, e) => {
          const offset = cursor.byteOffsetOf(s);
          if (offset > own || (offset === own && !last)) return false;
          const endOffset = cursor.byteOffsetOf(e);
          next = endOffset > offset ? endOffset : offset + utf8CodePointBytes(text, s);
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
        lastEnd >= start ? utf16IndexOfByte(text, lastEnd - start) : -1,
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
    const d = decodeAt(bytes, s, bytes.length);
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
  const decode = ({ w, bytes }: Window) => {
    const text = utf8Decode(bytes);
    return { text, cursor: new Utf16ToUtf8Cursor(text, w[0]) };
  };
  /** The engine's first match in a window. */
  const engineFirst = (window: Window): [number, number] | null => {
    const { text, cursor } = decode(window);
    let found: [number, number] | null = null;
    matcher.find(text, (s, e) => {
      found = [cursor.byteOffsetOf(s), cursor.byteOffsetOf(e)];
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
      const { text, cursor } = decode(pending.window);
      let found: [number, number] | null = null;
      yield* matchInSteps(
        matcher,
        text,
        0,
        (s, e) => {
          found = [cursor.byteOffsetOf(s), cursor.byteOffsetOf(e)];
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

export function sidecarSearch(
  log: readonly Reduction[],
  query: string,
  minted: MessageList,
  recorded?: MessageList,
  options: SearchOptions = {},
): Result<SidecarSearchResult> {
  const steps = sidecarSearchSteps(log, query, minted, recorded, options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * `sidecarSearch` one step at a time: it yields between spans, windows and engine steps (each
 * within about SEARCH_STEP_WORK of engine work), and returns the result. A host that drives it
 * can serve other requests between steps; the signal is still checked at each of them.
 */
export function* sidecarSearchSteps(
  log: readonly Reduction[],
  query: string,
  minted: MessageList,
  recorded?: MessageList,
  options: SearchOptions = {},
): Generator<void, Result<SidecarSearchResult>> {
  const compiled = searchMatcher(query, options);
  if (!compiled.ok) return compiled;
  const { units, verified, unavailable } = searchUnitsOf(log, minted, recorded, options);
  const pass = yield* searchPass(units, units.length, query, compiled.value, options, (r, index, offset, length, snippet, snippet_match) => ({
    reduction_id: r.id,
    kind: r.kind,
    index,
    offset,
    length,
    snippet,
    snippet_match,
  }));
  if (!pass.ok) return pass;
  const { kept, ...found } = pass.value;
  const result: SidecarSearchResult = {
    ...resultOf(found),
    reductions_searched: verified + found.reductions_searched,
    ...(unavailable > 0 ? { reductions_unavailable: unavailable } : {}),
  };
  return fitResult(query, result, kept, options);
}

/** A search's result over matches of type `M`: §5.3's without its hidden-content-only fields. */
export type TextSearchResult<M> = Omit<SidecarSearchResult, 'matches' | 'reductions_unavailable'> & { matches: M[] };

/** One in-memory text searched on its own, in order of `index`; its matches are `owner`'s. */
export interface SearchText<O> {
  index: number;
  text: string;
  owner: O;
}

/**
 * The search of §5.3 over in-memory texts that are no hidden span (the rows of a view:
 * shared/viewSearch.ts), with all its bounds: the program-size refusal, windows sized to the
 * pattern, engine calls within `step_work` each and the signal looked at between them, matches
 * charged for what the engine read, yields as `sidecarSearchSteps` yields, `max_matches` and
 * `max_result_bytes`. `texts` is read one text at a time, as the search reaches it (never after the
 * signal was seen raised); `count` is how many it holds. Lone surrogates are read as U+FFFD;
 * offsets are bytes of a text's UTF-8. `hidden_bytes_searched` counts the texts' bytes.
 */
export function* textSearchSteps<O, M extends { offset: number }>(
  texts: Iterable<SearchText<O>>,
  count: number,
  query: string,
  options: SearchOptions,
  toMatch: (owner: O, index: number, offset: number, length: number, snippet: string, snippetMatch: [number, number]) => M,
): Generator<void, Result<TextSearchResult<M>>> {
  const compiled = searchMatcher(query, options);
  if (!compiled.ok) return compiled;
  function* units(): Generator<SearchUnit<O>> {
    for (const t of texts) {
      const content = wellFormed(t.text);
      const bytes = utf8Length(content);
      yield { index: t.index, load: () => ({ content, bytes, span: [0, bytes], attribute: () => t.owner, searched: 0 }) };
    }
  }
  const pass = yield* searchPass(units(), count, query, compiled.value, options, toMatch);
  if (!pass.ok) return pass;
  const { kept, ...found } = pass.value;
  return fitResult(query, resultOf<M>(found), kept, options);
}

/** The matcher of `query` (as its bytes read back: a lone surrogate is U+FFFD) with the options' mode, case, step work and shortcuts. */
function searchMatcher(query: string, options: SearchOptions): Result<CompiledMatcher> {
  const compiled = compileMatcher(wellFormed(query), options.mode ?? 'substring', options.case_sensitive ?? true);
  if (!compiled.ok) return compiled;
  const { prefilter, ...plain } = compiled.value;
  const candidates = prefilter && options.literal_prefilter !== false ? { prefilter: options.direct_match === false ? { ...prefilter, direct: undefined } : prefilter } : {};
  return ok({ ...plain, ...candidates, stepWork: Math.max(1, options.step_work ?? SEARCH_STEP_WORK) });
}

/** What a search's pass over its units found: the first `max_matches` matches, in order, and what it counted. */
type Pass<M> = Omit<TextSearchResult<M>, 'matches' | 'truncated'> & { kept: M[] };

/**
 * Searches `units` (sorted by index; `count` of them) one step at a time. Matches of the units of
 * one index are merged by offset; the first `max_matches` are kept (made by `toMatch`, with the
 * owner `attribute` names) and every one counted. A raised signal answers `cancelled`; the next unit
 * is never loaded, nor asked of `units`, once it is.
 */
function* searchPass<O, M extends { offset: number }>(
  units: Iterable<SearchUnit<O>>,
  count: number,
  query: string,
  matcher: CompiledMatcher,
  options: SearchOptions,
  toMatch: (owner: O, index: number, offset: number, length: number, snippet: string, snippetMatch: [number, number]) => M,
): Generator<void, Result<Pass<M>>> {
  const mode = options.mode ?? 'substring';
  const caseSensitive = options.case_sensitive ?? true;
  const maxMatches = Math.max(0, Math.floor(options.max_matches ?? MAX_MATCHES));
  const snippetMax = Math.max(1, Math.floor(options.snippet_max_bytes ?? SNIPPET_MAX_BYTES));
  const cancelled = () => err({ code: 'cancelled' as const, message: `search for ${JSON.stringify(query)} was cancelled` });

  let searched = 0;
  const kept: M[] = [];
  let total = 0;
  let hiddenBytes = 0;
  let spansDone = 0;
  let aborted = false;
  let sinceCheck = 0;
  /** Counts a match; false when the search was cancelled meanwhile. */
  const counted = (): boolean => {
    total++;
    if (++sinceCheck >= 4096) {
      sinceCheck = 0;
      if (options.signal?.aborted) aborted = true;
    }
    return !aborted;
  };
  const literal = mode === 'substring' && caseSensitive ? utf8Encode(query) : undefined;
  const isAborted = (): boolean => aborted || options.signal?.aborted === true;
  const windowBytes = options.window_bytes ?? WINDOW_BYTES;
  // Units come sorted by (index, span start); matches of different units at one index are merged
  // by offset, keeping only the first `maxMatches` of each index since the result is in index order.
  const iterator = units[Symbol.iterator]();
  let next = iterator.next();
  while (!next.done) {
    if (options.signal?.aborted) return cancelled();
    const index = next.value.index;
    const atIndex: M[] = [];
    for (; !next.done && next.value.index === index; next = iterator.next()) {
      // After a yield the caller may have closed what the units read: look before loading the next.
      if (isAborted()) return cancelled();
      try {
        const unit = next.value.load();
        spansDone++;
        if (!unit) continue;
        searched += unit.searched;
        hiddenBytes += unit.span[1] - unit.span[0];
        const room = Math.max(0, maxMatches - kept.length);
        let fromUnit = 0;
        const add = (at: number | (() => number), length: number, snippet: () => { snippet: string; match: [number, number] }): void => {
          if (fromUnit >= room) return;
          fromUnit++;
          const offset = typeof at === 'number' ? at : at();
          const { snippet: text, match } = snippet();
          atIndex.push(toMatch(unit.attribute(offset, length), index, offset, length, text, match));
        };
        if ('content' in unit) yield* scanText(unit, matcher, counted, add, snippetMax, isAborted, windowBytes);
        else yield* scanSource(unit.source, unit.span, matcher, literal, counted, add, snippetMax, isAborted, windowBytes);
        if (isAborted()) return cancelled();
      } catch (e) {
        // A large content whose file changed since it was indexed is not searched.
        if (!(e instanceof ContentUnavailableError)) throw e;
      }
      options.onProgress?.({ spans_searched: spansDone, spans: count, hidden_bytes_searched: hiddenBytes });
      yield;
      // Asking `units` for the next may read what the caller closed meanwhile.
      if (isAborted()) return cancelled();
    }
    atIndex.sort((a, b) => a.offset - b.offset);
    for (const m of atIndex) if (kept.length < maxMatches) kept.push(m);
  }
  return ok({ query, mode, case_sensitive: caseSensitive, kept, total_matches: total, reductions_searched: searched, hidden_bytes_searched: hiddenBytes });
}

/** A pass's result without its matches yet, its fields in §9's order. */
function resultOf<M>(found: Omit<Pass<M>, 'kept'>): TextSearchResult<M> {
  return {
    query: found.query,
    mode: found.mode,
    case_sensitive: found.case_sensitive,
    matches: [],
    total_matches: found.total_matches,
    truncated: false,
    reductions_searched: found.reductions_searched,
    hidden_bytes_searched: found.hidden_bytes_searched,
  };
}

/**
 * `result` (its matches empty) with as many of the matches `kept` as fit, whole, in
 * `max_result_bytes` of compact JSON (`truncated` saying whether any match was left out), or
 * `invalid_query` when not even the rest of the result fits.
 */
function fitResult<M, R extends TextSearchResult<M>>(query: string, result: R, kept: readonly M[], options: SearchOptions): Result<R> {
  const maxResultBytes = options.max_result_bytes ?? MAX_RESULT_BYTES;
  // Sized with `truncated: false`, the longer literal, so the bound holds whichever value it ends with.
  let size = jsonBytes(result);
  if (size > maxResultBytes) {
    return err({
      code: 'invalid_query',
      message: `a result for this ${utf8Length(query)}-byte query cannot fit in max_result_bytes=${maxResultBytes}`,
    });
  }
  for (const m of kept) {
    const add = jsonBytes(m) + (result.matches.length > 0 ? 1 : 0);
    if (size + add > maxResultBytes) break;
    size += add;
    result.matches.push(m);
  }
  result.truncated = result.matches.length < result.total_matches;
  return ok(result);
}

/**
 * What a search does once per session state, done ahead: each unit resolved, its content
 * verified and kept as searchUnitsOf keeps it, one unit a step; returns how many units there are.
 * A host runs it in its idle time after an open, so that a first search sent later finds that work
 * done (and reads no record of a hidden content). A unit whose content the file no longer holds is
 * left to the search, which says so.
 */
export function* searchPreparationSteps(log: readonly Reduction[], minted: MessageList, recorded: MessageList | undefined, options: ResolveOptions = {}): Generator<void, Result<number>> {
  const { units } = searchUnitsOf(log, minted, recorded, options);
  for (const unit of units) {
    try {
      unit.load();
    } catch (e) {
      if (!(e instanceof ContentUnavailableError)) throw e;
    }
    yield;
  }
  return ok(units.length);
}

/** searchUnits' answer for a log, with the lists it was computed over (see searchUnitsOf). */
interface KnownUnits {
  minted: MessageList;
  recorded: MessageList | undefined;
  logLength: number;
  mintedLength: number;
  recordedLength: number | undefined;
  value: ReturnType<typeof searchUnits>;
}

const unitsByLog = new WeakMap<readonly Reduction[], KnownUnits>();

/**
 * searchUnits, computed once per session state: the same log over the same lists (a
 * log is never changed once handed out; a followed session hands out a new one, or a longer one,
 * as it grows). A unit over a large content keeps what it loaded — its verified source and hidden
 * span, which the reader keeps anyway — so a later search neither resolves nor verifies it again,
 * work that was a fifth of a warm search over 3,000 contents. A unit over an in-memory content
 * keeps nothing (its text would outlive the message cache's bound) and is loaded at each search.
 */
function searchUnitsOf(log: readonly Reduction[], minted: MessageList, recorded: MessageList | undefined, options: ResolveOptions): KnownUnits['value'] {
  const known = unitsByLog.get(log);
  if (
    known !== undefined &&
    known.minted === minted &&
    known.recorded === recorded &&
    known.logLength === log.length &&
    known.mintedLength === minted.length &&
    known.recordedLength === recorded?.length
  ) {
    return known.value;
  }
  const value = searchUnits(log, minted, recorded, options);
  for (const unit of value.units) {
    const load = unit.load;
    let kept: LoadedUnit | null | undefined;
    unit.load = () => {
      if (kept !== undefined) return kept;
      const found = load();
      if (found === null || 'source' in found) kept = found;
      return found;
    };
  }
  unitsByLog.set(log, { minted, recorded, logLength: log.length, mintedLength: minted.length, recordedLength: recorded?.length, value });
  return value;
}

/**
 * The strings to search, per §5.3: each live reduction's hidden span over its resolved content;
 * a `turns_cleared` or `summarized` range message by message (content only), where a match inside
 * the hidden span of a per-message reduction of that message is attributed to that reduction.
 * Reductions whose original cannot be verified (bad address, hash mismatch) are not searched: the
 * integrity check reports them. `verified` counts the ranges, verified up front; `unavailable` the
 * reductions whose original the file does not hold (`ptr.hash: null`), never searched.
 */
function searchUnits(
  log: readonly Reduction[],
  minted: MessageList,
  recorded: MessageList | undefined,
  options: ResolveOptions,
): { units: SearchUnit[]; verified: number; unavailable: number } {
  const units: SearchUnit[] = [];
  const unavailable = log.filter((r) => r.ptr.hash === null).length;
  // Only a cleared range whose transcript verifies encloses anything; per-message reductions inside
  // an unverifiable range are searched on their own.
  const cleared = log.filter((r) => isRangeKind(r.kind) && r.ptr.hash !== null && resolveOriginal(r, minted, recorded, options).ok);
  const enclosing = (index: number) => cleared.find((c) => c.ptr.index <= index && index < (c.end ?? c.ptr.index));
  /** Per-message reductions inside cleared ranges, by index: matches in their hidden spans are theirs. */
  const inner = new Map<number, Reduction[]>();

  /** The resolved content and hidden span of a per-message reduction, or null when it has none to search. */
  const perMessage = (r: Reduction) => {
    if (r.kind === 'duplicate_output' && canonicalFullyVisible(r, log)) return null;
    const resolved = resolveOriginal(r, minted, recorded, options);
    if (!resolved.ok) return null;
    const bytes = resolved.value.bytes;
    const span = hiddenSpan(r, bytes, log);
    if (!span) return null;
    return 'bytes' in bytes ? { content: resolved.value.messages[0]?.content ?? '', bytes: bytes.length, span } : { source: bytes, span };
  };

  for (const r of log) {
    if (isRangeKind(r.kind) || r.ptr.hash === null) continue;
    if (enclosing(r.ptr.index)) {
      inner.set(r.ptr.index, [...(inner.get(r.ptr.index) ?? []), r]);
      continue;
    }
    units.push({
      index: r.ptr.index,
      load: () => {
        const found = perMessage(r);
        return found && { ...found, attribute: () => r, searched: 1 };
      },
    });
  }
  const seen = new Set<number>();
  for (const c of cleared) {
    for (let index = c.ptr.index; index < (c.end ?? c.ptr.index); index++) {
      if (seen.has(index)) continue;
      seen.add(index);
      units.push({
        index,
        load: () => {
          // Verified above, but read again: a file-backed list can lose a message meanwhile.
          const msg = minted.at(index);
          if (msg === undefined) return null;
          const m = resolveMessage(index, msg, recorded);
          const owners = (inner.get(index) ?? []).flatMap((r) => {
            const found = perMessage(r);
            return found ? [{ r, span: found.span }] : [];
          });
          const attribute = (offset: number, length: number) => owners.find((o) => o.span[0] <= offset && offset + length <= o.span[1])?.r ?? c;
          const span: [number, number] = [0, m.bytes.length];
          return 'bytes' in m.bytes
            ? { content: m.content, bytes: m.bytes.length, span, attribute, searched: owners.length }
            : { source: m.bytes, span, attribute, searched: owners.length };
        },
      });
    }
  }
  // Stable: units of one index keep log order.
  units.sort((a, b) => a.index - b.index);
  return { units, verified: cleared.length, unavailable };
}
