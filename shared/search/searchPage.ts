/**
 * The human view of a search — every match, a page at a time — built on the
 * public entry point of §5.3 (`sidecarSearch`/`sidecarSearchSteps`), never on its internals.
 *
 * A page is one full pass of the agent's search with two of its bounds moved: `max_matches` reaches
 * to the end of the page asked for, and `max_result_bytes` is lifted to MAX_PAGE_PASS_BYTES (the
 * most the contract lets any search ask for). Matches, their order, their snippets, the count, the
 * signal, the time limit and the regex cost bounds are the agent search's own, so the human pages
 * and the agent's result agree on their common prefix. What a page costs in memory is every match
 * before it: MAX_PAGED_MATCHES bounds that, and matches past it are counted but not paged.
 */
import type { SearchOptions } from '.';
import type { SidecarSearchMatch, SidecarSearchResult } from '../format/types';

/** Matches a page holds unless asked otherwise. */
export const SEARCH_PAGE_SIZE = 50;
/** Most matches one page may hold. */
export const MAX_SEARCH_PAGE_SIZE = 500;
/** Matches past this position are counted but never paged (the contract's bound on `max_matches`). */
export const MAX_PAGED_MATCHES = 100_000;
/** The bytes a page's pass may keep: the contract's bound on `max_result_bytes`. */
export const MAX_PAGE_PASS_BYTES = 64 * 1024 * 1024;

export interface SearchPage<M = SidecarSearchMatch> {
  query: string;
  mode: SidecarSearchResult['mode'];
  case_sensitive: boolean;
  /** 0-based page number and the page size asked for. */
  page: number;
  page_size: number;
  /** Position (0-based) of the page's first match among all matches. */
  first: number;
  matches: M[];
  /** Every match the pass counted (the agent's `total_matches`). */
  total_matches: number;
  /** How many of them can be paged: at most MAX_PAGED_MATCHES (or fewer when the pass's byte bound cut it). */
  pageable: number;
  reductions_searched: number;
  hidden_bytes_searched: number;
  reductions_unavailable?: number;
}

/** The agent search's options moved so that the pass keeps every match up to the end of `page`. */
export function pageSearchOptions(page: number, pageSize: number): Required<Pick<SearchOptions, 'max_matches' | 'max_result_bytes'>> {
  return { max_matches: Math.min(MAX_PAGED_MATCHES, (page + 1) * pageSize), max_result_bytes: MAX_PAGE_PASS_BYTES };
}

/** Page `page` of a pass run with `pageSearchOptions(page, pageSize)`. */
export function searchPageOf<M>(result: Omit<SidecarSearchResult, 'matches'> & { matches: M[] }, page: number, pageSize: number): SearchPage<M> {
  const first = page * pageSize;
  const kept = result.matches.length;
  // The pass keeps a prefix of all matches: cut by max_matches, or (whole matches dropped from the end) by bytes.
  const cutByBytes = kept < Math.min(result.total_matches, pageSearchOptions(page, pageSize).max_matches);
  const pageable = cutByBytes ? kept : Math.min(result.total_matches, MAX_PAGED_MATCHES);
  return {
    query: result.query,
    mode: result.mode,
    case_sensitive: result.case_sensitive,
    page,
    page_size: pageSize,
    first,
    matches: result.matches.slice(first, first + pageSize),
    total_matches: result.total_matches,
    pageable,
    reductions_searched: result.reductions_searched,
    hidden_bytes_searched: result.hidden_bytes_searched,
    ...(result.reductions_unavailable !== undefined ? { reductions_unavailable: result.reductions_unavailable } : {}),
  };
}

/**
 * Page `page` of `pageSize` taken from a result already at hand for the same query and snippet
 * bound (a search kept with any bounds), or undefined when it kept too few matches to tell it. A
 * pass keeps a prefix of every match, in one order: when the result holds the matches up to the
 * page's end (or all of them, if fewer), the page's own pass would find the same matches, counts
 * and prefix (docs/search.md "One pass for both").
 */
export function pageFrom<M>(result: Omit<SidecarSearchResult, 'matches'> & { matches: M[] }, page: number, pageSize: number): SearchPage<M> | undefined {
  if (result.matches.length < Math.min(result.total_matches, pageSearchOptions(page, pageSize).max_matches)) return undefined;
  return searchPageOf(result, page, pageSize);
}
