/**
 * The part of a request that names the model call it is about (SPEC §11). Apart from callsSlice.ts
 * because the rows, reductions, search and navigation slices send it, and callsSlice.ts imports
 * what two of them reset: a module of its own keeps the slices free of import cycles
 * (docs/import-cycles.md).
 */

/** `{ call }` for a request about call N, nothing for the latest view (requests stay as they were). */
export function callParams(call: number | null): { call?: number } {
  return call === null ? {} : { call };
}
