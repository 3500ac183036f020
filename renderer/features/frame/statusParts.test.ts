/** The status bar's words: a count of one is singular ("1 reduction"), in the latest view and at a past call. */
import { describe, expect, it } from 'vitest';
import { sessionInfo } from '../../store/testing/fakeHost';
import { statusParts } from './statusParts';

const one = sessionInfo({
  messages: 1,
  rows: 1,
  reductions: 1,
  reductions_by_kind: { tool_output_truncated: 1, tool_output_elided: 0, duplicate_output: 0, turns_cleared: 0, summarized: 0 },
});

describe('statusParts', () => {
  it('says 1 message, 1 row, 1 reduction and 1 finding, not "1 reductions"', () => {
    const parts = statusParts({ session: one, shownCall: null, contextMap: null, rowCount: 1, checkStatus: 'done', findings: 1 });
    expect(parts.slice(1, 5)).toEqual(['latest view', '1 message', '1 row', '1 reduction (1 truncated)']);
    expect(parts[5]).toBe('1 finding');
    expect(parts.join(' ')).not.toMatch(/\b1 [a-z]+s\b/);
  });

  it('at a past call, says what that call was given in the same words', () => {
    const map = { calls: 2, index: [1, 3], given: [10, 30], hidden: [0, 1], minted: [0, 1], rewinds: [], model_switches: [], minted_after_last: 0, unplaced: 0, ended: 0 };
    const parts = statusParts({ session: one, shownCall: 1, contextMap: map, rowCount: 1, checkStatus: 'done', findings: 0 });
    expect(parts.slice(1, 6)).toEqual(['call 1 of 2', '1 message given', '1 row', '10 bytes given, 0 bytes hidden', 'latest view: 1 reduction (1 truncated)']);
    expect(parts[6]).toBe('0 findings');
  });
});
