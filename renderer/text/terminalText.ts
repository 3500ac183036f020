/**
 * Terminal text to display segments: a pure function from a string (a tool output, a message) to
 * plain-text segments with styles. Nothing in the input is ever interpreted as markup; the caller
 * renders each segment as a text node inside a span.
 *
 * - ANSI SGR sequences (`ESC [ … m`) set colours and attributes; their bytes are not shown.
 * - Every other escape sequence (cursor moves, erase, OSC titles and hyperlinks, DCS/APC strings,
 *   charset selection) is dropped: showing it would be noise, acting on it is not our business.
 * - C0 controls other than tab and newline become their U+2400 "control picture" (`␛`, `␍`, `␀`…),
 *   DEL becomes `␡`; C1 controls, bidirectional controls, zero-width and other invisible format
 *   characters become `⟨U+202E⟩`-style markers, so nothing can reorder or hide text silently.
 *   ZWJ/ZWNJ between two non-ASCII characters (emoji sequences, Indic and Arabic shaping) stay as
 *   they are; next to ASCII or at an edge, where they only hide things, they are shown.
 * - `marks` are string index ranges of the input to highlight (search matches); a mark that covers
 *   an escape sequence simply has nothing to show there.
 *
 * Linear in the input: each character is looked at a bounded number of times.
 */
import { visibleSymbol } from '../../shared/format/visibleText';

/** A palette index (0–255, xterm) or a `#rrggbb` true colour. */
export type TermColor = number | string;

export interface TermStyle {
  readonly fg?: TermColor;
  readonly bg?: TermColor;
  readonly bold?: boolean;
  readonly dim?: boolean;
  readonly italic?: boolean;
  readonly underline?: boolean;
  readonly inverse?: boolean;
  readonly strike?: boolean;
}

export interface Segment {
  text: string;
  /** Absent for unstyled text. Segments with the same style share the same object. */
  style?: TermStyle;
  /** A control or invisible character shown as a visible symbol; `code` names it (`U+001B`). */
  control?: { code: string };
  /** Inside one of the `marks` ranges. */
  mark?: boolean;
}

export interface TerminalTextOptions {
  /** Interpret SGR colours (default true). Other escape sequences are always dropped. */
  ansi?: boolean;
  /** String index ranges `[start, end)` of the input to mark. */
  marks?: readonly (readonly [number, number])[];
}

const ESC = 0x1b;
/** Longest escape sequence considered; a longer run is not a sequence (its ESC is shown). */
const MAX_CSI_LENGTH = 256;
const MAX_STRING_SEQUENCE_LENGTH = 8192;

/**
 * Characters that need attention: C0 (except tab, newline), DEL, C1, soft hyphen, Arabic letter
 * mark, Mongolian vowel separator, zero-width and bidi controls, line/paragraph separators, word
 * joiner and invisible operators, BOM, interlinear annotation, and the Unicode tag block.
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this looks for
const SPECIAL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/g;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function hex(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** What a special character looks like on screen (shared with `nameText`). */
export { visibleSymbol };

function isAsciiOrEdge(text: string, i: number): boolean {
  return i < 0 || i >= text.length || text.charCodeAt(i) < 0x80 || /\s/.test(text[i] ?? '');
}

// ---------------------------------------------------------------------------------------------
// SGR

const BASE_STYLE: TermStyle = {};

function parseSgrParams(params: string): number[][] {
  // `38;2;r;g;b` and `38:2::r:g:b` both occur; a group is a parameter with its `:` sub-parameters.
  return params.split(';').map((group) => group.split(':').map((p) => (p === '' ? 0 : Number.parseInt(p, 10))));
}

function clampByte(n: number | undefined): number {
  return Math.max(0, Math.min(255, Number.isFinite(n) ? (n as number) : 0));
}

function toHexColor(r: number, g: number, b: number): string {
  return `#${[r, g, b].map((c) => clampByte(c).toString(16).padStart(2, '0')).join('')}`;
}

/** Reads an extended colour (`5;n` or `2;r;g;b`) from flat params at `k`; returns the colour and how many params it used. */
function extendedColor(flat: number[], k: number): { color?: TermColor; used: number } {
  const mode = flat[k];
  if (mode === 5) return { color: clampByte(flat[k + 1]), used: 2 };
  if (mode === 2) return { color: toHexColor(flat[k + 1] ?? 0, flat[k + 2] ?? 0, flat[k + 3] ?? 0), used: 4 };
  return { used: 1 };
}

