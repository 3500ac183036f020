/**
 * UTF-8 helpers. Every offset and size in the spec is a UTF-8 byte count; JavaScript strings are
 * UTF-16, so conversions live here and nowhere else.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8');

export function utf8Encode(text: string): Uint8Array {
  return encoder.encode(text);
}

/**
 * Writes the UTF-8 of `text` into `target` from `at`, as much as fits (never part of a character):
 * the UTF-16 units taken (`read`) and the bytes written.
 */
export function utf8EncodeInto(text: string, target: Uint8Array, at: number): { read: number; written: number } {
  return encoder.encodeInto(text, target.subarray(at));
}

export function utf8Decode(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/**
 * `text` as its UTF-8 bytes read back: each lone surrogate becomes U+FFFD, the one rule for text
 * that reaches the user (expand decodes the bytes, so a search snippet must show what expand
 * shows). Same UTF-16 length and same UTF-8 length as `text`, so offsets into it stay valid.
 */
export function wellFormed(text: string): string {
  const t = text as unknown as WellFormedString;
  return t.isWellFormed() ? text : t.toWellFormed();
}

/** ES2024's well-formed string methods (Node 20, Chromium 111), which lib ES2022 does not declare. */
interface WellFormedString {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

/** UTF-8 byte length of a string without allocating its encoding. Lone surrogates count 3 (U+FFFD), as TextEncoder writes them. */
export function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** True when `offset` does not fall inside a multi-byte sequence (continuation bytes are 10xxxxxx). */
export function isCharBoundary(bytes: Uint8Array, offset: number): boolean {
  if (offset <= 0 || offset >= bytes.length) return offset === 0 || offset === bytes.length;
  return ((bytes[offset] ?? 0) & 0xc0) !== 0x80;
}

/** The greatest character boundary `<= offset` (offset clamped to `[0, bytes.length]`). */
export function floorCharBoundary(bytes: Uint8Array, offset: number): number {
  let o = Math.max(0, Math.min(offset, bytes.length));
  while (o > 0 && o < bytes.length && ((bytes[o] ?? 0) & 0xc0) === 0x80) o--;
  return o;
}

/** The least character boundary `>= offset` (offset clamped to `[0, bytes.length]`). */
export function ceilCharBoundary(bytes: Uint8Array, offset: number): number {
  let o = Math.max(0, Math.min(offset, bytes.length));
  while (o < bytes.length && ((bytes[o] ?? 0) & 0xc0) === 0x80) o++;
  return o;
}

/** Index of `needle` in `haystack` at or after `from`, or -1. */
export function bytesIndexOf(haystack: Uint8Array, needle: Uint8Array, from = 0): number {
  const n = needle.length;
  if (n === 0) return from <= haystack.length ? from : -1;
  const first = needle[0];
  const last = haystack.length - n;
  outer: for (let i = haystack.indexOf(first ?? 0, from); i !== -1 && i <= last; i = haystack.indexOf(first ?? 0, i + 1)) {
    for (let j = 1; j < n; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function startsWithBytes(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (prefix.length > bytes.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

/** Last index of `needle` in `haystack`, or -1. */
export function bytesLastIndexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = haystack.length - needle.length; i >= 0; i--) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/**
 * Walks a string forward converting UTF-16 indices to UTF-8 byte offsets. Queries must be
 * non-decreasing; the total work over all queries is linear in the string's length.
 */
export class Utf16ToUtf8Cursor {
  private index = 0;
  private offset = 0;
  constructor(
    private readonly text: string,
    startOffset = 0,
  ) {
    this.offset = startOffset;
  }

  byteOffsetOf(utf16Index: number): number {
    const text = this.text;
    while (this.index < utf16Index) {
      const c = text.charCodeAt(this.index);
      if (c < 0x80) this.offset += 1;
      else if (c < 0x800) this.offset += 2;
      else if (c >= 0xd800 && c <= 0xdbff && this.index + 1 < text.length && isLowSurrogate(text.charCodeAt(this.index + 1))) {
        this.offset += 4;
        this.index++;
      } else this.offset += 3;
      this.index++;
    }
    return this.offset;
  }
}

/** True when `text` holds no lone surrogate (String.prototype.isWellFormed, ES2024): its UTF-8 decodes back to it. */
export function isWellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}
