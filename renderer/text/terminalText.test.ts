import { describe, expect, it } from 'vitest';
import type { Segment } from './terminalText';
import { applySgr, paletteColor, terminalSegments } from './terminalText';

const ESC = '\u001b';
const text = (segments: Segment[]): string => segments.map((s) => s.text).join('');

describe('terminalSegments: SGR colours', () => {
  it('turns SGR colour codes into styled segments without showing the escape bytes', () => {
    const segs = terminalSegments(`ok ${ESC}[31mFAIL${ESC}[39m done`);
    expect(text(segs)).toBe('ok FAIL done');
    expect(segs).toEqual([{ text: 'ok ' }, { text: 'FAIL', style: { fg: 1 } }, { text: ' done' }]);
  });

  it('handles bold, bright colours, backgrounds and a full reset', () => {
    const segs = terminalSegments(`${ESC}[1;96mA${ESC}[22mB${ESC}[44mC${ESC}[0mD${ESC}[mE`);
    expect(segs.map((s) => [s.text, s.style])).toEqual([
      ['A', { bold: true, fg: 14 }],
      ['B', { fg: 14 }],
      ['C', { fg: 14, bg: 4 }],
      ['DE', undefined],
    ]);
  });

  it('reads 256-colour and true-colour forms, with ; and : separators', () => {
    expect(applySgr({}, '38;5;196')).toEqual({ fg: 196 });
    expect(applySgr({}, '48;2;255;0;128')).toEqual({ bg: '#ff0080' });
    expect(applySgr({}, '38:2::1:2:3')).toEqual({ fg: '#010203' });
    expect(applySgr({}, '38;5;2;1')).toEqual({ fg: 2, bold: true });
    expect(paletteColor(196)).toBe('#ff0000');
    expect(paletteColor(244)).toBe('#808080');
  });

  it('shows concealed and blinking text as plain text (nothing is hidden)', () => {
    expect(text(terminalSegments(`${ESC}[8msecret${ESC}[28m`))).toBe('secret');
  });

  it('can leave colours out and still drop the sequences', () => {
    const segs = terminalSegments(`${ESC}[31mred${ESC}[0m`, { ansi: false });
    expect(segs).toEqual([{ text: 'red' }]);
  });
});

describe('terminalSegments: other escape sequences', () => {
  it('strips cursor moves, erases and private modes', () => {
    expect(text(terminalSegments(`a${ESC}[2J${ESC}[H${ESC}[10;20Hb${ESC}[?25l${ESC}[Kc${ESC}[1A`))).toBe('abc');
  });

  it('strips OSC titles and hyperlinks (BEL or ST terminated), keeping the link text only', () => {
    expect(text(terminalSegments(`${ESC}]0;evil title\u0007x`))).toBe('x');
    const link = `${ESC}]8;;https://example.com/${ESC}\\click${ESC}]8;;${ESC}\\`;
    expect(text(terminalSegments(link))).toBe('click');
  });

  it('strips DCS/APC strings and two-byte escapes (charset, save cursor, keypad)', () => {
    expect(text(terminalSegments(`${ESC}P1$r${ESC}\\a${ESC}(Bb${ESC}7c${ESC}=d${ESC}_apc${ESC}\\e`))).toBe('abcde');
  });

  it('shows an ESC that starts no complete sequence as ␛', () => {
    const segs = terminalSegments(`end${ESC}`);
    expect(text(segs)).toBe('end\u241b');
    expect(segs[1]).toEqual({ text: '\u241b', control: { code: 'U+001B' } });
    // A slice that stops mid-sequence: the ESC is visible and the rest is plain text.
    expect(text(terminalSegments(`x${ESC}[39`))).toBe('x\u241b[39');
    // An unterminated OSC does not swallow the rest of the text.
    expect(text(terminalSegments(`${ESC}]0;title and more`))).toBe('\u241b]0;title and more');
  });
});

