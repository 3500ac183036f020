import { describe, expect, it } from 'vitest';
import { transcriptOf } from '../../../shared/resolver/original';
import { transcriptBoundaries } from '../../../shared/resolver/story';
import type { ChatMessage } from '../../../shared/format/types';
import { utf8Decode, utf8Encode, utf8Length } from '../../../shared/format/utf8';
import { seenAndHidden, storyMessages, storySegments } from './story';

const output = 'PASS a.test.ts\nFAIL b.test.ts \u2014 expected 3, got 4\nPASS c.test.ts\n';
const total = utf8Length(output);

/** The bytes `[a, b)` of `text` (test oracle). */
const slice = (text: string, a: number, b: number) => utf8Decode(utf8Encode(text).subarray(a, b));

describe('seenAndHidden', () => {
  it('cuts a window into ordered runs that tile it, hidden exactly where a span covers', () => {
    const runs = seenAndHidden(3, 40, [[15, 67]]);
    expect(runs).toEqual([
      { hidden: false, bytes: [3, 15] },
      { hidden: true, bytes: [15, 40] },
    ]);
    expect(seenAndHidden(20, 30, [])).toEqual([{ hidden: false, bytes: [20, 30] }]);
    expect(seenAndHidden(5, 5, [[0, 10]])).toEqual([]);
  });
});

describe('storySegments', () => {
  it('a whole truncation: the kept prefix once, seen; the rest hidden', () => {
    const segs = storySegments(output, [0, total], [[15, total]], null);
    expect(segs.map((s) => [s.hidden, s.text])).toEqual([
      [false, 'PASS a.test.ts\n'],
      [true, output.slice('PASS a.test.ts\n'.length)],
    ]);
  });

  it('a window straddling kept_bytes keeps the marking at the boundary', () => {
    const window = [10, 30] as const;
    const content = slice(output, ...window);
    const segs = storySegments(content, window, [[15, total]], null);
    expect(segs.map((s) => [s.hidden, s.text])).toEqual([
      [false, slice(output, 10, 15)],
      [true, slice(output, 15, 30)],
    ]);
  });

  it('a window after kept_bytes is all hidden; a highlight lands in string indices of its segment', () => {
    const window = [30, total] as const;
    const content = slice(output, ...window);
    const at = utf8Encode(output).indexOf(utf8Encode('got')[0]!, 30);
    const segs = storySegments(content, window, [[15, total]], [at, at + 3]);
    expect(segs).toHaveLength(1);
    const [seg] = segs;
    expect(seg?.hidden).toBe(true);
    const [a, b] = seg!.marks[0]!;
    expect(seg!.text.slice(a, b)).toBe('got');
  });
  it('marks every hit given, in order, and flags the segment holding the first one given', () => {
    const bytes = utf8Encode(output);
    const hit = (word: string) => {
      const at = output.indexOf(word);
      return [utf8Length(output.slice(0, at)), utf8Length(output.slice(0, at)) + utf8Length(word)] as [number, number];
    };
    // The current match (c.test) first, then other hits in another segment (the kept prefix) and in its own.
    const segs = storySegments(output, [0, bytes.length], [[15, total]], [hit('c.test'), hit('a.test'), hit('b.test')]);
    expect(segs.map((s) => s.marks.map(([a, b]) => s.text.slice(a, b)))).toEqual([['a.test'], ['b.test', 'c.test']]);
    expect(segs.map((s) => s.current === true)).toEqual([false, true]);
    expect(storySegments(output, [0, total], [[15, total]], []).every((s) => s.marks.length === 0 && !s.current)).toBe(true);
  });
});

describe('storyMessages', () => {
  const msgs: ChatMessage[] = [
    { role: 'user', content: 'run the tests — all' },
    { role: 'assistant', content: '' },
    { role: 'tool', tool_call_id: 'call_1', content: output },
  ];
  const transcript = transcriptOf(msgs.map((m) => ({ minted: m, content: m.content })));
  const bs = transcriptBoundaries(msgs.map((m, k) => ({ index: 10 + k, minted: m, contentBytes: utf8Length(m.content) })));
  const length = utf8Length(transcript);

  it('the whole transcript: one row per message, its content exactly, hidden', () => {
    const rows = storyMessages(transcript, [0, length], bs, [[0, length]], null);
    expect(rows.map((r) => [r.boundary.index, r.boundary.role, r.segments.map((s) => s.text).join('')])).toEqual(msgs.map((m, k) => [10 + k, m.role, m.content]));
    expect(rows.every((r) => r.segments.every((s) => s.hidden))).toBe(true);
  });

  it('a window inside the last message shows only that message, from the window start', () => {
    const start = bs[2]!.content_start + 5;
    const content = slice(transcript, start, length);
    const rows = storyMessages(content, [start, length], bs.slice(2), [[0, length]], null);
    expect(rows.map((r) => r.boundary.index)).toEqual([12]);
    expect(rows[0]!.segments.map((s) => s.text).join('')).toBe(slice(output, 5, total));
  });
});
