import { describe, expect, it } from 'vitest';
import { agentJson } from './searchPanel';

describe('agentJson', () => {
  it("is §5.3's result as the agent receives it: a range match's transcript_offset (the view's) is left out, nothing else", () => {
    const match = { reduction_id: 'r3', kind: 'turns_cleared' as const, index: 4, offset: 7, length: 2, snippet: 'ab', snippet_match: [0, 2] as [number, number] };
    const result = { query: 'ab', mode: 'substring' as const, case_sensitive: true, matches: [{ ...match, transcript_offset: 90 }], total_matches: 1, truncated: false, reductions_searched: 1, hidden_bytes_searched: 10 };
    const { matches: _m, ...rest } = result;
    expect(JSON.parse(agentJson(result))).toEqual({ ...rest, matches: [match] });
    expect(Object.keys(JSON.parse(agentJson(result)) as object)).toEqual(Object.keys(result));
  });
});
