/**
 * SPEC §15 "Estimates": token counts where the file records none, as plain data. The counting
 * itself (a BPE tokenizer, o200k_base) is the Node side's (electron/tokens/); what is here is
 * pure: the shape of an estimate, how text is cut before it is counted, and which bytes of a large
 * original are counted when it is sampled. The choice of tokenizer and the figures behind every
 * constant: docs/token-estimates.md.
 */

/** An estimated token count; never summed with a recorded one without saying so. */
export interface TokenEstimate {
  tokens: number;
  source: 'estimated';
  /** The model is a Claude model: no offline tokenizer exists for it, the count is o200k's. */
  approximate?: true;
  /** Only evenly spaced chunks of the text were counted, and the count scaled to its length. */
  sampled?: true;
}

/** Claude models (Anthropic's); their estimates are marked approximate. */
export function isClaudeModel(model: string | null | undefined): boolean {
  return typeof model === 'string' && /claude|anthropic|\bopus\b|\bsonnet\b|\bhaiku\b/i.test(model);
}

export function tokenEstimate(tokens: number, marks: { approximate?: boolean; sampled?: boolean } = {}): TokenEstimate {
  return { tokens, source: 'estimated', ...(marks.approximate ? { approximate: true as const } : {}), ...(marks.sampled ? { sampled: true as const } : {}) };
}

/** The sum of estimates: approximate or sampled when any part is. */
export function sumEstimates(parts: readonly TokenEstimate[], marks: { approximate?: boolean } = {}): TokenEstimate {
  let tokens = 0;
  let approximate = marks.approximate === true;
  let sampled = false;
  for (const p of parts) {
    tokens += p.tokens;
    approximate ||= p.approximate === true;
    sampled ||= p.sampled === true;
  }
  return tokenEstimate(tokens, { approximate, sampled });
}

/** A piece passed to the tokenizer at once holds at most this many UTF-16 units. */
export const MAX_PIECE_CHARS = 65_536;
/**
 * A run of characters without white space is cut every this many UTF-16 units. BPE merges within a
 * pre-token cost about the square of its length: one run of 64 Ki CJK characters takes the o200k
 * counter 19 s, cut at 512 it takes 20 ms (docs/token-estimates.md, "Pathological text"). Text
 * has no such runs, so counts change only for blobs (a base64 image, minified JSON): by about one
 * token per cut.
 */
export const MAX_RUN_CHARS = 512;

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;

/** `end` moved left off the middle of a surrogate pair (a lone surrogate stays where it is). */
function pairSafe(text: string, start: number, end: number): number {
  return end < text.length && end - 1 > start && isHighSurrogate(text.charCodeAt(end - 1)) ? end - 1 : end;
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d;

/**
 * `text` cut into the pieces the tokenizer counts one by one: each at most `maxPiece` units,
 * ending after white space where there is some in its second half; inside a piece, no run of
 * non-space characters longer than `maxRun` (such a run is cut). The pieces concatenate to `text`.
 */
export function countingPieces(text: string, maxPiece = MAX_PIECE_CHARS, maxRun = MAX_RUN_CHARS): string[] {
  const pieces: string[] = [];
  let start = 0;
  let run = 0;
  const cutAt = (cut: number, i: number) => {
    pieces.push(text.slice(start, cut));
    start = cut;
    run = 0;
    for (let k = cut; k <= i; k++) run = isSpace(text.charCodeAt(k)) ? 0 : run + 1;
  };
  for (let i = 0; i < text.length; i++) {
    run = isSpace(text.charCodeAt(i)) ? 0 : run + 1;
    if (run > maxRun) cutAt(pairSafe(text, start, i), i);
    else if (i + 1 - start >= maxPiece && i + 1 < text.length) {
      let cut = i + 1;
      for (let k = i; k > start + maxPiece / 2; k--) {
        if (isSpace(text.charCodeAt(k))) {
          cut = k + 1;
          break;
        }
      }
      cutAt(pairSafe(text, start, cut), i);
    }
  }
  if (start < text.length || pieces.length === 0) pieces.push(text.slice(start));
  return pieces;
}

/** How a long original is estimated: counted whole, or `chunks` evenly spaced chunks of `chunkBytes`. */
export interface SamplePlan {
  sampled: boolean;
  /** Byte ranges `[start, end)` to count, in order, not overlapping. */
  ranges: [number, number][];
}

/** Above this many bytes an original is sampled (counted whole below: about 1–2 s at worst here). */
export const SAMPLE_ABOVE_BYTES = 8 * 1024 * 1024;
export const SAMPLE_CHUNK_BYTES = 64 * 1024;
/** 64 chunks of 64 KiB: 4 MiB counted of any larger original. */
export const SAMPLE_CHUNKS = 64;

export function samplePlan(length: number, options: { above?: number; chunkBytes?: number; chunks?: number } = {}): SamplePlan {
  const above = options.above ?? SAMPLE_ABOVE_BYTES;
  const chunkBytes = options.chunkBytes ?? SAMPLE_CHUNK_BYTES;
  const chunks = options.chunks ?? SAMPLE_CHUNKS;
  if (length <= above || chunks * chunkBytes >= length) return { sampled: false, ranges: length > 0 ? [[0, length]] : [] };
  const ranges: [number, number][] = [];
  // Chunk k starts at k/(chunks-1) of the way to the last possible start: the first at 0, the last at the end.
  const last = length - chunkBytes;
  for (let k = 0; k < chunks; k++) {
    const start = Math.round((last * k) / (chunks - 1));
    ranges.push([start, start + chunkBytes]);
  }
  return { sampled: true, ranges };
}

/** The count of the whole from the counts of its sampled chunks: tokens per byte counted, times the length. */
export function scaleSample(countedTokens: number, countedBytes: number, length: number): number {
  return countedBytes === 0 ? 0 : Math.round((countedTokens * length) / countedBytes);
}
