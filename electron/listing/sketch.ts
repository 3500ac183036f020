/**
 * A sketch of the JSON document a file's head begins: the value as far as the head goes, cut to a
 * few levels, a few items per array and short strings, so deciding a document's format by its head
 * never builds more than a small tree (and never parses the rest of the document).
 *
 * - Objects keep every key the head holds (in order; a key `__proto__` is an own property, never
 *   the prototype), with their values sketched; below `maxDepth` levels a container is `{}` or `[]`.
 * - Arrays keep their first `maxItems` items; the rest are skipped.
 * - Strings keep their first `maxString` characters (escapes decoded).
 * - `complete` is false when the head ends inside the document: the sketch holds what came before
 *   (a container that was open is kept with what it had; a string, number or literal cut by the end
 *   of the head is left out). `trailing` is true when more than white space follows a complete
 *   value (the file is not one JSON document). `error` is set when the head is not JSON.
 */

import { jsonValueOf } from '../loader/common/json';

export interface Sketch {
  value: unknown;
  complete: boolean;
  trailing: boolean;
  error?: string;
}

export interface SketchLimits {
  maxDepth: number;
  maxItems: number;
  maxString: number;
}

export const SKETCH_LIMITS: SketchLimits = { maxDepth: 4, maxItems: 8, maxString: 512 };

/** Thrown when the head ends inside the document: unwinds to sketchJson, which keeps what was built. */
class HeadEnd extends Error {}
class NotJson extends Error {}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** Sets an own property: `__proto__` is defined as one (never the prototype), any other key assigned (the same result, faster). */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** A run of string characters that need no decoding: up to a quote, a backslash or a control character. */
// eslint-disable-next-line no-control-regex -- a control character ends a JSON string's plain run (it is an error there)
const PLAIN_RUN = /[^"\\\u0000-\u001f]*/y;
/** The rest of a head that could all be one number cut by its end (`-`, `1.`, `2e`). */
const NUMBER_TO_END = /[\d.eE+-]*$/y;

/** `value` cut to `limits` as the scan cuts a complete document: containers empty at maxDepth, maxItems items, maxString characters. */
function cutToLimits(value: unknown, limits: SketchLimits, depth: number): unknown {
  if (typeof value === 'string') return value.length > limits.maxString ? value.slice(0, limits.maxString) : value;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    if (depth >= limits.maxDepth) return [];
    const n = Math.min(value.length, limits.maxItems);
    const out: unknown[] = new Array<unknown>(n);
    for (let k = 0; k < n; k++) out[k] = cutToLimits(value[k], limits, depth + 1);
    return out;
  }
  const out: Record<string, unknown> = {};
  if (depth >= limits.maxDepth) return out;
  for (const key of Object.keys(value)) put(out, key, cutToLimits((value as Record<string, unknown>)[key], limits, depth + 1));
  return out;
}

/** A whole text parsed last, kept for the next sketch of the same text (parsedWhole), when it is at most this long. */
const KEPT_PARSE_MAX_CHARS = 64 * 1024;
let keptParse: { text: string; parsed: { value: unknown } | undefined } | undefined;

/**
 * `jsonValueOf(text)`, the value shared with the sketch before when it was of the same text: a
 * listing sketches a file's head to tell its format, then again, to other limits, for its head's
 * fields (electron/library/head.ts), and parsed each whole document twice. The value is never
 * changed (cutToLimits makes new values), and only a text of a head's size is kept.
 */
function parsedWhole(text: string): { value: unknown } | undefined {
  if (keptParse !== undefined && keptParse.text === text) return keptParse.parsed;
  const parsed = jsonValueOf(text);
  keptParse = text.length <= KEPT_PARSE_MAX_CHARS ? { text, parsed } : undefined;
  return parsed;
}

/**
 * Sketches the JSON document `text` begins (see the header). Never throws. A whole file that is one
 * JSON document is parsed by JSON.parse and cut to the limits (several times faster than the scan,
 * and the same sketch: a property test holds the two to each other); anything else is scanned.
 */
export function sketchJson(text: string, options: { whole: boolean; limits?: SketchLimits }): Sketch {
  if (options.whole) {
    const parsed = parsedWhole(text);
    if (parsed) return { value: cutToLimits(parsed.value, options.limits ?? SKETCH_LIMITS, 0), complete: true, trailing: false };
  }
  return sketchByScan(text, options);
}

