/**
 * A small seeded PRNG (mulberry32) and the draws the sample generator needs. Deterministic on every
 * platform: only 32-bit integer arithmetic, never Math.random or the clock.
 */

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('Rng.pick: no items');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** `n` distinct items in random order (all of them when `n` exceeds the count). */
  sample<T>(items: readonly T[], n: number): T[] {
    const pool = [...items];
    const out: T[] = [];
    while (out.length < n && pool.length > 0) out.push(pool.splice(Math.floor(this.next() * pool.length), 1)[0] as T);
    return out;
  }

  /** `n` lowercase hex digits. */
  hex(n: number): string {
    let s = '';
    while (s.length < n) s += Math.floor(this.next() * 16).toString(16);
    return s;
  }

  /** Base64 text of `n` random bytes, padded as an encoder writes it. */
  base64(nBytes: number): string {
    let s = '';
    for (let i = 0; i < nBytes; i += 3) {
      const left = nBytes - i;
      const chars = left >= 3 ? 4 : left + 1;
      for (let c = 0; c < chars; c++) s += BASE64[this.int(0, 63)];
      if (left < 3) s += '='.repeat(3 - left);
    }
    return s;
  }

  /**
   * An independent generator derived from this one's next draw, so that one part of the output can
   * change shape without shifting the draws of every part after it.
   */
  fork(): Rng {
    return new Rng(Math.floor(this.next() * 4294967296) ^ 0x9e3779b9);
  }
}
