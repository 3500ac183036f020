import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stubText } from '../format/constants';
import { arrayList } from './session';
import { expandStory, meeting, stubPosition, stubStatedHiddenBytes, transcriptBoundaries, transcriptOffset } from './story';
import { assistant, makeReduction, tool, user } from '../testing/builders';
import { transcriptOf } from './original';
import type { ChatMessage, Result } from '../format/types';
import { utf8Decode, utf8Encode, utf8Length } from '../format/utf8';

function value<T>(r: Result<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${r.error.code}: ${r.error.message}`);
  return r.value;
}

const output = 'PASS a.test.ts\nFAIL b.test.ts \u2014 expected 3, got 4\nPASS c.test.ts\n';
const view: ChatMessage[] = [user('Find the failing test'), assistant('', 'call_9'), tool(output, 'call_9'), user('again'), tool(output, 'call_10'), assistant('ünïcødé 🎉 done')];

describe('expandStory: hidden spans of every kind', () => {
  it('a truncation hides [kept_bytes, total): the kept prefix is what the model saw', () => {
    const log = [makeReduction(view, { kind: 'tool_output_truncated', index: 2, kept_bytes: 15 })];
    const story = value(expandStory(log, 'r1', arrayList(view)));
    expect(story.hidden).toEqual([[15, utf8Length(output)]]);
    expect(utf8Decode(utf8Encode(output).subarray(0, story.hidden[0]![0]))).toBe('PASS a.test.ts\n');
    expect(story.messages).toBeUndefined();
  });

  it('a kept_bytes inside a character floors to its start (the span is whole characters)', () => {
    const text = 'ab🎉cd';
    const v = [user('q'), tool(text, 'c1')];
    const log = [makeReduction(v, { kind: 'tool_output_truncated', index: 1, kept_bytes: 4 })];
    expect(value(expandStory(log, 'r1', arrayList(v))).hidden).toEqual([[2, utf8Length(text)]]);
  });

  it('an elision hides everything', () => {
    const log = [makeReduction(view, { kind: 'tool_output_elided', index: 2 })];
    expect(value(expandStory(log, 'r1', arrayList(view))).hidden).toEqual([[0, utf8Length(output)]]);
  });

  it('a duplicate whose canonical is visible hides nothing, and says so with its canonical', () => {
    const log = [makeReduction(view, { kind: 'duplicate_output', index: 4, canonical: 2 })];
    const story = value(expandStory(log, 'r1', arrayList(view)));
    expect(story.hidden).toEqual([]);
    expect(story.canonical).toEqual({ index: 2, visible: true });
  });

  it('a duplicate whose canonical another reduction hides hid real content', () => {
    const log = [makeReduction(view, { kind: 'tool_output_elided', index: 2, id: 'r1' }), makeReduction(view, { kind: 'duplicate_output', index: 4, canonical: 2, id: 'r2' })];
    const story = value(expandStory(log, 'r2', arrayList(view)));
    expect(story.hidden).toEqual([[0, utf8Length(output)]]);
    expect(story.canonical).toEqual({ index: 2, visible: false });
  });

  it('a cleared range hides its whole transcript and lists its messages as transcriptOf lays them out', () => {
    const log = [makeReduction(view, { kind: 'turns_cleared', index: 1, end: 5 })];
    const story = value(expandStory(log, 'r1', arrayList(view)));
    const transcript = transcriptOf(view.slice(1, 5).map((m) => ({ minted: m, content: m.content })));
    expect(story.hidden).toEqual([[0, utf8Length(transcript)]]);
    const bytes = utf8Encode(transcript);
    expect(story.messages?.map((b) => b.index)).toEqual([1, 2, 3, 4]);
    for (const b of story.messages ?? []) {
      const m = view[b.index]!;
      expect(b.role).toBe(m.role);
      expect(b.tool_call_id).toBe(m.tool_call_id);
      expect(utf8Decode(bytes.subarray(b.content_start, b.end - 1))).toBe(m.content);
      expect(utf8Decode(bytes.subarray(b.end - 1, b.end))).toBe('\n');
    }
  });

  it('a slice lists only the messages that meet it', () => {
    const log = [makeReduction(view, { kind: 'turns_cleared', index: 1, end: 5 })];
    const whole = value(expandStory(log, 'r1', arrayList(view))).messages!;
    const at = whole[2]!.content_start + 1;
    const story = value(expandStory(log, 'r1', arrayList(view), undefined, [at, at + 2]));
    expect(story.messages?.map((b) => b.index)).toEqual([3]);
  });

  it('a summarized range lists its messages too', () => {
    const log = [makeReduction(view, { kind: 'summarized', index: 0, end: 3 })];
    expect(value(expandStory(log, 'r1', arrayList(view))).messages?.map((b) => [b.index, b.role])).toEqual([
      [0, 'user'],
      [1, 'assistant'],
      [2, 'tool'],
    ]);
  });

  it('answers the same errors as expand', () => {
    const log = [makeReduction(view, { kind: 'tool_output_elided', index: 2 })];
    const story = expandStory(log, 'r9', arrayList(view));
    expect(story.ok || story.error.code).toBe('unknown_reduction');
  });
});

const message = fc.record({
  role: fc.constantFrom<'user' | 'assistant' | 'tool' | 'system'>('user', 'assistant', 'tool', 'system'),
  content: fc.string({ unit: 'grapheme', maxLength: 40 }),
  id: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
});

describe('transcriptBoundaries', () => {
  it('tile the transcript exactly: consecutive from 0 to its length, each content where transcriptOf puts it', () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 12 }), (ms) => {
        const msgs: ChatMessage[] = ms.map((m) => ({ role: m.role, content: m.content, ...(m.id !== undefined ? { tool_call_id: m.id } : {}) }));
        const transcript = utf8Encode(transcriptOf(msgs.map((m) => ({ minted: m, content: m.content }))));
        const bs = transcriptBoundaries(msgs.map((m, index) => ({ index, minted: m, contentBytes: utf8Length(m.content) })));
        let at = 0;
        bs.forEach((b, k) => {
          expect(b.start).toBe(at);
          expect(b.start < b.content_start && b.content_start < b.end).toBe(true);
          expect(utf8Decode(transcript.subarray(b.content_start, b.end - 1))).toBe(msgs[k]!.content);
          at = b.end;
        });
        expect(at).toBe(transcript.length);
      }),
    );
  });

  it('meeting keeps exactly the messages a window overlaps', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(30), { minLength: 1, maxLength: 10 }), fc.nat(400), fc.nat(60), (lengths, from, width) => {
        const bs = transcriptBoundaries(lengths.map((n, index) => ({ index, minted: user('x'.repeat(n)), contentBytes: n })));
        const to = from + width;
        const got = meeting(bs, [from, to]).map((b) => b.index);
        const want = bs.filter((b) => b.end > from && (b.start < to || (b.start === from && width === 0))).map((b) => b.index);
        expect(got.slice(0, want.length)).toEqual(want);
        expect(got.length - want.length).toBeLessThanOrEqual(1);
      }),
    );
  });
});

describe('transcriptOffset', () => {
  it('places byte k of a message content where the expanded transcript holds it', () => {
    const log = [makeReduction(view, { kind: 'turns_cleared', index: 1, end: 6 })];
    const transcript = utf8Encode(value(expandStory(log, 'r1', arrayList(view))).outcome.content);
    const r = log[0]!;
    for (let i = 1; i < 6; i++) {
      const content = utf8Encode(view[i]!.content);
      for (const k of [0, Math.floor(content.length / 2), content.length]) {
        const at = transcriptOffset(r, arrayList(view), undefined, i, k)!;
        expect(transcript.subarray(at, at + content.length - k)).toEqual(content.subarray(k));
      }
    }
    expect(transcriptOffset(r, arrayList(view), undefined, 0, 0)).toBeUndefined();
    expect(transcriptOffset(r, arrayList(view), undefined, 6, 0)).toBeUndefined();
  });
});

describe('stubPosition', () => {
  it('says where a prefix + stub row text puts its stub, in bytes, and the hidden bytes it states', () => {
    const r = makeReduction(view, { kind: 'tool_output_truncated', index: 2, kept_bytes: 15 });
    const text = `PASS a.test.ts\n${r.stub}`;
    const at = stubPosition(text, r)!;
    expect(utf8Decode(utf8Encode(text).subarray(at.start, at.end))).toBe(r.stub);
    expect(at.hidden_bytes).toBe(utf8Length(output) - 15);
  });

  it('is undefined for a text that does not end with the stub', () => {
    const r = makeReduction(view, { kind: 'tool_output_elided', index: 2 });
    expect(stubPosition('something else', r)).toBeUndefined();
  });

  it("is undefined for a summary (the text the model read) and for a stub that is not §3.5's", () => {
    const v = [user('a'), assistant('b')];
    const summary = makeReduction(v, { kind: 'summarized', index: 0, end: 2, summary: 'They talked.' });
    expect(stubPosition('They talked.', summary)).toBeUndefined();
    const foreign = { ...makeReduction(v, { kind: 'tool_output_elided', index: 1 }), stub: '[output cut]' };
    expect(stubPosition('[output cut]', foreign)).toBeUndefined();
  });

  it('stubStatedHiddenBytes reads the count a stub states, and nothing from a summary', () => {
    expect(stubStatedHiddenBytes(stubText('r3', 'tool_output_elided', 1234))).toBe(1234);
    expect(stubStatedHiddenBytes('Summary of messages 0–5')).toBeUndefined();
  });
});
