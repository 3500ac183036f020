/**
 * A minimal POSIX ustar writer (pure, no node:*): the app's repro bundle download is one `.tar`.
 * Regular files and folders only, mode 0644/0755, owner 0, mtime 0 — the same files always give
 * the same bytes. A name longer than ustar holds (100 bytes, or a 155-byte prefix and a 100-byte
 * name split at a `/`) is refused rather than cut.
 */

export interface TarEntry {
  /** `/`-separated path inside the archive; a folder's ends with `/`. */
  name: string;
  /** Absent for a folder. */
  bytes?: Uint8Array;
}

const BLOCK = 512;
const encoder = new TextEncoder();

function octal(value: number, width: number): string {
  // width - 1 digits and a NUL, as ustar readers expect.
  const digits = value.toString(8);
  if (digits.length > width - 1) throw new RangeError(`tar: ${value} does not fit in ${width - 1} octal digits`);
  return digits.padStart(width - 1, '0') + '\0';
}

function put(header: Uint8Array, at: number, width: number, bytes: Uint8Array): void {
  if (bytes.length > width) throw new RangeError('tar: field too long');
  header.set(bytes, at);
}

/** Name and prefix fields of `name`: the name alone when it fits, else split at a `/`. */
function splitName(name: string): { name: Uint8Array; prefix: Uint8Array } {
  const whole = encoder.encode(name);
  if (whole.length <= 100) return { name: whole, prefix: new Uint8Array(0) };
  for (let k = whole.length - 1; k > 0; k--) {
    if (whole[k] !== 0x2f) continue;
    const prefix = whole.subarray(0, k);
    const rest = whole.subarray(k + 1);
    if (prefix.length <= 155 && rest.length <= 100 && rest.length > 0) return { name: rest, prefix };
  }
  throw new RangeError(`tar: the name ${JSON.stringify(name)} is longer than ustar holds`);
}

function header(entry: TarEntry): Uint8Array {
  const h = new Uint8Array(BLOCK);
  const folder = entry.bytes === undefined;
  const { name, prefix } = splitName(entry.name);
  put(h, 0, 100, name);
  put(h, 100, 8, encoder.encode(octal(folder ? 0o755 : 0o644, 8)));
  put(h, 108, 8, encoder.encode(octal(0, 8)));
  put(h, 116, 8, encoder.encode(octal(0, 8)));
  put(h, 124, 12, encoder.encode(octal(entry.bytes?.length ?? 0, 12)));
  put(h, 136, 12, encoder.encode(octal(0, 12)));
  put(h, 148, 8, encoder.encode('        ')); // the checksum counts its own field as spaces
  h[156] = folder ? 0x35 : 0x30; // '5' folder, '0' regular file
  put(h, 257, 6, encoder.encode('ustar\0'));
  put(h, 263, 2, encoder.encode('00'));
  put(h, 345, 155, prefix);
  let sum = 0;
  for (const b of h) sum += b;
  put(h, 148, 8, encoder.encode(octal(sum, 7) + ' '));
  return h;
}

/** The archive: each entry's header and its bytes padded to 512, then two zero blocks. */
export function ustar(entries: readonly TarEntry[]): Uint8Array {
  let size = 2 * BLOCK;
  for (const e of entries) size += BLOCK + Math.ceil((e.bytes?.length ?? 0) / BLOCK) * BLOCK;
  const out = new Uint8Array(size);
  let at = 0;
  for (const e of entries) {
    out.set(header(e), at);
    at += BLOCK;
    if (e.bytes) {
      out.set(e.bytes, at);
      at += Math.ceil(e.bytes.length / BLOCK) * BLOCK;
    }
  }
  return out;
}
