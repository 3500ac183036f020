/**
 * A query compiled to a matcher (SPEC §5.3): a literal, a case-folded literal or the linear-time
 * regex engine (re2js), with what one unit scanned costs it, the bounds of a match's length read
 * from its program, and the literal every match contains (`literalPrefilter`), and the stepping
 * that keeps every engine call within SEARCH_STEP_WORK (`matchInSteps`).
 *
 * Cost: a pattern compiles to at most MAX_REGEX_PROGRAM_SIZE instructions, and the regex engine is
 * never run for more than SEARCH_STEP_WORK (instructions × UTF-16 units), or for a pattern whose
 * matches are long but bounded about 8 × MAX_REGEX_PROGRAM_SIZE², between two looks at the signal.
 */
import { RE2JS } from 're2js';
import { MAX_REGEX_PROGRAM_SIZE } from '../format/constants';
import type { Result, SearchMode } from '../format/types';
import { err, ok } from '../format/types';
import { utf8Encode, utf8Length, wellFormed } from '../format/utf8';
import type { LiteralPrefilter } from './literalPrefilter';
import { literalPrefilter } from './literalPrefilter';
import type { SimpleMatcher } from './simpleMatcher';
import { rawSafe, simpleMatcher } from './simpleMatcher';
import { codePointLength } from './snippets';
import type { SearchOptions } from './types';

/**
 * Finds leftmost-first, non-overlapping matches in one string from UTF-16 index `from`; yields
 * UTF-16 [start, end) until `onMatch` returns false. `lastEnd` is where the previous match ended,
 * when resuming after one (an empty match there is not reported): resuming at `(e, e)` after a
 * match ending at `e` continues exactly as if the matcher had not stopped.
 */
export type Matcher = (text: string, onMatch: (start: number, end: number) => boolean, from?: number, lastEnd?: number) => void;

/**
 * A matcher; what one UTF-16 unit scanned can cost it (the program size, 0 when it never runs the
 * regex engine); and the fewest and most code points a match can span (`max` Infinity when
 * unbounded or not known).
 */
export interface CompiledMatcher {
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
export type CandidatePrefilter = LiteralPrefilter & {
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
export const WINDOW_BYTES = 1024 * 1024;
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
export function windowsFor(matcher: CompiledMatcher, windowBytes: number): { own: number; overlap: number } {
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
export function* matchInSteps(
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

/** The matcher of `query` (as its bytes read back: a lone surrogate is U+FFFD) with the options' mode, case, step work and shortcuts. */
export function searchMatcher(query: string, options: SearchOptions): Result<CompiledMatcher> {
  const compiled = compileMatcher(wellFormed(query), options.mode ?? 'substring', options.case_sensitive ?? true);
  if (!compiled.ok) return compiled;
  const { prefilter, ...plain } = compiled.value;
  const candidates = prefilter && options.literal_prefilter !== false ? { prefilter: options.direct_match === false ? { ...prefilter, direct: undefined } : prefilter } : {};
  return ok({ ...plain, ...candidates, stepWork: Math.max(1, options.step_work ?? SEARCH_STEP_WORK) });
}
