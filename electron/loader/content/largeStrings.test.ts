/** What a large text kept out of memory answers a window at a time, against the same string in memory (docs/large-lines.md). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SOURCE_CHUNK_BYTES } from '../../../shared/format/bytes';
import type { ByteSource } from '../../../shared/index';
import { memorySource, utf8Encode } from '../../../shared/index';
import { createHash } from 'node:crypto';
import type { ChatMessage } from '../../../shared/index';
import { ptrHash } from '../../../shared/format/hash';
import { transcriptOf } from '../../../shared/resolver/original';
import { HASH_WINDOW_FIRST_BYTES, TranscriptMemo, contentFields, isLargeText, measureTranscript, measureTranscriptPrefixes, messageText, textIncludes, transcriptPrefixLengths, withContent, withFields } from './largeStrings';

/** Strings of ASCII, multi-byte characters and pairs (no lone surrogate: a value read from UTF-8 holds none). */
const chars = fc.constantFrom('a', 'b', 'ab', 'é', '😀', '✓', '\n', '"');
const str = fc.array(chars, { maxLength: 30 }).map((a) => a.join(''));
const large = (s: string) => {
  const t = messageText({ role: 'tool', content: '', large: memorySource(utf8Encode(s)) });
  if (!isLargeText(t)) throw new Error('not large');
  return t;
};

describe('a large text read a window at a time', () => {
  it('includes a needle exactly when the string does, wherever the windows cut it', () => {
    fc.assert(
      fc.property(str, str, fc.nat(), fc.nat(), fc.integer({ min: 1, max: 9 }), (s, other, from, len, window) => {
        // A needle taken from the text (across window edges) or made apart.
        const cps = Array.from(s);
        const start = cps.length === 0 ? 0 : from % cps.length;
        const inside = cps.slice(start, start + (len % 8) + 1).join('');
        for (const needle of [inside, other, '']) expect(textIncludes(large(s), needle, window)).toBe(s.includes(needle));
      }),
      { numRuns: 500 },
    );
  });

  it('a text in the file is read through one reused window, never an array a window: a search, its pieces and the whole', () => {
    const s = `${'0123456789é😀'.repeat(Math.ceil((3 * SOURCE_CHUNK_BYTES) / 16))}needle`;
    const bytes = utf8Encode(s);
    const targets = new Set<Uint8Array>();
    let arrays = 0;
    const source: ByteSource = {
      length: bytes.length,
      read: (start, end) => {
        arrays++;
        return bytes.slice(start, end);
      },
      readInto: (start, end, target, at) => {
        targets.add(target);
        target.set(bytes.subarray(start, end), at);
      },
    };
    const t = messageText({ role: 'tool', content: '', large: source });
    if (!isLargeText(t)) throw new Error('not large');
    expect(textIncludes(t, 'needle')).toBe(true);
    expect(textIncludes(t, 'needles')).toBe(false);
    expect([...t.pieces()].join('')).toBe(s);
    expect(t.text()).toBe(s);
    expect(arrays).toBe(0);
    expect(targets.size).toBe(1);
  });

  it('a needle with a lone surrogate is in no text read from UTF-8', () => {
    expect(textIncludes(large('a\uFFFDb'), '\uD800')).toBe(false);
  });

  it('a U+FEFF first is the value\'s: text, pieces and head keep it', () => {
    fc.assert(
      fc.property(str, fc.integer({ min: 1, max: 9 }), (rest, window) => {
        const s = `\uFEFF${rest}`;
        const t = large(s);
        expect(t.text()).toBe(s);
        expect([...t.pieces(window)].join('')).toBe(s);
        expect(t.head(3)).toBe('\uFEFF');
      }),
      { numRuns: 200 },
    );
  });

  it('its pieces join to the string, wherever the windows cut its characters', () => {
    fc.assert(
      fc.property(str, fc.integer({ min: 1, max: 9 }), (s, window) => {
        expect([...large(s).pieces(window)].join('')).toBe(s);
      }),
      { numRuns: 300 },
    );
  });
});

