import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ReadSync } from '../common/lines';
import { isMemorySource, memorySource } from '../../../shared/format/bytes';
import { keptStrings, lineKeeper } from './keptString';
import { KEPT_HEAD_CHARS } from './largeStrings';
import type { KeptStrings } from './keptString';

/** `value` kept in the file as `lineKeeper` of its line keeps it. */
const keepInFile = (kept: KeptStrings, value: string, minChars: number, line: Buffer, lineOffset: number) => lineKeeper(kept, minChars, line, lineOffset)(value);

/** A file held in memory whose reads are counted (bytes asked for). */
function countedFile(bytes: Buffer): { read: ReadSync; readBytes: () => number } {
  let total = 0;
  const read: ReadSync = (_fd, buffer, offset, length, position) => {
    const n = Math.max(0, Math.min(length, bytes.length - position));
    bytes.copy(buffer, offset, position, position + n);
    total += n;
    return n;
  };
  return { read, readBytes: () => total };
}

/** Text with what makes a kept value hard: escapes, multi-byte and astral characters; or plain ASCII and multi-byte text (no escapes). */
const valueArb = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'b', ' ', '"', '\\', '\n', '\t', 'é', '€', '😀', '/', 'n', 'u', '0', '\u007f', '\u0001'), minLength: 1, maxLength: 300 }),
  fc.string({ unit: fc.constantFrom('a', 'b', ' ', 'é', '€', '😀', '/', '<', '>'), minLength: 1, maxLength: 300 }),
);

/** `value` as a record's message text on a line that starts `prefixBytes` into a file, after a field holding `before`. */
function fileWith(value: string, prefixBytes: number, before = ''): { file: Buffer; line: Buffer; lineOffset: number } {
  const line = Buffer.from(`${JSON.stringify({ type: 'user', title: before, message: { content: value } })}\n`, 'utf8');
  const file = Buffer.concat([Buffer.alloc(prefixBytes, 0x20), line]);
  return { file, line, lineOffset: prefixBytes };
}

