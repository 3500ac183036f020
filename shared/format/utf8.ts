/**
 * UTF-8 helpers. Every offset and size in the spec is a UTF-8 byte count; JavaScript strings are
 * UTF-16, so conversions live here and nowhere else.
 */

const encoder = new TextEncoder();
/**
 * A U+FEFF first is a character of the content like any other: TextDecoder would drop it as a byte
 * order mark (its default), and a text decoded from bytes that open with EF BB BF would then be
 * three bytes short of them, every offset after it shifted.
 */
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

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

/** A decoder of bytes that come in pieces: `decode(piece, { stream: true })` for each, then `decode()`. */
export interface Utf8StreamDecoder {
  decode(bytes?: Uint8Array, options?: { stream?: boolean }): string;
}

/** A decoder of its own, by utf8Decode's rule, for bytes that come in pieces. */
export function utf8StreamDecoder(): Utf8StreamDecoder {
  return new TextDecoder('utf-8', { ignoreBOM: true });
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
 * The first UTF-16 index of `text` whose UTF-8 byte offset is `byteOffset` or more (a character
 * boundary's own index; the text's length past its end). A lone surrogate counts 3 bytes.
 */
export function utf16IndexOfByte(text: string, byteOffset: number): number {
  let bytes = 0;
  let i = 0;
  while (i < text.length && bytes < byteOffset) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i += 2;
    } else {
      bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
      i++;
    }
  }
  return i;
}

/**
 * Walks a string forward converting UTF-16 indices to UTF-8 byte offsets. Queries must be
 * non-decreasing; the total work over all queries is linear in the string's length.
 *
 * The bytes walked are counted from 0 (`bytesTo`), apart from the offset of the first byte
 * (`startOffset`, any number): the difference of two counts is a small integer. Counted on from that
 * offset, a match's length in a content held in memory reached `snippetOf` as a heap number (13.0)
 * during a user's first search, and the code V8 had compiled on small integers was thrown away and
 * compiled again (docs/search.md "Small integers where a match is placed").
 */
export class Utf16ToUtf8Cursor {
  private index = 0;
  private bytes = 0;
  constructor(
    private readonly text: string,
    private readonly startOffset = 0,
  ) {}

  /** The bytes from the text's start to UTF-16 index `utf16Index`. */
  bytesTo(utf16Index: number): number {
    const text = this.text;
    while (this.index < utf16Index) {
      const c = text.charCodeAt(this.index);
      if (c < 0x80) this.bytes += 1;
      else if (c < 0x800) this.bytes += 2;
      else if (c >= 0xd800 && c <= 0xdbff && this.index + 1 < text.length && isLowSurrogate(text.charCodeAt(this.index + 1))) {
        this.bytes += 4;
        this.index++;
      } else this.bytes += 3;
      this.index++;
    }
    return this.bytes;
  }

  byteOffsetOf(utf16Index: number): number {
    return this.startOffset + this.bytesTo(utf16Index);
  }
}

/** True when `text` holds no lone surrogate (String.prototype.isWellFormed, ES2024): its UTF-8 decodes back to it. */
export function isWellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

/**
 * The UTF-8 sequence at `p` (a byte before `end`) as a decoder reads it (the WHATWG UTF-8 decoder,
 * TextDecoder's). A well-formed character: its code point and its length in bytes (1 to 4), packed
 * as `cp * 8 + length`. Otherwise minus the bytes of the maximal subpart the decoder replaces with
 * one U+FFFD (1 to 3): a lead byte and the continuation bytes that could still follow it. Each byte
 * is read once (the direct matcher's hot path: shared/search/simpleMatcher.ts).
 */
