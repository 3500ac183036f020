/** SPEC §10.1 "Original not in the file": `ptr.hash: null`, `ptr.bytes` the size the file states (or null). */
import { describe, expect, it } from 'vitest';
import { expandReduction, reductionTotalBytes } from './expand';
import { checkIntegrity } from './integrity';
import { hashOrigin } from './original';
import { projectView } from './project';
import { reductionSchema } from '../format/schema';
import { sidecarSearch } from '../search';
import { checkReduction, logReport } from './status';
import { assistant, makeReduction, tool, user } from '../testing/builders';
import type { ChatMessage, Result } from '../format/types';

function value<T>(r: Result<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${r.error.code}: ${r.error.message}`);
  return r.value;
}

// As an importer would give it: the view holds what the model saw where the original is gone.
const view: ChatMessage[] = [user('Run it'), assistant('', 'c1'), tool('[output truncated: 5000 bytes]', 'c1'), assistant('', 'c2'), tool('needle in a visible output', 'c2')];
const gone = makeReduction(view, { id: 'g1', kind: 'tool_output_elided', index: 2, unavailable: true }, { ptr: { index: 2, hash: null, bytes: 5000 }, stub: '[output truncated: 5000 bytes]' });
const sizeless = makeReduction(view, { id: 'g2', kind: 'tool_output_elided', index: 4, unavailable: true }, { ptr: { index: 4, hash: null, bytes: null } });

describe('original_unavailable', () => {
  it('expand and reductionTotalBytes answer original_unavailable, saying what the file records', () => {
    const out = expandReduction([gone], 'g1', view);
    expect(out).toMatchObject({ ok: false, error: { code: 'original_unavailable', reduction_id: 'g1', index: 2 } });
    expect(!out.ok && out.error.message).toContain('5000 bytes');
    expect(reductionTotalBytes([gone], 'g1', view)).toMatchObject({ ok: false, error: { code: 'original_unavailable' } });
    // With a range too: the range is never looked at.
    expect(expandReduction([gone], 'g1', view, undefined, [0, 10])).toMatchObject({ ok: false, error: { code: 'original_unavailable' } });
    const noSize = expandReduction([sizeless], 'g2', view);
    expect(!noSize.ok && noSize.error.message).toContain('no size');
  });

  it('a size the file states only approximately (stated_size) is said to be approximate, in the file\'s own words; the schema keeps it on hash-less reductions only', () => {
    const approx = { ...gone, stated_size: 'Original token count: 1250, at 4 bytes a token' };
    const out = expandReduction([approx], 'g1', view);
    expect(!out.ok && out.error.message).toContain('records their size only approximately (Original token count: 1250, at 4 bytes a token: about 5000 bytes) and the stub the model saw');
    // without it, the exact wording for a size in bytes
    const exact = expandReduction([gone], 'g1', view);
    expect(!exact.ok && exact.error.message).toContain('records their size, 5000 bytes, and the stub');
    expect(reductionSchema.safeParse(approx).success).toBe(true);
    expect(reductionSchema.safeParse({ ...approx, ptr: { index: 2, hash: `sha256:${'0'.repeat(64)}`, bytes: 5000 } }).success).toBe(false);
  });

  it('a bad address is still address_out_of_range (checked first)', () => {
    const far = { ...gone, ptr: { ...gone.ptr, index: 40 } };
    expect(expandReduction([far], 'g1', view)).toMatchObject({ ok: false, error: { code: 'address_out_of_range' } });
  });

  it('search skips it and counts it; per-message and range reductions alike', () => {
    const sum = makeReduction(view, { id: 's1', kind: 'summarized', index: 0, end: 2, unavailable: true });
    const res = value(sidecarSearch([gone, sizeless, sum], 'needle', view));
    expect(res).toMatchObject({ total_matches: 0, reductions_searched: 0, hidden_bytes_searched: 0, reductions_unavailable: 3 });
    // An unavailable range does not enclose: a per-message reduction inside it is searched on its own.
    const v2: ChatMessage[] = [user('Run it'), { ...(view[1] as ChatMessage), content: 'the needle' }, ...view.slice(2)];
    const inner = makeReduction(v2, { id: 'e1', kind: 'tool_output_elided', index: 1 });
    expect(value(sidecarSearch([sum, inner], 'needle', v2))).toMatchObject({ total_matches: 1, reductions_searched: 1, reductions_unavailable: 1, matches: [{ reduction_id: 'e1' }] });
  });

  it('the result bound holds with the new field: a result still never exceeds max_result_bytes', () => {
    const hit = makeReduction(view, { id: 'h', kind: 'tool_output_elided', index: 4 });
    for (const max of [200, 260, 300, 400]) {
      const r = sidecarSearch([gone, hit], 'needle', view, undefined, { max_result_bytes: max });
      if (r.ok) expect(new TextEncoder().encode(JSON.stringify(r.value)).length).toBeLessThanOrEqual(max);
      else expect(r.error.code).toBe('invalid_query');
    }
  });

  it('integrity reports no hash_mismatch (nor ptr.bytes disagreement); an address outside the view still is reported', () => {
    expect(checkIntegrity({ minted: view, log: [gone, sizeless] })).toEqual([]);
    const far = { ...gone, ptr: { ...gone.ptr, index: 40 } };
    expect(checkIntegrity({ minted: view, log: [far] }).map((f) => f.code)).toEqual(['address_out_of_range']);
  });

  it('the projected view shows its stub', () => {
    expect(projectView(view, [gone])[2]).toMatchObject({ text: '[output truncated: 5000 bytes]', applied: 'g1' });
  });

  it('checkReduction and logReport: status original_unavailable, hidden bytes as stated, no hash_origin', () => {
    const trunc = makeReduction(view, { id: 't', kind: 'tool_output_truncated', index: 2, kept_bytes: 10, unavailable: true }, { ptr: { index: 2, hash: null, bytes: 5000 } });
    expect(checkReduction(trunc, [trunc], view, undefined)).toMatchObject({ status: 'original_unavailable', hidden_bytes: 4990, provenance: 'recorded', hash_origin: null });
    const [a, b] = logReport([gone, sizeless], view, undefined);
    expect(a).toMatchObject({ id: 'g1', kind: 'tool_output_elided', ptr: { hash: null, bytes: 5000 }, status: 'original_unavailable', hidden_bytes: 5000, hash_origin: null });
    expect(b).toMatchObject({ id: 'g2', status: 'original_unavailable', hidden_bytes: null });
  });

  it('schema: hash null with a stated or null size; a null size needs a null hash; no hash_origin without a hash', () => {
    expect(reductionSchema.safeParse(gone).success).toBe(true);
    expect(reductionSchema.safeParse(sizeless).success).toBe(true);
    const hashed = makeReduction(view, { id: 'h', kind: 'tool_output_elided', index: 4 });
    expect(reductionSchema.safeParse({ ...hashed, ptr: { ...hashed.ptr, bytes: null } }).success).toBe(false);
    expect(reductionSchema.safeParse({ ...gone, hash_origin: 'import' }).success).toBe(false);
  });
});

describe('provenance, origin and hash_origin (§10.1)', () => {
  const r = makeReduction(view, { id: 'h', kind: 'tool_output_elided', index: 4 });

  it('absent fields mean a native reduction: provenance recorded, hash recorded', () => {
    expect(checkReduction(r, [r], view, undefined)).toMatchObject({ status: 'verified', provenance: 'recorded', hash_origin: 'recorded' });
    expect(hashOrigin(r)).toBe('recorded');
  });

  it('an importer marks its hashes: hash_origin import is reported as such, and still verified over the bytes', () => {
    const imported = { ...r, provenance: 'derived' as const, origin: { line: 12 }, hash_origin: 'import' as const };
    expect(checkReduction(imported, [imported], view, undefined)).toMatchObject({ status: 'verified', provenance: 'derived', hash_origin: 'import' });
    expect(logReport([imported], view, undefined)[0]).toMatchObject({ origin: { line: 12 }, provenance: 'derived', hash_origin: 'import', status: 'verified' });
    const wrong = { ...imported, ptr: { ...imported.ptr, hash: `sha256:${'1'.repeat(64)}` } };
    expect(checkReduction(wrong, [wrong], view, undefined)).toMatchObject({ status: 'hash_mismatch', hidden_bytes: null, hash_origin: 'import' });
  });

  it('schema: origin is {line} or {event}; provenance and hash_origin are closed sets', () => {
    const ok = (x: unknown) => reductionSchema.safeParse(x).success;
    expect(ok({ ...r, origin: { line: 3 } })).toBe(true);
    expect(ok({ ...r, origin: { event: 'evt-7' } })).toBe(true);
    expect(ok({ ...r, origin: { line: 0 } })).toBe(false);
    expect(ok({ ...r, origin: { line: 3, event: 'x' } })).toBe(false);
    expect(ok({ ...r, provenance: 'guessed' })).toBe(false);
    expect(ok({ ...r, hash_origin: 'import' })).toBe(true);
    expect(ok({ ...r, hash_origin: 'file' })).toBe(false);
  });
});
