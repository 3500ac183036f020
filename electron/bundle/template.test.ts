/** Shell quoting of the commands a repro bundle's README and the app show. */
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wellFormed } from '../../shared/format/utf8';
import { nameText } from '../../shared/format/visibleText';
import { shellQuote } from './template';

/** The words bash reads from `line`. */
function bashWords(line: string): string[] {
  return execFileSync('bash', ['-c', `set -- ${line}; printf '%s\\0' "$@"`], { encoding: 'utf8' }).split('\0').slice(0, -1);
}

describe('shellQuote', () => {
  it('is read back by the shell as the word, and shows every control, bidi and line break visibly (fast-check)', () => {
    const word = fc.oneof(fc.string({ unit: 'binary', minLength: 1 }), fc.string({ unit: fc.constantFrom('a', "'", '\\', '"', '$', '`', ' ', '\n', '\t', '\r', '\u001b', '\u202e', '\u200b', '!', '*', '~', '#'), minLength: 1 }));
    // One bash per batch of words: the property holds for each word of the batch.
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 20 }), (words) => {
        // A shell argument cannot hold NUL; a lone surrogate reaches argv as U+FFFD.
        const args = words.map((w) => wellFormed(w.replace(/\0/g, '')) || 'x');
        const quoted = args.map(shellQuote);
        for (const q of quoted) expect(nameText(q)).toBe(q);
        expect(bashWords(quoted.join(' '))).toEqual(args);
      }),
      { numRuns: 60 },
    );
  });

  it('leaves a plain word alone and single-quotes a visible one', () => {
    expect(shellQuote('r1')).toBe('r1');
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(shellQuote('a\nb\u202Ec')).toBe("$'a\\nb\\xE2\\x80\\xAEc'");
  });
});
