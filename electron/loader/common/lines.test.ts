import { closeSync, openSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../tools/testing/files';
import type { ReadSync, SplitLine } from './lines';
import { readExactly, splitLines } from './lines';

/** A positional read over an in-memory file. */
function memoryReader(data: Buffer): ReadSync {
  return (_fd, buffer, offset, length, position) => {
    if (position >= data.length) return 0;
    return data.copy(buffer, offset, position, Math.min(data.length, position + length));
  };
}

interface Seen {
  number: number;
  offset: number;
  length: number;
  terminated: boolean;
  text?: string;
}

function split(data: Buffer | string, options: { chunkSize?: number; maxLineBytes?: number; keepBytesBelow?: number } = {}): Seen[] {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const out: Seen[] = [];
  for (const line of splitLines(-1, { ...options, readSync: memoryReader(bytes) })) {
    out.push({
      number: line.number,
      offset: line.offset,
      length: line.length,
      terminated: line.terminated,
      // Decoded at once: the bytes may be a view of the reusable buffer.
      ...(line.bytes ? { text: line.bytes.toString('utf8') } : {}),
    });
  }
  return out;
}

describe('splitLines', () => {
  it('returns where its terminated lines end, and a pass resumed there continues the numbering', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'bc', '', ' ', '\r', '\n'), { maxLength: 40 }), fc.nat(), (parts, cut) => {
        const bytes = Buffer.from(parts.join(''), 'utf8');
        const end = bytes.length === 0 ? 0 : cut % (bytes.length + 1);
        const lines = splitLines(-1, { readSync: memoryReader(bytes), end, chunkSize: 3 });
        const first: Seen[] = [];
        let next = lines.next();
        for (; !next.done; next = lines.next()) if (next.value.terminated) first.push({ number: next.value.number, offset: next.value.offset, length: next.value.length, terminated: true });
        const stop = next.value;
        expect(stop.offset === 0 || bytes[stop.offset - 1] === 0x0a).toBe(true);
        expect(stop.line).toBe(bytes.subarray(0, stop.offset).filter((b) => b === 0x0a).length + 1);
        const rest: Seen[] = [];
        for (const line of splitLines(-1, { readSync: memoryReader(bytes), start: stop.offset, firstLine: stop.line, chunkSize: 5 })) {
          rest.push({ number: line.number, offset: line.offset, length: line.length, terminated: line.terminated });
        }
        expect([...first, ...rest]).toEqual(split(bytes, { chunkSize: 4 }).map(({ text: _text, ...l }) => l));
      }),
    );
  });

  it('reads a pass that ends within one chunk into a buffer no larger than the pass, with the same lines', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('{"a":1}', 'bc', '', ' ', '\r', '\n'), { maxLength: 40 }), fc.nat(), fc.nat(), fc.integer({ min: 1, max: 1 << 20 }), (parts, from, to, chunkSize) => {
        const bytes = Buffer.from(parts.join(''), 'utf8');
        const [a, b] = [from % (bytes.length + 1), to % (bytes.length + 1)].sort((x, y) => x - y) as [number, number];
        // A pass starts at a line's first byte.
        const start = a === 0 ? 0 : bytes.lastIndexOf(0x0a, a - 1) + 1;
        let largest = 0;
        const inner = memoryReader(bytes);
        const read: ReadSync = (fd, buffer, offset, length, position) => {
          largest = Math.max(largest, buffer.length);
          return inner(fd, buffer, offset, length, position);
        };
        // Each line decoded before the next is asked for: its bytes are a view of the reused buffer.
        const decoded = (lines: Iterable<SplitLine>) => Array.from(lines, (l) => ({ offset: l.offset, text: l.bytes?.toString('utf8') }));
        const seen = decoded(splitLines(-1, { readSync: read, start, end: b, chunkSize }));
        expect(largest).toBeLessThanOrEqual(Math.min(chunkSize, Math.max(0, b - start)));
        const whole = decoded(splitLines(-1, { readSync: memoryReader(bytes.subarray(0, b)), start, chunkSize: 1 << 20 }));
        expect(seen).toEqual(whole);
      }),
    );
  });

  it('yields each line with its number, byte offset, length and termination', () => {
    expect(split('{"a":1}\n{"b":22}\n')).toEqual([
      { number: 1, offset: 0, length: 7, terminated: true, text: '{"a":1}' },
      { number: 2, offset: 8, length: 8, terminated: true, text: '{"b":22}' },
    ]);
  });

  it('keeps multi-byte characters whole when they straddle chunk boundaries', () => {
    const lines = ['€uro — ⟦reduced⟧', '😀😀😀 émoji', 'ascii', '⟨tool call_9⟩'];
    const data = lines.join('\n') + '\n';
    const bytes = Buffer.from(data, 'utf8');
    for (let chunkSize = 1; chunkSize <= 9; chunkSize++) {
      const seen = split(bytes, { chunkSize });
      expect(seen.map((l) => l.text), `chunk ${chunkSize}`).toEqual(lines);
      for (const l of seen) expect(bytes.subarray(l.offset, l.offset + l.length).toString('utf8')).toBe(l.text);
    }
  });

  it('skips empty and white-space-only lines but counts them', () => {
    const seen = split('\n{"a":1}\n\n  \n\t\r\n{"b":2}\n\n', { chunkSize: 3 });
    expect(seen.map((l) => [l.number, l.offset, l.text])).toEqual([
      [2, 1, '{"a":1}'],
      [6, 16, '{"b":2}'],
    ]);
  });

  it('reports a last line without a newline as unterminated', () => {
    const seen = split('{"a":1}\n{"torn":', { chunkSize: 4 });
    expect(seen).toEqual([
      { number: 1, offset: 0, length: 7, terminated: true, text: '{"a":1}' },
      { number: 2, offset: 8, length: 8, terminated: false, text: '{"torn":' },
    ]);
  });

  it('reads a single line longer than the chunk', () => {
    const long = `{"x":"${'ab€'.repeat(1000)}"}`;
    const seen = split(`${long}\nshort\n`, { chunkSize: 7 });
    expect(seen.map((l) => l.text)).toEqual([long, 'short']);
    expect(seen[0]?.length).toBe(Buffer.byteLength(long));
    expect(seen[1]?.offset).toBe(Buffer.byteLength(long) + 1);
  });

  it('tolerates CRLF line ends: the \\r is not part of the line', () => {
    for (const chunkSize of [1, 2, 5, 64]) {
      const seen = split('{"a":1}\r\n{"b":2}\r\n{"c":3}\r', { chunkSize });
      expect(seen.map((l) => [l.text, l.length, l.offset])).toEqual([
        ['{"a":1}', 7, 0],
        ['{"b":2}', 7, 9],
        ['{"c":3}', 7, 18],
      ]);
    }
  });

  it('leaves out the bytes of a line longer than maxLineBytes without accumulating them', () => {
    const seen = split(`small\n${'y'.repeat(100)}\nafter`, { chunkSize: 8, maxLineBytes: 50 });
    expect(seen).toEqual([
      { number: 1, offset: 0, length: 5, terminated: true, text: 'small' },
      { number: 2, offset: 6, length: 100, terminated: true },
      { number: 3, offset: 107, length: 5, terminated: false, text: 'after' },
    ]);
  });

  it('stops at `end`: a file still growing is read up to its size when opened', () => {
    const data = Buffer.from('{"a":1}\n{"b":2}\n{"c":3}\n');
    const seen = [...splitLines(-1, { chunkSize: 5, end: 12, readSync: memoryReader(data) })].map((l) => [l.number, l.length, l.terminated]);
    expect(seen).toEqual([
      [1, 7, true],
      [2, 4, false],
    ]);
  });

  it('copies only a line that straddles reads: a line inside one read is a view of the buffer', () => {
    const data = Buffer.from('aaaa\nbbbbbbbbbbbb\n');
    const lines: SplitLine[] = [];
    for (const line of splitLines(-1, { chunkSize: 8, readSync: memoryReader(data) })) lines.push(line);
    // Line 1 lies inside the first read; by now the buffer holds later bytes.
    expect(lines[0]?.bytes?.toString()).not.toBe('aaaa');
    expect(lines[1]?.bytes?.toString()).toBe('bbbbbbbbbbbb');
  });

  it('agrees with splitting the decoded text, for any content and chunk size', () => {
    const line = fc.string({ unit: 'binary', maxLength: 40 }).map((s) => s.replace(/[\n\r]/g, ''));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), fc.integer({ min: 1, max: 20 }), fc.boolean(), (parts, chunkSize, trailing) => {
        const text = parts.join('\n') + (trailing ? '\n' : '');
        const bytes = Buffer.from(text, 'utf8');
        const expected = parts
          .map((p, k) => ({ p, number: k + 1 }))
          .filter(({ p }) => !/^[ \t]*$/.test(p))
          .map(({ p, number }) => ({ number, text: Buffer.from(p, 'utf8').toString('utf8') }));
        const seen = split(bytes, { chunkSize });
        expect(seen.map((l) => ({ number: l.number, text: l.text }))).toEqual(expected);
        for (const l of seen) {
          expect(bytes.subarray(l.offset, l.offset + l.length).toString('utf8')).toBe(l.text);
          expect(l.terminated).toBe(trailing || l.number < parts.length);
        }
      }),
    );
  });
});

