/** Properties (fast-check) of projectView's rows: which reductions touch each row. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Reduction, ReductionKind } from '../format/types';
import { isRangeKind } from '../format/types';
import { arrayList } from './session';
import type { ProjectedRow } from './project';
import { projectRows, projectView, projectionLayout, rowsTouched } from './project';

/** The reference: every view index's reductions listed one by one (a range at each of its indexes), read row by row. */
function touchingByIndex(log: readonly Reduction[], viewLength: number, index: number, rowEnd: number): string[] {
  const byIndex = new Map<number, Reduction[]>();
  for (const r of log) {
    const [s, e] = isRangeKind(r.kind) ? [r.ptr.index, r.end ?? r.ptr.index] : [r.ptr.index, r.ptr.index + 1];
    for (let i = s; i < e && i < viewLength; i++) byIndex.set(i, [...(byIndex.get(i) ?? []), r]);
  }
  const seen = new Set<Reduction>();
  const out: string[] = [];
  for (let i = index; i < rowEnd; i++) {
    for (const r of byIndex.get(i) ?? []) {
      if (seen.has(r)) continue;
      seen.add(r);
      out.push(r.id);
    }
  }
  return out;
}

const KINDS: ReductionKind[] = ['tool_output_truncated', 'tool_output_elided', 'duplicate_output', 'turns_cleared', 'summarized'];
/** Addresses inside, at the edges of and outside the view, fractional and negative ones too. */
const indexArb = fc.oneof(fc.integer({ min: -2, max: 14 }), fc.constantFrom(0.5, 3.5, Number.NaN));

const shapeArb = fc.record({ kind: fc.constantFrom(...KINDS), index: indexArb, length: fc.oneof(fc.integer({ min: 0, max: 9 }), fc.constant(2.5)) });

function reductionOf({ kind, index, length }: { kind: ReductionKind; index: number; length: number }, k: number): Reduction {
  return { id: `r${k}`, kind, ptr: { index, hash: null, bytes: 1 }, ...(isRangeKind(kind) ? { end: index + length } : {}), stub: `stub ${k}`, minted_at: 0 };
}

describe('projectView: the reductions touching each row', () => {
  it('are those a walk over every index of every row finds, in the same order, for any log (overlaps, repeats, addresses outside the view) and any window', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 12 }), fc.array(shapeArb, { maxLength: 14 }), fc.boolean(), fc.nat(), fc.nat(), (viewLength, shapes, repeat, a, b) => {
        const made = shapes.map(reductionOf);
        // The same record twice in a log, now and then.
        const log = repeat && made.length > 2 ? [...made, made[1] as Reduction] : made;
        const minted = arrayList(Array.from({ length: viewLength }, (_, i) => ({ role: 'user' as const, content: `m${i}` })));
        const layout = projectionLayout(viewLength, log);
        const start = layout.rowCount === 0 ? 0 : a % layout.rowCount;
        const end = start + (layout.rowCount === 0 ? 0 : b % (layout.rowCount - start + 1));
        const rows = projectView(minted, log, { start, end }, layout);
        expect(rows.map((r) => r.row)).toEqual(Array.from({ length: end - start }, (_, k) => start + k));
        for (const row of rows) expect(row.reductions.map((r) => r.id)).toEqual(touchingByIndex(log, viewLength, row.index, row.end));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('projectionLayout', () => {
  it('asked again for the same log and view length is the layout made the first time; a log that grew, or another view length, gets its own (fast-check)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 12 }), fc.array(shapeArb, { maxLength: 14 }), shapeArb, fc.integer({ min: 0, max: 12 }), (viewLength, shapes, more, otherLength) => {
        const log = shapes.map(reductionOf);
        const first = projectionLayout(viewLength, log);
        expect(projectionLayout(viewLength, log)).toBe(first);
        // A copy of the log is laid out afresh: the same layout.
        expect(projectionLayout(viewLength, [...log])).toEqual(first);
        expect(projectionLayout(otherLength, log)).toEqual(projectionLayout(otherLength, [...log]));
        log.push(reductionOf(more, log.length));
        expect(projectionLayout(viewLength, log)).toEqual(projectionLayout(viewLength, [...log]));
      }),
      { numRuns: 1000 },
    );
  });
});

/** A row as JSON shows it (its text read, as a lazily read text is at use). */
const plainRow = (row: ProjectedRow): unknown => JSON.parse(JSON.stringify(row));

describe('projectRows and rowsTouched', () => {
  const logArb = fc.tuple(fc.integer({ min: 0, max: 12 }), fc.array(shapeArb, { maxLength: 14 }), fc.boolean()).map(([viewLength, shapes, repeat]) => {
    const made = shapes.map(reductionOf);
    return { viewLength, log: repeat && made.length > 2 ? [...made, made[1] as Reduction] : made };
  });

  it('any increasing rows are exactly those rows of projectView, for any log (fast-check)', () => {
    fc.assert(
      fc.property(logArb, fc.array(fc.boolean(), { maxLength: 16 }), ({ viewLength, log }, picks) => {
        const minted = arrayList(Array.from({ length: viewLength }, (_, i) => ({ role: 'user' as const, content: `m${i}` })));
        const layout = projectionLayout(viewLength, log);
        const all = projectView(minted, log, undefined, layout);
        // Rows past the view are left out.
        const rows = picks.map((p, row) => (p ? row : -1)).filter((row) => row >= 0);
        expect(projectRows(minted, log, rows, layout).map(plainRow)).toEqual(all.filter((r) => rows.includes(r.row)).map(plainRow));
      }),
      { numRuns: 2000 },
    );
  });

  it('rowsTouched holds every row that shows a reduction or is touched by one, in order (fast-check)', () => {
    fc.assert(
      fc.property(logArb, ({ viewLength, log }) => {
        const minted = arrayList(Array.from({ length: viewLength }, (_, i) => ({ role: 'user' as const, content: `m${i}` })));
        const layout = projectionLayout(viewLength, log);
        const touched = rowsTouched(log, layout);
        expect(touched).toEqual([...touched].sort((a, b) => a - b));
        expect(new Set(touched).size).toBe(touched.length);
        const needed = projectView(minted, log, undefined, layout).filter((r) => r.applied !== undefined || r.reductions.length > 0).map((r) => r.row);
        for (const row of needed) expect(touched).toContain(row);
        // And none beyond: a row it names is one a reduction touches.
        const shown = new Set(needed);
        for (const row of touched) expect(shown.has(row), `row ${row}`).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('rows asked out of order are refused (the index of what touches each row walks forward)', () => {
    const minted = arrayList([{ role: 'user' as const, content: 'a' }, { role: 'user' as const, content: 'b' }]);
    expect(() => projectRows(minted, [], [1, 0])).toThrow(/rows must increase/);
  });
});
