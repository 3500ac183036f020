import { describe, expect, it } from 'vitest';
import { countReasoningArtifacts, filterReasoningArtifacts, hasReasoningArtifacts } from './reasoning';
import type { ChatMessage } from '../format/types';

const history = (): ChatMessage[] => [
  { role: 'system', content: 'sys' },
  { role: 'assistant', content: 'a', metadata: { reasoning_content: 'why', other: 1 } },
  { role: 'assistant', content: 'b', content_parts: [{ type: 'thinking', thinking: 'hmm' }, { type: 'text', text: 'b' }] },
  { role: 'assistant', content: 'c', metadata: { thinking_signature: 'sig' }, content_parts: [{ type: 'redacted_thinking', data: 'x' }] },
  { role: 'user', content: 'd', metadata: { other: 2 } },
];

describe('filterReasoningArtifacts', () => {
  it('removes every reasoning metadata key and reasoning content part, counting messages touched', () => {
    const h = history();
    expect(filterReasoningArtifacts(h)).toBe(3);
    expect(h[1]?.metadata).toEqual({ other: 1 });
    expect(h[2]?.content_parts).toEqual([{ type: 'text', text: 'b' }]);
    expect(h[3]?.metadata).toEqual({});
    expect(h[3]?.content_parts).toEqual([]);
    expect(h[4]?.metadata).toEqual({ other: 2 });
    expect(h.some(hasReasoningArtifacts)).toBe(false);
    expect(filterReasoningArtifacts(h)).toBe(0);
  });
  it('countReasoningArtifacts agrees and does not mutate', () => {
    const h = history();
    const before = JSON.stringify(h);
    expect(countReasoningArtifacts(h)).toBe(3);
    expect(JSON.stringify(h)).toBe(before);
  });
});
