/** The pure parts of token estimates (SPEC §15): how text is cut before counting, which bytes a sample counts, calibration, breakdown. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contextBreakdown } from './breakdown';
import { CLAUDE_DEFAULT, MAX_FIT_ERROR, MIN_CALIBRATION_CALLS, PLAUSIBLE_FACTOR, calibrate, calibrationError, plausibleFit } from './calibration';
import { countingPieces, isClaudeModel, samplePlan, scaleSample, sumEstimates, tokenEstimate } from './estimate';

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;
const SPACE = /[ \n\t\r]/;

describe('countingPieces', () => {
  const text = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\n', '漢', '😀', '\ud800', '\udc00', '.'), maxLength: 400 });
  it('the pieces concatenate to the text; none is longer than the limit; no run of non-space is longer than the run limit; a pair is never cut', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 4, max: 64 }), fc.integer({ min: 2, max: 16 }), (t, maxPiece, maxRun) => {
        const pieces = countingPieces(t, maxPiece, maxRun);
        expect(pieces.join('')).toBe(t);
        for (const [k, p] of pieces.entries()) {
          expect(p.length).toBeLessThanOrEqual(maxPiece);
          if (t.length > 0) expect(p.length).toBeGreaterThan(0);
          let run = 0;
          for (const ch of p) {
            run = SPACE.test(ch) ? 0 : run + ch.length;
            // A cut pair would leave a high surrogate last and a low one first: only lone ones may stand there.
          }
          expect(run).toBeLessThanOrEqual(Math.max(maxRun, p.length));
          const next = pieces[k + 1];
          if (next !== undefined && p.length > 0 && next.length > 0) expect(isHigh(p.charCodeAt(p.length - 1)) && isLow(next.charCodeAt(0))).toBe(false);
        }
        for (const p of pieces) {
          let run = 0;
          for (let i = 0; i < p.length; i++) {
            run = SPACE.test(p[i] as string) ? 0 : run + 1;
            // A pair kept whole may make a run one unit longer than the limit.
            expect(run).toBeLessThanOrEqual(maxRun + 1);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('an empty text is one empty piece', () => {
    expect(countingPieces('')).toEqual(['']);
  });
});

describe('samplePlan', () => {
  it('below the threshold the whole; above, `chunks` ranges of `chunkBytes`, in order, inside the bytes, first at 0 and last at the end', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 1, max: 4096 }), fc.integer({ min: 2, max: 64 }), fc.integer({ min: 0, max: 1_000_000 }), (length, chunkBytes, chunks, above) => {
        const plan = samplePlan(length, { above, chunkBytes, chunks });
        if (!plan.sampled) {
          expect(plan.ranges).toEqual(length > 0 ? [[0, length]] : []);
          expect(length <= above || chunks * chunkBytes >= length).toBe(true);
          return;
        }
        expect(plan.ranges).toHaveLength(chunks);
        expect(plan.ranges[0]?.[0]).toBe(0);
        expect(plan.ranges.at(-1)?.[1]).toBe(length);
        for (const [k, [s, e]] of plan.ranges.entries()) {
          expect(e - s).toBe(chunkBytes);
          if (k > 0) expect(s).toBeGreaterThanOrEqual(plan.ranges[k - 1]?.[1] as number);
        }
      }),
    );
  });

  it('scaling: tokens per counted byte times the length', () => {
    expect(scaleSample(100, 400, 4000)).toBe(1000);
    expect(scaleSample(0, 0, 4000)).toBe(0);
  });
});

describe('estimates', () => {
  it('a sum is approximate or sampled when a part is', () => {
    const s = sumEstimates([tokenEstimate(3), tokenEstimate(4, { sampled: true })]);
    expect(s).toEqual({ tokens: 7, source: 'estimated', sampled: true });
    expect(sumEstimates([tokenEstimate(1)], { approximate: true })).toEqual({ tokens: 1, source: 'estimated', approximate: true });
  });

  it('Claude models are told by their ids', () => {
    for (const m of ['claude-opus-4-5-20251101', 'claude-3-5-sonnet', 'anthropic/claude-sonnet-4.5']) expect(isClaudeModel(m)).toBe(true);
    for (const m of ['gpt-4o', 'gpt-5-codex', 'o3', null, undefined, '']) expect(isClaudeModel(m)).toBe(false);
  });
});

describe('calibrate', () => {
  const pair = fc.record({ recorded: fc.integer({ min: 201, max: 100_000 }), estimated: fc.integer({ min: 1, max: 100_000 }) });
  it('the factor is the median ratio; the error is the median error of the factor; fewer usable steps than the minimum give the fallback; an implausible fit is refused for the fallback', () => {
    fc.assert(
      fc.property(fc.array(pair, { maxLength: 40 }), fc.boolean(), (pairs, withDefault) => {
        const fallback = withDefault ? CLAUDE_DEFAULT : undefined;
        const c = calibrate(pairs, fallback);
        if (pairs.length < MIN_CALIBRATION_CALLS) {
          expect(c).toBe(fallback);
          return;
        }
        const ratios = pairs.map((p) => p.recorded / p.estimated).sort((a, b) => a - b);
        const fit = c?.refused ?? c;
        expect(fit?.calls).toBe(pairs.length);
        expect(fit!.factor).toBeGreaterThanOrEqual((ratios[0] as number) - 0.001);
        expect(fit!.factor).toBeLessThanOrEqual((ratios.at(-1) as number) + 0.001);
        // Both figures are rounded to 3 decimals; the error moves with the factor by at most estimated/recorded per unit.
        const slope = Math.max(...pairs.map((p) => p.estimated / p.recorded));
        expect(Math.abs(fit!.error - calibrationError(pairs, fit!.factor))).toBeLessThanOrEqual(0.0005 + 0.0005 * slope + 1e-9);
        // Used when plausible, else refused: the fallback's figures, or factor 1 with the raw estimates' error.
        expect(c?.source === 'file').toBe(plausibleFit(fit!));
        if (c?.source === 'file') expect(c.refused).toBeUndefined();
        else if (fallback) expect(c).toEqual({ ...fallback, refused: fit });
        else expect(c).toEqual({ factor: 1, error: Math.round(calibrationError(pairs, 1) * 1000) / 1000, calls: pairs.length, source: 'none', refused: fit });
      }),
    );
  });

  it('a fit is plausible only with its factor between a quarter and four and its error at most a half', () => {
    const at = (factor: number, error: number) => plausibleFit({ factor, error, calls: MIN_CALIBRATION_CALLS });
    expect([at(0.25, 0), at(1.3, 0.105), at(2.34, 0.166), at(4, 0.5)]).toEqual([true, true, true, true]);
    expect([at(0.249, 0), at(4.001, 0), at(1.3, 0.501), at(51.26, 0.745)]).toEqual([false, false, false, false]);
    expect([PLAUSIBLE_FACTOR.min, PLAUSIBLE_FACTOR.max, MAX_FIT_ERROR]).toEqual([0.25, 4, 0.5]);
  });

  it('a file whose growth is an exact multiple of the estimate calibrates to that multiple with no error', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 200, max: 50_000 }), { minLength: MIN_CALIBRATION_CALLS, maxLength: 30 }), fc.integer({ min: 11, max: 30 }), (estimates, tenths) => {
        const c = calibrate(estimates.map((e) => ({ estimated: e, recorded: (e * tenths) / 10 })));
        expect(c).toEqual({ factor: tenths / 10, error: 0, calls: estimates.length, source: 'file' });
      }),
    );
  });

  it('steps of at most 200 tokens and non-positive estimates are left out', () => {
    const good = Array.from({ length: MIN_CALIBRATION_CALLS }, (_, k) => ({ recorded: 1000 + k, estimated: 800 }));
    expect(calibrate([...good, { recorded: 150, estimated: 1 }, { recorded: -5000, estimated: 10 }, { recorded: 900, estimated: 0 }])?.calls).toBe(MIN_CALIBRATION_CALLS);
    expect(calibrate(good.slice(1))).toBeUndefined();
  });
});

describe('contextBreakdown', () => {
  const role = fc.constantFrom('system', 'user', 'assistant', 'tool', null);
  it('the parts sum to in_file; not_in_file is recorded minus in_file; a summary counts as a summary whatever its role', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ role, summary: fc.boolean(), tokens: fc.nat(10_000) })), fc.nat(5000), fc.option(fc.nat(1_000_000), { nil: undefined }), (messages, instructions, recorded) => {
        const b = contextBreakdown(messages, { instructions, ...(recorded !== undefined ? { recorded } : {}) });
        const total = messages.reduce((n, m) => n + m.tokens, 0) + instructions;
        expect(b.system + b.user + b.assistant + b.tool_results + b.summaries + b.other).toBe(total);
        expect(b.in_file).toBe(total);
        expect(b.summaries).toBe(messages.filter((m) => m.summary).reduce((n, m) => n + m.tokens, 0));
        expect(b.tool_results).toBe(messages.filter((m) => !m.summary && m.role === 'tool').reduce((n, m) => n + m.tokens, 0));
        if (recorded === undefined) expect('not_in_file' in b).toBe(false);
        else expect(b.not_in_file).toBe(recorded - total);
      }),
    );
  });
});
