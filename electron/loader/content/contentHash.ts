/**
 * The SHA-256 of a content read straight from its JSON string body in the file (the first
 * search verified every hidden content at ~200 MB/s, most of it spent in the general decoder).
 *
 * Large reads; a window without a backslash is hashed as it was read (its raw bytes are the content
 * bytes); a window with escapes is decoded by one tight loop into a reusable buffer — the string
 * walker's WebAssembly `decode` (jsonStringWasm.ts, 16 bytes a step), or a loop in JavaScript where
 * WebAssembly is missing. It knows only the escapes JSON.stringify writes for ASCII (`\" \\ \/ \b \f \n \r \t`, `\u00XX` below 0x80);
 * on anything else — a `\u` escape of a non-ASCII character or a surrogate, a malformed escape, an
 * unescaped quote, a file that shrank — it gives up (undefined) and the caller hashes with the general decoder
 * (rawRecord's `hashBody`), which decodes every escape and throws the error a bad body deserves.
 * So a result, when there is one, is exactly `hashBody`'s.
 *
 * `hashContentBody` and both decoder factories use only their parameters: the background verifier's
 * thread (verifyThread.ts) runs them too, one implementation on both threads. Where a load keeps its
 * decoder and how a claim reaches FileContent: contentServices.ts.
 */
import type { createHash as CreateHash } from 'node:crypto';
import type { ReadSync } from '../common/lines';
import { walkerModuleBytes } from './jsonStringWasm';

export interface ContentHash {
  sha256: string;
  /** Content bytes hashed (the caller checks them against the indexed length). */
  length: number;
}

/**
 * Decodes `raw[0, cut)` (a piece of a body starting and ending outside any escape) into `out`:
 * the bytes written, or -1 on an escape it leaves to the general decoder. `out` is as long as `raw`.
 */
export interface EscapeDecoder {
  raw: Buffer;
  out: Buffer;
  decode(cut: number): number;
}

/**
 * Hashes the decoded body `[start, start + rawLength)` of file `fd`, reading `decoder.raw.length`
 * bytes at a time. Undefined when the body holds an escape the decoder leaves to the general one,
 * or cannot be read.
 */
export function hashContentBody(fd: number, read: ReadSync, createHash: typeof CreateHash, start: number, rawLength: number, decoder: EscapeDecoder): ContentHash | undefined {
  const BACKSLASH = 0x5c;
  const { raw, out } = decoder;
  const window = raw.length;
  if (window < 16 || out.length < window) return undefined;
  const h = createHash('sha256');
  let pos = 0;
  let length = 0;
  while (pos < rawLength) {
    const want = Math.min(window, rawLength - pos);
    let n = 0;
    while (n < want) {
      const got = read(fd, raw, n, want - n, start + pos + n);
      if (got <= 0) return undefined;
      n += got;
    }
    const final = pos + n >= rawLength;
    if (raw.subarray(0, n).indexOf(BACKSLASH) === -1) {
      // No escape: the raw bytes are the content bytes.
      h.update(raw.subarray(0, n));
      length += n;
      pos += n;
      continue;
    }
    // Cut before an escape the window's end may split. The last run of backslashes starts outside
    // any escape (no escape holds a backslash but `\\`, whose first is one too): its pairs are
    // whole escapes, and an odd one's last backslash starts one more, of 2 bytes or 6 (`\u`),
    // which is cut off when its bytes may run past the window. (Cutting before the whole run, a
    // window that began with the run gave the body up to the general decoder.)
    let cut = n;
    if (!final) {
      const tail = raw.lastIndexOf(BACKSLASH, n - 1);
      if (tail !== -1 && tail >= n - 12) {
        let first = tail;
        while (first > 0 && raw[first - 1] === BACKSLASH) first--;
        const needs = tail + 1 < n && raw[tail + 1] === 0x75 ? 6 : 2;
        if ((tail - first) % 2 === 0 && tail + needs > n) cut = tail;
      }
      if (cut === 0) return undefined;
    }
    const w = decoder.decode(cut);
    if (w < 0) return undefined;
    h.update(out.subarray(0, w));
    length += w;
    pos += cut;
  }
  return { sha256: h.digest('hex'), length };
}

/**
 * The escape decoder in JavaScript, over buffers of `window` bytes: the escapes JSON.stringify
 * writes for ASCII (`\" \\ \/ \b \f \n \r \t`, `\u00XX` below 0x80); -1 on any other.
 * The WebAssembly one (the walker's `decode`) has the same semantics.
 */
