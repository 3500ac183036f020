/**
 * SPEC §15: an estimate fitted to the usage the same file records. Between two consecutive calls
 * the recorded context grows by what was added to the conversation (the answer of the first call,
 * the tool results and prompts after it); the estimate of those same messages is the estimated
 * growth. The factor is the median of recorded / estimated over the calls, and its error the median
 * absolute percentage error of `factor × estimated` against recorded: the number behind `est.`.
 * Measured on the real Claude Code files of the test corpus: docs/token-estimates.md.
 */

/** One step from a call to the next: the recorded growth of the context and the estimate of the messages added. */
export interface GrowthPair {
  recorded: number;
  estimated: number;
}

/** A factor with its error, and over how many steps it was fitted. */
export interface Fit {
  /** Multiply an estimate by this to get the file's own tokens. */
  factor: number;
  /** Median absolute percentage error of the calibrated estimate over the pairs used (0.1 = 10 %). */
  error: number;
  /** How many call-to-call steps it was fitted on. */
  calls: number;
}

export interface Calibration extends Fit {
  /**
   * `file`: fitted on this file's own records; `default`: the measured default for Claude models
   * (too few steps in the file, or its fit refused); `none`: no factor (factor 1) — a model with no
   * default whose file's fit was refused.
   */
  source: 'file' | 'default' | 'none';
  /** The file's own fit when it was refused as implausible (`plausibleFit`); the estimates use the fallback instead. */
  refused?: Fit;
}

/**
 * Steps whose recorded growth is at most this are left out: a few hundred tokens are dominated by
 * per-message framing the file does not hold, and a negative growth is a compaction or a cleared
 * cache, not an addition.
 */
export const MIN_GROWTH_TOKENS = 200;
/** Fewer usable steps than this and the file's own fit is not trusted: the default is reported. */
export const MIN_CALIBRATION_CALLS = 5;

/**
 * The uncalibrated factor for Claude models: the median recorded / o200k-estimated growth over
 * the 325 call-to-call steps of the real Claude Code files measured (docs/token-estimates.md), and
 * the median error of that one factor applied to each of those files with the others' fit.
 */
export const CLAUDE_DEFAULT: Calibration = { factor: 1.3, error: 0.105, calls: 325, source: 'default' };

/**
 * The factors a fit may have: an o200k count times this is the file's own count of the same text.
 * The tokenizers measured give 2.8–4.0 bytes per token on the same real files, and the real files'
 * own fits lie between ×1.05 and ×1.77 (×2.34 for Opus 4.7 on 4 steps: docs/token-estimates.md): no
 * text tokenizer counts a quarter or four times what o200k counts. A file whose growth says so records usage that does not follow
 * its messages (its usage was written by something else, or much of what it sent is not in it).
 */
export const PLAUSIBLE_FACTOR = { min: 0.25, max: 4 } as const;
/**
 * The most a fit may miss by (median absolute percentage error): the real files' fits miss by
 * 3–12.5 %; above a half, most steps are off by more than half of what they recorded.
 */
export const MAX_FIT_ERROR = 0.5;

/** Whether a file's own fit is used: its factor within PLAUSIBLE_FACTOR and its error at most MAX_FIT_ERROR. */
export function plausibleFit(fit: Fit): boolean {
  return fit.factor >= PLAUSIBLE_FACTOR.min && fit.factor <= PLAUSIBLE_FACTOR.max && fit.error <= MAX_FIT_ERROR;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** The pairs a fit uses: positive estimate, recorded growth above MIN_GROWTH_TOKENS, finite. */
export function usablePairs(pairs: readonly GrowthPair[]): GrowthPair[] {
  return pairs.filter((p) => Number.isFinite(p.recorded) && Number.isFinite(p.estimated) && p.recorded > MIN_GROWTH_TOKENS && p.estimated > 0);
}

/** Median absolute percentage error of `factor × estimated` against `recorded`. */
export function calibrationError(pairs: readonly GrowthPair[], factor: number): number {
  return median(pairs.map((p) => Math.abs(factor * p.estimated - p.recorded) / p.recorded));
}

/**
 * The calibration of a file from its call-to-call pairs, or `fallback` (undefined: none) when
 * fewer than MIN_CALIBRATION_CALLS of them are usable. A fit that is not plausible (`plausibleFit`)
 * is not used: the fallback is, carrying the fit as `refused`; with no fallback, factor 1
 * (`source: "none"`, its error that of the raw estimates over the same steps).
 */
export function calibrate(pairs: readonly GrowthPair[], fallback?: Calibration): Calibration | undefined {
  const usable = usablePairs(pairs);
  if (usable.length < MIN_CALIBRATION_CALLS) return fallback;
  const factor = median(usable.map((p) => p.recorded / p.estimated));
  const fit: Fit = { factor: round(factor, 3), error: round(calibrationError(usable, factor), 3), calls: usable.length };
  if (plausibleFit(fit)) return { ...fit, source: 'file' };
  const instead: Calibration = fallback ?? { factor: 1, error: round(calibrationError(usable, 1), 3), calls: usable.length, source: 'none' };
  return { ...instead, refused: fit };
}

/** An estimate in the file's own tokens. */
export function calibrated(tokens: number, calibration: Calibration | undefined): number {
  return calibration ? Math.round(tokens * calibration.factor) : tokens;
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
