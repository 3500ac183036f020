/** The line diff's bounds (shared/calls/callsDiff.ts, docs/diff.md): a side over a cap is summarised, said so. */
import { describe, expect, it } from 'vitest';
import { DIFF_TEXT_MAX_BYTES, DIFF_TEXT_MAX_LINES, lineDiff } from './callsDiff';
import { opArb, recordsOf } from '../testing/callRecords';
import { replay } from '../testing/replay';
import fc from 'fast-check';

describe('lineDiff', () => {
  it('gives unified hunks with three lines of context, no "no newline" markers', () => {
    const from = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].join('\n');
    const to = ['a', 'b', 'c', 'd', 'E', 'f', 'g', 'h'].join('\n');
    expect(lineDiff(from, to)).toEqual({ lines: { from: 8, to: 8 }, hunks: [{ from_start: 2, from_count: 7, to_start: 2, to_count: 7, lines: [' b', ' c', ' d', '-e', '+E', ' f', ' g', ' h'] }] });
  });

  it('equal texts have no hunks', () => {
    expect(lineDiff('x\ny', 'x\ny')).toEqual({ lines: { from: 2, to: 2 }, hunks: [] });
  });

  it(`a side over ${DIFF_TEXT_MAX_BYTES} bytes is not diffed, and the note says so`, () => {
    const big = 'x'.repeat(DIFF_TEXT_MAX_BYTES + 1);
    const d = lineDiff(big, 'stub');
    expect(d.hunks).toBeNull();
    expect(d.note).toBe(`not diffed: a side is over ${DIFF_TEXT_MAX_BYTES} bytes`);
  });

  it(`a side over ${DIFF_TEXT_MAX_LINES} lines is not diffed, and the note says so`, () => {
    const many = '\n'.repeat(DIFF_TEXT_MAX_LINES + 1);
    const d = lineDiff(many, 'stub');
    expect(d.hunks).toBeNull();
    expect(d.lines.from).toBe(DIFF_TEXT_MAX_LINES + 1);
    expect(d.note).toBe(`not diffed: a side is over ${DIFF_TEXT_MAX_LINES} lines`);
  });

  it('a side not read (over the cap of a message kept on disk) is summarised', () => {
    expect(lineDiff(null, 'stub')).toMatchObject({ lines: { from: null, to: 1 }, hunks: null });
  });
});

describe('diff of two calls: caps', () => {
  it('past the budget of hunk bytes, later runs are summarised and counted; `limit` lists the first runs only', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
        const { session } = replay(recordsOf(ops));
        const whole = session.callsDiff(1, null);
        if (!whole) return;
        const none = session.callsDiff(1, null, { maxTotalBytes: 0 })!;
        expect(none.changed.map((r) => [r.index, r.end])).toEqual(whole.changed.map((r) => [r.index, r.end]));
        for (const r of none.changed) expect(r.text).toMatchObject({ hunks: null, note: 'not diffed: this diff\'s line diffs already hold 0 bytes' });
        const one = session.callsDiff(1, null, { limit: 1 })!;
        expect(one.changed).toEqual(whole.changed.slice(0, 1));
        expect(one.changed_count).toBe(whole.changed.length);
      }),
      { numRuns: 100 },
    );
  });
});
