/** Links (SPEC §12): the fragment's parser and formatter. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Link } from './link';
import { formatLink, isEmptyLink, linkPathProblem, parseLink } from './link';
import { RAW_INVISIBLE } from '../testing/invisible';
import { wellFormed } from '../format/utf8';

/** Every well-formed link: any subset of the keys, any text for ids and queries. */
/** Control characters (C0, DEL, C1): no link path holds one. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** A path segment a host could list: no separator, control character, nor a lone `.` or `..`. */
const segmentArb = fc
  .string({ minLength: 1, maxLength: 12, unit: 'grapheme' })
  .filter((s) => !/[/\\]/.test(s) && !CONTROL.test(s) && s !== '.' && s !== '..' && !/^[A-Za-z]:/.test(s));

const linkArb: fc.Arbitrary<Link> = fc
  .record(
    {
      file: fc.array(segmentArb, { minLength: 1, maxLength: 4 }).map((segs) => segs.join('/')),
      root: fc.string({ minLength: 1, maxLength: 20, unit: 'grapheme' }).filter((s) => !CONTROL.test(s)),
      call: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
      reduction: fc.string({ minLength: 1, unit: 'grapheme' }),
      range: fc.tuple(fc.nat(), fc.nat()).map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as const),
      q: fc.string({ unit: 'grapheme' }),
      regex: fc.boolean(),
      caseSensitive: fc.boolean(),
    },
    { requiredKeys: [] },
  );

describe('parseLink and formatLink', () => {
  it('round-trip: parsing a formatted link gives it back with no problems (fast-check)', () => {
    fc.assert(
      fc.property(linkArb, (link) => {
        const parsed = parseLink(formatLink(link));
        expect(parsed.problems).toEqual([]);
        expect(parsed.link).toEqual(link);
      }),
      { numRuns: 500 },
    );
  });

  it('never throws on any string, and what it keeps formats to a fragment that parses cleanly to the same link (fast-check)', () => {
    const fragmentish = fc.array(
      fc.oneof(
        fc.constantFrom('file', 'root', 'call', 'reduction', 'range', 'q', 'regex', 'case', 'zz', '', '%', '%E0%A4', '=', '..', '/', '%2F'),
        fc.string(),
        fc.string({ unit: 'binary' }),
      ),
      { maxLength: 12 },
    );
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fragmentish.map((parts) => `#${parts.join('&')}`), fragmentish.map((p) => p.join('='))), (text) => {
        const parsed = parseLink(text);
        for (const p of parsed.problems) expect(p).toMatch(/^The link/);
        const again = parseLink(formatLink(parsed.link));
        expect(again.problems).toEqual([]);
        // Lone surrogates are written as U+FFFD; everything else comes back as it was.
        const expected: Link = { ...parsed.link };
        if (expected.q !== undefined) expected.q = wellFormed(expected.q);
        if (expected.reduction !== undefined) expected.reduction = wellFormed(expected.reduction);
        if (expected.file !== undefined) expected.file = wellFormed(expected.file);
        if (expected.root !== undefined) expected.root = wellFormed(expected.root);
        expect(again.link).toEqual(expected);
      }),
      { numRuns: 1000 },
    );
  });

  it('reads any subset in any order, with or without #, ignoring unknown keys', () => {
    const parsed = parseLink('#q=tail%20-f&zzz=1&range=100:300&reduction=r4&call=3&case=0&regex=1');
    expect(parsed).toEqual({ link: { q: 'tail -f', range: [100, 300], reduction: 'r4', call: 3, caseSensitive: false, regex: true }, problems: [] });
    expect(parseLink('reduction=r1').link).toEqual({ reduction: 'r1' });
    expect(parseLink('http://127.0.0.1:1/?token=x#call=2').link).toEqual({ call: 2 });
    expect(isEmptyLink(parseLink('#').link)).toBe(true);
    expect(isEmptyLink(parseLink('').link)).toBe(true);
  });

  it('keeps + as a plus sign and writes the range readable', () => {
    expect(parseLink('#q=a+b').link.q).toBe('a+b');
    expect(formatLink({ reduction: 'r 4', range: [1, 2], q: 'a&b=c#d' })).toBe('#reduction=r%204&range=1:2&q=a%26b%3Dc%23d');
  });

  it('names each bad value in a sentence and keeps the good ones', () => {
    const parsed = parseLink('#call=0&range=9:3&regex=yes&case=2&reduction=&q=%E0%A4&call=2');
    expect(parsed.link).toEqual({});
    expect(parsed.problems).toEqual([
      'The link\'s call must be a model call number from 1, not "0"; the latest view is shown.',
      "The link's range starts after it ends (9:3); the reduction is shown from its start.",
      'The link\'s regex must be 1 or 0, not "yes"; a substring search is run.',
      'The link\'s case must be 1 or 0, not "2"; the search is case-sensitive.',
      'The link names an empty reduction id; no reduction is opened.',
      'The link\'s q is not valid percent-encoding ("%E0%A4"); it is ignored.',
      'The link names call more than once; the first one is used.',
    ]);
    expect(parseLink('#range=1:x&call=99999999999999999999').problems).toHaveLength(2);
  });

  it('quotes a bad value visibly: no problem sentence holds a raw control, bidi or zero-width character (fast-check)', () => {
    const value = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: fc.constantFrom('a', '\u202e', '\u2066', '\u200b', '\u2028', '\u001b', '\u009b', '\n', '\ud800', '"', '\\') }));
    fc.assert(
      fc.property(fc.constantFrom('call', 'range', 'regex', 'case'), value, (key, v) => {
        // Percent-encoded (what a browser hands over) and raw after a bad escape (quoted as written).
        for (const fragment of [`#${key}=x${encodeURIComponent(wellFormed(v))}`, `#${key}=%E0${v.replace(/[&#]/g, '')}`]) {
          const { problems } = parseLink(fragment);
          expect(problems).toHaveLength(1);
          for (const p of problems) expect(p).not.toMatch(RAW_INVISIBLE);
        }
      }),
      { numRuns: 1000 },
    );
    expect(parseLink('#call=%E2%80%AE1-llac').problems).toEqual(['The link\'s call must be a model call number from 1, not "\u27e8U+202E\u27e91-llac"; the latest view is shown.']);
  });

  it('writes a lone surrogate as U+FFFD rather than throwing', () => {
    expect(formatLink({ q: 'a\uD800b' })).toBe('#q=a%EF%BF%BDb');
  });
});