describe('splitLines with keepBytesBelow', () => {
  it('yields the same lines as without it (blank ones skipped alike), only without the bytes of the long ones', () => {
    const piece = fc.constantFrom('a', '{"t":1}', ' ', '\t', '\r', '\n', 'é', '  \r\n');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), fc.integer({ min: 1, max: 16 }), fc.integer({ min: 1, max: 12 }), fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }), (parts, chunkSize, keepBytesBelow, maxLineBytes) => {
        const bytes = Buffer.from(parts.join(''), 'utf8');
        const limits = maxLineBytes === undefined ? {} : { maxLineBytes };
        const plain = split(bytes, { chunkSize, ...limits });
        const dropped = split(bytes, { chunkSize, keepBytesBelow, ...limits });
        // The limit counts the bytes before the `\n`, a `\r` there included.
        const raw = (l: Seen) => l.length + (bytes[l.offset + l.length] === 0x0d ? 1 : 0);
        expect(dropped).toEqual(plain.map((l) => (l.text !== undefined && raw(l) >= keepBytesBelow ? (({ text: _t, ...rest }) => rest)(l) : l)));
      }),
      { numRuns: 500 },
    );
  });
});

describe('splitLines over a real file', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it('reads through fs.readSync and reports progress per read', () => {
    const path = tmp.path('lines.jsonl');
    writeFileSync(path, '{"a":"α"}\n{"b":"β"}\n');
    const fd = openSync(path, 'r');
    try {
      const positions: number[] = [];
      const texts = [...splitLines(fd, { chunkSize: 4, onRead: (p) => positions.push(p) })].map((l) => l.length);
      expect(texts).toEqual([10, 10]);
      expect(positions.at(-1)).toBe(22);
      expect(readExactly(fd, 11, 10)?.toString('utf8')).toBe('{"b":"β"}');
      expect(readExactly(fd, 20, 10)).toBeUndefined();
    } finally {
      closeSync(fd);
    }
  });
});
