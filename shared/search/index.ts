/**
 * The search of hidden content (SPEC §5.3) and of in-memory texts: the public entry. The parts:
 * `engine.ts` (the passes and the result's bounds), `units.ts` (what is searched), `sources.ts`
 * (scanning a span, as text or from a byte source), `matcher.ts` (a query compiled, and stepping
 * the engine), `snippets.ts` (snippets and offsets), `types.ts`.
 */
export type { SearchOptions } from './types';
export { SEARCH_STEP_WORK, matchLengthBounds } from './matcher';
export type { MessageMatch, SearchText, TextSearchResult } from './engine';
export { fitSearchResult, messageSearchSteps, sidecarSearch, sidecarSearchSteps, textSearchSteps } from './engine';
export { searchPreparationSteps } from './units';
