/** Issue 13 (4): the replay rule on small hand-made sidecars — where passes run, what they see. */
import { describe, expect, it } from 'vitest';
import { mintReductions } from './mint';
import type { LocatedRecord } from './replay';
import { replayPolicy } from './replay';
import { assistant, tool, user } from './testing/builders';
import type { ChatMessage, Reduction, ReductionPolicy, SidecarRecord } from './types';

const POLICY: ReductionPolicy = { protect_last_n_tool_results: 1, max_tool_result_bytes: 50, kept_prefix_bytes: 10, dedupe: true, clear_turns_before: null };
const big = (tag: string) => `${tag}:${'x'.repeat(80)}`;

/** Records on lines 2, 3, …: the header is line 1. */
const located = (records: SidecarRecord[]): LocatedRecord[] => records.map((record, k) => ({ record, line: k + 2 }));
const msg = (i: number, m: ChatMessage): SidecarRecord => ({ t: 'message', i, msg: m });
const red = (r: Reduction): SidecarRecord => ({ t: 'reduction', r });

/** Two turns with a big tool result each: after the second turn the first one is truncated. */
function twoTurns(): { view: ChatMessage[]; records: SidecarRecord[]; minted: Reduction[] } {
  const view = [user('a'), assistant('', 'c1'), tool(big('one'), 'c1'), assistant('done'), user('b'), assistant('', 'c2'), tool(big('two'), 'c2'), assistant('done')];
  const minted = mintReductions(view, POLICY);
  expect(minted.map((r) => [r.kind, r.ptr.index])).toEqual([['tool_output_truncated', 2]]);
  return { view, records: [...view.map((m, i) => msg(i, m)), ...minted.map(red)], minted };
}

describe('replayPolicy: where a pass runs', () => {
  it('after a turn-ending assistant message, comparing the reductions recorded right after it', () => {
    const { records } = twoTurns();
    const result = replayPolicy(located(records), POLICY);
    expect(result.divergences).toEqual([]);
    // Two turn ends, plus the end of the file.
    expect(result.passes).toBe(3);
  });

  it('a batch recorded later than the turn end diverges: the policy mints at the turn end, the late record is its own', () => {
    const { view, records } = twoTurns();
    // The agent appended the truncation one message later, after a new user message.
    const late = mintReductions([...view, user('c')], POLICY);
    const moved = [...records.filter((r) => r.t !== 'reduction'), msg(8, user('c')), ...late.map(red)];
    const found = replayPolicy(located(moved), POLICY).divergences;
    // Line 9 is the turn-ending assistant message (index 7); line 11 the late reduction record.
    expect(found.map((d) => [d.line, d.index, d.recorded?.id ?? null, d.minted?.minted_at ?? null])).toEqual([
      [9, 2, null, 8],
      [11, 2, late[0]?.id, null],
    ]);
  });

  it('an inverted reduction is left alone by later passes; a rewind drops what addresses past it', () => {
    const { records, minted } = twoTurns();
    const id = minted[0]?.id as string;
    const inverted = [...records, { t: 'invert', id } as SidecarRecord, msg(8, user('c')), msg(9, assistant('ok'))];
    const result = replayPolicy(located(inverted), POLICY);
    expect(result.divergences).toEqual([]);
    expect(result.policyLog).toEqual([]);
    const rewound = [...records, { t: 'rewind', to: 2 } as SidecarRecord];
    const after = replayPolicy(located(rewound), POLICY);
    expect(after.divergences).toEqual([]);
    expect(after.view).toHaveLength(2);
    expect([after.recordedLog, after.policyLog]).toEqual([[], []]);
  });

  it('a message record that skips ahead stays out of the view the passes see', () => {
    const { records } = twoTurns();
    const result = replayPolicy(located([...records, msg(20, tool(big('far'), 'c9')), msg(8, assistant('ok'))]), POLICY);
    expect(result.view).toHaveLength(9);
    expect(result.divergences).toEqual([]);
  });
});
