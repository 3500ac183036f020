/** The public surface of the pure core: format, resolver, integrity. No I/O, no Node, no DOM. */
export * from './constants';
export * from './types';
export { sha256Hex, ptrHash } from './hash';
export { utf8Encode, utf8Decode, utf8Length, floorCharBoundary, isCharBoundary } from './utf8';
export { memorySource, contentSource, concatSources, sourceSha256, floorSourceBoundary, sourcesEqual } from './bytes';
export type { ResolveOptions, ResolvedOriginal, ResolvedMessage } from './original';
export { findReduction, unknownReduction, resolveOriginal, resolveMessage, recordedSupersedes, isCapNoticeBearingPrefix, hiddenSpan, canonicalFullyVisible, transcriptOf, addressedRange, hashOrigin, statedHiddenBytes } from './original';
export type { ReductionCheck, ReductionStatusCode, LogReportEntry } from './status';
export { checkReduction, logReport } from './status';
export type { ByteRange } from './expand';
export { expandReduction, reductionTotalBytes, snapByteRange } from './expand';
export type { SearchOptions } from './search';
export { sidecarSearch, sidecarSearchSteps } from './search';
export type { ProjectedRow, ProjectionLayout } from './project';
export { projectView, projectionLayout, rowOfIndex, invertOne, compactionSummaries } from './project';
export type { MintOptions } from './mint';
export { mintReductions } from './mint';
export { filterReasoningArtifacts, countReasoningArtifacts, hasReasoningArtifacts } from './reasoning';
export type { ModelCall, ReductionSpan, CallTimeline, CallInput, CallDiff, DiffMessage, DiffReduction, ViewEntry } from './calls';
export { callsOf, replayedCalls, liveFromTimeline, snapshotTimeline, liveAt, prefixList, callInput, diffCallInputs, inputHiddenBytes, viewEntries, NO_CALLS } from './calls';
export type { Timeline, TimelineRecord, TimelineMessage, Located, ModelChange } from './timeline';
export type { ContextMap } from './contextMap';
export { contextMap } from './contextMap';
export { TimelineBuilder, applyCap, lastAddressed } from './timeline';
export type { LineParse, SnapshotParse } from './schema';
export { parseSidecarLine, parseSnapshot, isSnapshotValue, chatMessageSchema, reductionSchema, reductionPolicySchema } from './schema';
export type { IntegrityInput } from './integrity';
export { checkIntegrity, compareLogs } from './integrity';
export type { SessionError, FileChange, FileWatch, LoadedSession, IndexedRecords, RewindRecord, IndexedSnapshot, SessionInputs, SessionModel, SessionEnv } from './session';
export { FileChangedError, resolveSession, makeSession, byLineThenIndex, arrayList, lazyList } from './session';
export * from './contract';
// Issue 12 (C): what the model saw inside an expansion; byte ↔ string offsets.
export type { ExpandStory, TranscriptBoundary } from './story';
export { expandStory, transcriptBoundaries, transcriptOffset, stubPosition, stubStatedHiddenBytes, meeting } from './story';
export { byteOffsetToIndex, indexToByteOffset, byteRangeToIndices } from './utf8Offsets';
// Issue 13: links (SPEC §12).
export type { Link, LinkParse } from './link';
export { parseLink, formatLink, isEmptyLink, LINK_KEYS } from './link';
