/** Links (SPEC §12): the fragment's parser and formatter. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Link } from './link';
import { formatLink, isEmptyLink, parseLink } from './link';
import { RAW_INVISIBLE } from '../testing/invisible';
import { wellFormed } from '../format/utf8';

/** Every well-formed link: any subset of the keys, any text for ids and queries. */
const linkArb: fc.Arbitrary<Link> = fc
  .record(
    {
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
        fc.constantFrom('call', 'reduction', 'range', 'q', 'regex', 'case', 'zz', '', '%', '%E0%A4', '='),
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
