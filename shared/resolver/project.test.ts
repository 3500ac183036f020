import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { invertOne, projectionLayout, projectView, rowOfIndex } from './project';
import { arrayList } from './session';
import { assistant, capped, makeReduction, tool, user } from '../testing/builders';
import type { ChatMessage } from '../format/types';
import { floorCharBoundary, utf8Decode, utf8Encode } from '../format/utf8';

const output = 'PASS a.test.ts\nFAIL b.test.ts \u2014 expected 3, got 4\nPASS c.test.ts\n';
const view: ChatMessage[] = [user('u0'), assistant('', 'c1'), tool(output, 'c1'), user('u3'), tool('dup', 'c4'), user('u5')];

describe('projectView', () => {
  const trunc = makeReduction(view, { id: 'r1', kind: 'tool_output_truncated', index: 2, kept_bytes: 15 });
  const cleared = makeReduction(view, { id: 'r2', kind: 'turns_cleared', index: 0, end: 2 });
  const elided = makeReduction(view, { id: 'r3', kind: 'tool_output_elided', index: 4 });

  it('shows one row per view message, prefix + stub for a truncation, stub for an elision', () => {
    const rows = projectView(view, [trunc, elided]);
    expect(rows.length).toBe(6);
    expect(rows[2]?.text).toBe(`PASS a.test.ts\n${trunc.stub}`);
    expect(rows[4]?.text).toBe(elided.stub);
    expect(rows[3]).toMatchObject({ text: 'u3', role: 'user', reductions: [] });
    expect(rows[2]?.reductions).toEqual([{ id: 'r1', kind: 'tool_output_truncated' }]);
  });

  it('a turns_cleared range becomes a single stub row', () => {
    const rows = projectView(view, [cleared, trunc]);
    expect(rows.map((r) => [r.index, r.end])).toEqual([
      [0, 2],
      [2, 3],
      [3, 4],
      [4, 5],
      [5, 6],
    ]);
    expect(rows[0]).toMatchObject({ text: cleared.stub, applied: 'r2' });
    expect(rows[0]?.role).toBeUndefined();
  });

  it('a window returns just those rows; rowOfIndex maps a view index to its row', () => {
    const layout = projectionLayout(view.length, [cleared]);
    expect(projectView(view, [cleared], { start: 1, end: 3 }, layout).map((r) => r.index)).toEqual([2, 3]);
    expect([0, 1, 2, 5].map((i) => rowOfIndex(layout, i))).toEqual([0, 0, 1, 4]);
    expect(rowOfIndex(layout, 6)).toBe(-1);
  });

  it('overlapping cleared ranges merge into one row', () => {
    const a = makeReduction(view, { id: 'a', kind: 'turns_cleared', index: 0, end: 3 });
    const b = makeReduction(view, { id: 'b', kind: 'turns_cleared', index: 2, end: 4 });
    expect(projectionLayout(view.length, [a, b]).rowCount).toBe(3);
  });
});

describe('invertOne', () => {
  it('splices the verified original back and removes only that log entry, without touching inputs', () => {
    const full = tool(`${'x'.repeat(80)}tail`, 'c1');
    const minted = [user('u'), capped(full, 30)];
    const r = makeReduction(minted, { id: 'r1', kind: 'tool_output_truncated', index: 1, kept_bytes: 10 });
    const other = makeReduction(minted, { id: 'r2', kind: 'turns_cleared', index: 0, end: 1 });
    const before = JSON.stringify([minted, r]);
    const res = invertOne(minted, [r, other], 'r1', [user('u'), full]);
    if (!res.ok) throw new Error(res.error.message);
    expect(res.value.view[1]?.content).toBe(full.content);
    expect(res.value.log.map((x) => x.id)).toEqual(['r2']);
    expect(JSON.stringify([minted, r])).toBe(before);
  });
  it('an unknown id is unknown_reduction', () => {
    expect(invertOne(view, [], 'nope')).toMatchObject({ ok: false, error: { code: 'unknown_reduction' } });
  });
});

describe('projectView: a truncated output shows its kept prefix, encoding no more than the prefix', () => {
  it('the shown prefix is the first kept_bytes of the whole content floored to a character, for any content and kept_bytes (fast-check)', () => {
    const pieces = ['a', 'é', '中', '😀', '\ud800', '\udc00', '\n'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map((p) => p.join('')), fc.integer({ min: 0, max: 100 }), (content, kept) => {
        const view = [user('q'), assistant('', 'c1'), tool(content, 'c1')];
        const r = makeReduction(view, { kind: 'tool_output_truncated', index: 2, kept_bytes: kept });
        const whole = utf8Encode(content);
        const shown = projectView(arrayList(view), [r])[2]?.text;
        expect(shown).toBe(utf8Decode(whole.subarray(0, floorCharBoundary(whole, kept))) + r.stub);
      }),
      { numRuns: 1000 },
    );
  });
});
