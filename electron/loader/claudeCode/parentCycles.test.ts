/**
 * The loop check of parent links (importer.ts `parentCycles`) walks the links only when a record
 * links to a parent at or after its own line: without one no loop can close. Held here to the
 * walks themselves (`parentCycleWalks`) for any links, from any record on.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parentCycleWalks, parentCycles } from './importer';

type Rec = Record<string, unknown> & { __line: number };

/** Records on lines 1…n (now and then two on one line), from a few uuids, so that links repeat, go forward, back, nowhere and to themselves. */
const records = fc
  .array(
    fc.record({
      uuid: fc.option(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), { nil: undefined }),
      parentUuid: fc.oneof(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'x'), fc.constant(null), fc.constant(undefined), fc.constant(7)),
      sameLine: fc.boolean(),
    }),
    { maxLength: 40 },
  )
  .map((rows) => {
    let line = 0;
    return rows.map(({ uuid, parentUuid, sameLine }, k): Rec => {
      if (!(sameLine && k > 0)) line++;
      return { type: 'user', __line: line, ...(uuid !== undefined ? { uuid } : {}), ...(parentUuid !== undefined ? { parentUuid } : {}) };
    });
  });

/** By uuid, the last record that holds it (as the records' index keeps them). */
function byUuidOf(rs: readonly Rec[]): Map<string, Rec> {
  const map = new Map<string, Rec>();
  for (const r of rs) if (typeof r.uuid === 'string') map.set(r.uuid, r);
  return map;
}

describe('parentCycles', () => {
  it('answers what walking every link answers, for any links and from any record', () => {
    fc.assert(
      fc.property(records, fc.nat(), (rs, pick) => {
        const from = pick % (rs.length + 1);
        const byUuid = byUuidOf(rs);
        expect(parentCycles(rs, byUuid, from)).toEqual(parentCycleWalks(rs, byUuid, from));
      }),
      { numRuns: 3000 },
    );
  });

  it('finds a record that is its own parent, and a loop closed by a later line', () => {
    const self: Rec[] = [
      { type: 'user', __line: 1, uuid: 'a', parentUuid: null },
      { type: 'user', __line: 2, uuid: 'b', parentUuid: 'b' },
    ];
    expect(parentCycles(self, byUuidOf(self)).map((f) => f.line)).toEqual([2]);
    const closed: Rec[] = [
      { type: 'user', __line: 1, uuid: 'a', parentUuid: 'c' },
      { type: 'user', __line: 2, uuid: 'b', parentUuid: 'a' },
      { type: 'user', __line: 3, uuid: 'c', parentUuid: 'b' },
    ];
    expect(parentCycles(closed, byUuidOf(closed)).map((f) => f.line)).toEqual([1]);
  });
});
