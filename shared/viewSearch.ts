/**
 * Issue 13, item 6: search what the model *did* see — the text of the projected view's rows
 * (`projectView`, content, prefix + stub, or stub) — with the query semantics of §5.3: substring
 * or regex (RE2, linear time, the same program-size bound), case flag, leftmost-first and
 * non-overlapping matches ordered by row then offset, offsets in bytes of the row's whole text.
 *
 * Invariants: each row is searched as its own string (a match never straddles two rows); the
 * search yields after every ROWS_PER_STEP rows and looks at the signal there, so a host drives it
 * in slices with the agent search's cancellation and time limit; it keeps at most `max_matches`
 * matches and counts every one.
 */
import { RE2JS } from 're2js';
import { MAX_MATCHES, MAX_REGEX_PROGRAM_SIZE, SNIPPET_MAX_BYTES } from './constants';
import type { ProjectionLayout } from './project';
import { projectView } from './project';
import type { MessageList, Reduction, Result, SearchMode } from './types';
import { err, ok } from './types';
import { Utf16ToUtf8Cursor, utf8Length, wellFormed } from './utf8';
import type { SearchOptions } from './search';

/** One match in a row's text. */
export interface ViewSearchMatch {
  row: number;
  /** The row's first view index. */
  index: number;
  /** Bytes of the row's whole text. */
  offset: number;
  length: number;
  snippet: string;
  /** The match inside `snippet`, in bytes. */
  snippet_match: [number, number];
}

export interface ViewSearchResult {
  query: string;
  mode: SearchMode;
  case_sensitive: boolean;
  matches: ViewSearchMatch[];
  total_matches: number;
  truncated: boolean;
  /** Rows searched (the hidden-content fields of a search result do not apply). */
  reductions_searched: number;
  hidden_bytes_searched: number;
}

/** Rows projected and searched between two yields. */
const ROWS_PER_STEP = 256;

/** Leftmost-first, non-overlapping UTF-16 [start, end) of `query` in a text; an empty match advances one code point. */
type Finder = (text: string) => Iterable<[number, number]>;

function compileFinder(query: string, mode: SearchMode, caseSensitive: boolean): Result<Finder> {
  if (query.length === 0) return err({ code: 'invalid_query', message: 'the query is empty', position: 0 });
  if (mode === 'substring' && caseSensitive) {
    return ok(function* (text: string) {
      for (let i = text.indexOf(query); i !== -1; i = text.indexOf(query, i + query.length)) yield [i, i + query.length] as [number, number];
    });
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(mode === 'substring' ? RE2JS.quote(query) : query, caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
  } catch (e) {
    return err({ code: 'invalid_query', message: `invalid regex: ${(e as Error).message}` });
  }
  if (re.programSize() > MAX_REGEX_PROGRAM_SIZE) {
    return err({ code: 'invalid_query', message: `the pattern compiles to ${re.programSize()} instructions, more than the limit of ${MAX_REGEX_PROGRAM_SIZE}: make it smaller` });
  }
  return ok(function* (text: string) {
    const m = re.matcher(text);
    let pos = 0;
    let lastEnd = -1;
    while (pos <= text.length && m.find(pos)) {
      const s = m.start();
      const e = m.end();
      const step = s < text.length && (text.codePointAt(s) ?? 0) > 0xffff ? 2 : 1;
      if (s === e && s === lastEnd) {
        // RE2 semantics, as §5.3: an empty match abutting the previous match is not reported.
        pos = s + step;
        continue;
      }
      yield [s, e] as [number, number];
      lastEnd = e;
      pos = e > s ? e : s + step;
    }
  });
}

/** Up to `max` bytes of `text` around UTF-16 [s, e), centred on the match, and the match's bytes in it. */
function snippetAround(text: string, s: number, e: number, max: number): { snippet: string; snippet_match: [number, number] } {
  const matchBytes = utf8Length(text.slice(s, e));
  const side = Math.max(0, Math.floor((max - matchBytes) / 2));
  let a = s;
  let before = 0;
  while (a > 0) {
    const unit = a >= 2 && /[\uDC00-\uDFFF]/.test(text[a - 1] ?? '') && /[\uD800-\uDBFF]/.test(text[a - 2] ?? '') ? 2 : 1;
    const b = utf8Length(text.slice(a - unit, a));
    if (before + b > side) break;
    before += b;
    a -= unit;
  }
  let z = e;
  let after = 0;
  while (z < text.length) {
    const unit = (text.codePointAt(z) ?? 0) > 0xffff ? 2 : 1;
    const b = utf8Length(text.slice(z, z + unit));
    if (after + b > side) break;
    after += b;
    z += unit;
  }
  if (matchBytes > max) {
    // The match alone is longer than a snippet: cut it (on a code point), as §5.3 does.
    let cut = s;
    let bytes = 0;
    while (cut < e) {
      const unit = (text.codePointAt(cut) ?? 0) > 0xffff ? 2 : 1;
      const b = utf8Length(text.slice(cut, cut + unit));
      if (bytes + b > max) break;
      bytes += b;
      cut += unit;
    }
    return { snippet: text.slice(s, cut), snippet_match: [0, bytes] };
  }
  return { snippet: text.slice(a, z), snippet_match: [before, before + matchBytes] };
}

/** Searches the rows' text of the view `minted` + `log` (laid out as `layout`) one step at a time. */
export function* viewSearchSteps(
  minted: MessageList,
  log: readonly Reduction[],
  layout: ProjectionLayout,
  query: string,
  options: Pick<SearchOptions, 'mode' | 'case_sensitive' | 'max_matches' | 'snippet_max_bytes' | 'signal'> = {},
): Generator<void, Result<ViewSearchResult>> {
  const mode = options.mode ?? 'substring';
  const caseSensitive = options.case_sensitive ?? true;
  const maxMatches = Math.max(0, Math.floor(options.max_matches ?? MAX_MATCHES));
  const snippetMax = Math.max(1, Math.floor(options.snippet_max_bytes ?? SNIPPET_MAX_BYTES));
  const finder = compileFinder(wellFormed(query), mode, caseSensitive);
  if (!finder.ok) return finder;
  const matches: ViewSearchMatch[] = [];
  let total = 0;
  let bytes = 0;
  for (let start = 0; start < layout.rowCount; start += ROWS_PER_STEP) {
    if (options.signal?.aborted) return err({ code: 'cancelled', message: `search for ${JSON.stringify(query)} was cancelled` });
    for (const row of projectView(minted, log, { start, end: start + ROWS_PER_STEP }, layout)) {
      const text = wellFormed(row.text);
      const cursor = new Utf16ToUtf8Cursor(text, 0);
      for (const [s, e] of finder.value(text)) {
        total++;
        if (matches.length >= maxMatches) continue;
        const offset = cursor.byteOffsetOf(s);
        matches.push({ row: row.row, index: row.index, offset, length: cursor.byteOffsetOf(e) - offset, ...snippetAround(text, s, e, snippetMax) });
      }
      bytes += utf8Length(text);
    }
    yield;
  }
  return ok({
    query,
    mode,
    case_sensitive: caseSensitive,
    matches,
    total_matches: total,
    truncated: matches.length < total,
    reductions_searched: 0,
    hidden_bytes_searched: bytes,
  });
}
