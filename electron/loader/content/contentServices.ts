/**
 * What a loaded session's contents use besides their own file (docs/content-services.md): read
 * buffers, the needles' scanners, hashing, another thread's work for a body, the raw scan over
 * several threads. One object, made by whoever loads (`createContentServices`) and passed in the
 * load options (LoadOptions.services); the native source hands it to every FileContent and to its
 * indexer, and the background verifier (backgroundVerify.ts) writes what its thread found into the
 * same object's `prepared`. No module of the loader keeps any of it: a reader follows each
 * dependency from the call site, and a test gives its own.
 */
import { createHash } from 'node:crypto';
import type { ContentHash, EscapeDecoder, HashClaim } from './contentHash';
import { DECODER_WINDOW, decoderModules, jsEscapeDecoder, wasmEscapeDecoder } from './contentHash';
import type { KeptBoundary } from './keptBoundary';
import type { ParallelScan } from './rawScan';
import { ScannerCache } from './rawScan';
import { ScratchBuffers } from './scratch';

/** Hashing a content body where it is asked (FileContent's `sha256`). */
export interface ContentHashing {
  /** node:crypto's createHash (the command line's bundle puts its cold SHA-256 in its place: scripts/build.mjs). */
  readonly createHash: typeof createHash;
  /** The escape decoder of the fast hashing loop (contentHash.ts): WebAssembly where it can be had, else JavaScript. */
  decoder(): EscapeDecoder;
}

/** The hashing of `createContentServices`: node:crypto, and a decoder made on first use and kept. */
export function contentHashing(): ContentHashing {
  let decoder: EscapeDecoder | undefined;
  return {
    createHash,
    decoder: () => (decoder ??= wasmEscapeDecoder(decoderModules(), DECODER_WINDOW) ?? jsEscapeDecoder(DECODER_WINDOW)),
  };
}

/**
 * Work another thread does for a content body (backgroundVerify.ts), keyed by the body's place in
 * the file (its RawContent): the hash it may be computing, and the kept boundary it may have found.
 * The verifier offers them; FileContent takes them.
 */
export class PreparedBodies {
  private readonly claims = new WeakMap<object, HashClaim>();
  private readonly kept = new WeakMap<object, () => KeptBoundary | undefined>();

  /** Another thread may hash `body`: `claim.take()` answers its hash, or undefined when the asker is to hash it. */
  offerHash(body: object, claim: HashClaim): void {
    this.claims.set(body, claim);
  }

  /** The hash another thread computed for `body`, if one was to; the claim is used once. */
  claimedHash(body: object): ContentHash | undefined {
    const claim = this.claims.get(body);
    if (!claim) return undefined;
    this.claims.delete(body);
    return claim.take();
  }

  /** Another thread is finding `body`'s kept boundary: `lookup` answers it once found. */
  offerKeptBoundary(body: object, lookup: () => KeptBoundary | undefined): void {
    this.kept.set(body, lookup);
  }

  /** The boundary another thread found for `body`, if it has (a look at shared memory; no wait). */
  keptBoundary(body: object): KeptBoundary | undefined {
    return this.kept.get(body)?.();
  }
}

/** What the contents report doing themselves (tests count them; nothing else listens). */
export interface ContentEvents {
  /** A content's hash computed on the asking thread (not taken from another thread). */
  hashComputed?(): void;
  /** A kept boundary (a floor or a raw offset) decoded on the asking thread. */
  keptBoundaryDecoded?(): void;
}

/** Everything a load's contents use besides their file; see the file's comment. */
export interface ContentServices {
  /** Reusable read buffers, one per purpose. */
  readonly scratch: ScratchBuffers;
  /** The scanners of the needles searched last, and the raw form of the last needle. */
  readonly scanners: ScannerCache;
  readonly hashing: ContentHashing;
  /** Another thread's hashes and kept boundaries (backgroundVerify.ts writes, FileContent reads). */
  readonly prepared: PreparedBodies;
  /** Raw searches over several threads while a search runs (the worker's SearchPool); null: each content reads its own bytes. */
  readonly parallelScan: ParallelScan | null;
  readonly events: ContentEvents;
}

/**
 * The hashing every load on this thread shares unless given its own: compiling the decoder's
 * WebAssembly costs 10–400 ms here, which a process opening many sessions (a test, a fuzzer) would
 * otherwise pay per load. It holds no state a load could see: its decoder's buffers are scratch,
 * used synchronously (hashContentBody).
 */
const threadHashing = contentHashing();

/**
 * Fresh services: nothing shared with any other load but this thread's hashing (above); `given`
 * replaces any part (the worker gives its pool, tests their counters).
 */
export function createContentServices(given: Partial<ContentServices> = {}): ContentServices {
  return {
    scratch: given.scratch ?? new ScratchBuffers(),
    scanners: given.scanners ?? new ScannerCache(),
    hashing: given.hashing ?? threadHashing,
    prepared: given.prepared ?? new PreparedBodies(),
    parallelScan: given.parallelScan ?? null,
    events: given.events ?? {},
  };
}
