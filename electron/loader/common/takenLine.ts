/**
 * A line as the pass of an imported JSONL file hands it to its source's `take` (lineSource.ts), in a
 * file of its own: the long lines' reader (content/largeStrings.ts) takes it too, and the pass
 * starts that reader's scan-ahead thread.
 */

/** A line's bytes, handed to `take` in a holder that `takeLineText` (lineSource.ts) empties. */
export interface TakenLine {
  bytes: Buffer | undefined;
  /** File offset of the line's first byte. */
  offset: number;
  /**
   * The line is within the limit but its bytes were not read (it is longer than `inMemoryLineBytes`
   * and the source said `takesByRange`): the source reads it itself, by range.
   */
  byRange?: boolean;
}
