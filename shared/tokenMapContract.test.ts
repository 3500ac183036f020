/**
 * `tokenMap` replies carry only what the asker lacks (docs/tokens.md "How the pass runs"):
 * mergeTokenMap puts a pass's replies back together, whatever the slices.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TokenMapFigures, TokenMapReply } from './tokenMapContract';
import { knownOf, mergeTokenMap } from './tokenMapContract';

const figure = fc.option(fc.nat(1_000_000), { nil: null });

/** A reply of pass `pass` answering an asker holding `held`, from the pass's figures so far (`estimated`, `hidden`), as the worker answers. */
function replyTo(held: TokenMapFigures | null, pass: number, estimated: (number | null)[], hidden: (number | null)[], window: (number | null)[], last: boolean): TokenMapReply {
  const known = knownOf(held);
  const ours = known?.pass === pass;
  const from = ours ? Math.min(known.calls, estimated.length) : 0;
  return {
    pass,
    from,
    progress: last ? null : { stage: 'estimating', done: estimated.length, calls: window.length },
    estimated: estimated.slice(from),
    hidden: hidden.slice(from),
    window: ours ? null : window,
    calibration: null,
    approximate: false,
    sampled: false,
    partial: false,
  };
}

describe('mergeTokenMap', () => {
  it('a pass asked in any slices, each ask saying what is held, merges to the whole map; each reply carries only the new calls', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(figure, figure), { maxLength: 300 }),
        fc.array(fc.nat(40), { minLength: 1, maxLength: 30 }),
        fc.nat(5),
        (calls, steps, pass) => {
          const estimated = calls.map(([e]) => e);
          const hidden = calls.map(([, h]) => h);
          const window = calls.map(() => 200_000);
          let held: TokenMapFigures | null = null;
          let done = 0;
          for (const [k, step] of [...steps, calls.length].entries()) {
            done = Math.min(calls.length, done + step);
            const last = k === steps.length;
            const reply = replyTo(held, pass, estimated.slice(0, done), hidden.slice(0, done), window, last);
            expect(reply.estimated).toHaveLength(done - (held?.estimated.length ?? 0));
            const merged: TokenMapFigures | undefined = mergeTokenMap(held, reply);
            if (!merged) throw new Error('a reply to what was held did not merge');
            held = merged;
            expect([held.estimated, held.hidden, held.window]).toEqual([estimated.slice(0, done), hidden.slice(0, done), window]);
          }
          expect(held?.progress).toBeNull();
        },
      ),
    );
  });

  it('a reply that builds on figures not held (another pass, more calls than held) is refused; one from the start is taken whole', () => {
    const held: TokenMapFigures = { pass: 1, progress: { stage: 'estimating', done: 2, calls: 4 }, estimated: [10, null], hidden: [0, 1], window: [5, 5, 5, 5], calibration: null, approximate: false, sampled: false, partial: false };
    const next = replyTo(held, 1, [10, null, 30], [0, 1, 2], [5, 5, 5, 5], false);
    expect(mergeTokenMap(held, next)?.estimated).toEqual([10, null, 30]);
    expect(mergeTokenMap({ ...held, pass: 2 }, next)).toBeUndefined();
    expect(mergeTokenMap(null, next)).toBeUndefined();
    expect(mergeTokenMap({ ...held, estimated: [10], hidden: [0] }, next)).toBeUndefined();
    // An asker that said it held more than the pass has (its `known` ahead of the worker's) keeps only the first `from`.
    const behind = replyTo({ ...held, estimated: [10], hidden: [0] }, 1, [10, 20], [0, 2], [5, 5, 5, 5], false);
    expect(mergeTokenMap({ ...held, estimated: [10, null, 99], hidden: [0, 1, 9] }, behind)).toMatchObject({ estimated: [10, 20], hidden: [0, 2] });
    const whole = replyTo(null, 3, [1, 2], [0, 0], [5, 5, 5, 5], true);
    expect(mergeTokenMap(held, whole)).toEqual({ pass: 3, progress: null, estimated: [1, 2], hidden: [0, 0], window: [5, 5, 5, 5], calibration: null, approximate: false, sampled: false, partial: false });
  });
});