/** The sketch by scanning `text` character by character (see the header): what `sketchJson` gives, for any text. */
export function sketchByScan(text: string, options: { whole: boolean; limits?: SketchLimits }): Sketch {
  const { whole } = options;
  const limits = options.limits ?? SKETCH_LIMITS;
  let i = 0;
  const end = text.length;
  const space = (): void => {
    while (i < end) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
      i++;
    }
  };
  const peek = (): string => {
    space();
    if (i >= end) throw new HeadEnd();
    return text[i] as string;
  };
  const expect = (c: string): void => {
    if (peek() !== c) throw new NotJson(`expected ${JSON.stringify(c)} at ${i}`);
    i++;
  };

  /** A string from its opening quote: decoded, cut at `keep` characters (the rest is read past). */
  const string = (keep: number): string => {
    expect('"');
    let out = '';
    for (;;) {
      // A plain run is taken whole (as far as `keep` goes); the character after it decides.
      PLAIN_RUN.lastIndex = i;
      PLAIN_RUN.test(text);
      const run = PLAIN_RUN.lastIndex;
      if (out.length < keep) out += text.slice(i, Math.min(run, i + keep - out.length));
      i = run;
      if (i >= end) throw new HeadEnd();
      const c = text[i++] as string;
      if (c === '"') return out;
      if (c === '\\') {
        if (i >= end) throw new HeadEnd();
        const e = text[i++] as string;
        if (e === 'u') {
          if (i + 4 > end) throw new HeadEnd();
          const hex = text.slice(i, i + 4);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new NotJson(`a bad \\u escape at ${i}`);
          i += 4;
          if (out.length < keep) out += String.fromCharCode(parseInt(hex, 16));
        } else {
          const decoded = ESCAPES[e];
          if (decoded === undefined) throw new NotJson(`a bad escape at ${i}`);
          if (out.length < keep) out += decoded;
        }
      } else {
        // Neither a quote nor a backslash ends a plain run: a control character did.
        throw new NotJson(`a control character in a string at ${i}`);
      }
    }
  };

  const literal = (): unknown => {
    for (const [word, value] of [['true', true], ['false', false], ['null', null]] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return value;
      }
      if (word.startsWith(text.slice(i, i + word.length)) && i + word.length > end) throw new HeadEnd();
    }
    // A number cut by the end of the head (`-`, `1.`, `2e`) is no error.
    NUMBER_TO_END.lastIndex = i;
    if (!whole && NUMBER_TO_END.test(text)) throw new HeadEnd();
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) throw new NotJson(`an unexpected character at ${i}`);
    i += m[0].length;
    // A number that runs to the end of the head may go on past it.
    if (i >= end && !whole) throw new HeadEnd();
    return Number(m[0]);
  };

  /** Reads past a container from its opening bracket, without recursion (any depth of nesting). */
  const skipContainer = (): void => {
    let open = 0;
    while (i < end) {
      const c = text[i] as string;
      if (c === '"') {
        string(0);
        continue;
      }
      i++;
      if (c === '{' || c === '[') open++;
      else if ((c === '}' || c === ']') && --open === 0) return;
    }
    throw new HeadEnd();
  };

  /** Reads one value; `into` receives it (a container before it is filled, so a cut keeps it). */
  const value = (depth: number, into: (v: unknown) => void): void => {
    const c = peek();
    if ((c === '{' || c === '[') && depth >= limits.maxDepth) {
      into(c === '{' ? {} : []);
      skipContainer();
      return;
    }
    if (c === '{') {
      i++;
      const obj: Record<string, unknown> = {};
      into(obj);
      if (peek() === '}') {
        i++;
        return;
      }
      for (;;) {
        const key = string(Number.MAX_SAFE_INTEGER);
        expect(':');
        value(depth + 1, (v) => put(obj, key, v));
        const next = peek();
        i++;
        if (next === '}') return;
        if (next !== ',') throw new NotJson(`expected , or } at ${i - 1}`);
      }
    }
    if (c === '[') {
      i++;
      const arr: unknown[] = [];
      into(arr);
      if (peek() === ']') {
        i++;
        return;
      }
      for (let n = 0; ; n++) {
        value(depth + 1, (v) => n < limits.maxItems && arr.push(v));
        const next = peek();
        i++;
        if (next === ']') return;
        if (next !== ',') throw new NotJson(`expected , or ] at ${i - 1}`);
      }
    }
    if (c === '"') {
      into(string(limits.maxString));
      return;
    }
    into(literal());
  };

  let root: unknown;
  try {
    value(0, (v) => (root = v));
    space();
    return { value: root, complete: true, trailing: i < end };
  } catch (e) {
    if (e instanceof HeadEnd) return whole ? { value: root, complete: false, trailing: false, error: 'the document ends early' } : { value: root, complete: false, trailing: false };
    return { value: root, complete: false, trailing: false, error: e instanceof Error ? e.message : String(e) };
  }
}
