/**
 * Reusable read buffers. Content reads are synchronous and never nested within one purpose, so one
 * buffer per purpose serves every read: a search over 10,000 stubs allocates a few MiB once instead
 * of 10,000 times (allocation churn held gigabytes of garbage before a collection). A load's
 * buffers belong to its services (contentServices.ts); an indexing pool thread keeps its own.
 */

/** What a scratch buffer is for. */
export type ScratchPurpose = 'hash-raw' | 'hash-out' | 'read-raw' | 'read-out' | 'search' | 'walk' | 'line';

export class ScratchBuffers {
  private readonly buffers = new Map<ScratchPurpose, Buffer>();

  /** A buffer of at least `size` bytes for `purpose`; valid until the next call for the same purpose. */
  get(purpose: ScratchPurpose, size: number): Buffer {
    const existing = this.buffers.get(purpose);
    if (existing && existing.length >= size) return existing;
    const buffer = Buffer.allocUnsafe(Math.max(size, existing?.length ?? 0));
    this.buffers.set(purpose, buffer);
    return buffer;
  }

  /** Lets the buffer of `purpose` go when it is longer than `keepBytes` (an idle thread holds little). */
  release(purpose: ScratchPurpose, keepBytes: number): void {
    if ((this.buffers.get(purpose)?.length ?? 0) > keepBytes) this.buffers.delete(purpose);
  }
}
