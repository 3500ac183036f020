/**
 * SPEC §15 "Estimates": the o200k_base counter (gpt-tokenizer, chosen by measuring:
 * docs/token-estimates.md). Importing this module costs nothing until a count is asked for: the
 * command line's bundle turns the package's import into getters that require its own chunk
 * (dist/cli-lib-gpt-tokenizer-encoding-o200k_base.cjs, scripts/build.mjs `lazy-modules`), so a
 * command that estimates nothing never loads the encoding (2.4 MB of ranks).
 */
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { ByteSource } from '../../shared/format/types';
import type { TokenEstimate } from '../../shared/tokens/estimate';
import { countingPieces, samplePlan, scaleSample, tokenEstimate } from '../../shared/tokens/estimate';

/** Special-token text (`<|endoftext|>`) in a session is text the model read, counted as such. */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/** The o200k count of one piece; a piece the tokenizer cannot take counts as its UTF-8 bytes / 4 (never throws). */
function countPiece(piece: string): number {
  try {
    return countTokens(piece, AS_TEXT);
  } catch {
    return Math.ceil(Buffer.byteLength(piece) / 4);
  }
}

/** The o200k_base token count of `text`, counted piece by piece (shared/tokens/estimate.ts countingPieces). */
export function countText(text: string): number {
  if (text.length === 0) return 0;
  let n = 0;
  for (const piece of countingPieces(text)) n += countPiece(piece);
  return n;
}

/** Bytes read and decoded at once while counting a byte source. */
const READ_BYTES = 1024 * 1024;

const isContinuation = (b: number | undefined) => b !== undefined && (b & 0xc0) === 0x80;

/** Tokens of the UTF-8 bytes `[start, end)` of `source`, read in READ_BYTES blocks; a character cut at `start` is skipped. */
function countRange(source: ByteSource, start: number, end: number): { tokens: number; bytes: number } {
  const decoder = new TextDecoder('utf-8');
  let at = start;
  if (at > 0) {
    const head = source.read(at, Math.min(end, at + 4));
    let skip = 0;
    while (skip < head.length && isContinuation(head[skip])) skip++;
    at += skip;
  }
  let tokens = 0;
  const from = at;
  while (at < end) {
    const next = Math.min(end, at + READ_BYTES);
    tokens += countText(decoder.decode(source.read(at, next), { stream: next < end }));
    at = next;
  }
  return { tokens, bytes: end - from };
}

/**
 * The estimate of a byte source of any size in bounded memory (one READ_BYTES block at a time) and
 * bounded time: at most SAMPLE_ABOVE_BYTES counted whole, above that SAMPLE_CHUNKS evenly spaced
 * chunks counted and scaled to the length, and said so (`sampled`).
 */
export function estimateSource(source: ByteSource, marks: { approximate?: boolean } = {}, plan = samplePlan(source.length)): TokenEstimate {
  let tokens = 0;
  let bytes = 0;
  for (const [start, end] of plan.ranges) {
    const r = countRange(source, start, end);
    tokens += r.tokens;
    bytes += r.bytes;
  }
  return tokenEstimate(plan.sampled ? scaleSample(tokens, bytes, source.length) : tokens, { ...marks, sampled: plan.sampled });
}

/** The estimate of a string; a string longer than the sampling threshold is sampled as its UTF-8 bytes are. */
export function estimateText(text: string, marks: { approximate?: boolean } = {}): TokenEstimate {
  // A string's UTF-8 length is at most 3 × its UTF-16 length: shorter than the threshold in units / 3, it is counted whole.
  const plan = samplePlan(text.length * 3);
  if (!plan.sampled) return tokenEstimate(countText(text), marks);
  const bytes = Buffer.from(text, 'utf8');
  return estimateSource({ length: bytes.length, read: (s, e) => bytes.subarray(s, e) }, marks);
}
