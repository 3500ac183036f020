import { describe, expect, it } from 'vitest';
import { utf8Decode, utf8Encode, utf8Length } from '../../shared/utf8';
import { locateInTranscript } from './transcript';

/** The transcript of SPEC §3.5 for `messages`. */
function transcript(messages: { role: string; id?: string; content: string }[]): string {
  return messages.map((m) => `⟨${m.role}${m.id ? ` ${m.id}` : ''}⟩\n${m.content}\n`).join('');
}

/** A match as search reports it: offset in the message content, with a snippet around it. */
function matchIn(content: string, needle: string, ordinal: number) {
  const at = content.indexOf(needle);
  const offset = utf8Length(content.slice(0, at));
  const from = Math.max(0, at - 5);
  const snippet = content.slice(from, at + needle.length + 5);
  const lead = utf8Length(content.slice(from, at));
  return { ordinal, offset, snippet, snippet_match: [lead, lead + utf8Length(needle)] as const };
}

describe('locateInTranscript', () => {
  const messages = [
    { role: 'user', content: 'Find the failing test 🔥' },
    { role: 'assistant', content: 'Running it.' },
    { role: 'tool', id: 'call_9', content: 'PASS a\nFAIL b — expected 3\nPASS c' },
  ];
  const t = transcript(messages);

  it('places a match in the k-th message of the range', () => {
    const m = matchIn(messages[2]?.content ?? '', 'FAIL', 2);
    const at = locateInTranscript(t, m);
    expect(at).not.toBeNull();
    expect(utf8Decode(utf8Encode(t).subarray(at ?? 0, (at ?? 0) + 4))).toBe('FAIL');
  });

  it('is not fooled by header-like lines inside content', () => {
    const tricky = [
      { role: 'user', content: 'quote:\n⟨assistant⟩\nnot a header' },
      { role: 'assistant', content: 'the real one: needle here' },
    ];
    const tt = transcript(tricky);
    const m = matchIn(tricky[1]?.content ?? '', 'needle', 1);
    const at = locateInTranscript(tt, m) ?? -1;
    expect(utf8Decode(utf8Encode(tt).subarray(at, at + 6))).toBe('needle');
  });

  it('answers null when the transcript read so far does not hold the match', () => {
    const m = matchIn(messages[2]?.content ?? '', 'FAIL', 2);
    expect(locateInTranscript(t.slice(0, 20), m)).toBeNull();
  });
});
