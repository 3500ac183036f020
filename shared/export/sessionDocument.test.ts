/**
 * A session document made a piece at a time: the pieces are the whole document's text, and the
 * app's download, limited to a number of bytes, makes no more of a document it refuses than the
 * first pieces past the limit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { prefixList, type CallInput } from '../calls/calls';
import type { ChatMessage } from '../format/types';
import { utf8Length } from '../format/utf8';
import { arrayList } from '../resolver/session';
import type { DocumentSource } from './document';
import { sessionDocumentWithin, writeSessionDocument, writeSessionDocumentPieces, type DocumentFormat } from './sessionDocument';

/** `texts.length` turns of a user message and its response; counts the call inputs asked for. */
function turns(texts: readonly string[]): { source: DocumentSource; asked: () => number } {
  const messages: ChatMessage[] = texts.flatMap((t, i): ChatMessage[] => [
    { role: 'user', content: t },
    { role: 'assistant', content: `answer ${i}` },
  ]);
  const minted = arrayList(messages);
  let asked = 0;
  const source: DocumentSource = {
    calls: texts.map((_, i) => ({ call: i + 1, index: 2 * i + 1, line: 2 * i + 2 })),
    minted,
    callInput: (n): CallInput => {
      asked++;
      return { minted: n === null ? minted : prefixList(minted, 2 * n - 1), log: [] };
    },
    expand: () => ({ ok: false, error: { code: 'unknown_reduction', message: 'none' } }),
  };
  return { source, asked: () => asked };
}

const request = (as: DocumentFormat) => ({ as, redact: false, format: 'supercode', files: ['session.jsonl'], title: 'a title' });
const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom('\n\n\n', '```\n', '', 'é中𝄞\n'));

describe('sessionDocumentWithin', () => {
  it('the document whole when it fits, else too_large having asked for no more calls than fit (property)', () => {
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 12 }), fc.constantFrom<DocumentFormat>('markdown', 'html'), fc.nat(), (texts, as, cut) => {
        const whole = writeSessionDocument(turns(texts).source, request(as)).text;
        const size = utf8Length(whole);
        // Anywhere from nothing to a little more than the whole (fast-check's numbers lean to the ends; a remainder spreads them).
        const max = cut % (size + 64);
        const { source, asked } = turns(texts);
        const within = sessionDocumentWithin(source, request(as), max);
        if (size <= max) {
          expect(within).toEqual({ text: whole, bytes: size, redacted: {} });
          return;
        }
        expect(within).toEqual({ too_large: true });
        // The pieces that fit, and the one past the limit: each a section, each asking for its call's input.
        const pieces: string[] = [];
        writeSessionDocumentPieces(turns(texts).source, request(as), (p) => void pieces.push(p));
        let bytes = 0;
        let made = 0;
        while (bytes <= max) bytes += utf8Length(pieces[made++] ?? '');
        // The latest view is asked for first, then each section asks for its call's input before its piece is made.
        expect(asked()).toBeLessThanOrEqual(made);
      }),
      { numRuns: 200 },
    );
  });

  it('a document of a thousand turns, limited to 4 KiB, asks for a handful of call inputs, not a thousand', () => {
    const { source, asked } = turns(Array.from({ length: 1000 }, (_, i) => `turn ${i}: ${'x'.repeat(200)}`));
    expect(sessionDocumentWithin(source, request('markdown'), 4096)).toEqual({ too_large: true });
    expect(asked()).toBeLessThan(20);
  });
});

describe('writeSessionDocumentPieces', () => {
  it('its pieces joined are the document, which ends in one line feed whatever the last message ends in (property)', () => {
    fc.assert(
      fc.property(fc.array(text, { minLength: 0, maxLength: 8 }), fc.constantFrom<DocumentFormat>('markdown', 'html'), (texts, as) => {
        const pieces: string[] = [];
        const { complete } = writeSessionDocumentPieces(turns(texts).source, request(as), (p) => void pieces.push(p));
        expect(complete).toBe(true);
        const joined = pieces.join('');
        expect(joined).toBe(writeSessionDocument(turns(texts).source, request(as)).text);
        expect(joined.endsWith('\n')).toBe(true);
        expect(joined.endsWith('\n\n')).toBe(false);
        // A piece for the head, one per call, the end (markdown's end may join the last piece).
        expect(pieces.length).toBeGreaterThanOrEqual(texts.length + 1);
      }),
      { numRuns: 200 },
    );
  });
});
