/**
 * node:crypto's `createHash` as the command line's bundles see it (scripts/build.mjs `lazy-modules`
 * puts this one in its place there; everything else of node:crypto is Node's, loaded on first use).
 * Loading node:crypto costs a cold start about 5 ms, more than hashing a small session's contents
 * takes in JavaScript, so SHA-256 is computed here (JsSha256) until the process has
 * hashed JS_HASH_BUDGET bytes; then, and for any other algorithm, node:crypto's own hash does the
 * work, a hash under way handing it what it has taken.
 *
 * Invariant (sha256.test.ts, fast-check against node:crypto): the same digests, whatever the
 * updates (text in any encoding, bytes, buffers the caller reuses after the call) and wherever the
 * budget runs out.
 */
import type { BinaryToTextEncoding, Encoding, Hash } from 'node:crypto';

/**
 * Bytes a process hashes in JavaScript before it loads node:crypto. A cold start runs this code in
 * V8's interpreter, some 25 µs per 64-byte block: 8 KiB costs about what loading node:crypto does.
 */
export const JS_HASH_BUDGET = 8 * 1024;

/** FIPS 180-4's round constants. */
const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/**
 * SHA-256 (FIPS 180-4) in one small loop: a cold start interprets it, where a library's layers of
 * calls (@noble/hashes) cost it several times more.
 */
class JsSha256 {
  private readonly h = new Int32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  private readonly w = new Int32Array(64);
  /** The bytes of an unfinished block. */
  private readonly block = new Uint8Array(64);
  private filled = 0;
  private length = 0;

  /** A hash with this one's state, updated apart from it. */
  clone(): JsSha256 {
    const c = new JsSha256();
    c.h.set(this.h);
    c.block.set(this.block);
    c.filled = this.filled;
    c.length = this.length;
    return c;
  }

  update(bytes: Uint8Array): void {
    this.length += bytes.length;
    let at = 0;
    while (at < bytes.length) {
      const n = Math.min(64 - this.filled, bytes.length - at);
      this.block.set(bytes.subarray(at, at + n), this.filled);
      this.filled += n;
      at += n;
      if (this.filled === 64) {
        this.compress();
        this.filled = 0;
      }
    }
  }

  digest(): Uint8Array {
    const bits = this.length * 8;
    this.block[this.filled++] = 0x80;
    if (this.filled > 56) {
      this.block.fill(0, this.filled);
      this.compress();
      this.filled = 0;
    }
    this.block.fill(0, this.filled);
    const view = new DataView(this.block.buffer);
    view.setUint32(56, Math.floor(bits / 2 ** 32));
    view.setUint32(60, bits >>> 0);
    this.compress();
    const out = new Uint8Array(32);
    const outView = new DataView(out.buffer);
    for (let i = 0; i < 8; i++) outView.setInt32(i * 4, this.h[i] as number);
    return out;
  }

