import { describe, expect, it } from 'vitest';
import { checkIntegrity, compareLogs } from './integrity';
import { assistant, capped, makeReduction, tool, user } from '../testing/builders';
import type { ChatMessage, FindingCode, Reduction } from '../format/types';

const out = (s: string, id: string) => tool(`${s}\n${'log line\n'.repeat(30)}`, id);
const view: ChatMessage[] = [user('go'), assistant('', 'c1'), out('first', 'c1'), assistant('', 'c2'), out('second', 'c2'), assistant('', 'c3'), out('first', 'c3')];
const codes = (log: Reduction[], minted: ChatMessage[] = view, recorded?: ChatMessage[], logLines?: number[]) =>
  checkIntegrity({ minted, log, ...(recorded ? { recorded } : {}), ...(logLines ? { logLines } : {}) }).map((f) => f.code);

describe('checkIntegrity', () => {
  it('a consistent session has no findings', () => {
    const log = [
      makeReduction(view, { id: 'r1', kind: 'tool_output_truncated', index: 2, kept_bytes: 6 }),
      makeReduction(view, { id: 'r2', kind: 'tool_output_elided', index: 4 }),
      makeReduction(view, { id: 'r3', kind: 'duplicate_output', index: 6, canonical: 2 }),
      makeReduction(view, { id: 'r4', kind: 'turns_cleared', index: 0, end: 2 }),
    ];
    expect(checkIntegrity({ minted: view, recorded: view, log })).toEqual([]);
  });

  it('hash_mismatch: ptr.hash does not match the minted bytes; the finding carries the record line', () => {
    const log = [makeReduction(view, { kind: 'tool_output_elided', index: 4 }, { ptr: { index: 4, hash: `sha256:${'a'.repeat(64)}`, bytes: 10 } })];
    const [f] = checkIntegrity({ minted: view, log, logLines: [12] });
    expect(f).toMatchObject({ code: 'hash_mismatch', severity: 'error', line: 12, reduction_id: 'r1', index: 4 });
  });

  it('hash_mismatch: canonical.hash does not match the canonical bytes', () => {
    const log = [makeReduction(view, { kind: 'duplicate_output', index: 6, canonical: 2 }, { canonical: { index: 2, hash: `sha256:${'b'.repeat(64)}` } })];
    expect(codes(log)).toEqual(['hash_mismatch']);
  });

  it('hash_mismatch: ptr.bytes disagrees with the hashed bytes', () => {
    const good = makeReduction(view, { kind: 'tool_output_elided', index: 4 });
    expect(codes([{ ...good, ptr: { ...good.ptr, bytes: (good.ptr.bytes ?? 0) + 1 } }])).toEqual(['hash_mismatch']);
  });

  it('address_out_of_range: an index, a cleared range or a canonical outside the view', () => {
    expect(codes([makeReduction(view, { kind: 'tool_output_elided', index: 4 }, { ptr: { index: 40, hash: 'sha256:x', bytes: 1 } })])).toEqual(['address_out_of_range']);
    expect(codes([makeReduction(view, { kind: 'turns_cleared', index: 0, end: 2 }, { end: 99 })])).toEqual(['address_out_of_range']);
    expect(codes([makeReduction(view, { kind: 'turns_cleared', index: 3, end: 4 }, { end: 3 })])).toEqual(['address_out_of_range']);
    const dup = makeReduction(view, { kind: 'duplicate_output', index: 6, canonical: 2 });
    expect(codes([{ ...dup, canonical: { index: 70, hash: dup.canonical?.hash ?? '' } }])).toEqual(['address_out_of_range']);
  });

  it('address_out_of_range: a hole in the view (a message whose record could not be read)', () => {
    const holed = [...view] as (ChatMessage | undefined)[];
    holed[4] = undefined;
    const log = [makeReduction(view, { kind: 'tool_output_elided', index: 4 })];
    expect(checkIntegrity({ minted: holed, log }).map((f) => f.code)).toEqual(['address_out_of_range']);
  });

  it('duplicate_bytes_differ: a duplicate not byte-identical to its canonical', () => {
    expect(codes([makeReduction(view, { kind: 'duplicate_output', index: 4, canonical: 2 })])).toEqual(['duplicate_bytes_differ']);
  });

  it('kept_bytes_invalid: inside a UTF-8 character, or not below the content length', () => {
    const v = [tool(`\u4E2D\u6587${'x'.repeat(50)}`, 'c')];
    expect(codes([makeReduction(v, { kind: 'tool_output_truncated', index: 0, kept_bytes: 4 })], v)).toEqual(['kept_bytes_invalid']);
    expect(codes([makeReduction(v, { kind: 'tool_output_truncated', index: 0, kept_bytes: 3 })], v)).toEqual([]);
    expect(codes([makeReduction(v, { kind: 'tool_output_truncated', index: 0, kept_bytes: 56 })], v)).toEqual(['kept_bytes_invalid']);
  });

  it('overlapping_reductions: two live per-message reductions address one message', () => {
    const log = [makeReduction(view, { id: 'r1', kind: 'tool_output_elided', index: 4 }), makeReduction(view, { id: 'r2', kind: 'tool_output_truncated', index: 4, kept_bytes: 3 })];
    const f = checkIntegrity({ minted: view, log });
    expect(f.map((x) => x.code)).toEqual(['overlapping_reductions']);
    expect(f[0]?.message).toContain('r1');
    expect(f[0]?.message).toContain('r2');
  });

  it('a per-message reduction inside a cleared range is not an overlap', () => {
    const log = [makeReduction(view, { id: 'r1', kind: 'tool_output_elided', index: 2 }), makeReduction(view, { id: 'r2', kind: 'turns_cleared', index: 0, end: 4 })];
    expect(codes(log)).toEqual([]);
  });

  it('duplicate_reduction_id: an id minted twice', () => {
    const log = [makeReduction(view, { id: 'r1', kind: 'tool_output_elided', index: 2 }), makeReduction(view, { id: 'r1', kind: 'tool_output_elided', index: 4 })];
    expect(codes(log)).toEqual(['duplicate_reduction_id']);
  });

  it('sentinel_in_original: a reduction minted over a stub', () => {
    const v = [...view, tool('earlier: \u27E6reduced\u27E7 id=r1 kind=tool_output_elided hidden_bytes=9', 'c9')];
    expect(codes([makeReduction(v, { kind: 'tool_output_elided', index: 7 })], v)).toEqual(['sentinel_in_original']);
  });

  it('sentinel_in_original is for native sessions only: an imported one (native: false) mentioning the sentinel gets none, other findings still come', () => {
    const v = [...view, tool('earlier: \u27E6reduced\u27E7 id=r1 kind=tool_output_elided hidden_bytes=9', 'c9')];
    const over = makeReduction(v, { kind: 'tool_output_elided', index: 7 });
    expect(checkIntegrity({ minted: v, log: [over], native: false })).toEqual([]);
    expect(checkIntegrity({ minted: v, log: [over], native: true }).map((f) => f.code)).toEqual(['sentinel_in_original']);
    const twice = checkIntegrity({ minted: v, log: [over, { ...over }], native: false }).map((f) => f.code);
    expect(twice).toContain('duplicate_reduction_id');
    expect(twice).not.toContain('sentinel_in_original');
  });

  it('recorded_diverges: copies differ and the minted one is not a cap-notice-bearing prefix', () => {
    const recorded = view.map((m, i) => (i === 4 ? { ...m, content: `${m.content}changed` } : m));
    const f = checkIntegrity({ minted: view, recorded, log: [] });
    expect(f).toMatchObject([{ code: 'recorded_diverges', severity: 'warning', index: 4 }]);
  });

  it('recorded_diverges: copies of the same bytes whose roles differ, plain and capped, each named with both roles', () => {
    const sameBytes = view.map((m, i) => (i === 4 ? { ...m, role: 'user' as const } : m));
    const plain = checkIntegrity({ minted: view, recorded: sameBytes, log: [] });
    expect(plain).toMatchObject([{ code: 'recorded_diverges', severity: 'warning', index: 4 }]);
    expect(plain[0]?.message).toContain('roles differ (tool vs user)');
    // A capped minted copy of a recorded one under another role is no legacy cap: it is not upgraded.
    const minted = view.map((m, i) => (i === 4 ? capped(m, 20) : m));
    const cappedFindings = checkIntegrity({ minted, recorded: sameBytes, log: [] });
    expect(cappedFindings.map((f) => [f.code, f.index])).toEqual([['recorded_diverges', 4]]);
    expect(cappedFindings[0]?.message).toContain('roles differ (tool vs user)');
  });

  it('a legacy capped copy whose key holds does not diverge', () => {
    const minted = view.map((m, i) => (i === 4 ? capped(m, 20) : m));
    expect(checkIntegrity({ minted, recorded: view, log: [] })).toEqual([]);
  });

  it('recorded_diverges: a capped copy whose tool_call_id differs (the rewind case)', () => {
    const minted = view.map((m, i) => (i === 4 ? capped({ ...m, tool_call_id: 'c2-rerun' }, 20) : m));
    expect(checkIntegrity({ minted, recorded: view, log: [] }).map((f) => f.code)).toEqual(['recorded_diverges']);
  });
});

