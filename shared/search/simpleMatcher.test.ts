import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { simpleItems, simpleMatcher } from './simpleMatcher';
import { utf8Encode, utf8Length, utf8SequenceAt } from '../format/utf8';

const matcherOf = (pattern: string) => simpleMatcher(RE2JS.compile(pattern));

/** re2js's leftmost-first match starting exactly at UTF-16 index `i` of `text`, as a UTF-8 end offset; -1 when none. */
function engineEndAt(pattern: string, text: string, i: number): number {
  const m = RE2JS.compile(pattern).matcher(text.slice(i));
  return m.lookingAt() ? utf8Length(text.slice(0, i + m.end())) : -1;
}

/** Every code point's start in `text`: [UTF-16 index, UTF-8 offset]. */
function starts(text: string): [number, number][] {
  const out: [number, number][] = [];
  let bytes = 0;
  for (let i = 0; i < text.length; ) {
    out.push([i, bytes]);
    const cp = text.codePointAt(i) as number;
    bytes += utf8Length(String.fromCodePoint(cp));
    i += cp > 0xffff ? 2 : 1;
  }
  out.push([text.length, bytes]);
  return out;
}

describe('simpleMatcher: which patterns are matched directly', () => {
  it('reads counted repetitions of single sets from the program, merging adjacent ones over one set', () => {
    expect(simpleItems(RE2JS.compile('TS\\d{4,5}'))).toEqual([
      { ranges: [0x54, 0x54], min: 1, max: 1 },
      { ranges: [0x53, 0x53], min: 1, max: 1 },
      { ranges: [0x30, 0x39], min: 4, max: 5 },
    ]);
    expect(simpleItems(RE2JS.compile('x.{0,2}é+[^a]*'))).toEqual([
      { ranges: [0x78, 0x78], min: 1, max: 1 },
      { ranges: [0, 9, 11, 0x10ffff], min: 0, max: 2 },
      { ranges: [0xe9, 0xe9], min: 1, max: Infinity },
      { ranges: [0, 0x60, 0x62, 0x10ffff], min: 0, max: Infinity },
    ]);
    expect(simpleItems(RE2JS.compile('aa{2,}a?'))).toEqual([{ ranges: [0x61, 0x61], min: 3, max: Infinity }]);
  });

  it('accepts the bench’s patterns and others whose greedy match never gives back', () => {
    for (const p of ['TS\\d{4,5}', 'ZQXJ-needle-7[0-9A-Za-z_]*', '[a-c]+[d-f]?x', 'é😀[^a]', '\\d+\\.\\d+', 'a|b', '(?s)x.', '[😀-😎]{2}é']) expect(matcherOf(p), p).toBeDefined();
  });

  it('declines what it cannot match exactly without backtracking', () => {
    const declined = [
      '\\w*\\d', // a repetition that overlaps what follows
      '[a-c]+[d-f]?[a-c]', // overlap across an optional item
      'a*?b', // lazy
      'x\\d+?',
      'ab|cd', // alternation of sequences
      '(?:ab)*c', // a repeated group
      '(a)+b', // a capture inside a loop
      '(?i)ab', // case folding
      '\\bab', // assertions
      '^ab',
      'ab$',
      '(a+)+$', // a classic catastrophic-backtracking pattern
      'a*', // may match empty
      'x(?:y|zz)',
    ];
    for (const p of declined) expect(matcherOf(p), p).toBeUndefined();
  });
});

