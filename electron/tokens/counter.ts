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
import { utf8StreamDecoder } from '../../shared/format/utf8';
import { countingPieces, samplePlan, scaleSample, tokenEstimate } from '../../shared/tokens/estimate';

/** Special-token text (`<|endoftext|>`) in a session is text the model read, counted as such. */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/** Whether this thread has counted with the tokenizer yet (`counterLoadedHere`). */
let counted = false;

/**
 * Whether this thread has loaded the tokenizer: its first count does, some 150–200 ms in the command
 * line's bundle (the encoding's chunk required and its ranks built), so a thread that need not count
 * may leave the last few counts to another that has (SessionEstimates.shareCounting).
 */
export function counterLoadedHere(): boolean {
  return counted;
}

/** The o200k count of one piece; a piece the tokenizer cannot take counts as its UTF-8 bytes / 4 (never throws). */
function countPiece(piece: string): number {
  try {
    const n = countTokens(piece, AS_TEXT);
    counted = true;
    return n;
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

/**
 * What an estimate counts, before it is counted: texts whose counts (`countText`) add up, and the
 * estimate their sum makes. An estimate is its plan counted here (`countPlan`), or its texts counted
 * elsewhere (a counting thread: electron/tokens/textCounter.ts) and their sum handed to `estimate`:
 * the same texts, so the same answer.
 */
export interface CountPlan {
  /** The texts to count, in order; taken once (a source's are read and decoded as they are taken). */
  readonly texts: Iterable<string>;
  /** The estimate made of the texts' counts, summed; asked once every text has been taken. */
  estimate(counted: number): TokenEstimate;
}

/**
 * The UTF-8 bytes `[start, end)` of `source` decoded in READ_BYTES blocks, one text per block; a
 * character cut at `start` is skipped. Adds the bytes the texts decode to `decoded.bytes`.
 */
function* rangeTexts(source: ByteSource, start: number, end: number, decoded: { bytes: number }): Generator<string> {
  const decoder = utf8StreamDecoder();
  let at = start;
  if (at > 0) {
    const head = source.read(at, Math.min(end, at + 4));
    let skip = 0;
    while (skip < head.length && isContinuation(head[skip])) skip++;
    at += skip;
  }
  decoded.bytes += end - at;
  while (at < end) {
    const next = Math.min(end, at + READ_BYTES);
    yield decoder.decode(source.read(at, next), { stream: next < end });
    at = next;
  }
}

/**
 * The plan of a byte source of any size, in bounded memory (one READ_BYTES block at a time) and
 * bounded time: at most SAMPLE_ABOVE_BYTES counted whole, above that SAMPLE_CHUNKS evenly spaced
 * chunks counted and scaled to the length, and said so (`sampled`).
 */
export function sourcePlan(source: ByteSource, marks: { approximate?: boolean } = {}, plan = samplePlan(source.length)): CountPlan {
  const decoded = { bytes: 0 };
  function* texts(): Generator<string> {
    for (const [start, end] of plan.ranges) yield* rangeTexts(source, start, end, decoded);
  }
  return {
    texts: texts(),
    estimate: (counted) => tokenEstimate(plan.sampled ? scaleSample(counted, decoded.bytes, source.length) : counted, { ...marks, sampled: plan.sampled }),
  };
}

/** The plan of a string; a string longer than the sampling threshold is sampled as its UTF-8 bytes are. */
export function textPlan(text: string, marks: { approximate?: boolean } = {}): CountPlan {
  // A string's UTF-8 length is at most 3 × its UTF-16 length: shorter than the threshold in units / 3, it is counted whole.
  if (!samplePlan(text.length * 3).sampled) return { texts: [text], estimate: (counted) => tokenEstimate(counted, marks) };
  const bytes = Buffer.from(text, 'utf8');
  return sourcePlan({ length: bytes.length, read: (s, e) => bytes.subarray(s, e) }, marks);
}

/**
 * The plan of a content as an estimate counts it: its bytes' (`sourcePlan`) when kept in a source,
 * else its text's (`textPlan`).
 */
export function contentPlan(content: ByteSource | string): CountPlan {
  return typeof content === 'string' ? textPlan(content) : sourcePlan(content);
}

/** A plan counted on this thread. */
export function countPlan(plan: CountPlan): TokenEstimate {
  let counted = 0;
  for (const text of plan.texts) counted += countText(text);
  return plan.estimate(counted);
}

/** The estimate of a byte source (`sourcePlan`) counted here. */
export function estimateSource(source: ByteSource, marks: { approximate?: boolean } = {}, plan = samplePlan(source.length)): TokenEstimate {
  return countPlan(sourcePlan(source, marks, plan));
}

/** The estimate of a string (`textPlan`) counted here. */
export function estimateText(text: string, marks: { approximate?: boolean } = {}): TokenEstimate {
  return countPlan(textPlan(text, marks));
}