/** The style after applying SGR parameters `params` to `style`. */
export function applySgr(style: TermStyle, params: string): TermStyle {
  const next: { -readonly [K in keyof TermStyle]: TermStyle[K] } = { ...style };
  const groups = parseSgrParams(params);
  for (let g = 0; g < groups.length; g++) {
    const group = groups[g] ?? [0];
    const code = group[0] ?? 0;
    if (code === 38 || code === 48) {
      let color: TermColor | undefined;
      if (group.length > 1) {
        // Colon form: 38:5:n or 38:2:[colourspace]:r:g:b.
        const sub = group.slice(1);
        if (sub[0] === 2 && sub.length >= 5) color = toHexColor(sub[2] ?? 0, sub[3] ?? 0, sub[4] ?? 0);
        else color = extendedColor(sub, 0).color;
      } else {
        const flat = groups.slice(g + 1).map((x) => x[0] ?? 0);
        const ext = extendedColor(flat, 0);
        color = ext.color;
        g += ext.used;
      }
      if (color !== undefined) {
        if (code === 38) next.fg = color;
        else next.bg = color;
      }
      continue;
    }
    switch (true) {
      case code === 0:
        for (const key of Object.keys(next) as (keyof TermStyle)[]) delete next[key];
        break;
      case code === 1:
        next.bold = true;
        break;
      case code === 2:
        next.dim = true;
        break;
      case code === 3:
        next.italic = true;
        break;
      case code === 4:
        if (group[1] === 0) delete next.underline;
        else next.underline = true;
        break;
      case code === 7:
        next.inverse = true;
        break;
      case code === 9:
        next.strike = true;
        break;
      case code === 21:
        next.underline = true;
        break;
      case code === 22:
        delete next.bold;
        delete next.dim;
        break;
      case code === 23:
        delete next.italic;
        break;
      case code === 24:
        delete next.underline;
        break;
      case code === 27:
        delete next.inverse;
        break;
      case code === 29:
        delete next.strike;
        break;
      case code >= 30 && code <= 37:
        next.fg = code - 30;
        break;
      case code === 39:
        delete next.fg;
        break;
      case code >= 40 && code <= 47:
        next.bg = code - 40;
        break;
      case code === 49:
        delete next.bg;
        break;
      case code >= 90 && code <= 97:
        next.fg = code - 90 + 8;
        break;
      case code >= 100 && code <= 107:
        next.bg = code - 100 + 8;
        break;
      default:
        // Blink, conceal, fonts, framing…: ignored. Concealed text is shown: nothing is hidden here.
        break;
    }
  }
  return Object.keys(next).length === 0 ? BASE_STYLE : next;
}

// ---------------------------------------------------------------------------------------------
// Escape sequences

type Escape = { kind: 'sgr'; params: string; end: number } | { kind: 'drop'; end: number } | { kind: 'lone' };

/** The escape sequence starting with ESC at `i`: its end (exclusive) and whether it is SGR. */
function readEscape(text: string, i: number): Escape {
  const next = text.charCodeAt(i + 1);
  if (Number.isNaN(next)) return { kind: 'lone' };
  if (next === 0x5b /* [ */) {
    // CSI: parameter bytes 0x30–0x3F, intermediate bytes 0x20–0x2F, one final byte 0x40–0x7E.
    let j = i + 2;
    const limit = Math.min(text.length, i + MAX_CSI_LENGTH);
    while (j < limit && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x3f) j++;
    const paramsEnd = j;
    while (j < limit && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x2f) j++;
    const final = text.charCodeAt(j);
    if (j >= limit || !(final >= 0x40 && final <= 0x7e)) return { kind: 'lone' };
    if (final === 0x6d /* m */ && paramsEnd === j) {
      const params = text.slice(i + 2, paramsEnd);
      // Private-parameter forms (`ESC [ > 4 m`…) are not colours.
      if (/^[\d;:]*$/.test(params)) return { kind: 'sgr', params, end: j + 1 };
    }
    return { kind: 'drop', end: j + 1 };
  }
  if (next === 0x5d /* ] OSC */ || next === 0x50 /* P DCS */ || next === 0x58 /* X SOS */ || next === 0x5e /* ^ PM */ || next === 0x5f /* _ APC */) {
    // A control string: ends at BEL (OSC only, by xterm custom), ST (ESC \) or the 8-bit ST.
    const limit = Math.min(text.length, i + MAX_STRING_SEQUENCE_LENGTH);
    for (let j = i + 2; j < limit; j++) {
      const c = text.charCodeAt(j);
      if (c === 0x07 && next === 0x5d) return { kind: 'drop', end: j + 1 };
      if (c === 0x9c) return { kind: 'drop', end: j + 1 };
      if (c === ESC) return text.charCodeAt(j + 1) === 0x5c ? { kind: 'drop', end: j + 2 } : { kind: 'lone' };
    }
    return { kind: 'lone' };
  }
  // nF (ESC, intermediates 0x20–0x2F, final 0x30–0x7E: charset selection…) and Fp/Fe/Fs
  // (ESC 7, ESC =, ESC c…): two or more bytes, dropped.
  let j = i + 1;
  while (j < text.length && j < i + 8 && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x2f) j++;
  const final = text.charCodeAt(j);
  if (final >= 0x30 && final <= 0x7e) return { kind: 'drop', end: j + 1 };
  return { kind: 'lone' };
}

