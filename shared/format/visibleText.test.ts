import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RAW_INVISIBLE } from '../testing/invisible';
import { nameText, quotedText } from './visibleText';

const OSC52 = '\u001b]52;c;cm0gLXJmIH4=\u0007';

describe('nameText', () => {
  it('shows an OSC 52 clipboard write, bidi overrides, lone surrogates and line breaks as visible symbols', () => {
    expect(nameText(`r${OSC52}`)).toBe('r\u241b]52;c;cm0gLXJmIH4=\u2407');
    expect(nameText('invoice\u202Efdp.exe')).toBe('invoice\u27e8U+202E\u27e9fdp.exe');
    expect(nameText('lone \ud800 low \udc00')).toBe('lone \u27e8U+D800\u27e9 low \u27e8U+DC00\u27e9');
    expect(nameText('two\nlines\tand tab')).toBe('two\u240alines\u2409and tab');
    expect(nameText('tag \udb40\udc41 char')).toBe('tag \u27e8U+E0041\u27e9 char');
  });

  it('leaves ordinary names, emoji and other scripts as they are', () => {
    for (const name of ['session.sidecar.jsonl', 'r12', 'call_9', 'модель-α', '日本語.jsonl', 'ok 👍🏽 done']) expect(nameText(name)).toBe(name);
  });

  it('never leaves a control, bidi or lone surrogate in its output, and shows ordinary text unchanged', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (name) => {
        const shown = nameText(name);
        // eslint-disable-next-line no-control-regex
        expect(shown).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200b-\u200f]/);
        // Well-formed UTF-16: encoding it changes nothing (a lone surrogate would become U+FFFD).
        expect(new TextDecoder().decode(new TextEncoder().encode(shown))).toBe(shown);
        // Nothing is dropped: every character of the name is still there or stands as a symbol.
        expect(shown.length).toBeGreaterThanOrEqual(name.length - (name.match(/[\ud800-\udbff][\udc00-\udfff]/g)?.length ?? 0));
      }),
    );
  });
});

describe('quotedText', () => {
  it('quotes, cuts at a code point with …, and shows every invisible character', () => {
    expect(quotedText('zero')).toBe('"zero"');
    expect(quotedText('say "hi" \\ \u202Eevil')).toBe('"say \\"hi\\" \\\\ \u27e8U+202E\u27e9evil"');
    expect(quotedText('👍'.repeat(5), 3)).toBe('"👍👍👍…"');
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.integer({ min: 1, max: 50 }), (text, max) => {
        const q = quotedText(text, max);
        expect(q).not.toMatch(RAW_INVISIBLE);
        expect(JSON.parse(q)).toBe(nameText(Array.from(text).length > max ? `${Array.from(text).slice(0, max).join('')}…` : text));
      }),
    );
  });
});