  private compress(): void {
    const { h, w, block } = this;
    for (let i = 0; i < 16; i++) w[i] = ((block[i * 4] as number) << 24) | ((block[i * 4 + 1] as number) << 16) | ((block[i * 4 + 2] as number) << 8) | (block[i * 4 + 3] as number);
    for (let i = 16; i < 64; i++) {
      const x = w[i - 15] as number;
      const y = w[i - 2] as number;
      w[i] = ((((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3)) + (w[i - 7] as number) + (((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10)) + (w[i - 16] as number)) | 0;
    }
    let a = h[0] as number;
    let b = h[1] as number;
    let c = h[2] as number;
    let d = h[3] as number;
    let e = h[4] as number;
    let f = h[5] as number;
    let g = h[6] as number;
    let k = h[7] as number;
    for (let i = 0; i < 64; i++) {
      const t1 = (k + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + ((e & f) ^ (~e & g)) + (K[i] as number) + (w[i] as number)) | 0;
      const t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      k = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h[0] = ((h[0] as number) + a) | 0;
    h[1] = ((h[1] as number) + b) | 0;
    h[2] = ((h[2] as number) + c) | 0;
    h[3] = ((h[3] as number) + d) | 0;
    h[4] = ((h[4] as number) + e) | 0;
    h[5] = ((h[5] as number) + f) | 0;
    h[6] = ((h[6] as number) + g) | 0;
    h[7] = ((h[7] as number) + k) | 0;
  }
}

const nodeCrypto = () => process.getBuiltinModule('node:crypto');

type Data = string | NodeJS.ArrayBufferView;

/** The bytes of `data`; undefined for text in another encoding than UTF-8 (node:crypto checks those: it hashes them). */
function bytesOf(data: Data, encoding: Encoding | undefined): Uint8Array | undefined {
  if (typeof data === 'string') return encoding === undefined || encoding === 'utf8' || encoding === 'utf-8' ? Buffer.from(data, 'utf8') : undefined;
  return data instanceof Uint8Array ? data : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/** The part of node:crypto's Hash the loader, the host and the importers use. */
export interface ColdHash {
  update(data: Data, encoding?: Encoding): ColdHash;
  /** A hash of what this one has taken so far, updated and digested apart from it (node's Hash#copy). */
  copy(): ColdHash;
  digest(): Buffer;
  digest(encoding: BinaryToTextEncoding): string;
}

/** The bytes one createHash (coldCreateHash) has left to hash in JavaScript, over all its hashes. */
interface Budget {
  bytes: number;
  /**
   * One of its hashes has loaded node:crypto (it was handed more than was left, or text in another
   * encoding): the hashes made after it are node:crypto's own. Made cold, each was a JavaScript
   * hash's state and a wrapper around node's, for nothing: 100,000 small contents hashed took
   * 0.13 s more (docs/streaming-import.md "Lines that do not parse").
   */
  native: boolean;
}

class ColdSha256 implements ColdHash {
  constructor(private readonly budget: Budget) {}

  /** Made when the first bytes are hashed in JavaScript. */
  private js: JsSha256 | undefined;
  /** Copies of what `js` has taken, for node's hash should the budget run out. */
  private taken: Uint8Array[] = [];
  private native: Hash | undefined;

  copy(): ColdSha256 {
    const c = new ColdSha256(this.budget);
    c.js = this.js?.clone();
    c.taken = [...this.taken];
    c.native = this.native?.copy();
    return c;
  }

  update(data: Data, encoding?: Encoding): this {
    const bytes = bytesOf(data, encoding);
    if (this.native === undefined && (bytes === undefined || bytes.length > this.budget.bytes)) {
      this.native = nodeCrypto().createHash('sha256');
      this.budget.native = true;
      for (const chunk of this.taken) this.native.update(chunk);
      this.taken = [];
    }
    if (this.native !== undefined || bytes === undefined) {
      const native = this.native as Hash;
      if (typeof data === 'string') native.update(data, encoding as Encoding);
      else native.update(data);
      return this;
    }
    this.budget.bytes -= bytes.length;
    (this.js ??= new JsSha256()).update(bytes);
    // A copy: the caller may reuse its buffer (Buffer#slice would be a view).
    this.taken.push(new Uint8Array(bytes));
    return this;
  }

  digest(): Buffer;
  digest(encoding: BinaryToTextEncoding): string;
  digest(encoding?: BinaryToTextEncoding): Buffer | string {
    const digest = this.native !== undefined ? this.native.digest() : Buffer.from((this.js ?? new JsSha256()).digest());
    this.taken = [];
    return encoding === undefined ? digest : digest.toString(encoding);
  }
}

/**
 * A createHash whose SHA-256 hashes are computed in JavaScript until they have taken `budget` bytes
 * between them, or one of them needed node:crypto; anything else is Node's.
 */
export function coldCreateHash(budget = JS_HASH_BUDGET): (algorithm: string, options?: object) => ColdHash | Hash {
  const left: Budget = { bytes: budget, native: false };
  return (algorithm, options) => (algorithm === 'sha256' && options === undefined && !left.native ? new ColdSha256(left) : nodeCrypto().createHash(algorithm, options));
}

/** node:crypto's createHash for the process: its first JS_HASH_BUDGET bytes of SHA-256 in JavaScript (see above). */
export const createHash = coldCreateHash();
