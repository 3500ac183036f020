/**
 * Where a truncated content's hidden span starts in its JSON string body, found off the
 * search's thread. A truncation hides `[floor(kept_bytes), length)` (shared/resolver/original.ts
 * `hiddenSpan`, the floor being FileContent's `floorBoundary`), and a raw search of that span starts
 * at its raw body offset (FileContent's `rawOffsetOf`). Both decode the body from its start to
 * `kept_bytes` — a few kilobytes per content, but for every truncated content on the first search
 * after an open, and they were the largest part of what that search did more than a warm one.
 *
 * `locateKept` uses only its parameters: the background thread (verifyThread.ts) runs it, and a
 * boundary it found reaches FileContent through the load's PreparedBodies (contentServices.ts).
 * It knows the escapes JSON.stringify writes for ASCII (`\" \\ \/ \b \f \n \r \t`, `\u00XX`
 * below 0x80): each decodes to one byte, never a UTF-8 continuation byte. On any other escape — a
 * `\u` of a non-ASCII character or a surrogate, which decode to several bytes — or a body that
 * cannot be read, it gives up (undefined) and FileContent finds the boundary itself, as it always
 * did. So an answer, when there is one, is exactly FileContent's.
 */
import type { ReadSync } from '../common/lines';

/** The floored hidden-span start of a truncation and its raw body offset. */
export interface KeptBoundary {
  /** The `kept_bytes` asked for (a decoded offset, 0 < kept < length). */
  kept: number;
  /** `kept` floored to a character boundary (at most 3 bytes back: FileContent's `floorBoundary`). */
  floored: number;
  /** The raw body offset where decoded offset `floored` begins (FileContent's `rawOffsetOf`). */
  raw: number;
}

/**
 * Walks the body `[start, start + rawLength)` of file `fd` from its start to decoded offset `kept`
 * (0 < kept < the decoded length), reading into `buf`: `[floored, raw]`, or undefined (see above).
 */
export function locateKept(fd: number, read: ReadSync, start: number, rawLength: number, kept: number, buf: Buffer): [number, number] | undefined {
  const BACKSLASH = 0x5c;
  /** Raw offset, and value (0 for an escape: ASCII), of the decoded bytes kept−3 … kept−1. */
  const rawOf = [0, 0, 0, 0];
  const byteOf = [0, 0, 0, 0];
  /** `buf` holds raw `[base, base + n)`. */
  let base = 0;
  let n = 0;
  let pos = 0;
  let d = 0;
  let atKept = 0;
  for (;;) {
    // An escape is at most 6 raw bytes: read again from `pos` when fewer are in hand.
    if (pos + 6 > base + n && base + n < rawLength) {
      base = pos;
      n = 0;
      // Most bytes are literal: twice the decoded bytes still to walk is read at once, rarely more.
      const want = Math.min(buf.length, rawLength - pos, Math.max(512, 2 * (kept - d) + 16));
      while (n < want) {
        const got = read(fd, buf, n, want - n, start + base + n);
        if (got <= 0) return undefined;
        n += got;
      }
    }
    const avail = base + n - pos;
    if (avail < 1) return undefined;
    const at = pos - base;
    const b = buf[at] as number;
    if (b !== BACKSLASH && kept - d > 4) {
      // A run of literal bytes at once (memchr), stopping 4 short of kept: the last 3 bytes
      // before it are walked one by one, for the floor.
      let end = buf.indexOf(BACKSLASH, at);
      if (end === -1 || end > n) end = n;
      const step = Math.min(end - at, kept - 4 - d);
      d += step;
      pos += step;
      continue;
    }
    let advance = 1;
    let value = b;
    if (b === BACKSLASH) {
      if (avail < 2) return undefined;
      const c = buf[at + 1] as number;
      value = 0;
      advance = 2;
      if (c === 0x75) {
        if (avail < 6) return undefined;
        // \u00XX below 0x80: two zeros, a digit 0–7, a hex digit.
        const x = buf[at + 5] as number;
        const hex = (x >= 0x30 && x <= 0x39) || (x >= 0x61 && x <= 0x66) || (x >= 0x41 && x <= 0x46);
        if (buf[at + 2] !== 0x30 || buf[at + 3] !== 0x30 || (buf[at + 4] as number) < 0x30 || (buf[at + 4] as number) > 0x37 || !hex) return undefined;
        advance = 6;
      } else if (c !== 0x22 && c !== 0x5c && c !== 0x2f && c !== 0x62 && c !== 0x66 && c !== 0x6e && c !== 0x72 && c !== 0x74) {
        return undefined;
      }
    }
    if (d === kept) {
      atKept = value;
      break;
    }
    rawOf[d & 3] = pos;
    byteOf[d & 3] = value;
    d++;
    pos += advance;
  }
  // FileContent's floorBoundary: back over continuation bytes, at most to kept − 3. A continuation
  // byte is always a literal one (escapes here decode to ASCII).
  const from = Math.max(0, kept - 3);
  let floored = kept;
  let value = atKept;
  while (floored > from && (value & 0xc0) === 0x80) {
    floored--;
    value = byteOf[floored & 3] as number;
  }
  return [floored, floored === kept ? pos : (rawOf[floored & 3] as number)];
}
