/**
 * node:crypto's `createHash` as the command line's bundles see it (scripts/build.mjs `lazy-modules`
 * puts this one in its place there; everything else of node:crypto is Node's, loaded on first use).
 * Loading node:crypto costs a cold start about 5 ms, more than hashing a small session's contents
 * takes in JavaScript (issue 16), so SHA-256 is computed with @noble/hashes (which shared/hash.ts
 * bundles anyway) until the process has hashed JS_HASH_BUDGET bytes; then, and for any other
 * algorithm, node:crypto's own hash does the work, a hash under way handing it what it has taken.
 *
 * Invariant (sha256.test.ts, fast-check against node:crypto): the same digests, whatever the
 * updates (text in any encoding, bytes, buffers the caller reuses after the call) and wherever the
 * budget runs out.
 */
import type { BinaryToTextEncoding, Encoding, Hash } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';

/** Bytes a process hashes in JavaScript before it loads node:crypto (about a millisecond of hashing). */
export const JS_HASH_BUDGET = 256 * 1024;
let budget = JS_HASH_BUDGET;

/** Tests: sets the bytes left to hash in JavaScript. */
export function setJsHashBudget(bytes: number): void {
  budget = bytes;
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
  digest(): Buffer;
  digest(encoding: BinaryToTextEncoding): string;
}

class ColdSha256 implements ColdHash {
  private readonly js = sha256.create();
  /** Copies of what `js` has taken, for node's hash should the budget run out. */
  private taken: Uint8Array[] = [];
  private native: Hash | undefined;

  update(data: Data, encoding?: Encoding): this {
    const bytes = bytesOf(data, encoding);
    if (this.native === undefined && (bytes === undefined || bytes.length > budget)) {
      this.native = nodeCrypto().createHash('sha256');
      for (const chunk of this.taken) this.native.update(chunk);
      this.taken = [];
    }
    if (this.native !== undefined || bytes === undefined) {
      (this.native as Hash).update(data, encoding as Encoding);
      return this;
    }
    budget -= bytes.length;
    this.js.update(bytes);
    // A copy: the caller may reuse its buffer (Buffer#slice would be a view).
    this.taken.push(new Uint8Array(bytes));
    return this;
  }

  digest(): Buffer;
  digest(encoding: BinaryToTextEncoding): string;
  digest(encoding?: BinaryToTextEncoding): Buffer | string {
    const digest = this.native !== undefined ? this.native.digest() : Buffer.from(this.js.digest());
    this.taken = [];
    return encoding === undefined ? digest : digest.toString(encoding);
  }
}

/** node:crypto's createHash: SHA-256 starts in JavaScript (see above); anything else is Node's. */
export function createHash(algorithm: string, options?: object): ColdHash | Hash {
  return algorithm === 'sha256' && options === undefined ? new ColdSha256() : nodeCrypto().createHash(algorithm, options);
}