describe('compareLogs (log_differs)', () => {
  const a = makeReduction(view, { id: 'r1', kind: 'tool_output_elided', index: 2 });
  const b = makeReduction(view, { id: 'r2', kind: 'tool_output_elided', index: 4 });
  it('equal logs in any order and key order do not differ', () => {
    const reordered = JSON.parse(JSON.stringify({ stub: a.stub, minted_at: a.minted_at, ptr: a.ptr, kind: a.kind, id: a.id })) as Reduction;
    expect(compareLogs([a, b], [b, reordered])).toBeUndefined();
  });
  it('a reduction only on one side is log_differs naming it', () => {
    const f = compareLogs([a, b], [a]);
    expect(f?.code satisfies FindingCode | undefined).toBe('log_differs');
    expect(f?.severity).toBe('warning');
    expect(f?.message).toContain('only in the snapshot: r2');
  });
  it('the §10.1 fields count (a different group or hash origin differs); absent ones are their defaults', () => {
    const s1 = makeReduction(view, { id: 's1', kind: 'summarized', index: 0, end: 2, group: 'g1' });
    expect(compareLogs([s1], [{ ...s1, group: 'g2' }])?.code).toBe('log_differs');
    expect(compareLogs([a], [{ ...a, hash_origin: 'import' }])?.code).toBe('log_differs');
    expect(compareLogs([a], [{ ...a, origin: { event: 'e1' } }])?.code).toBe('log_differs');
    expect(compareLogs([a], [{ ...a, provenance: 'recorded', hash_origin: 'recorded' }])).toBeUndefined();
    expect(compareLogs([{ ...a, origin: { line: 3 } }], [JSON.parse(JSON.stringify({ ...a, origin: { line: 3 } })) as Reduction])).toBeUndefined();
  });
});
