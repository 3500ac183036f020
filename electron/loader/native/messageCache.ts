/**
 * A least-recently-used cache budgeted in bytes (the content bytes of the messages it holds, not
 * entries), so a few huge tool outputs cannot crowd out memory while many small ones stay cached.
 * An entry larger than the whole budget is never stored: the caller still returns it.
 */
export class MessageCache<V> {
  /** Map iteration order is insertion order: the first key is the least recently used. */
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private used = 0;

  constructor(readonly budgetBytes: number) {}

  get size(): number {
    return this.entries.size;
  }

  get usedBytes(): number {
    return this.used;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Stores `value`, charging `bytes` to the budget; returns false when it is too large to keep. */
  set(key: string, value: V, bytes: number): boolean {
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.entries.delete(key);
      this.used -= old.bytes;
    }
    // An empty message still costs an entry; charge it one byte so the count stays bounded too.
    const cost = Math.max(1, bytes);
    if (cost > this.budgetBytes) return false;
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
