/**
 * Snippets around a match (SPEC §5.3: at most SNIPPET_MAX_BYTES, on character boundaries, holding
 * the match) and the byte/UTF-16 offset helpers they need.
 */
import { floorSourceBoundary } from '../format/bytes';
import type { ByteSource } from '../format/types';
import { DecodedBytes, utf8Length } from '../format/utf8';

export function codePointLength(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
}

export function utf8CodePointBytes(text: string, i: number): number {
  const c = text.codePointAt(i) ?? 0;
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  if (c < 0x10000) return 3;
  return 4;
}

/**
 * A window of at most `max` bytes around the match `[s, e)` (UTF-16, within `text`), on character
 * boundaries. Context is shared evenly before and after; what one side cannot use goes to the
 * other. A match longer than `max` is cut to its first `max` bytes.
 */
export function snippetOf(text: string, s: number, e: number, matchBytes: number, max: number): { snippet: string; match: [number, number] } {
  if (matchBytes >= max) {
    let i = s;
    let used = 0;
    while (i < e) {
      const b = utf8CodePointBytes(text, i);
      if (used + b > max) break;
      used += b;
      i += codePointLength(text, i);
    }
    return { snippet: text.slice(s, i), match: [0, used] };
  }
  let budget = max - matchBytes;
  let left = s;
  let leftBytes = 0;
  const stepLeft = (limit: number): void => {
    while (left > 0) {
      const i = left >= 2 && (text.charCodeAt(left - 1) & 0xfc00) === 0xdc00 && (text.charCodeAt(left - 2) & 0xfc00) === 0xd800 ? left - 2 : left - 1;
      const b = utf8CodePointBytes(text, i);
      if (leftBytes + b > limit) break;
      leftBytes += b;
      left = i;
    }
  };
  // Half the context before the match, by a shift: `Math.floor(budget / 2)` made a fraction of an
  // odd budget, and code compiled on even ones was thrown away at the first odd one (docs/search.md
  // "Small integers where a match is placed").
  stepLeft(budget >> 1);
  budget -= leftBytes;
  let right = e;
  let rightBytes = 0;
  while (right < text.length) {
    const b = utf8CodePointBytes(text, right);
    if (rightBytes + b > budget) break;
    rightBytes += b;
    right += codePointLength(text, right);
  }
  stepLeft(max - matchBytes - rightBytes);
  return { snippet: text.slice(left, right), match: [leftBytes, leftBytes + matchBytes] };
}

export function jsonBytes(value: unknown): number {
  return utf8Length(JSON.stringify(value));
}

/** The snippet around `[offset, offset + length)` of a source, its context kept inside `span`. */
export function sourceSnippet(source: ByteSource, span: [number, number], offset: number, length: number, max: number): { snippet: string; match: [number, number] } {
  const a = Math.max(span[0], floorSourceBoundary(source, offset - max));
  const b = Math.max(offset + length, Math.min(span[1], floorSourceBoundary(source, Math.min(span[1], offset + length + max))));
  const decoded = new DecodedBytes(source.read(a, b), a);
  return snippetOf(decoded.text, decoded.indexOfByte(offset), decoded.indexOfByte(offset + length), length, max);
}
