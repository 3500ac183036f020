/**
 * Whether a session file is still the file that was indexed. Content is read back from disk on
 * every request while its hash was computed once (at indexing, or at a first expand), so bytes
 * rewritten in place would be served as verified. A guard is taken when the file is opened; every
 * request that serves bytes checks it before and after reading them (SessionGuard.bracket).
 *
 * What is compared: the descriptor's fstat (size, mtime, ctime, inode, device), the path's stat
 * (a file replaced by a rename or removed), and a hash of sampled blocks. A process can set mtime
 * back (utimes) but not ctime: any write or utimes moves it. Sampled blocks catch a rewrite within
 * one tick of a coarse ctime clock; a file of SAMPLE_ALL_BYTES or less is sampled whole.
 *
 * Invariant: if `change()` answers undefined before and after a read, no write reached the file
 * between the two checks except one that left size, both times and the sampled bytes as they were
 * (in practice: none, since a write moves ctime).
 *
 * The samples cost a read of a small file whole and its hash, worth it only for a file read after
 * it is indexed. A guard taken at the open (openFile.ts) holds the identity only, and its samples
 * are hashed when the loader knows the file will be read back (`takeSamples`, before the index
 * pass): a write between the open and the samples moved ctime, so the first check still reports it.
 * Every other file is read once, by its pass, and only its stats are ever asked (docs/library.md
 * "Scale": a listing opens thousands of such files, each read with its strings in memory).
 *
 * A followed file (SPEC §13, `follow`) may grow: then only its indexed prefix is compared — the
 * same file at the path (unless the path is gone: the descriptor still reads what was indexed), no
 * shorter than the prefix, the sampled blocks (all inside the prefix) unchanged. Its times move with every append and are not compared; a rewrite of the prefix that
 * keeps the sampled blocks is caught by the follower's next look (follow.ts) or by a hash.
 */
import { createHash } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import { fstatSync, readSync, statSync } from 'node:fs';

/** A file this small is sampled whole. */
export const SAMPLE_ALL_BYTES = 64 * 1024;
/** Otherwise: this many blocks, evenly spaced from the first byte to the last… */
export const SAMPLE_BLOCKS = 8;
/** …of this many bytes each. */
export const SAMPLE_BLOCK_BYTES = 4 * 1024;

interface Identity {
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  ino: bigint;
  dev: bigint;
}

function identity(s: BigIntStats): Identity {
  return { size: s.size, mtimeNs: s.mtimeNs, ctimeNs: s.ctimeNs, ino: s.ino, dev: s.dev };
}

/** What differs between two identities, in words; undefined when nothing does. */
function difference(was: Identity, now: Identity): string | undefined {
  if (now.ino !== was.ino || now.dev !== was.dev) return 'it was replaced by another file';
  if (now.size !== was.size) return `its size went from ${was.size} to ${now.size} bytes`;
  if (now.mtimeNs !== was.mtimeNs) return 'it was modified (its modification time moved)';
  if (now.ctimeNs !== was.ctimeNs) return 'it was written to or its times were reset (its status change time moved)';
  return undefined;
}

function reasonOf(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  return typeof code === 'string' ? code : e instanceof Error ? e.message : String(e);
}

/** A followed file's guard (SPEC §13): only bytes [0, prefix) are guarded; `pathless` once the path is gone (the descriptor still reads). */
export interface FollowedPrefix {
  prefix: number;
  pathless?: boolean;
}

export class FileGuard {
  private readonly opened: Identity;
  private readonly samples: readonly { offset: number; length: number }[];
  /** Undefined until the samples are taken (`takeSamples`). */
  private sampleHash: string | undefined;

  /**
   * Takes the identity of the file open at `fd`, as it is now, and hashes its samples unless
   * `samples` is false; throws what fstat throws. The guard reads the file itself (readSync), never
   * through a reader injected into the loader: it checks the file, not the reads a test makes fail.
   */
  constructor(
    readonly path: string,
    private readonly fd: number,
    private readonly follow?: FollowedPrefix,
    samples = true,
  ) {
    const opened = identity(fstatSync(fd, { bigint: true }));
    this.opened = follow ? { ...opened, size: BigInt(Math.min(follow.prefix, Number(opened.size))) } : opened;
    const size = Number(this.opened.size);
    const blocks: { offset: number; length: number }[] = [];
    if (size <= SAMPLE_ALL_BYTES) {
      if (size > 0) blocks.push({ offset: 0, length: size });
    } else {
      const last = size - SAMPLE_BLOCK_BYTES;
      for (let k = 0; k < SAMPLE_BLOCKS; k++) blocks.push({ offset: Math.floor((last * k) / (SAMPLE_BLOCKS - 1)), length: SAMPLE_BLOCK_BYTES });
    }
    this.samples = blocks;
    if (samples) this.takeSamples();
  }

  /**
   * Hashes the sampled blocks now, once (a guard taken without them). The identity stays the one
   * taken at construction, so a write in between is still a change.
   */
  takeSamples(): void {
    this.sampleHash ??= this.hashSamples() ?? '';
  }

  /** SHA-256 over the sampled blocks; undefined when they can no longer all be read. */
  private hashSamples(): string | undefined {
    const h = createHash('sha256');
    for (const { offset, length } of this.samples) {
      const buf = Buffer.allocUnsafe(length);
      let filled = 0;
      while (filled < length) {
        const n = readSync(this.fd, buf, filled, length - filled, offset + filled);
        if (n <= 0) return undefined;
        filled += n;
      }
      h.update(buf);
    }
    return h.digest('hex');
  }

  /**
   * Undefined while the file is the one that was opened; else what changed, in words. `light`
   * compares the stats only, not the sampled bytes (FileWatch.change); a full check of a guard
   * whose samples were never taken is a caller's error and throws.
   */
  change(light = false): string | undefined {
    let now: Identity;
    try {
      now = identity(fstatSync(this.fd, { bigint: true }));
    } catch (e) {
      return `it can no longer be read (${reasonOf(e)})`;
    }
    // The path first: a file renamed over it also moves the old file's ctime (its link count).
    if (this.follow?.pathless !== true) {
      let atPath: Identity;
      try {
        atPath = identity(statSync(this.path, { bigint: true }));
      } catch (e) {
        return `it was removed or renamed (${reasonOf(e)})`;
      }
      if (atPath.ino !== this.opened.ino || atPath.dev !== this.opened.dev) return 'it was replaced by another file (renamed over, or deleted and written again)';
    }
    const onDescriptor = this.follow ? (now.size < this.opened.size ? `its size went from ${this.opened.size} to ${now.size} bytes` : undefined) : difference(this.opened, now);
    if (onDescriptor) return onDescriptor;
    if (light) return undefined;
    if (this.sampleHash === undefined) throw new Error(`FileGuard of ${this.path}: a full check asks for samples that were never taken (takeSamples)`);
    let hashed: string | undefined;
    try {
      hashed = this.hashSamples();
    } catch (e) {
      return `it can no longer be read (${reasonOf(e)})`;
    }
    if (hashed !== this.sampleHash) return 'its content changed';
    return undefined;
  }
}