describe('the transcripts of a view\'s prefixes, measured in one pass', () => {
  const message = fc
    .record({ role: fc.constantFrom('user', 'assistant', 'tool'), content: str, big: fc.boolean() })
    .map(({ role, content, big }) => ({ text: content, msg: (big ? { role, content: '', large: memorySource(utf8Encode(content)) } : { role, content }) }));
  /** The §3.5 transcript built as one string and hashed whole. */
  const whole = (ms: readonly { text: string; msg: ChatMessage }[]) => {
    const t = transcriptOf(ms.map((m) => ({ minted: m.msg, content: m.text })));
    return { hash: ptrHash(createHash('sha256').update(t, 'utf8').digest('hex')), bytes: Buffer.byteLength(t, 'utf8') };
  };
  it('each prefix measures as its transcript built whole, and the whole view as measureTranscript does', () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 6 }), (ms, picks) => {
        const ends = picks.map((p) => p % (ms.length + 1)).sort((a, b) => a - b);
        const messages = ms.map((m) => m.msg);
        expect(measureTranscriptPrefixes(messages, ends)).toEqual(ends.map((end) => whole(ms.slice(0, end))));
        expect(measureTranscript(messages)).toEqual(whole(ms));
        expect(transcriptPrefixLengths(messages, ends)).toEqual(ends.map((end) => whole(ms.slice(0, end)).bytes));
      }),
      { numRuns: 300 },
    );
  });

  it('measures the same through a window of any size, whatever characters it cuts (lone surrogates as U+FFFD)', () => {
    const text = fc.array(fc.constantFrom('a', 'é', '✓', '😀', '\ud800', '\udfff', '\n'), { maxLength: 12 }).map((a) => a.join(''));
    const withLone = fc
      .record({ role: fc.constantFrom('user', 'tool'), content: text, big: fc.boolean() })
      .map(({ role, content, big }) => ({ text: content, msg: (big ? { role, content: '', large: memorySource(utf8Encode(content)) } : { role, content }) }));
    fc.assert(
      fc.property(fc.array(withLone, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 4 }), fc.integer({ min: 1, max: 12 }), (ms, picks, window) => {
        const ends = picks.map((p) => p % (ms.length + 1)).sort((a, b) => a - b);
        expect(measureTranscriptPrefixes(ms.map((m) => m.msg), ends, undefined, window)).toEqual(ends.map((end) => whole(ms.slice(0, end))));
        // The lengths a compaction's pointer is built with, its hash left to its first read.
        expect(transcriptPrefixLengths(ms.map((m) => m.msg), ends)).toEqual(ends.map((end) => whole(ms.slice(0, end)).bytes));
      }),
      { numRuns: 500 },
    );
  });

  it('measures the same as its window grows past its first size (texts of up to 1.5 MiB, cut anywhere)', () => {
    // Long texts of few distinct characters, so a transcript crosses each of the window's sizes.
    const long = fc
      .record({ unit: fc.constantFrom('a', 'é', '😀', 'ab✓'), times: fc.integer({ min: 0, max: 400_000 }), role: fc.constantFrom('user', 'tool'), big: fc.boolean() })
      .map(({ unit, times, role, big }) => {
        const content = unit.repeat(times);
        return { text: content, msg: (big ? { role, content: '', large: memorySource(utf8Encode(content)) } : { role, content }) };
      });
    fc.assert(
      fc.property(fc.array(fc.oneof(long, message), { minLength: 1, maxLength: 5 }), (ms) => {
        expect(measureTranscriptPrefixes(ms.map((m) => m.msg), [0, ms.length - 1, ms.length])).toEqual([0, ms.length - 1, ms.length].map((end) => whole(ms.slice(0, end))));
      }),
      { numRuns: 40 },
    );
  });

  it('a small transcript is hashed through a window of its first size, not its most', () => {
    const sizes: number[] = [];
    const original = Object.getOwnPropertyDescriptor(Buffer, 'allocUnsafe')!;
    const allocUnsafe = Buffer.allocUnsafe.bind(Buffer);
    // Replaced for this synchronous call only, and put back before anything else runs.
    Buffer.allocUnsafe = (size: number) => (sizes.push(size), allocUnsafe(size));
    let small: { hash: string; bytes: number };
    try {
      small = measureTranscript([{ role: 'user', content: 'hello' }, { role: 'assistant', content: 'hi' }]);
    } finally {
      Object.defineProperty(Buffer, 'allocUnsafe', original);
    }
    expect(small).toEqual(whole([{ text: 'hello', msg: { role: 'user', content: 'hello' } }, { text: 'hi', msg: { role: 'assistant', content: 'hi' } }]));
    expect(Math.max(0, ...sizes)).toBe(HASH_WINDOW_FIRST_BYTES);
  });

  it('measures each build of a changing view with a memo as without one (appends, changed or replaced messages, cuts, returns, new ends)', () => {
    /** How the next build's view differs from the last: messages appended, one changed, one rebuilt with the same text, or a cut. */
    const change = fc.oneof(
      fc.record({ append: fc.array(message, { minLength: 1, maxLength: 4 }) }),
      fc.record({ set: fc.nat(), to: message }),
      fc.record({ rebuild: fc.nat() }),
      fc.record({ cut: fc.nat() }),
      fc.record({ back: fc.constant(true) }),
    );
    fc.assert(
      fc.property(fc.array(message, { maxLength: 10 }), fc.array(fc.tuple(change, fc.array(fc.nat(), { maxLength: 5 })), { minLength: 1, maxLength: 6 }), (first, builds) => {
        const memo = new TranscriptMemo();
        let ms = first;
        let before = first;
        const measure = (picks: number[]) => {
          const ends = picks.map((p) => p % (ms.length + 1)).sort((a, b) => a - b);
          const messages = ms.map((m) => m.msg);
          expect(measureTranscriptPrefixes(messages, ends, memo)).toEqual(measureTranscriptPrefixes(messages, ends));
        };
        measure([ms.length]);
        for (const [c, picks] of builds) {
          const last = ms;
          // `back`: the view of the build before the last again (a branch left, then returned to).
          if ('back' in c) ms = before;
          else if ('append' in c) ms = [...ms, ...c.append];
          else if ('set' in c && ms.length > 0) ms = ms.map((m, k) => (k === c.set % ms.length ? c.to : m));
          else if ('rebuild' in c && ms.length > 0) ms = ms.map((m, k) => (k === c.rebuild % ms.length ? { text: m.text, msg: m.msg.large ? { ...m.msg, large: memorySource(utf8Encode(m.text)) } : { ...m.msg } } : m));
          else if ('cut' in c) ms = ms.slice(0, c.cut % (ms.length + 1));
          measure(picks);
          before = last;
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('messages built with their content left in the file', () => {
  /** What building must give: every part's own properties copied as defined, in order (a getter stays a getter). */
  const reference = (...parts: object[]): object => {
    const out = {};
    for (const part of parts) Object.defineProperties(out, Object.getOwnPropertyDescriptors(part));
    return out;
  };
  const describeOf = (o: object) =>
    Reflect.ownKeys(o).map((k) => {
      const d = Object.getOwnPropertyDescriptor(o, k)!;
      // A getter as a getter (each build makes its own function): never run here.
      return d.get ? { k, getter: true, enumerable: d.enumerable, configurable: d.configurable } : { k, ...d };
    });
  const fields = fc.dictionary(fc.constantFrom('role', 'content', 'tool_call_id', 'metadata', 'name', 'large'), fc.oneof(fc.string({ maxLength: 4 }), fc.integer()), { maxKeys: 4 });

  it('copies each part as it is defined, in order, and never runs a large content\'s getter', () => {
    fc.assert(
      fc.property(fields, fc.oneof(str, str.map((x) => ({ big: x }))), fields, fields, (head, content, tail, later) => {
        let reads = 0;
        const counted = (x: string) => {
          const bytes = utf8Encode(x);
          return { length: bytes.length, read: (a: number, b: number) => (reads++, bytes.subarray(a, b)) };
        };
        const t = typeof content === 'string' ? content : messageText({ role: 'tool', content: '', large: counted(content.big) });
        const built = withContent(head, t, tail);
        const again = withFields(built, later);
        // Built again over a message whose content may be a getter (a persisted output's original put in place).
        const rebuilt = withContent(built, t, later);
        expect(reads).toBe(0);
        expect(describeOf(built)).toEqual(describeOf(reference(head, contentFields(t), tail)));
        expect(describeOf(again)).toEqual(describeOf(reference(built, later)));
        expect(describeOf(rebuilt)).toEqual(describeOf(reference(built, contentFields(t), later)));
        expect(reads).toBe(0);
      }),
      { numRuns: 500 },
    );
  });
});
