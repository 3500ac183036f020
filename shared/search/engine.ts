/**
 * SPEC §5.3 sidecarSearch: bounded search over content currently reduced out of the view, and the
 * same search over in-memory texts (`textSearchSteps`: the rows of a view).
 *
 * Invariants: every match lies inside a hidden span of its reduction's resolved original; each
 * span is searched as its own string (a match never straddles into visible text); matches are
 * leftmost-first and non-overlapping, ordered by view index then offset; the compact JSON of the
 * result never exceeds `max_result_bytes`, matches being dropped whole and `truncated` saying so.
 * `sidecarSearchSteps` yields within SEARCH_STEP_WORK of engine work (matcher.ts), so a host can
 * serve other requests while a search runs.
 */
import { MAX_MATCHES, MAX_RESULT_BYTES, SNIPPET_MAX_BYTES } from '../format/constants';
import type { ByteSource, MessageList, Reduction, Result, SidecarSearchResult } from '../format/types';
import { ContentUnavailableError, err, ok } from '../format/types';
import { utf8Encode, utf8Length, wellFormed } from '../format/utf8';
import type { CompiledMatcher } from './matcher';
import { WINDOW_BYTES, searchMatcher } from './matcher';
import { jsonBytes } from './snippets';
import { scanSource, scanText } from './sources';
import type { SearchOptions, SearchUnit } from './types';
import { searchUnitsOf } from './units';

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

/**
 * `result` bounded as the same search run with narrower bounds answers: its first `max_matches`
 * matches, as many of them as fit whole in `max_result_bytes`. A pass keeps the first matches in
 * one order and fits them to the bytes bound last (`fitResult`), so a result kept with a larger
 * `max_matches` and bytes bound holds every narrower one. The app's search keeps the human view's
 * first page in the same pass (docs/search.md "One pass for both").
 */
export function fitSearchResult(result: SidecarSearchResult, options: Pick<SearchOptions, 'max_matches' | 'max_result_bytes'>): Result<SidecarSearchResult> {
  const maxMatches = Math.max(0, Math.floor(options.max_matches ?? MAX_MATCHES));
  return fitResult(result.query, { ...result, matches: [], truncated: false }, result.matches.slice(0, maxMatches), options);
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
 * shared/search/viewSearch.ts), with all its bounds: the program-size refusal, windows sized to the
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

/**
 * The search of §5.3 over the whole content of every message of `minted` (visible or not): what a
 * trace (shared/calls/trace.ts) follows through the calls. Each message is one unit of index its
 * view index, searched as its own string with all the search's bounds; a content kept in a file
 * is read window by window, as a hidden one is. A hole (no readable message) is skipped.
 * `reductions_searched` is 0; `hidden_bytes_searched` counts the contents' bytes.
 */
export function* messageSearchSteps(minted: MessageList, query: string, options: SearchOptions): Generator<void, Result<TextSearchResult<MessageMatch>>> {
  const compiled = searchMatcher(query, options);
  if (!compiled.ok) return compiled;
  function* units(): Generator<SearchUnit<number>> {
    for (let index = 0; index < minted.length; index++) {
      yield {
        index,
        load: () => {
          const msg = minted.at(index);
          if (msg === undefined) return null;
          if (msg.large) return { source: msg.large, span: [0, msg.large.length], attribute: () => index, searched: 0 };
          const content = wellFormed(msg.content);
          const bytes = utf8Length(content);
          return { content, bytes, span: [0, bytes], attribute: () => index, searched: 0 };
        },
      };
    }
  }
  const pass = yield* searchPass(units(), minted.length, query, compiled.value, options, (_owner, index, offset, length, snippet, snippet_match) => ({ index, offset, length, snippet, snippet_match }));
  if (!pass.ok) return pass;
  const { kept, ...found } = pass.value;
  return fitResult(query, resultOf<MessageMatch>(found), kept, options);
}

/** A match in a message's whole content: offsets in bytes of that content. */
export interface MessageMatch {
  index: number;
  offset: number;
  length: number;
  snippet: string;
  snippet_match: [number, number];
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
  // The literal's skip test, from the first source that offers one (docs/search.md "Contents skipped at once").
  let absent: ((file: number, from: number, to: number) => boolean) | null | undefined = literal === undefined ? null : undefined;
  let skipped = 0;
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
      const quick = next.value.quick;
      // The test comes from the first unit whose range is known; null when its source cannot test.
      if (absent === undefined && quick?.source !== undefined && literal !== undefined) absent = quick.source.literalAbsence?.(literal) ?? null;
      // A unit the file holds no occurrence of the literal in: counted as searched, neither loaded nor read.
      if (absent && quick !== undefined && quick.file >= 0 && absent(quick.file, quick.from, quick.to)) {
        spansDone++;
        searched += quick.searched;
        hiddenBytes += quick.bytes;
        // Cheap: the caller hears of skipped units, and gets its turn, every SKIPS_PER_YIELD of them.
        if (++skipped % SKIPS_PER_YIELD !== 0) continue;
      } else {
        try {
          const unit = next.value.load();
          spansDone++;
          if (!unit) continue;
          searched += unit.searched;
          hiddenBytes += unit.span[1] - unit.span[0];
          if (literal !== undefined && 'source' in unit && quick !== undefined && quick.file === -1) rememberRange(quick, unit.source, unit.span, unit.searched);
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

/** Where a kept unit's span lies in its file, for a later search's skip test (SearchUnit.quick); −2 when its source cannot say. */
function rememberRange(quick: NonNullable<SearchUnit<unknown>['quick']>, source: ByteSource, span: [number, number], searched: number): void {
  const range = source.rawRange?.(span[0], span[1]);
  if (range === undefined) {
    quick.file = -2;
    return;
  }
  quick.from = range.from;
  quick.to = range.to;
  quick.bytes = span[1] - span[0];
  quick.searched = searched;
  quick.source = source;
  quick.file = range.file;
}

/** Units skipped at once (SearchUnit.quick) between two yields and progress reports. */
const SKIPS_PER_YIELD = 256;

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