describe('the file a link names (file=, root=)', () => {
  it('writes the path with its slashes readable, first, and reads it back', () => {
    expect(formatLink({ call: 2, file: 'proj a/s 1.jsonl', root: 'logs' })).toBe('#file=proj%20a/s%201.jsonl&root=logs&call=2');
    expect(parseLink('#call=2&file=proj%20a%2Fs%201.jsonl').link).toEqual({ call: 2, file: 'proj a/s 1.jsonl' });
  });

  it('refuses, with a sentence, every path that is not relative to a root: absolute, drive, UNC, . and .., backslashes, controls', () => {
    for (const bad of ['/etc/passwd', '//host/share/s.jsonl', '\\\\host\\share\\s.jsonl', '\\??\\C:\\s', 'C:/s.jsonl', 'c:s.jsonl', '../s.jsonl', 'a/../../s.jsonl', './s.jsonl', 'a//s.jsonl', 'a/', 'a\\..\\s', 'a\u0000b', 'a\u001b]52;c;x\u0007', '']) {
      const problem = linkPathProblem(bad);
      expect(problem, bad).toMatch(/^The link/);
      const parsed = parseLink(`#file=${encodeURIComponent(bad)}&call=3`);
      expect(parsed.link, bad).toEqual({ call: 3 });
      expect(parsed.problems, bad).toEqual([problem]);
      for (const p of parsed.problems) expect(p).not.toMatch(RAW_INVISIBLE);
    }
  });

  it('never lets a path with a .. segment, a leading separator, a drive or a backslash through (fast-check)', () => {
    const piece = fc.oneof(fc.constantFrom('..', '.', '', '/', '\\', 'C:', '%2e%2e', 'a', '\u0000'), fc.string({ maxLength: 6 }));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), fc.constantFrom('/', '\\'), (parts, sep) => {
        const path = parts.join(sep);
        const segments = path.split(/[/\\]/);
        const hostile = path === '' || path.includes('\\') || path.startsWith('/') || /^[A-Za-z]:/.test(path) || segments.some((s) => s === '' || s === '.' || s === '..') || CONTROL.test(path);
        expect(linkPathProblem(path) !== undefined).toBe(hostile);
      }),
      { numRuns: 2000 },
    );
  });
});