describe('simpleMatcher matches exactly as re2js does at each start', () => {
  const alphabet = ['a', 'b', 'T', 'S', '0', '7', '9', ' ', '_', '\n', '.', 'é', 'ü', '😀', '😎', '\u0085'];
  const text = fc.array(fc.constantFrom(...alphabet), { maxLength: 60 }).map((cs) => cs.join(''));
  const atom = fc.constantFrom('a', 'T', 'S', '0', 'é', '😀', ' ', '\\.', '\\d', '\\w', '\\s', '.', '(?s:.)', '[^a]', '[^\\n0-9]', '[a-c]', '[é-ü]', '[😀-😎]', '[\\x{80}-\\x{10FFFF}]', '[0-9A-Za-z_]');
  const quantifier = fc.constantFrom('', '', '*', '+', '?', '{2}', '{1,3}', '{0,2}', '{2,}');
  const pattern = fc.array(fc.tuple(atom, quantifier), { minLength: 1, maxLength: 4 }).map((ps) => ps.map(([a, q]) => a + q).join(''));

  it('over random patterns of sets and counted repetitions and random texts (lines, é, 😀)', () => {
    let accepted = 0;
    let total = 0;
    fc.assert(
      fc.property(pattern, text, (p, t) => {
        total++;
        const m = matcherOf(p);
        if (!m) return;
        accepted++;
        const bytes = utf8Encode(t);
        for (const [i, b] of starts(t)) expect(m.matchAt(bytes, b, bytes.length), `${p} at ${i} of ${JSON.stringify(t)}`).toBe(engineEndAt(p, t, i));
      }),
      { numRuns: 600 },
    );
    // The property is about accepted patterns: a good part of those generated must be.
    expect(accepted, `${accepted} of ${total}`).toBeGreaterThan(total / 3);
  });

  it('answers undefined, not a guess, where the bytes are not well-formed UTF-8', () => {
    const m = matcherOf('T[^a]+') as NonNullable<ReturnType<typeof matcherOf>>;
    expect(m.matchAt(Uint8Array.of(0x54, 0x62, 0xc3), 0, 3)).toBeUndefined(); // cut sequence
    expect(m.matchAt(Uint8Array.of(0x54, 0xed, 0xa0, 0x80), 0, 4)).toBeUndefined(); // a surrogate
    expect(m.matchAt(Uint8Array.of(0x54, 0x62, 0x61, 0xff), 0, 4)).toBe(2); // the match ended before the bad byte
  });

  it('decodes exactly the sequences a fatal TextDecoder accepts', () => {
    const fatal = new TextDecoder('utf-8', { fatal: true });
    const oneCodePoint = (b: Uint8Array): string | null => {
      try {
        const s = fatal.decode(b);
        return [...s].length === 1 ? s : null;
      } catch {
        return null;
      }
    };
    const lead = fc.oneof(fc.integer({ min: 0, max: 255 }), fc.constantFrom(0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5));
    const cont = fc.oneof(fc.integer({ min: 0x80, max: 0xbf }), fc.integer({ min: 0, max: 255 }), fc.constantFrom(0x8f, 0x90, 0x9f, 0xa0));
    fc.assert(
      fc.property(lead, fc.array(cont, { maxLength: 3 }), (l, rest) => {
        const bytes = Uint8Array.from([l, ...rest]);
        const d = utf8SequenceAt(bytes, 0, bytes.length);
        if (d >= 0) expect(oneCodePoint(bytes.subarray(0, d % 8))).toBe(String.fromCodePoint(Math.floor(d / 8)));
        else for (let k = 1; k <= bytes.length; k++) expect(oneCodePoint(bytes.subarray(0, k))).toBeNull();
      }),
      { numRuns: 2000 },
    );
  });
});

describe('simpleMatcher stays linear', () => {
  it('reads each byte of a pathological text at most twice per call (a lead byte, then its sequence)', () => {
    // The longest runs a greedy item can take, failing at the very end.
    const n = 200_000;
    for (const [p, text] of [
      ['a*b', 'a'.repeat(n)],
      ['[^\\nQ]+Q', `${'é'.repeat(n)}\n`],
      ['\\d{0,3}x\\d*y', `x${'1'.repeat(n)}`],
    ] as const) {
      const m = matcherOf(p) as NonNullable<ReturnType<typeof matcherOf>>;
      const bytes = utf8Encode(text);
      let reads = 0;
      const counted = new Proxy(bytes, {
        get(target, key) {
          if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
          return Reflect.get(target, key) as unknown;
        },
      });
      expect(m.matchAt(counted, 0, bytes.length), p).toBe(-1);
      expect(reads, p).toBeLessThanOrEqual(2 * bytes.length + 8);
    }
  });
});
