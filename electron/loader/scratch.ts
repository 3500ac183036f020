/**
 * Reusable read buffers. Content reads are synchronous and never nested within one purpose, so one
 * buffer per purpose serves every read: a search over 10,000 stubs allocates a few MiB once instead
 * of 10,000 times (allocation churn held gigabytes of garbage before a collection).
 */
const buffers = new Map<string, Buffer>();

/** A buffer of at least `size` bytes for `purpose`; valid until the next call for the same purpose. */
export function scratch(purpose: 'hash-raw' | 'hash-out' | 'read-raw' | 'read-out' | 'search' | 'walk', size: number): Buffer {
  const existing = buffers.get(purpose);
  if (existing && existing.length >= size) return existing;
  const buffer = Buffer.allocUnsafe(Math.max(size, existing?.length ?? 0));
  buffers.set(purpose, buffer);
  return buffer;
}
