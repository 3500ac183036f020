import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { literalPrefilter } from './literalPrefilter';
import { simpleMatcher } from './simpleMatcher';
import { sidecarSearch } from '.';
import { memorySource } from '../format/bytes';
import { makeReduction, tool } from '../testing/builders';
import type { ByteSource, ChatMessage, Result, SidecarSearchResult } from '../format/types';
import { utf8Encode } from '../format/utf8';

const prefilterOf = (pattern: string) => literalPrefilter(RE2JS.compile(pattern));

/** Content on "disk": read by range, with a naive `findAll` (leftmost non-overlapping occurrences), counting its calls. */
function diskSource(content: string): ByteSource & { finds: number; findAll: NonNullable<ByteSource['findAll']> } {
  const bytes = memorySource(utf8Encode(content)).bytes;
  const source = {
    finds: 0,
    length: bytes.length,
    read: (start: number, end: number) => bytes.subarray(start, end),
    findAll(needle: Uint8Array, start: number, end: number, onMatch: (offset: () => number) => boolean) {
      source.finds++;
      outer: for (let i = start; i + needle.length <= end; i++) {
        for (let k = 0; k < needle.length; k++) if (bytes[i + k] !== needle[k]) continue outer;
        if (!onMatch(() => i)) return;
        i += needle.length - 1;
      }
    },
  };
  return source;
}

