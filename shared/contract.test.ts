/** The contract carries the §10.1 model across every boundary (worker, HTTP host, renderer) and refuses what is not in it. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Method } from './contract';
import { methods, parseReply, replyParser } from './contract';

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

describe("contract: replies checked against each method's own schema", () => {
  const row = { row: 0, index: 0, end: 1, text: 'a', text_bytes: 1, reductions: [] };
  const search = { query: 'q', mode: 'substring', case_sensitive: true, matches: [], total_matches: 0, truncated: false, reductions_searched: 0, hidden_bytes_searched: 0 };
  const replies: unknown[] = [
    { ok: true, value: { rowCount: 1, rows: [row] } },
    { ok: true, value: search },
    { ok: true, value: { statuses: [{ id: 's', status: 'verified', provenance: 'recorded', hash_origin: 'import' }] } },
    { ok: true, value: { entries: [] } },
    { ok: false, error: { code: 'original_unavailable', message: 'not recorded' } },
    { ok: false, error: { code: 'no_such_code', message: 'x' } },
    { ok: true, value: 3 },
    null,
  ];
  const asked: Method[] = ['rows', 'search', 'verify', 'log', 'expand'];

  it("answers, in any order of methods and replies, what a check made for that reply alone answers (the check kept per method is that method's)", () => {
    // A reply refused becomes an internal_error of its own; one accepted is answered as sent.
    const accepted = (method: Method, answer: { ok: boolean; error?: { code: string; message: string } }): boolean =>
      !(answer.ok === false && answer.error?.code === 'internal_error' && answer.error.message.startsWith(`malformed reply to ${method}`));
    // The reference: the reply's check made afresh, as it was made for each reply before it was kept.
    const fresh = (method: Method, reply: unknown): boolean => accepted(method, replyParser(method, methods[method].result)(reply));
    // Each reply of the pool is valid for some method and refused by another, or the test tells nothing.
    for (const reply of replies.slice(0, 4)) expect(asked.filter((m) => fresh(m, reply)).length).toBeLessThan(asked.length);
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...asked), fc.constantFrom(...replies)), { minLength: 1, maxLength: 30 }), (sequence) => {
        for (const [method, reply] of sequence) {
          const answer = parseReply(method, reply);
          expect(accepted(method, answer)).toBe(fresh(method, reply));
          if (accepted(method, answer)) expect(answer).toEqual(reply);
        }
      }),
      { numRuns: 200 },
    );
  });
});
