import { closeSync, openSync, readSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../tools/testing/files';
import { createContentServices } from './contentServices';
import { FileContent } from './fileContent';
import { scanMessageRecord } from './rawRecord';
import type { ReadSync } from '../common/lines';
import { literalPrefilter } from '../../../shared/search/literalPrefilter';
import { rawSafe, simpleMatcher } from '../../../shared/search/simpleMatcher';
import { sidecarSearch } from '../../../shared/search';
import { assistant, makeReduction, tool } from '../../../shared/testing/builders';
import type { ChatMessage } from '../../../shared/format/types';

const dir = tempDir('file-content-');
afterAll(() => dir.cleanup());
let n = 0;

/** A message record holding `body` as its content's JSON body; the FileContent over it. */
function contentOf(body: string): { source: FileContent; close: () => void } {
  const path = dir.path(`c${n++}.jsonl`);
  writeFileSync(path, `{"t":"message","i":0,"msg":{"role":"tool","content":"${body}"}}\n`);
  const fd = openSync(path, 'r');
  const line = `{"t":"message","i":0,"msg":{"role":"tool","content":"${body}"}}`;
  const scan = scanMessageRecord({ fd, read: readSync, offset: 0, length: Buffer.byteLength(line), hash: true, maxRestBytes: 1 << 20, windowBytes: 4096 });
  if (!scan.ok) throw new Error(scan.reason);
  return { source: new FileContent(fd, readSync, scan.content, () => true, createContentServices()), close: () => closeSync(fd) };
}

/** Leftmost non-overlapping occurrences of `needle` in `hay[start, end)`, the reference. */
function naive(hay: Buffer, needle: Buffer, start: number, end: number): number[] {
  const out: number[] = [];
  for (let i = hay.indexOf(needle, start); i !== -1 && i + needle.length <= end; i = hay.indexOf(needle, i + needle.length)) out.push(i);
  return out;
}

function found(source: FileContent, needle: string, start: number, end: number): number[] {
  const out: number[] = [];
  source.findAll(Buffer.from(needle), start, end, (at) => {
    out.push(at());
    return true;
  });
  return out;
}

const textArb = fc.string({ unit: fc.constantFrom('a', 'b', '"', '\\', '\n', '\t', '\u0001', 'é', '😀', '/', 'u', 'n', '0'), maxLength: 120 });
const needleArb = fc.string({ unit: fc.constantFrom('a', 'b', '"', '\\', '\n', 'é', 'n', 'u', '0'), minLength: 1, maxLength: 4 });

/** Escapes a string as writers other than JSON.stringify do (\u00e9, \/). */
function looseBody(text: string): string {
  return JSON.stringify(text)
    .slice(1, -1)
    .replace(/é/g, '\\u00e9')
    .replace(/\//g, '\\/');
}

describe('FileContent', () => {
  it('reads any range and finds any needle exactly as in the decoded bytes, canonical bodies or not', () => {
    fc.assert(
      fc.property(textArb, needleArb, fc.nat(), fc.nat(), fc.boolean(), (text, needle, x, y, loose) => {
        const { source, close } = contentOf(loose ? looseBody(text) : JSON.stringify(text).slice(1, -1));
        try {
          const bytes = Buffer.from(text, 'utf8');
          expect(source.length).toBe(bytes.length);
          const a = bytes.length === 0 ? 0 : x % (bytes.length + 1);
          const b = a + (bytes.length === 0 ? 0 : y % (bytes.length - a + 1));
          expect(Buffer.from(source.read(a, b))).toEqual(bytes.subarray(a, b));
          // Written into an array at an offset, the bytes around untouched.
          const target = Buffer.alloc(b - a + 6, 0xee);
          source.readInto?.(a, b, target, 3);
          expect(target).toEqual(Buffer.concat([Buffer.alloc(3, 0xee), bytes.subarray(a, b), Buffer.alloc(3, 0xee)]));
          // Searches over char-boundary spans, as the resolver asks for them.
          const start = [...text.slice(0, x % (text.length + 1))].length === 0 ? 0 : Buffer.byteLength(text.slice(0, x % (text.length + 1)));
          const startOk = !/[\udc00-\udfff]/.test(text.charAt(x % (text.length + 1)));
          const from = startOk ? start : 0;
          expect(found(source, needle, from, bytes.length)).toEqual(naive(bytes, Buffer.from(needle), from, bytes.length));
        } finally {
          close();
        }
      }),
      { numRuns: 300 },
    );
  });

  it('slices and searches a 3 MiB output from its checkpoints', () => {
    const text = Array.from({ length: 60_000 }, (_, i) => `${i % 97 === 0 ? 'NEEDLE' : 'line'} ${i}\t"é"\\ \u001b[31m😀\n`).join('');
    const { source, close } = contentOf(JSON.stringify(text).slice(1, -1));
    try {
      const bytes = Buffer.from(text, 'utf8');
      expect(source.sha256).toMatch(/^[0-9a-f]{64}$/);
      for (const [a, b] of [
        [0, 10],
        [1_500_000, 1_565_536],
        [bytes.length - 70_000, bytes.length],
        [777_777, 2_900_001],
      ] as const) {
        expect(Buffer.from(source.read(a, b)).equals(bytes.subarray(a, b))).toBe(true);
        // Written into an array at an offset (a range past the end read as far as the end).
        const n = Math.min(b, bytes.length) - a;
        const target = Buffer.alloc(n + 10, 0xee);
        source.readInto?.(a, b, target, 5);
        expect(target.equals(Buffer.concat([Buffer.alloc(5, 0xee), bytes.subarray(a, b), Buffer.alloc(5, 0xee)]))).toBe(true);
      }
      expect(found(source, 'NEEDLE', 0, bytes.length)).toEqual(naive(bytes, Buffer.from('NEEDLE'), 0, bytes.length));
      expect(found(source, '"é"\\', 1_000_000, 2_000_000)).toEqual(naive(bytes, Buffer.from('"é"\\'), 1_000_000, 2_000_000));
    } finally {
      close();
    }
  });
});

describe('FileContent: the context around a match is read near it', () => {
  it('a match just past a checkpoint has its snippet context decoded from an anchor before it, not from the checkpoint before', () => {
    // Checkpoints every CHECKPOINT_RAW_BYTES (32 KiB: 262,144 is the eighth) of raw body; matches at 20, 100 and 900
    // bytes past the first one, and one far from any.
    const at = [262_144 + 20, 262_144 + 100, 262_144 + 900, 400_000];
    const size = 600_000;
    const chars = Buffer.alloc(size, 'x');
    for (const p of at) chars.write('NEEDLE', p, 'latin1');
    const path = dir.path(`c${n++}.jsonl`);
    const line = `{"t":"message","i":0,"msg":{"role":"tool","content":"${chars.toString('latin1')}"}}`;
    writeFileSync(path, `${line}\n`);
    const fd = openSync(path, 'r');
    try {
      const scan = scanMessageRecord({ fd, read: readSync, offset: 0, length: Buffer.byteLength(line), hash: true, maxRestBytes: 1 << 20, windowBytes: 4096 });
      if (!scan.ok) throw new Error(scan.reason);
      let bytesRead = 0;
      const counting: ReadSync = (f, buffer, offset, length, position) => {
        bytesRead += length;
        return readSync(f, buffer, offset, length, position);
      };
      const source = new FileContent(fd, counting, scan.content, () => true, createContentServices());
      const offsets: number[] = [];
      source.findAll(Buffer.from('NEEDLE'), 0, size, (offset) => {
        offsets.push(offset());
        // What a 256-byte snippet reads (shared/search.ts sourceSnippet): its bounds' boundaries, then its bytes.
        const before = bytesRead;
        const from = source.floorBoundary(offset() - 256);
        const to = source.floorBoundary(offset() + 6 + 256);
        expect(Buffer.from(source.read(from, to)).toString('latin1')).toBe(chars.toString('latin1', from, to));
        expect(bytesRead - before).toBeLessThan(8 * 1024);
        return true;
      });
      expect(offsets).toEqual(at);
    } finally {
      closeSync(fd);
    }
  });
});

describe('FileContent.findAllDirect (a simple pattern matched in raw bytes)', () => {
  /** RE2's leftmost-first non-overlapping matches of `pattern` in `text`, in UTF-8 bytes: the reference. */
  /** RE2's matches in `text` from UTF-16 index `start` on (a hidden span starts there: a match may not begin before it), as byte ranges. */
  function re2Matches(text: string, pattern: string, start: number): [number, number][] {
    const m = RE2JS.compile(pattern).matcher(text);
    const out: [number, number][] = [];
    let pos = start;
    while (pos <= text.length && m.find(pos)) {
      const at = Buffer.byteLength(text.slice(0, m.start()));
      out.push([at, Buffer.byteLength(text.slice(m.start(), m.end()))]);
      pos = m.end() > m.start() ? m.end() : m.start() + 1;
    }
    return out;
  }
  // Digits, u and n also occur in escapes' tails (\u0001, \n): matches must never start there.
  const patterns = ['TS\\d{2,3}', '\\d{2}x', 'u0\\d{1,2}', 'n\\d', '0{2}1', 'é[a-c]{1,2}', '[0-9a-f]{0,3}xa', 'ab?c', 'TS\\d+', 'x[0-9a-c]*', 'n\\d*a'];
  const directText = fc.string({ unit: fc.constantFrom('T', 'S', '0', '1', '7', 'u', 'n', 'x', 'a', 'b', 'c', 'é', '😀', '\n', '\u0001', '\u001b', '"', '\\', ' '), maxLength: 160 });

  it('finds exactly what RE2 finds in the decoded text, from any character boundary, never inside an escape', () => {
    fc.assert(
      fc.property(directText, fc.constantFrom(...patterns), fc.nat(), (text, pattern, cut) => {
        const re = RE2JS.compile(pattern);
        const prefilter = literalPrefilter(re);
        const direct = simpleMatcher(re);
        if (prefilter === null || direct === undefined) throw new Error(`${pattern} is not simple`);
        expect(rawSafe(direct)).toBe(true);
        // A start on a character boundary, as hidden spans start.
        const chars = [...text];
        const before = chars.slice(0, cut % (chars.length + 1)).join('');
        const from = Buffer.byteLength(before);
        const { source, close } = contentOf(JSON.stringify(text).slice(1, -1));
        try {
          const out: [number, number][] = [];
          const done = source.findAllDirect(Buffer.from(prefilter.literal), direct, prefilter.before, prefilter.before + prefilter.after, from, source.length, (at, length) => (out.push([at(), length]), true));
          expect(done).toBe(source.length);
          expect(out).toEqual(re2Matches(text, pattern, before.length));
        } finally {
          close();
        }
      }),
      { numRuns: 600 },
    );
  });

  it('finds matches across its read windows (256 KiB of raw bytes), escapes shifting raw from decoded', () => {
    // Lines with an escape each, and TS numbers planted around every raw window edge.
    const parts: string[] = [];
    let raw = 0;
    for (let k = 0; raw < 1_100_000; k++) {
      const piece = k % 7 === 0 ? 'TS1234\n' : k % 5 === 0 ? '\u001b[1mTS98\u001b[0m' : `line ${k} é\t`;
      parts.push(piece);
      raw += Buffer.byteLength(JSON.stringify(piece)) - 2;
    }
    const text = parts.join('');
    const re = RE2JS.compile('TS\\d{2,4}');
    const prefilter = literalPrefilter(re);
    const direct = simpleMatcher(re);
    if (prefilter === null || direct === undefined) throw new Error('not simple');
    const { source, close } = contentOf(JSON.stringify(text).slice(1, -1));
    try {
      const out: [number, number][] = [];
      expect(source.findAllDirect(Buffer.from('TS'), direct, prefilter.before, prefilter.before + prefilter.after, 0, source.length, (at, length) => (out.push([at(), length]), true))).toBe(source.length);
      const expected = re2Matches(text, 'TS\\d{2,4}', 0);
      expect(expected.length).toBeGreaterThan(10_000);
      expect(out).toEqual(expected);
    } finally {
      close();
    }
  });

  it('a search through it gives what the plain engine gives: matches, offsets, snippets, counts, at any max_matches', () => {
    fc.assert(
      fc.property(directText, fc.constantFrom(...patterns), fc.nat(12), (text, pattern, maxMatches) => {
        const v = [assistant('', 'c'), tool(text, 'c')];
        const l = [makeReduction(v, { kind: 'tool_output_elided', index: 1 })];
        const { source, close } = contentOf(JSON.stringify(text).slice(1, -1));
        try {
          const disk = [v[0] as ChatMessage, { ...(v[1] as ChatMessage), content: '', large: source }];
          const ours = sidecarSearch(l, pattern, disk, undefined, { mode: 'regex', max_matches: maxMatches });
          const plain = sidecarSearch(l, pattern, v, undefined, { mode: 'regex', max_matches: maxMatches, literal_prefilter: false });
          expect(ours).toEqual(plain);
        } finally {
          close();
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a match of unbounded reach longer than what a window reads past its end is left to the decoded search, with the same result', () => {
    // x, then 300,000 digits and letters (no escape stops the run), around a raw window edge.
    const text = `${'line\n'.repeat(50_000)}x${'0123456789abc'.repeat(23_000)}\tx1 x22`;
    const v = [assistant('', 'c'), tool(text, 'c')];
    const l = [makeReduction(v, { kind: 'tool_output_elided', index: 1 })];
    const { source, close } = contentOf(JSON.stringify(text).slice(1, -1));
    try {
      const re = RE2JS.compile('x[0-9a-c]*');
      const prefilter = literalPrefilter(re);
      const direct = simpleMatcher(re);
      if (prefilter === null || direct === undefined) throw new Error('not simple');
      // The long match is not taken from the raw bytes: the search hands over from the end of the
      // last match it reported (none here: the start).
      const reported: number[] = [];
      expect(source.findAllDirect(Buffer.from('x'), direct, prefilter.before, prefilter.before + prefilter.after, 0, source.length, (at) => (reported.push(at()), true))).toBe(0);
      expect(reported).toEqual([]);
      const disk = [v[0] as ChatMessage, { ...(v[1] as ChatMessage), content: '', large: source }];
      const ours = sidecarSearch(l, 'x[0-9a-c]*', disk, undefined, { mode: 'regex' });
      expect(ours).toEqual(sidecarSearch(l, 'x[0-9a-c]*', v, undefined, { mode: 'regex', literal_prefilter: false }));
      expect(ours.ok && ours.value.matches.map((m) => m.length)).toEqual([1 + 13 * 23_000, 2, 3]);
    } finally {
      close();
    }
  });

  it('declines a body with non-canonical escapes', () => {
    const re = RE2JS.compile('TS\\d{2}');
    const { source, close } = contentOf('TS12 \\u0054S34');
    try {
      expect(source.findAllDirect(Buffer.from('TS'), simpleMatcher(re) as NonNullable<ReturnType<typeof simpleMatcher>>, 0, 4, 0, source.length, () => true)).toBeUndefined();
    } finally {
      close();
    }
  });
});

describe('FileContent.findAllFolded (case-insensitive substring over raw bytes)', () => {
  /** RE2's leftmost non-overlapping case-insensitive matches of a literal, in UTF-8 bytes: the reference. */
  function re2Folded(text: string, query: string): [number, number][] {
    const m = RE2JS.compile(RE2JS.quote(query), RE2JS.CASE_INSENSITIVE).matcher(text);
    const out: [number, number][] = [];
    let pos = 0;
    while (pos <= text.length && m.find(pos)) {
      out.push([Buffer.byteLength(text.slice(0, m.start())), Buffer.byteLength(text.slice(m.start(), m.end()))]);
      pos = m.end() > m.start() ? m.end() : m.start() + 1;
    }
    return out;
  }
  const foldText = fc.string({ unit: fc.constantFrom('a', 'A', 'k', 'K', '\u212A', 's', 'S', '\u017F', 'n', '\n', '"', '\\', 'é', '😀', '-', '7', ' '), maxLength: 150 });
  const foldQuery = fc.string({ unit: fc.constantFrom('a', 'K', 'k', 's', 'S', 'n', '-', '7', ' ', 'A'), minLength: 1, maxLength: 4 });

  it('finds exactly what RE2 finds case-insensitively, K and ſ included, never inside an escape', () => {
    fc.assert(
      fc.property(foldText, foldQuery, (text, query) => {
        const { source, close } = contentOf(JSON.stringify(text).slice(1, -1));
        try {
          const out: [number, number][] = [];
          expect(source.findAllFolded(query, 0, source.length, (at, length) => (out.push([at(), length]), true))).toBe(true);
          expect(out).toEqual(re2Folded(text, query));
        } finally {
          close();
        }
      }),
      { numRuns: 300 },
    );
  });

  it('declines a body with non-canonical escapes, and a query it cannot fold as bytes', () => {
    const loose = contentOf(looseBody('café/K'));
    const plain = contentOf('abc');
    try {
      expect(loose.source.findAllFolded('caf', 0, loose.source.length, () => true)).toBe(false);
      expect(plain.source.findAllFolded('é', 0, plain.source.length, () => true)).toBe(false);
      expect(plain.source.findAllFolded('a"', 0, plain.source.length, () => true)).toBe(false);
    } finally {
      loose.close();
      plain.close();
    }
  });

  it('finds matches across its read windows', () => {
    const text = `${'x'.repeat(5 * 1024 * 1024 - 3)}NeEdLe${'y'.repeat(100)}needle`;
    const { source, close } = contentOf(text);
    try {
      const out: [number, number][] = [];
      source.findAllFolded('needle', 0, source.length, (at, length) => (out.push([at(), length]), true));
      expect(out).toEqual(re2Folded(text, 'needle'));
      expect(out).toHaveLength(2);
    } finally {
      close();
    }
  });
});
