/**
 * Byte ↔ string offsets. The host speaks UTF-8 byte offsets (SPEC §2); a JavaScript string is
 * indexed in UTF-16 code units. These helpers convert between the two for one string, counting a
 * lone surrogate as 3 bytes (U+FFFD), as TextEncoder writes it and as `utf8Length` counts it.
 */

/** UTF-8 byte length of the code unit(s) starting at `i`, and how many code units they take. */
function charAt(text: string, i: number): { bytes: number; units: number } {
  const c = text.charCodeAt(i);
  if (c < 0x80) return { bytes: 1, units: 1 };
  if (c < 0x800) return { bytes: 2, units: 1 };
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
    const d = text.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return { bytes: 4, units: 2 };
  }
  return { bytes: 3, units: 1 };
}

/**
 * The string index of byte offset `byteOffset` of `text`. An offset inside a multi-byte character
 * floors to that character's start; offsets are clamped to `[0, text.length]`.
 */
export function byteOffsetToIndex(text: string, byteOffset: number): number {
  return byteCursor(text).indexOf(byteOffset);
}

/** The UTF-8 byte offset of string index `index` of `text` (an index between surrogates floors). */
export function indexToByteOffset(text: string, index: number): number {
  const end = Math.max(0, Math.min(index, text.length));
  let bytes = 0;
  let i = 0;
  while (i < end) {
    const ch = charAt(text, i);
    if (i + ch.units > end) break;
    bytes += ch.bytes;
    i += ch.units;
  }
  return bytes;
}

/** A byte range `[start, end)` of `text` as string indices `[start, end)`, in one pass. */
export function byteRangeToIndices(text: string, range: readonly [number, number]): [number, number] {
  const [startByte, endByte] = range[0] <= range[1] ? range : [range[1], range[0]];
  let bytes = 0;
  let i = 0;
  let start = -1;
  while (i < text.length) {
    const ch = charAt(text, i);
    if (start === -1 && bytes + ch.bytes > startByte) start = i;
    if (bytes + ch.bytes > endByte) return [start === -1 ? i : start, i];
    bytes += ch.bytes;
    i += ch.units;
  }
  return [start === -1 ? text.length : start, text.length];
}

/**
 * String indices of ascending byte offsets of one `text`, in one pass over it: `indexOf(b)` for
 * `b` not below the last asked is `byteOffsetToIndex(text, b)` (many boundaries of one transcript
 * cost one walk, not one each).
 */
export function byteCursor(text: string): { indexOf(byteOffset: number): number } {
  let bytes = 0;
  let i = 0;
  return {
    indexOf(byteOffset: number): number {
      if (byteOffset <= 0) return 0;
      if (byteOffset < bytes) {
        // Asked behind the last answer: walk again from the start.
        bytes = 0;
        i = 0;
      }
      while (i < text.length) {
        const ch = charAt(text, i);
        if (bytes + ch.bytes > byteOffset) return i;
        bytes += ch.bytes;
        i += ch.units;
      }
      return text.length;
    },
  };
}