export function utf8SequenceAt(bytes: Uint8Array, p: number, end: number): number {
  const b0 = bytes[p] as number;
  if (b0 < 0x80) return b0 * 8 + 1;
  let need: number;
  let cp: number;
  let lo = 0x80;
  let hi = 0xbf;
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    need = 1;
    cp = b0 & 0x1f;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    need = 2;
    cp = b0 & 0x0f;
    // No overlong forms (E0 A0..), no surrogates (ED ..9F).
    if (b0 === 0xe0) lo = 0xa0;
    if (b0 === 0xed) hi = 0x9f;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    need = 3;
    cp = b0 & 0x07;
    if (b0 === 0xf0) lo = 0x90;
    if (b0 === 0xf4) hi = 0x8f;
  } else return -1;
  for (let k = 1; k <= need; k++) {
    const b = p + k < end ? (bytes[p + k] as number) : -1;
    if (b < lo || b > hi) return -k;
    cp = (cp << 6) | (b & 0x3f);
    lo = 0x80;
    hi = 0xbf;
  }
  return cp * 8 + need + 1;
}

/**
 * Bytes decoded as TextDecoder decodes them, with each UTF-16 index's byte offset and back. Where
 * every character of the text is written in the bytes as UTF-8 writes it (a well-formed text), the
 * offsets are counted from the text. Where a byte that is not UTF-8 became U+FFFD (three bytes when
 * written, one to three where read: `utf8SequenceAt`), counting from the text would move every
 * later offset, so they are taken from the bytes (docs/streaming-import.md "Texts searched as bytes").
 */
export class DecodedBytes {
  readonly text: string;
  /** Each index's byte offset from the first byte, where the bytes are not the text's UTF-8; null where they are. */
  private readonly offsets: Uint32Array | null;
  private cursor: Utf16ToUtf8Cursor;

  /** `start`: the offset of the first byte, added to every offset given and taken. */
  constructor(
    bytes: Uint8Array,
    private readonly start = 0,
  ) {
    const text = decoder.decode(bytes);
    this.text = text;
    this.cursor = new Utf16ToUtf8Cursor(text, start);
    // A text with no U+FFFD decoded from well-formed bytes; one whose UTF-8 is as long as the bytes
    // replaced only three-byte subparts, each by three bytes: the text's own offsets hold either way.
    this.offsets = text.indexOf('\uFFFD') === -1 || utf8Length(text) === bytes.length ? null : sequenceOffsets(bytes, text.length);
  }

  /** The byte offset of UTF-16 index `index`, a character's start or the text's end. */
  byteOffsetOf(index: number): number {
    if (this.offsets) return this.start + (this.offsets[Math.max(0, Math.min(index, this.text.length))] as number);
    if (index < this.cursorIndex) this.cursor = new Utf16ToUtf8Cursor(this.text, this.start);
    this.cursorIndex = index;
    return this.cursor.byteOffsetOf(index);
  }

  private cursorIndex = 0;

  /** The first UTF-16 index whose byte offset is `offset` or more (the text's length past its end). */
  indexOfByte(offset: number): number {
    const target = offset - this.start;
    const offsets = this.offsets;
    if (!offsets) return utf16IndexOfByte(this.text, target);
    let lo = 0;
    let hi = this.text.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((offsets[mid] as number) < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The byte offset where the character at UTF-16 index `index` ends. */
  charEndOf(index: number): number {
    // Past U+FFFF a character is two units (a lone surrogate is one).
    return this.byteOffsetOf(index + ((this.text.codePointAt(index) ?? 0) > 0xffff ? 2 : 1));
  }
}

/** The byte offset of each UTF-16 index of the decoding of `bytes` (`units` long), read sequence by sequence. */
function sequenceOffsets(bytes: Uint8Array, units: number): Uint32Array {
  const offsets = new Uint32Array(units + 1);
  let p = 0;
  let i = 0;
  while (p < bytes.length && i < units) {
    const d = utf8SequenceAt(bytes, p, bytes.length);
    const n = d < 0 ? -d : d % 8;
    offsets[i++] = p;
    // A character past U+FFFF is two units: the second has its character's start.
    if (n === 4) offsets[i++] = p;
    p += n;
  }
  offsets[i] = p;
  return offsets;
}