describe('terminalSegments: control and invisible characters', () => {
  it('shows C0 controls as control pictures, keeping tab and newline', () => {
    expect(text(terminalSegments('a\u0000b\u0007c\rd\te\nf\u007f'))).toBe('a\u2400b\u2407c\u240dd\te\nf\u2421');
    const bell = terminalSegments('\u0007')[0];
    expect(bell?.control).toEqual({ code: 'U+0007' });
  });

  it('makes bidi controls visible as markers, so they cannot reorder the text', () => {
    const segs = terminalSegments('user\u202Etxt.exe\u202C and \u2066x\u2069 \u200F');
    expect(text(segs)).toBe('user⟨U+202E⟩txt.exe⟨U+202C⟩ and ⟨U+2066⟩x⟨U+2069⟩ ⟨U+200F⟩');
    expect(segs.filter((s) => s.control).length).toBe(5);
  });

  it('makes zero-width and tag characters visible, but keeps joiners inside emoji and scripts', () => {
    expect(text(terminalSegments('pass\u200Bword\uFEFF'))).toBe('pass⟨U+200B⟩word⟨U+FEFF⟩');
    expect(text(terminalSegments('a\u200Db'))).toBe('a⟨U+200D⟩b');
    expect(text(terminalSegments('👨\u200D👩'))).toBe('👨\u200D👩');
    expect(text(terminalSegments('tag\u{E0041}\u{E0042}'))).toBe('tag⟨U+E0041⟩⟨U+E0042⟩');
    expect(text(terminalSegments('c1\u009Bx'))).toBe('c1⟨U+009B⟩x');
  });

  it('keeps the current colour on a visible control character', () => {
    const segs = terminalSegments(`${ESC}[32m\u0000${ESC}[0m`);
    expect(segs).toEqual([{ text: '\u2400', control: { code: 'U+0000' }, style: { fg: 2 } }]);
  });
});

describe('terminalSegments: marks', () => {
  it('marks a string range, splitting styled runs at its edges', () => {
    const input = `ab${ESC}[31mcdef${ESC}[0mgh`;
    // Mark "de": input indices of d and e.
    const d = input.indexOf('d');
    const segs = terminalSegments(input, { marks: [[d, d + 2]] });
    expect(segs.map((s) => [s.text, s.mark ?? false, s.style?.fg])).toEqual([
      ['ab', false, undefined],
      ['c', false, 1],
      ['de', true, 1],
      ['f', false, 1],
      ['gh', false, undefined],
    ]);
  });

  it('marks a control character the range covers', () => {
    const segs = terminalSegments('a\u0000b', { marks: [[1, 2]] });
    expect(segs[1]).toEqual({ text: '\u2400', control: { code: 'U+0000' }, mark: true });
  });

  it('ignores empty marks and marks past the end', () => {
    expect(terminalSegments('abc', { marks: [[1, 1], [5, 9]] })).toEqual([{ text: 'abc' }]);
  });
});

describe('terminalSegments: size', () => {
  it('handles a 100,000-character line quickly and as one segment', () => {
    const line = 'x'.repeat(100_000);
    const t0 = performance.now();
    const segs = terminalSegments(line);
    expect(performance.now() - t0).toBeLessThan(200);
    expect(segs).toEqual([{ text: line }]);
  });

  it('handles 100,000 characters dense with escapes and controls in linear time', () => {
    const unit = `${ESC}[3${'1'}m█${ESC}[0m\u0001${ESC}[`;
    const input = unit.repeat(Math.ceil(100_000 / unit.length)).slice(0, 100_000);
    const t0 = performance.now();
    const segs = terminalSegments(input);
    expect(performance.now() - t0).toBeLessThan(500);
    expect(text(segs)).not.toContain(`${ESC}[31m`);
    expect(text(segs).length).toBeGreaterThan(0);
  });
});

describe('lone surrogates', () => {
  it('are shown as U+FFFD, the character their UTF-8 bytes (what expand serves) stand for, at the same string index', () => {
    const segments = terminalSegments('high \ud800 low \udfff reversed \udc00\ud800 pair \ud83d\ude00 end', { marks: [[5, 6]] });
    expect(segments.map((s) => s.text).join('')).toBe('high \ufffd low \ufffd reversed \ufffd\ufffd pair \ud83d\ude00 end');
    expect(segments.find((s) => s.mark)?.text).toBe('\ufffd');
  });
});
