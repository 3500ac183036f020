/** Small helpers over JSON text, shared by every format's detection and parsing. */
import type { DepthCut } from '../../../shared/format/jsonDepth';
import { capParsedDepth } from '../../../shared/format/jsonDepth';
import { jsonParse } from '../../../shared/format/jsonParse';

export function firstNonSpaceByte(bytes: Buffer): number | undefined {
  const at = firstNonSpaceAt(bytes);
  return at < 0 ? undefined : bytes[at];
}

/** Where the first byte that is not JSON whitespace is, after a UTF-8 byte order mark; -1 when there is none. */
export function firstNonSpaceAt(bytes: Buffer): number {
  let i = 0;
  // A UTF-8 byte order mark is not content.
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = 3;
  for (; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if (b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) return i;
  }
  return -1;
}

export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: jsonParse(text) };
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  }
}

const isJsonSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/**
 * False when `text` cannot be one JSON value: its first and last characters (past JSON's white
 * space) do not pair as a value's must (`{…}`, `[…]`, `"…"`, `t…e`, `f…e`, `n…l`, a number from `-`
 * or a digit to a digit). True says only that it may be. Detection tries line after line of a
 * pretty-printed document as a record (`  "trajectory": [`): each failed JSON.parse throws, and
 * thousands of throws cost more than the parsing (docs/library.md "Scale").
 */
export function mayBeJson(text: string): boolean {
  let a = 0;
  let b = text.length - 1;
  while (a <= b && isJsonSpace(text.charCodeAt(a))) a++;
  while (b >= a && isJsonSpace(text.charCodeAt(b))) b--;
  if (a > b) return false;
  const first = text.charCodeAt(a);
  const last = text.charCodeAt(b);
  switch (first) {
    case 0x7b: // {
      return last === 0x7d;
    case 0x5b: // [
      return last === 0x5d;
    case 0x22: // "
      return last === 0x22 && b > a;
    case 0x74: // t
    case 0x66: // f
      return last === 0x65;
    case 0x6e: // n
      return last === 0x6c;
    default:
      return (first === 0x2d || isDigit(first)) && isDigit(last);
  }
}

/** The value of `text` when it is one JSON value, else undefined (a text that cannot be one is not handed to JSON.parse). */
export function jsonValueOf(text: string): { value: unknown } | undefined {
  if (!mayBeJson(text)) return undefined;
  try {
    return { value: jsonParse(text) };
  } catch {
    return undefined;
  }
}

/**
 * `parseJson` for a value an importer keeps: arrays and objects nested deeper than MAX_JSON_DEPTH
 * are replaced by DEEP_MARKER (shared/format/jsonDepth.ts) and `cut` says where, for a finding.
 */
export function parseCappedJson(text: string): { ok: true; value: unknown; cut?: DepthCut } | { ok: false; reason: string } {
  const parsed = parseJson(text);
  if (!parsed.ok) return parsed;
  const cut = capParsedDepth(parsed.value, text);
  return cut ? { ok: true, value: parsed.value, cut } : parsed;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Whole JSON documents (snapshots, trajectories, logs) are parsed whole for now; past this, refuse rather than exhaust memory. */
export const MAX_SNAPSHOT_BYTES = 400 * 1000 * 1000;

/** The 1-based line of a JSON parser's "position N" in `text`, else 1. */
export function parserLine(text: string, reason: string): number {
  const m = /position (\d+)/.exec(reason);
  // "Unexpected end of JSON input" names no position: the document stops at its last line.
  if (!m) return /end of JSON/i.test(reason) ? text.split('\n').length : 1;
  const at = Number(m[1]);
  let line = 1;
  for (let i = 0; i < Math.min(at, text.length); i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}
