/**
 * How a full cache takes a new entry. `least-recently-used` (the worker's, whose reads follow a
 * page around the session) evicts the entries read longest ago. `first-kept` (the one-shot
 * commands', docs/worker.md "One-shot caches keep what they read first") evicts nothing: once
 * full, a new entry is not kept. A one-shot command walks the session in file order, several
 * times; a least-recently-used cache smaller than a walk evicts every message before the next walk
 * reaches it again, and so keeps nothing it is asked for, at the cost of an insert and an eviction
 * per read.
 */
export type CachePolicy = 'least-recently-used' | 'first-kept';

/**
 * A cache budgeted in bytes (the content bytes of the messages it holds, not entries), so a few
 * huge tool outputs cannot crowd out memory while many small ones stay cached, least recently
 * used first out unless its policy is `first-kept`. An entry larger than the whole budget is
 * never stored: the caller still returns it.
 */
export class MessageCache<V> {
  /**
   * Keyed by a number that names the entry (a record's line, a text's offset): a string made at
   * each read was hashed at each lookup, some 0.8 s of `view`'s 13 s on the e2e suite's scale
   * session (docs/worker.md "One-shot caches keep what they read first"). Map iteration order is
   * insertion order: the first key is the least recently used, or the first taken.
   */
  private readonly entries = new Map<number, { value: V; bytes: number }>();
  private used = 0;

  constructor(
    readonly budgetBytes: number,
    readonly policy: CachePolicy = 'least-recently-used',
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get usedBytes(): number {
    return this.used;
  }

  get(key: number): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (this.policy === 'least-recently-used') {
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry.value;
  }

  /** Stores `value`, charging `bytes` to the budget; returns false when it is too large to keep. */
  set(key: number, value: V, bytes: number): boolean {
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.entries.delete(key);
      this.used -= old.bytes;
    }
    // An empty message still costs an entry; charge it one byte so the count stays bounded too.
    const cost = Math.max(1, bytes);
    if (cost > this.budgetBytes) return false;
    if (this.used + cost > this.budgetBytes && this.policy === 'first-kept') return false;
    if (this.used + cost > this.budgetBytes) {
      // Evict down to 90% of the budget in one pass: a Map iterator starts at its first slot and
      // walks over every slot deleted since the table was last compacted, so evicting one entry per
      // insert, each with a new iterator, cost O(entries) per insert (a check over a million
      // messages spent 50 s here).
      const target = Math.min(this.budgetBytes - cost, Math.floor(this.budgetBytes * 0.9));
      for (const [key, entry] of this.entries) {
        if (this.used <= target) break;
        this.entries.delete(key);
        this.used -= entry.bytes;
      }
    }
    this.entries.set(key, { value, bytes: cost });
    this.used += cost;
    return true;
  }

  clear(): void {
    this.entries.clear();
    this.used = 0;
  }
}
