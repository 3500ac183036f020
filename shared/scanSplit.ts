/**
 * Issue 16: how a scan of bytes `[start, end)` for a needle of at most `overlap + 1` bytes is split
 * into parts scanned on their own (on different threads), and their occurrences put back together.
 *
 * Invariant: the parts' own ranges `[start, end)` tile the whole in order, and each part reads
 * `[start, readEnd)` with `readEnd = min(limit, end + overlap)`. So an occurrence lying inside
 * `[start, limit)` starts in exactly one part's own range and lies wholly inside what that part
 * reads: each part reporting the occurrences that start in its own range, in order, and the lists
 * concatenated in part order, give every occurrence once, in order (`joinParts`).
 */
export interface ScanPart {
  start: number;
  end: number;
  readEnd: number;
}

/**
 * `parts` parts of near-equal size (fewer when the range has fewer bytes, one for an empty range);
 * `limit` (≥ end, default end) is how far a part may read past the range.
 */
export function splitScan(start: number, end: number, parts: number, overlap: number, limit = end): ScanPart[] {
  const count = Math.max(1, Math.min(Math.floor(parts), end - start));
  const out: ScanPart[] = [];
  for (let i = 0; i < count; i++) {
    const a = start + Math.floor(((end - start) * i) / count);
    const b = i === count - 1 ? end : start + Math.floor(((end - start) * (i + 1)) / count);
    out.push({ start: a, end: b, readEnd: Math.min(limit, b + Math.max(0, overlap)) });
  }
  return out;
}

/**
 * Occurrence lists (flat [position, length] pairs, each ascending by position, from disjoint
 * parts) merged into one ascending list: the parts' lists whichever thread scanned which part.
 */
export function mergeHits(lists: readonly (ArrayLike<number>)[]): Float64Array {
  const out = new Float64Array(lists.reduce((n, l) => n + l.length, 0));
  const at = lists.map(() => 0);
  for (let o = 0; o < out.length; o += 2) {
    let best = -1;
    for (let i = 0; i < lists.length; i++) {
      const l = lists[i] as ArrayLike<number>;
      const j = at[i] as number;
      if (j < l.length && (best === -1 || (l[j] as number) < ((lists[best] as ArrayLike<number>)[at[best] as number] as number))) best = i;
    }
    const l = lists[best] as ArrayLike<number>;
    const j = at[best] as number;
    out[o] = l[j] as number;
    out[o + 1] = l[j + 1] as number;
    at[best] = j + 2;
  }
  return out;
}