function value<T>(r: Result<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${r.error.code}: ${r.error.message}`);
  return r.value;
}

function searchDisk(content: string, pattern: string, prefilter: boolean, windowBytes?: number, stepWork?: number): SidecarSearchResult {
  const v = [tool(content, 'c')];
  const l = [makeReduction(v, { kind: 'tool_output_elided', index: 0 })];
  const disk = [{ ...(v[0] as ChatMessage), content: '', large: diskSource(content) }];
  return value(
    sidecarSearch(l, pattern, disk, undefined, { mode: 'regex', max_matches: 10_000, max_result_bytes: 1 << 30, literal_prefilter: prefilter, ...(windowBytes ? { window_bytes: windowBytes } : {}), ...(stepWork ? { step_work: stepWork } : {}) }),
  );
}

describe('literalPrefilter: the literal every match holds, read from the program', () => {
  it('finds a prefix literal and the reach after it', () => {
    expect(prefilterOf('TS\\d{4,5}')).toEqual({ literal: 'TS', before: 0, after: 7, noNewline: true });
    expect(prefilterOf('ZQXJ-needle-7[0-9A-Za-z_]*')).toEqual({ literal: 'ZQXJ-needle-7', before: 0, after: Infinity, noNewline: true });
  });

  it('finds the common prefix of an alternation, and a literal after an unbounded run on one line', () => {
    expect(prefilterOf('(abc|abd)x')).toEqual({ literal: 'ab', before: 0, after: 4, noNewline: true });
    expect(prefilterOf('[a-z]+error[0-9]*')).toMatchObject({ literal: 'error', before: Infinity, after: Infinity, noNewline: true });
  });

  it('gives none where a window could change a result or miss an occurrence', () => {
    for (const pattern of ['\\bfoo', '^foo', 'foo$', '(?i)needle', 'x[\\s\\S]*Q|x', 'a|b', '[ab]c*']) expect(prefilterOf(pattern), pattern).toBeNull();
  });

  it('keeps the longest piece of a literal whose occurrences cannot overlap', () => {
    expect(prefilterOf('aa')).toEqual({ literal: 'a', before: 0, after: 2, noNewline: true });
    expect(prefilterOf('abab\\d')).toEqual({ literal: 'ab', before: 0, after: 5, noNewline: true });
  });
});

describe('a prefiltered search finds exactly what the plain engine finds', () => {
  const alphabet = ['a', 'b', 'c', 'T', 'S', '0', '7', '9', ' ', '\n', 'é', '😀'];
  const text = fc.array(fc.constantFrom(...alphabet), { maxLength: 400 }).map((cs) => cs.join(''));
  const atom = fc.oneof(
    fc.constantFrom('a', 'b', 'c', 'T', 'S', '0', 'é', '😀', ' '),
    fc.constantFrom('\\d', '[a-c]', '[^\\n]', '.', '[\\s\\S]', '\\w', '[0-9A-Za-z_]'),
  );
  const piece = fc.tuple(atom, fc.constantFrom('', '', '*', '+', '?', '{1,3}', '{2}', '*?')).map(([a, q]) => a + q);
  const literal = fc.constantFrom('TS', 'ab', 'c0', 'é😀', 'Sa', 'b c');
  const pattern = fc
    .tuple(fc.array(piece, { maxLength: 3 }), literal, fc.array(piece, { maxLength: 3 }), fc.oneof({ arbitrary: fc.constant(null), weight: 3 }, { arbitrary: fc.tuple(fc.constantFrom('a', 'T', '(b|c)'), literal), weight: 1 }))
    .map(([pre, lit, post, alt]) => {
      const main = pre.join('') + lit + post.join('');
      return alt ? `(?:${main}|${alt[0]}${alt[1]})` : main;
    });

  it('over random patterns holding a literal and random texts (lines, multi-byte runes)', () => {
    let prefiltered = 0;
    let total = 0;
    fc.assert(
      fc.property(pattern, text, (p, t) => {
        if (prefilterOf(p) !== null) prefiltered++;
        total++;
        const plain = searchDisk(t, p, false);
        const fast = searchDisk(t, p, true);
        expect(fast.matches.map((m) => [m.offset, m.length])).toEqual(plain.matches.map((m) => [m.offset, m.length]));
        expect(fast.total_matches).toBe(plain.total_matches);
        // Paused every few candidates, and every window run in steps: the same matches.
        const stepped = searchDisk(t, p, true, undefined, 40);
        expect(stepped.matches.map((m) => [m.offset, m.length])).toEqual(plain.matches.map((m) => [m.offset, m.length]));
        // Paused every few candidates, some handled from a block read for an earlier one.
        const some = searchDisk(t, p, true, undefined, 3000);
        expect(some.matches.map((m) => [m.offset, m.length])).toEqual(plain.matches.map((m) => [m.offset, m.length]));
      }),
      { numRuns: 400 },
    );
    // The property is about prefiltered searches: most generated patterns must have been.
    expect(prefiltered, `${prefiltered} of ${total}`).toBeGreaterThan(total / 4);
  });

  it('matches the plain search on a long content with many candidates, in small windows too', () => {
    const chunk = 'TS12 TS123456 xTS1234y\nab ZQXJ-needle-7abc_9 é😀TS99999\n';
    const content = chunk.repeat(300);
    for (const p of ['TS\\d{4,5}', 'ZQXJ-needle-7[0-9A-Za-z_]*', '[A-Z]+-needle[0-9]*', 'é😀TS\\d+']) {
      const plain = searchDisk(content, p, false, 512);
      expect(plain.total_matches, p).toBeGreaterThan(0);
      expect(searchDisk(content, p, true).matches.map((m) => [m.offset, m.length]), p).toEqual(plain.matches.map((m) => [m.offset, m.length]));
    }
  });

  it('scans a rare literal with the source’s findAll, not window by window', () => {
    const content = `${'x'.repeat(200_000)}ZQXJ-needle-7abc\n${'y'.repeat(200_000)}`;
    const v = [tool(content, 'c')];
    const l = [makeReduction(v, { kind: 'tool_output_elided', index: 0 })];
    const readBy = (prefilter: boolean) => {
      const source = diskSource(content);
      let reads = 0;
      const counting: ByteSource = { length: source.length, read: (a, b) => ((reads += b - a), source.read(a, b)), findAll: (...args) => source.findAll(...args) };
      const r = value(sidecarSearch(l, 'ZQXJ-needle-7[0-9A-Za-z_]*', [{ ...(v[0] as ChatMessage), content: '', large: counting }], undefined, { mode: 'regex', literal_prefilter: prefilter }));
      expect(r.matches.map((m) => [m.offset, m.length])).toEqual([[200_000, 16]]);
      return reads;
    };
    // Both read the content once to verify its hash; only the plain search decodes all of it again.
    const plain = readBy(false);
    const fast = readBy(true);
    expect(plain - fast).toBeGreaterThan(content.length - 20_000);
  });
});

describe('a prefiltered search stays bounded', () => {
  it('looks at the signal while a content dense with candidates is searched', () => {
    const content = 'TS1 '.repeat(50_000);
    const v = [tool(content, 'c')];
    const l = [makeReduction(v, { kind: 'tool_output_elided', index: 0 })];
    let looks = 0;
    const signal = {
      get aborted() {
        looks++;
        return false;
      },
    };
    const r = sidecarSearch(l, 'TS\\d{4,5}', [{ ...(v[0] as ChatMessage), content: '', large: diskSource(content) }], undefined, { mode: 'regex', signal, step_work: 1 << 16 });
    expect(value(r).total_matches).toBe(0);
    // 50,000 candidates of at least 1,024 units of work each: a look every 64 of them at least.
    expect(looks).toBeGreaterThanOrEqual(Math.floor((50_000 * 1024) / (1 << 16)));
  });
});

describe('the direct matcher around each candidate finds exactly what the plain engine finds', () => {
  const alphabet = ['a', 'b', 'T', 'S', '0', '7', '9', ' ', '_', '\n', 'é', '😀'];
  const text = fc.array(fc.constantFrom(...alphabet), { maxLength: 400 }).map((cs) => cs.join(''));
  const set = fc.constantFrom('a', 'b', '0', 'é', '😀', ' ', '\\d', '\\w', '\\s', '.', '[^a]', '[^\\nT]', '[a-b]', '[é-😀]', '[0-9A-Za-z_]');
  const piece = fc.tuple(set, fc.constantFrom('', '', '*', '+', '?', '{2}', '{1,3}', '{0,2}', '{2,}')).map(([a, q]) => a + q);
  const literal = fc.constantFrom('TS', 'ab', 'T0', 'é😀', 'S_', 'b a');
  const pattern = fc.tuple(fc.array(piece, { maxLength: 2 }), literal, fc.array(piece, { maxLength: 3 })).map(([pre, lit, post]) => pre.join('') + lit + post.join(''));

  function searchWith(content: string, p: string, options: Parameters<typeof sidecarSearch>[4]): SidecarSearchResult {
    const v = [tool(content, 'c')];
    const l = [makeReduction(v, { kind: 'tool_output_elided', index: 0 })];
    return value(sidecarSearch(l, p, [{ ...(v[0] as ChatMessage), content: '', large: diskSource(content) }], undefined, { mode: 'regex', max_result_bytes: 1 << 30, ...options }));
  }

  it('over random simple patterns and texts: the same matches, snippets, counts and pages', () => {
    let direct = 0;
    let total = 0;
    fc.assert(
      fc.property(pattern, text, fc.constantFrom(1, 3, 10_000), fc.constantFrom(40, 3000), (p, t, maxMatches, stepWork) => {
        total++;
        const re = RE2JS.compile(p);
        if (literalPrefilter(re) !== null && simpleMatcher(re) !== undefined) direct++;
        const plain = searchWith(t, p, { literal_prefilter: false, max_matches: maxMatches });
        expect(searchWith(t, p, { max_matches: maxMatches }), p).toEqual(plain);
        // Paused after every candidate, or every few (some handled from a block read for an earlier one): the same result.
        expect(searchWith(t, p, { max_matches: maxMatches, step_work: stepWork }), p).toEqual(plain);
      }),
      { numRuns: 400 },
    );
    // The property is about the direct matcher: most generated patterns must have used it.
    expect(direct, `${direct} of ${total}`).toBeGreaterThan(total / 3);
  });

  it('never runs the engine for a simple pattern, and reads and locates only some of the candidates that come close together', () => {
    const content = 'xTS12345 TS1234567\nTS99 é😀TS0000\n'.repeat(2_000);
    const candidates = content.split('TS').length - 1;
    const run = (direct: boolean) => {
      const engine = vi.spyOn(RE2JS.prototype, 'matcher');
      const source = diskSource(content);
      let reads = 0;
      let located = 0;
      const counting: ByteSource = {
        length: source.length,
        read: (a, b) => (reads++, source.read(a, b)),
        findAll: (needle, start, end, onMatch) => source.findAll(needle, start, end, (offset) => onMatch(() => (located++, offset()))),
      };
      const v = [tool(content, 'c')];
      const l = [makeReduction(v, { kind: 'tool_output_elided', index: 0 })];
      // No snippets: only the hash check and the windows read.
      const r = value(sidecarSearch(l, 'TS\\d{4,5}', [{ ...(v[0] as ChatMessage), content: '', large: counting }], undefined, { mode: 'regex', max_matches: 0, direct_match: direct }));
      const calls = engine.mock.calls.length;
      engine.mockRestore();
      return { total: r.total_matches, calls, reads, located };
    };
    const fast = run(true);
    const engine = run(false);
    expect(fast.total).toBe(engine.total);
    expect(fast.total).toBeGreaterThan(0);
    expect(engine.calls).toBeGreaterThan(0);
    expect(fast.calls).toBe(0);
    // The hash check reads the content in a few pieces; one read around a candidate holds the next
    // ones (an offset is asked only for a candidate the last read does not hold).
    expect(fast.located).toBeLessThan(candidates / 8);
    expect(fast.reads).toBeLessThan(candidates / 8 + 16);
  });
});

describe('the direct matcher stays linear on hostile texts', () => {
  it('reads a long line dense with candidates about once, for a pattern reaching to the line’s end', () => {
    // Each candidate's window reaches to the end of the one line; every attempt fails at its end.
    const content = `${`TS${'1'.repeat(100)} `.repeat(2_000)}\nTS1X`;
    const source = diskSource(content);
    let read = 0;
    const counting: ByteSource = { length: source.length, read: (a, b) => ((read += b - a), source.read(a, b)), findAll: (...args) => source.findAll(...args) };
    const v = [tool(content, 'c')];
    const l = [makeReduction(v, { kind: 'tool_output_elided', index: 0 })];
    const r = value(sidecarSearch(l, 'TS\\d*X', [{ ...(v[0] as ChatMessage), content: '', large: counting }], undefined, { mode: 'regex' }));
    expect(r.matches.map((m) => [m.offset, m.length])).toEqual(searchDisk(content, 'TS\\d*X', false).matches.map((m) => [m.offset, m.length]));
    expect(r.total_matches).toBe(1);
    // The hash check, the line's end found once, and one read holding every candidate's window.
    expect(read).toBeLessThan(4 * content.length);
  });
});
