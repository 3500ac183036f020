/**
 * What the background verifier (backgroundVerify.ts) and its thread (verifyThread.ts) share: the
 * states of a content's slot, and the thread's start data and one message. Every content has one
 * slot in shared memory:
 *
 *   PENDING → THREAD (the thread hashes it) → DONE (digest and length written) | FAILED
 *   PENDING → HERE (the asking thread hashes it itself)
 */
export const PENDING = 0;
export const THREAD = 1;
export const HERE = 2;
export const DONE = 3;
export const FAILED = 4;

/** The thread's workerData: the escape decoder's WebAssembly modules, best first, and its window. */
export interface VerifyThreadData {
  wasm: readonly Uint8Array[];
  window: number;
}

/** The thread's one message, per content k: where its body is, whether to hash it, the kept boundary to find (0: none), and the shared memory to write. */
export interface VerifyWork {
  fds: number[];
  starts: number[];
  rawLengths: number[];
  hashes: boolean[];
  kepts: number[];
  /** Int32 per content: its hash slot's state. */
  slots: SharedArrayBuffer;
  /** Float64 per content: the decoded length hashed. */
  lengths: SharedArrayBuffer;
  /** 32 bytes per content: the SHA-256 digest. */
  digests: SharedArrayBuffer;
  /** Two Float64 per content: the kept boundary's floor and its raw offset. */
  bounds: SharedArrayBuffer;
  /** Int32 per content: its kept boundary's state (DONE once both numbers are written). */
  boundSlots: SharedArrayBuffer;
  /** One Int32: 1 once the thread is to stop. */
  control: SharedArrayBuffer;
}

/** The thread's answer when it has ended. */
export interface VerifyDone {
  hashed: number;
  located: number;
}
