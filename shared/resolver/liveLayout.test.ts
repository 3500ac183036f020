/** A followed session's layout, extended look by look, equals the layout computed from scratch. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LiveLayout } from './liveLayout';
import { extendLayout } from './liveLayout';
import { projectionLayout } from './project';
import type { Reduction, ReductionKind } from '../format/types';

/** Only what the layout reads of a reduction: its kind, where it points, a range's end. */
function reduction(kind: ReductionKind, index: number, end?: number): Reduction {
  return { id: `r${index}-${end ?? ''}`, kind, ptr: { index }, ...(end !== undefined ? { end } : {}) } as unknown as Reduction;
}

const reductionArb = fc.oneof(
  fc.record({ kind: fc.constantFrom<ReductionKind>('turns_cleared', 'summarized'), index: fc.integer({ min: -1, max: 40 }), span: fc.option(fc.integer({ min: -2, max: 12 }), { nil: undefined }) }).map(({ kind, index, span }) => reduction(kind, index, span === undefined ? undefined : index + span)),
  fc.record({ index: fc.nat({ max: 40 }) }).map(({ index }) => reduction('tool_output_elided', index)),
);

/** One look: the view grows or is cut (a rewind), reductions are logged, and some leave the log (an invert or rewind). */
const stepArb = fc.record({ grow: fc.integer({ min: -10, max: 12 }), add: fc.array(reductionArb, { maxLength: 3 }), drop: fc.array(fc.nat(), { maxLength: 2 }) });

describe('extendLayout', () => {
  it('after every look of any schedule equals projectionLayout of the view and log as they are', () => {
    fc.assert(
      fc.property(fc.nat({ max: 30 }), fc.array(stepArb, { maxLength: 12 }), (first, steps) => {
        let viewLength = first;
        let log: Reduction[] = [];
        let live: LiveLayout | undefined = extendLayout(undefined, viewLength, log);
        expect(live.layout).toEqual(projectionLayout(viewLength, log));
        for (const step of steps) {
          viewLength = Math.max(0, viewLength + step.grow);
          // An unchanged log stays the same array, as a followed sidecar hands it over.
          if (step.add.length > 0) log = [...log, ...step.add];
          for (const d of step.drop) if (log.length > 0) log = log.filter((_, k) => k !== d % log.length);
          const before = live.layout;
          const kept = { rowCount: before.rowCount, rowStarts: before.rowStarts.slice(), viewLength: before.viewLength };
          live = extendLayout(live, viewLength, log);
          expect(live.layout).toEqual(projectionLayout(viewLength, log));
          // The layout handed out before is left as it was (the worker may still be answering from it).
          expect(before).toEqual(kept);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('keeps the rows before the last one when messages are only appended (what a look at an appending agent costs)', () => {
    const log = [reduction('turns_cleared', 2, 6)];
    const before = extendLayout(undefined, 10, log);
    const after = extendLayout(before, 14, log);
    expect(after.layout).toEqual(projectionLayout(14, log));
    expect(Array.from(after.layout.rowStarts.subarray(0, before.layout.rowCount))).toEqual(Array.from(before.layout.rowStarts));
  });
});
