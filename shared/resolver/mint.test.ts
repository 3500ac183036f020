import { describe, expect, it } from 'vitest';
import { stubText } from '../format/constants';
import { expandReduction } from './expand';
import { mintReductions } from './mint';
import { assistant, hashOf, tool, user } from '../testing/builders';
import type { ChatMessage, ReductionPolicy } from '../format/types';
import { utf8Length } from '../format/utf8';

const big = (tag: string) => `${tag}\n${'0123456789'.repeat(30)}`;
const policy: ReductionPolicy = { protect_last_n_tool_results: 1, max_tool_result_bytes: 100, kept_prefix_bytes: 20, dedupe: true, clear_turns_before: null };
const view: ChatMessage[] = [
  user('go'),
  assistant('', 'c1'),
  tool(big('one'), 'c1'),
  assistant('', 'c2'),
  tool(big('one'), 'c2'),
  assistant('', 'c3'),
  tool('small', 'c3'),
  assistant('', 'c4'),
  tool(big('protected'), 'c4'),
];

describe('mintReductions', () => {
  it('truncates old oversized tool results, dedupes later copies, protects the last N', () => {
    const log = mintReductions(view, policy);
    expect(log.map((r) => [r.id, r.kind, r.ptr.index])).toEqual([
      ['r1', 'tool_output_truncated', 2],
      ['r2', 'duplicate_output', 4],
    ]);
    expect(log[0]).toMatchObject({ kept_bytes: 20, minted_at: 9, ptr: { hash: hashOf(big('one')), bytes: utf8Length(big('one')) } });
    expect(log[0]?.stub).toBe(stubText('r1', 'tool_output_truncated', utf8Length(big('one')) - 20));
    expect(log[1]?.canonical).toEqual({ index: 2, hash: hashOf(big('one')) });
  });

  it('every minted reduction expands to its hashed bytes', () => {
    const log = mintReductions(view, { ...policy, clear_turns_before: 2 });
    for (const r of log) expect(expandReduction(log, r.id, view).ok).toBe(true);
  });

  it('continues ids and leaves already-reduced messages alone', () => {
    const first = mintReductions(view, policy);
    const more = mintReductions([...view, user('again'), assistant('', 'c5'), tool(big('five'), 'c5')], policy, first);
    expect(more.map((r) => [r.id, r.ptr.index])).toEqual([['r3', 8]]);
  });

  it('nextId keeps ids unique across a rewind that dropped the highest ones', () => {
    expect(mintReductions(view, policy, [], { nextId: 7 }).map((r) => r.id)).toEqual(['r7', 'r8']);
  });

  it('clears turns before clear_turns_before as one range, and mints nothing per message inside it', () => {
    const log = mintReductions(view, { ...policy, clear_turns_before: 4 });
    expect(log.map((r) => [r.kind, r.ptr.index, r.end])).toEqual([
      ['duplicate_output', 4, undefined],
      ['turns_cleared', 0, 4],
    ]);
  });

  it('elides when the kept prefix floors to nothing, or the output carries an image', () => {
    const v: ChatMessage[] = [tool(`\u{1F389}${'x'.repeat(200)}`, 'a'), { ...tool('y'.repeat(200), 'b'), content_parts: [{ type: 'image', data: '...' }] }, tool('z', 'c')];
    const log = mintReductions(v, { ...policy, kept_prefix_bytes: 3, protect_last_n_tool_results: 1 });
    expect(log.map((r) => r.kind)).toEqual(['tool_output_elided', 'tool_output_elided']);
  });

  it('floors kept_prefix_bytes to a character boundary', () => {
    const v: ChatMessage[] = [tool(`ab\u4E2D${'x'.repeat(200)}`, 'a'), tool('z', 'c')];
    expect(mintReductions(v, { ...policy, kept_prefix_bytes: 4 })[0]?.kept_bytes).toBe(2);
  });
});
