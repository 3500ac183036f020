/**
 * How a scan of bytes `[start, end)` for a needle of at most `overlap + 1` bytes is split
 * into parts scanned on their own (on different threads), and their occurrences put back together.
 *
 * Invariant: the parts' own ranges `[start, end)` tile the whole in order, and each part reads
 * `[start, readEnd)` with `readEnd = min(limit, end + overlap)`. So an occurrence lying inside
 * `[start, limit)` starts in exactly one part's own range and lies wholly inside what that part
 * reads: each part reporting the occurrences that start in its own range, in order, and the lists
 * concatenated in part order, give every occurrence once, in order (the search pool keeps each
 * piece's list and joins them so: electron/worker/searchPool.ts).
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
