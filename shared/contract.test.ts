/** The contract carries the §10.1 model across every boundary (worker, HTTP host, renderer) and refuses what is not in it. */
import { describe, expect, it } from 'vitest';
import { parseReply } from './contract';

describe('contract: SPEC §10.1 fields', () => {
  it('verify statuses: original_unavailable, provenance and hash_origin', () => {
    const reply = parseReply('verify', { ok: true, value: { statuses: [{ id: 'g', status: 'original_unavailable', hidden_bytes: 5000, provenance: 'derived', message: 'm' }, { id: 's', status: 'verified', provenance: 'recorded', hash_origin: 'import' }] } });
    expect(reply.ok).toBe(true);
    expect(parseReply('verify', { ok: true, value: { statuses: [{ id: 's', status: 'verified', hash_origin: 'guessed' }] } }).ok).toBe(false);
  });

  it('the resolver error original_unavailable crosses as itself', () => {
    expect(parseReply('expand', { ok: false, error: { code: 'original_unavailable', message: 'not recorded' } })).toEqual({ ok: false, error: { code: 'original_unavailable', message: 'not recorded' } });
  });

  it('rows: a compaction run; search: reductions_unavailable; log: a reduction with a null hash and its origin', () => {
    const row = { row: 0, index: 0, end: 2, text: '', text_bytes: 0, reductions: [{ id: 's2', kind: 'summarized' }], applied: 's2', compaction: { group: 'g1', summary: 's1' } };
    expect(parseReply('rows', { ok: true, value: { rowCount: 1, rows: [row] } }).ok).toBe(true);
    const search = { query: 'q', mode: 'substring', case_sensitive: true, matches: [], total_matches: 0, truncated: false, reductions_searched: 0, hidden_bytes_searched: 0, reductions_unavailable: 2 };
    expect(parseReply('search', { ok: true, value: search })).toEqual({ ok: true, value: search });
    const reduction = { id: 'g', kind: 'tool_output_elided', ptr: { index: 3, hash: null, bytes: null }, stub: '[gone]', minted_at: 4, provenance: 'derived', origin: { event: 'e-1' } };
    expect(parseReply('log', { ok: true, value: { entries: [{ reduction }] } }).ok).toBe(true);
    expect(parseReply('log', { ok: true, value: { entries: [{ reduction: { ...reduction, kind: 'compacted' } }] } }).ok).toBe(false);
  });
});