describe('a text kept in its file', () => {
  it('reads back every range, its head, its start and its hash as the value itself', () => {
    fc.assert(
      fc.property(valueArb, fc.nat(64), fc.nat(), fc.nat(), fc.string({ maxLength: 40 }), valueArb, (value, prefixBytes, a, b, other, before) => {
        const { file, line, lineOffset } = fileWith(value, prefixBytes, before);
        const f = countedFile(file);
        const kept = keptStrings(0, f.read, () => true, 1024);
        const text = keepInFile(kept, value, 1, line, lineOffset);
        if (!text) throw new Error('not kept');
        const bytes = Buffer.from(value, 'utf8');
        expect(text.source.length).toBe(bytes.length);
        const from = a % (bytes.length + 1);
        const to = from + (b % (bytes.length - from + 1));
        expect(Buffer.from(text.source.read(from, to)).equals(bytes.subarray(from, to))).toBe(true);
        for (const prefix of [value.slice(0, 5), value.slice(0, 40), other]) expect(text.startsWith(prefix)).toBe(value.startsWith(prefix));
        expect(text.text()).toBe(value);
        expect(text.source.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      }),
      { numRuns: 800 },
    );
  });

  it('keeps a value at the first string literal of its line that is its JSON text, keys and values alike, or not at all', () => {
    /** Where each string literal of a JSON text starts and ends (its quotes included), read a character at a time. */
    const literalsOf = (text: string): [number, number][] => {
      const out: [number, number][] = [];
      for (let i = 0; i < text.length; i++) {
        if (text[i] !== '"') continue;
        let j = i + 1;
        while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
        out.push([i, j + 1]);
        i = j;
      }
      return out;
    };
    /** A string as JSON.stringify writes it, or (loose) with `/` and `é` escaped as other writers do. */
    const written = (v: string, loose: boolean): string => (loose ? JSON.stringify(v).replace(/\//g, '\\/').replace(/é/g, '\\u00e9') : JSON.stringify(v));
    const pool = fc.array(fc.oneof(valueArb, fc.constantFrom(':', '","', ',', 'a', '{', '}')), { minLength: 1, maxLength: 5 });
    fc.assert(
      fc.property(pool, fc.array(fc.tuple(fc.nat(), fc.nat(), fc.boolean(), fc.boolean()), { maxLength: 8 }), fc.constantFrom(1, 3, 20), fc.constantFrom('', '\n', '\r\n'), (values, fields, minChars, ending) => {
        // A record whose keys and values are drawn from the pool (repeats among them), some written loosely, some nested.
        const parts = fields.map(([k, v, loose, nested]) => {
          const key = written(values[k % values.length] as string, false);
          const val = written(values[v % values.length] as string, loose);
          return `${key}:${nested ? `[1,{"x":${val}},null]` : val}`;
        });
        const lineText = `{${parts.join(',')}}`;
        expect(() => void JSON.parse(lineText)).not.toThrow();
        const line = Buffer.from(lineText + ending, 'utf8');
        const lineOffset = 7;
        const file = Buffer.concat([Buffer.alloc(lineOffset, 0x20), line]);
        const literals = literalsOf(lineText);
        for (const value of values) {
          let readAt = -1;
          const read: ReadSync = (_fd, buffer, offset, length, position) => {
            readAt = position;
            return file.copy(buffer, offset, position, Math.min(file.length, position + length));
          };
          const text = keepInFile(keptStrings(0, read, () => true, 1 << 20), value, minChars, line, lineOffset);
          const json = JSON.stringify(value);
          const at = value.length >= minChars ? literals.find(([s, e]) => lineText.slice(s, e) === json) : undefined;
          if (at === undefined) {
            expect(text).toBeUndefined();
            continue;
          }
          // Read whole (its hash, the first read) from where it is kept: the literal's first byte in the file.
          expect(text?.source.sha256).toBe(createHash('sha256').update(value, 'utf8').digest('hex'));
          expect(readAt).toBe(lineOffset + Buffer.byteLength(lineText.slice(0, at[0]), 'utf8'));
          expect(text?.text()).toBe(value);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('answers whether it starts with a short tag without reading the file, and reads only the range asked of a value written without escapes', () => {
    const tag = '<persisted-output>';
    expect(tag.length).toBeLessThanOrEqual(KEPT_HEAD_CHARS);
    const escaped = `${tag}\nOutput too large (2.1MB). Full output saved to: /tmp/x.txt\n${'line of output\n'.repeat(400)}`;
    const plain = `${tag} ${'word '.repeat(2000)}`;
    for (const value of [escaped, plain]) {
      const { file, line, lineOffset } = fileWith(value, 10);
      const f = countedFile(file);
      const text = keepInFile(keptStrings(0, f.read, () => true, 1 << 20), value, 1, line, lineOffset)!;
      expect(text.startsWith(tag)).toBe(true);
      expect(text.startsWith('<persisted-output> ')).toBe(value === plain);
      expect(text.startsWith('Output')).toBe(false);
      if (value === escaped) expect(f.readBytes()).toBe(0);
      // Each question reads its prefix only (about 40 bytes for the three), not the 10 KB value.
      else expect(f.readBytes()).toBeLessThanOrEqual(64);
    }
    // A range in the middle of a plain value: that range's bytes and no more.
    const { file, line, lineOffset } = fileWith(plain, 0);
    const f = countedFile(file);
    const text = keepInFile(keptStrings(0, f.read, () => true, 1 << 20), plain, 1, line, lineOffset)!;
    expect(Buffer.from(text.source.read(5000, 5100)).toString('utf8')).toBe(plain.slice(5000, 5100));
    expect(f.readBytes()).toBe(100);
  });

  it('is never taken for a source held in memory (the resolver reads a memory source\u2019s `content`, a kept one\u2019s bytes)', () => {
    for (const value of ['plain words '.repeat(50), 'escaped\n'.repeat(50)]) {
      const { file, line, lineOffset } = fileWith(value, 3);
      const text = keepInFile(keptStrings(0, countedFile(file).read, () => true, 1 << 20), value, 1, line, lineOffset)!;
      expect(isMemorySource(text.source)).toBe(false);
      expect(isMemorySource(memorySource(Buffer.from(value)))).toBe(true);
    }
  });

  it('writes any range into an array at an offset as it reads it, and hashes or writes its whole value without caching it', () => {
    fc.assert(
      fc.property(valueArb, fc.nat(64), fc.nat(), fc.nat(), fc.nat(16), (value, prefixBytes, a, b, at) => {
        const { file, line, lineOffset } = fileWith(value, prefixBytes);
        const kept = keptStrings(0, countedFile(file).read, () => true, 1 << 20);
        const text = keepInFile(kept, value, 1, line, lineOffset);
        if (!text?.source.readInto) throw new Error('not kept, or no readInto');
        const bytes = Buffer.from(value, 'utf8');
        // Whole first, from a cold cache: written, hashed, and nothing left cached.
        const whole = Buffer.alloc(bytes.length + 2 * at, 0xee);
        text.source.readInto(0, bytes.length, whole, at);
        expect(whole.subarray(at, at + bytes.length).equals(bytes)).toBe(true);
        expect(whole.subarray(0, at).every((x) => x === 0xee) && whole.subarray(at + bytes.length).every((x) => x === 0xee)).toBe(true);
        expect(text.source.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
        expect(kept.cache.size).toBe(0);
        const from = a % (bytes.length + 1);
        const to = from + (b % (bytes.length - from + 1));
        const target = Buffer.alloc(to - from + 2 * at, 0xee);
        text.source.readInto(from, to, target, at);
        expect(target.subarray(at, at + to - from).equals(bytes.subarray(from, to))).toBe(true);
        expect(target.subarray(0, at).every((x) => x === 0xee) && target.subarray(at + to - from).every((x) => x === 0xee)).toBe(true);
      }),
      { numRuns: 600 },
    );
  });

  it('finds a query as a search of its decoded text finds it: the leftmost occurrences that do not overlap, in the span, until told to stop', () => {
    // Letters of escapes too (`n`, `u`, `0`), DEL and a control character: a search reads a value's JSON text before decoding it.
    const needleArb = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '"', '\\', '\n', 'é', '€', '😀', 'n', 'u', '0', '/', '\u007f', '\u0001'), minLength: 1, maxLength: 4 });
    // Also a value of two letters with a query of them, whose occurrences overlap often.
    const twoLetters = fc.string({ unit: fc.constantFrom('a', 'é'), minLength: 1, maxLength: 60 });
    const pairArb = fc.oneof(fc.tuple(valueArb, needleArb), fc.tuple(twoLetters, fc.string({ unit: fc.constantFrom('a', 'é'), minLength: 1, maxLength: 3 })));
    fc.assert(
      fc.property(pairArb, fc.nat(64), fc.nat(), fc.nat(), fc.nat(4), ([value, query], prefixBytes, a, b, stopAfter) => {
        const { file, line, lineOffset } = fileWith(value, prefixBytes);
        const text = keepInFile(keptStrings(0, countedFile(file).read, () => true, 1 << 20), value, 1, line, lineOffset);
        if (!text?.source.findAll) throw new Error('not kept, or no findAll');
        const bytes = Buffer.from(value, 'utf8');
        const start = a % (bytes.length + 1);
        const end = start + (b % (bytes.length - start + 1));
        // The text's own occurrences, at their UTF-8 offsets, kept when inside [start, end).
        const expected: number[] = [];
        const needleBytes = Buffer.byteLength(query, 'utf8');
        for (let i = value.indexOf(query); i !== -1; i = value.indexOf(query, i + 1)) {
          const at = Buffer.byteLength(value.slice(0, i), 'utf8');
          if (at < start || at + needleBytes > end || (expected.length > 0 && at < expected[expected.length - 1]! + needleBytes)) continue;
          expected.push(at);
        }
        const found: number[] = [];
        text.source.findAll(Buffer.from(query, 'utf8'), start, end, (at) => {
          found.push(at());
          return found.length <= stopAfter;
        });
        expect(found).toEqual(expected.slice(0, stopAfter + 1));
      }),
      { numRuns: 800 },
    );
  });

  it('finds every piece of a value with escapes in it, the first search (nothing cached) as the next', () => {
    const escaped = fc.string({ unit: fc.constantFrom('a', 'n', 'u', '0', ' ', '"', '\\', '\n', '\t', '\u0001', '\u007f', 'é', '/'), minLength: 2, maxLength: 200 });
    fc.assert(
      fc.property(escaped, fc.nat(), fc.integer({ min: 1, max: 4 }), fc.nat(64), (value, a, length, prefixBytes) => {
        fc.pre(JSON.stringify(value).length > value.length + 2);
        const at = a % value.length;
        const query = value.slice(at, at + length);
        fc.pre(query.length > 0);
        const { file, line, lineOffset } = fileWith(value, prefixBytes);
        // No cache: every search reads the file.
        const text = keepInFile(keptStrings(0, countedFile(file).read, () => true, 0), value, 1, line, lineOffset);
        if (!text?.source.findAll) throw new Error('not kept, or no findAll');
        const needle = Buffer.from(query, 'utf8');
        const expected: number[] = [];
        for (let i = value.indexOf(query); i !== -1; i = value.indexOf(query, i + query.length)) expected.push(Buffer.byteLength(value.slice(0, i), 'utf8'));
        for (let search = 0; search < 2; search++) {
          const found: number[] = [];
          text.source.findAll(needle, 0, text.source.length, (offset) => {
            found.push(offset());
            return true;
          });
          expect(found).toEqual(expected);
        }
      }),
      { numRuns: 800 },
    );
  });

  it('says the content changed when the file no longer holds the value there', () => {
    for (const value of ['plain words '.repeat(50), 'escaped\n'.repeat(50)]) {
      const { file, line, lineOffset } = fileWith(value, 0);
      const f = countedFile(file);
      const text = keepInFile(keptStrings(0, f.read, () => true, 1 << 20), value, 1, line, lineOffset)!;
      file.fill(0x5c, lineOffset + line.indexOf('"content":') + 12, lineOffset + line.indexOf('"content":') + 14);
      expect(() => text.text()).toThrow(/changed/);
      expect(() => text.source.readInto?.(0, text.source.length, Buffer.alloc(text.source.length), 0)).toThrow(/changed/);
    }
  });
});
