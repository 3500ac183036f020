/**
 * The units a search walks (SPEC §5.3, shared/search/units.ts): a cleared range is searched
 * message by message, a content held in memory as its text (never encoded to be measured), a
 * large one as its source.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memorySource } from '../format/bytes';
import type { ByteSource, ChatMessage, MessageList } from '../format/types';
import { utf8Encode, utf8Length } from '../format/utf8';
import { assistant, makeReduction, tool, user } from '../testing/builders';
import { searchUnitsOf } from './units';

/** Content as a large message carries it: bytes read by range (without `bytes`, so it is not taken for memory). */
function largeOf(content: string): ByteSource {
  const bytes = memorySource(utf8Encode(content));
  return { length: bytes.length, read: (start, end) => bytes.read(start, end) };
}

const listOf = (messages: readonly ChatMessage[]): MessageList => ({ length: messages.length, at: (i) => messages[i] });

describe('search units of a cleared range', () => {
  it('are its messages: one held in memory as its text and its UTF-8 length, one held large as its source, whatever the text', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'é', '€', '😀', '\ud800', '\udc00', '\n'), maxLength: 40 });
    fc.assert(
      fc.property(fc.array(fc.tuple(text, fc.boolean()), { minLength: 1, maxLength: 8 }), (contents) => {
        const plain: ChatMessage[] = contents.map(([c], k) => (k % 2 === 0 ? user(c) : assistant(c)));
        const messages = plain.map((m, k) => (contents[k]![1] ? { ...m, content: '', large: largeOf(m.content) } : m));
        const log = [makeReduction(plain, { id: 'r', kind: 'turns_cleared', index: 0, end: plain.length })];
        const { units } = searchUnitsOf(log, listOf(messages), undefined, {});
        expect(units.map((u) => u.index)).toEqual(plain.map((_, k) => k));
        for (const [k, unit] of units.entries()) {
          const loaded = unit.load();
          if (!loaded || !('content' in loaded || 'source' in loaded)) throw new Error(`unit ${k} did not load`);
          const m = messages[k]!;
          if (m.large) {
            expect('source' in loaded && loaded.source).toBe(m.large);
          } else {
            expect('content' in loaded && loaded.content).toBe(m.content);
            expect('content' in loaded && loaded.bytes).toBe(utf8Length(m.content));
          }
          expect(loaded.span).toEqual([0, utf8Length(plain[k]!.content)]);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('search a tool output in the range as any other message', () => {
    const v = [user('run it'), assistant('', 'c1'), tool('needle here', 'c1')];
    const log = [makeReduction(v, { id: 'r', kind: 'turns_cleared', index: 0, end: 3 })];
    const loaded = searchUnitsOf(log, listOf(v), undefined, {}).units[2]?.load();
    expect(loaded && 'content' in loaded ? loaded.content : undefined).toBe('needle here');
  });
});
