import { describe, expect, it } from 'vitest';
import { invertOne, projectionLayout, projectView, rowOfIndex } from './project';
import { assistant, capped, makeReduction, tool, user } from './testing/builders';
import type { ChatMessage } from './types';

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