export function jsEscapeDecoder(window: number): EscapeDecoder {
  const raw = Buffer.allocUnsafe(window);
  const out = Buffer.allocUnsafe(window);
  return {
    raw,
    out,
    decode(cut) {
      let w = 0;
      for (let i = 0; i < cut; i++) {
        const b = raw[i] as number;
        if (b !== 0x5c) {
          out[w++] = b;
          continue;
        }
        if (i + 1 >= cut) return -1;
        const c = raw[++i] as number;
        if (c === 0x6e) out[w++] = 0x0a;
        else if (c === 0x22 || c === 0x5c || c === 0x2f) out[w++] = c;
        else if (c === 0x74) out[w++] = 0x09;
        else if (c === 0x72) out[w++] = 0x0d;
        else if (c === 0x62) out[w++] = 0x08;
        else if (c === 0x66) out[w++] = 0x0c;
        else if (c === 0x75 && i + 4 < cut && raw[i + 1] === 0x30 && raw[i + 2] === 0x30) {
          const hi = (raw[i + 3] as number) - 0x30;
          const d = raw[i + 4] as number;
          const lo = d >= 0x30 && d <= 0x39 ? d - 0x30 : d >= 0x61 && d <= 0x66 ? d - 0x57 : d >= 0x41 && d <= 0x46 ? d - 0x37 : -1;
          if (hi < 0 || hi > 7 || lo < 0) return -1;
          out[w++] = (hi << 4) | lo;
          i += 4;
        } else return -1;
      }
      return w;
    },
  };
}

/** The part of the WebAssembly API used here (the Node typings in use do not declare it). */
interface WasmApi {
  Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer };
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

/**
 * The escape decoder as the string walker's `decode` loop (jsonStringWasm.ts: 16 bytes a step with
 * SIMD, 8 without; the first of `modules` this engine compiles), or undefined without WebAssembly.
 * The walker knows the same escapes; it stops at anything else (an escape it leaves to the caller,
 * an escape `cut` splits, an unescaped quote), and the body then goes to the general decoder.
 * The layout constants are jsonStringWasm.ts's `IN` and `outAt`, written here.
 */
export function wasmEscapeDecoder(modules: readonly Uint8Array[], window: number): EscapeDecoder | undefined {
  const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;
  if (!wasm) return undefined;
  const IN = 1024;
  const OUT = IN + window + 64;
  for (const bytes of modules) {
    try {
      const memory = new wasm.Memory({ initial: Math.ceil((OUT + window + 64) / 65536) });
      const instance = new wasm.Instance(new wasm.Module(bytes), { m: { memory } });
      const decode = instance.exports.decode as (src: number, soft: number, hard: number, dst: number) => number;
      const tables = new Int8Array(memory.buffer, 0, 512);
      tables.fill(-1);
      const short: [number, number][] = [[0x22, 0x22], [0x5c, 0x5c], [0x2f, 0x2f], [0x62, 0x08], [0x66, 0x0c], [0x6e, 0x0a], [0x72, 0x0d], [0x74, 0x09]];
      for (const [c, v] of short) tables[c] = v;
      for (let d = 0; d < 10; d++) tables[256 + 0x30 + d] = d;
      for (let d = 0; d < 6; d++) {
        tables[256 + 0x61 + d] = 10 + d;
        tables[256 + 0x41 + d] = 10 + d;
      }
      // Where the loop stopped: raw and decoded addresses.
      const stoppedAt = new Int32Array(memory.buffer, 512, 2);
      const raw = Buffer.from(memory.buffer, IN, window);
      const out = Buffer.from(memory.buffer, OUT, window);
      // 0: it reached `cut` (the walker's STOP_SOFT) with every token decoded.
      return { raw, out, decode: (cut) => (decode(IN, IN + cut, IN + cut, OUT) === 0 && stoppedAt[0] === IN + cut ? (stoppedAt[1] as number) - OUT : -1) };
    } catch {
      // Not compiled here (SIMD missing): the next module.
    }
  }
  return undefined;
}

/** Raw bytes read (and decoded) at a time. */
export const DECODER_WINDOW = 1024 * 1024;

/** The decoder's modules, best first: the walker with SIMD, then without. */
export function decoderModules(): Uint8Array[] {
  return [walkerModuleBytes(true), walkerModuleBytes(false)];
}

/**
 * A content another thread may be hashing (backgroundVerify.ts, offered through a load's
 * PreparedBodies): `take` answers its hash when that thread computed it (waiting while it still
 * is), or undefined when this thread is to hash it.
 */
export interface HashClaim {
  take(): ContentHash | undefined;
}
