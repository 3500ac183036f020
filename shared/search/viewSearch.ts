/**
 * Search what the model *did* see — the text of the projected view's rows
 * (`projectView`, content, prefix + stub, or stub) — with the query semantics of §5.3: substring
 * or regex (RE2, linear time), case flag, leftmost-first and non-overlapping matches ordered by row
 * then offset, offsets in bytes of the row's whole text.
 *
 * Invariants: each row is searched as its own string (a match never straddles two rows). The rows'
 * texts go through the hidden-content search's own machinery (`textSearchSteps`, shared/search.ts),
 * so a view search has all its bounds: a pattern over MAX_REGEX_PROGRAM_SIZE refused up front,
 * engine calls within SEARCH_STEP_WORK each with the signal looked at between them (a pattern
 * quadratic in a row, `x[\s\S]*Q|x`, included), yields a host slices on, `max_matches` kept and
 * every match counted, `max_result_bytes` bounding the result. Rows are projected
 * ROWS_PER_PROJECTION at a time, as the search reaches them.
 */
import type { ProjectionLayout } from '../resolver/project';
import { projectView } from '../resolver/project';
import type { SearchOptions, SearchText, TextSearchResult } from '.';
import { textSearchSteps } from '.';
import type { MessageList, Reduction, Result } from '../format/types';

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

/** Rows searched are counted in `hidden_bytes_searched` (bytes of row text); `reductions_searched` is 0. */
export type ViewSearchResult = TextSearchResult<ViewSearchMatch>;

/** Rows projected at once. */
const ROWS_PER_PROJECTION = 256;

/** The rows' texts of the view, projected a block at a time as they are asked for. */
function* rowTexts(minted: MessageList, log: readonly Reduction[], layout: ProjectionLayout): Generator<SearchText<number>> {
  for (let start = 0; start < layout.rowCount; start += ROWS_PER_PROJECTION) {
    for (const row of projectView(minted, log, { start, end: start + ROWS_PER_PROJECTION }, layout)) yield { index: row.row, text: row.text, owner: row.index };
  }
}

/**
 * Searches the rows' text of the view `minted` + `log` (laid out as `layout`) one step at a time.
 * Progress is not reported (`onProgress` is about hidden spans).
 */
export function viewSearchSteps(
  minted: MessageList,
  log: readonly Reduction[],
  layout: ProjectionLayout,
  query: string,
  options: Omit<SearchOptions, 'onProgress'> = {},
): Generator<void, Result<ViewSearchResult>> {
  return textSearchSteps(rowTexts(minted, log, layout), layout.rowCount, query, { ...options, onProgress: undefined }, (index, row, offset, length, snippet, snippet_match) => ({
    row,
    index,
    offset,
    length,
    snippet,
    snippet_match,
  }));
}
