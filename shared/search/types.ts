/**
 * The types the search's parts share (SPEC §5.3): the options a search takes, a unit of content
 * searched on its own, and how a match is added.
 */
import type { ResolveOptions } from '../resolver/original';
import type { ByteSource, Reduction, SearchMode } from '../format/types';

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
 * One string searched on its own: a hidden span of one message, attributed to a reduction (or, for
 * `textSearchSteps`, an in-memory text attributed to what the caller says). Content is resolved
 * only when the unit is searched, so a search holds one message's content at a time.
 */
export interface SearchUnit<O = Reduction> {
  index: number;
  /** The whole resolved content of the message and its hidden span in bytes; null when nothing is searchable. */
  load: () => LoadedUnit<O> | null;
  /**
   * A unit whose load is kept (a content read from a file) remembers, from its first search, where
   * its span lies in the file (`ByteSource.rawRange`: `file` ≥ 0) and what it counts, so that a later
   * search of a literal can skip it without loading it when the file holds no occurrence there
   * (docs/search.md "Contents skipped at once"). `file` is −1 until then, −2 when it cannot;
   * `source` is the one that gave the range, asked for the search's test.
   */
  quick?: { file: number; from: number; to: number; bytes: number; searched: number; source?: ByteSource };
}

/** A unit's content: as text when it is in memory, else as a source read window by window. */
export type LoadedUnit<O = Reduction> = { span: [number, number]; attribute: (offset: number, length: number) => O; searched: number } & (
  | { content: string; /** UTF-8 bytes of `content`. */ bytes: number }
  | { source: ByteSource }
);

/** Adds a match: its offset (or a function computing it, asked only for a match kept), length and snippet. */
export type AddMatch = (offset: number | (() => number), length: number, snippet: () => { snippet: string; match: [number, number] }) => void;