// ---------------------------------------------------------------------------------------------
// Segments

class SegmentWriter {
  readonly segments: Segment[] = [];
  private readonly marks: (readonly [number, number])[];

  constructor(marks: readonly (readonly [number, number])[]) {
    this.marks = marks.filter(([s, e]) => e > s).slice().sort((a, b) => a[0] - b[0]);
  }

  /** Appends input range `[start, end)` as `display` text (plain text: the input itself). */
  text(source: string, start: number, end: number, style: TermStyle): void {
    if (end <= start) return;
    let at = start;
    for (const [ms, me] of this.marks) {
      if (me <= at) continue;
      if (ms >= end) break;
      if (ms > at) this.push(source.slice(at, ms), style, false);
      const to = Math.min(me, end);
      this.push(source.slice(Math.max(ms, at), to), style, true);
      at = to;
      if (at >= end) return;
    }
    if (at < end) this.push(source.slice(at, end), style, false);
  }

  /** Appends a visible symbol standing for the input character(s) at `[start, end)`. */
  control(symbol: string, code: string, start: number, end: number, style: TermStyle): void {
    const mark = this.marks.some(([ms, me]) => ms < end && me > start);
    this.segments.push({ text: symbol, control: { code }, ...(style !== BASE_STYLE ? { style } : {}), ...(mark ? { mark: true } : {}) });
  }

  private push(raw: string, style: TermStyle, mark: boolean): void {
    if (raw === '') return;
    // A lone surrogate is no character: its UTF-8 bytes (what expand and search serve) are U+FFFD.
    const text = raw.replace(LONE_SURROGATE, '\ufffd');
    const last = this.segments[this.segments.length - 1];
    const styled = style !== BASE_STYLE;
    if (last && !last.control && (last.style ?? BASE_STYLE) === style && Boolean(last.mark) === mark) {
      last.text += text;
      return;
    }
    this.segments.push({ text, ...(styled ? { style } : {}), ...(mark ? { mark: true } : {}) });
  }
}

/** Splits terminal text into display segments (see the file comment). */
export function terminalSegments(text: string, options: TerminalTextOptions = {}): Segment[] {
  const ansi = options.ansi ?? true;
  const out = new SegmentWriter(options.marks ?? []);
  let style: TermStyle = BASE_STYLE;
  let plainFrom = 0;
  SPECIAL.lastIndex = 0;
  for (let m = SPECIAL.exec(text); m !== null; m = SPECIAL.exec(text)) {
    const i = m.index;
    if (i < plainFrom) continue;
    out.text(text, plainFrom, i, style);
    const code = text.codePointAt(i) ?? 0;
    const width = m[0].length;
    if (code === ESC) {
      const esc = readEscape(text, i);
      if (esc.kind !== 'lone') {
        if (esc.kind === 'sgr' && ansi) style = applySgr(style, esc.params);
        plainFrom = esc.end;
        SPECIAL.lastIndex = esc.end;
        continue;
      }
    }
    if ((code === 0x200c || code === 0x200d) && !isAsciiOrEdge(text, i - 1) && !isAsciiOrEdge(text, i + 1)) {
      // Joiners inside emoji sequences and complex scripts: part of the text, not a trick.
      out.text(text, i, i + width, style);
    } else {
      out.control(visibleSymbol(code), hex(code), i, i + width, style);
    }
    plainFrom = i + width;
  }
  out.text(text, plainFrom, text.length, style);
  return out.segments;
}

// ---------------------------------------------------------------------------------------------
// Colours (for renderers)

const CUBE = [0, 95, 135, 175, 215, 255];

/** The `#rrggbb` of an xterm palette index 16–255 (0–15 are themed by CSS classes). */
export function paletteColor(index: number): string {
  if (index >= 232) {
    const v = 8 + (index - 232) * 10;
    return toHexColor(v, v, v);
  }
  const n = index - 16;
  return toHexColor(CUBE[Math.floor(n / 36) % 6] ?? 0, CUBE[Math.floor(n / 6) % 6] ?? 0, CUBE[n % 6] ?? 0);
}
