/**
 * Finding a needle in raw bytes at memchr speed. `Buffer.indexOf(needle)` runs a
 * Boyer-Moore-Horspool search at about 1 GB/s here; `Buffer.indexOf(byte)` is the C library's
 * memchr, several times faster. So, as ripgrep does, a scanner looks for the needle's rarest byte
 * with memchr and checks the needle around each hit. When hits come densely (the rare byte was not
 * rare in this text) it hands over to the plain search, so no text costs much more than before.
 *
 * A scanner reports every occurrence, overlapping ones included, in ascending order of start: the
 * caller chooses among them (leftmost-first, non-overlapping, at escape boundaries).
 */

export interface RawScanner {
  /** The most raw bytes one occurrence spans. */
  readonly maxLength: number;
  /**
   * Calls `onHit(i, length)` for each occurrence starting at i in `[from, to)` and ending within
   * `buf`, in ascending order of i, until `onHit` returns false; returns false when it did.
   */
  scan(buf: Buffer, from: number, to: number, onHit: (i: number, length: number) => boolean): boolean;
  /** An exact scanner's piece: where in the needle it starts (the pool's threads look for the same one). */
  readonly pieceAt?: number;
}

/**
 * How common a byte is in session text (tool output, code, JSON, prose), lower is rarer: a rough
 * rank, as ripgrep's byte-frequency table is. Only the order matters, and a wrong guess costs
 * speed, never a match.
 */
function byteRank(): Uint8Array {
  const rank = new Uint8Array(256).fill(40);
  const set = (chars: string, r: number) => {
    for (const c of chars) rank[c.charCodeAt(0)] = r;
  };
  for (let b = 0; b < 0x20; b++) rank[b] = 2;
  for (let b = 0x80; b < 0x100; b++) rank[b] = 10;
  rank[0x0a] = 60;
  rank[0x09] = 30;
  set('QXZJ', 4);
  set('KVWYUGBFHOq', 8);
  set('ABCDEILMNPRSTxzjkv', 14);
  set('`^~|@#$%&!?;<>{}[]*+', 12);
  set('0123456789', 30);
  set('wybgfpm', 45);
  set('-_.,:()"\'/=\\', 60);
  set('ucdlhrs', 70);
  set('aoint', 85);
  set(' e', 100);
  return rank;
}

/** A needle's raw form: its scanner, what it scans for, and whether that is the needle's own bytes (nothing escaped). */
export interface RawForm {
  scanner: RawScanner;
  needle: ScanNeedle;
  literal: boolean;
}

/**
 * The scanners made last, and the raw form of the needle asked for last (FileContent's rawForm): a
 * search asks for the same ones for each of thousands of contents. Held by a load's services
 * (contentServices.ts), not by this module.
 */
export class ScannerCache {
  private readonly exact = new Map<string, RawScanner>();
  private readonly folded = new Map<string, RawScanner | null>();
  /** The needle of the last raw form asked for (a copy), and its form. */
  lastForm: { copy: Buffer; form: RawForm | null } | null = null;

  /** A scanner for the exact bytes of `needle` (not empty); `freq` (byteFrequencies, asked only when one is made) guides its choice of piece. */
  exactScanner(needle: Buffer, freq?: () => Float64Array | undefined): RawScanner {
    return remembered(this.exact, needle.toString('latin1'), () => makeExactScanner(Buffer.from(needle), freq?.()));
  }

  /** foldedScanner's scanner for `query`, remembered. */
  foldedScanner(query: string): RawScanner | null {
    return remembered(this.folded, query, () => makeFoldedScanner(query));
  }
}

function remembered<T>(cache: Map<string, T>, key: string, make: () => T): T {
  const known = cache.get(key);
  if (known !== undefined || cache.has(key)) return known as T;
  if (cache.size >= 4) cache.clear();
  const value = make();
  cache.set(key, value);
  return value;
}

/**
 * How often each byte occurs in `sample` (a piece of the text to be searched), per byte: a scanner
 * given it picks the piece it looks for by the text's own frequencies rather than byteRank's guess
 * (in the bench's text Z is seven times as common as X, which byteRank ranks alike).
 */
export function byteFrequencies(sample: Uint8Array): Float64Array | undefined {
  if (sample.length < 4096) return undefined;
  const counts = new Float64Array(256);
  for (let i = 0; i < sample.length; i++) {
    const b = sample[i] as number;
    counts[b] = (counts[b] as number) + 1;
  }
  for (let b = 0; b < 256; b++) counts[b] = ((counts[b] as number) + 1) / sample.length;
  return counts;
}

export function makeExactScanner(needle: Buffer, freq?: Float64Array, pieceAt?: number): RawScanner {
  // After DENSE_AFTER candidates, a scan whose candidates come more often than one per DENSE_BYTES
  // hands the next DENSE_CHUNK bytes over to the plain search (locals, as in makeFoldedScanner).
  const DENSE_AFTER = 64;
  const DENSE_BYTES = 64;
  const DENSE_CHUNK = 64 * 1024;
  // Buffer.indexOf runs a needle shorter than 7 bytes as a linear search in C++ (memchr on its first
  // byte, then a compare): near the speed of reading, with no call into JS per false start. From 7
  // bytes on it runs Boyer-Moore-Horspool, about 1 GB/s here. So a longer needle is found by a piece
  // of it (SUB_BYTES at most, starting at its rarest byte), and checked whole around each hit.
  const SUB_BYTES = 6;
  const RANK = byteRank();
  const len = needle.length;
  const subLength = Math.min(len, SUB_BYTES);
  // The rarest first byte by rank; among bytes of one rank, by the text's frequencies when known (a
  // sample of one content: a guess too, so it only breaks ties; it picked X over Z in the bench's
  // text, a sixth of the false starts, where folded pieces chosen by it did worse than by rank).
  const rarer = (a: number, b: number) => (RANK[a] as number) < (RANK[b] as number) || (RANK[a] === RANK[b] && freq !== undefined && (freq[a] as number) < (freq[b] as number));
  let k = 0;
  for (let j = 1; j <= len - subLength; j++) if (rarer(needle[j] as number, needle[k] as number)) k = j;
  // A piece chosen elsewhere (by the thread that had the text's sample), when it fits.
  if (pieceAt !== undefined && Number.isInteger(pieceAt) && pieceAt >= 0 && pieceAt <= len - subLength) k = pieceAt;
  const sub = Buffer.from(needle.subarray(k, k + subLength));
  const whole = subLength === len;
  return {
    maxLength: len,
    pieceAt: k,
    scan(buf, from, to, onHit) {
      const limit = Math.min(to, buf.length - len + 1);
      let hits = 0;
      /** Where the count of hits started. */
      let since = from;
      let at = from + k;
      while (at < limit + k) {
        const c = buf.indexOf(sub, at);
        if (c === -1 || c >= limit + k) return true;
        const s = c - k;
        if ((whole || buf.compare(needle, 0, len, s, s + len) === 0) && !onHit(s, len)) return false;
        at = c + 1;
        if (!whole && ++hits >= DENSE_AFTER && c - since < hits * DENSE_BYTES) {
          // Every start up to s was looked at: the plain search takes the next DENSE_CHUNK bytes.
          const chunkEnd = Math.min(limit, s + 1 + DENSE_CHUNK);
          for (let i = buf.indexOf(needle, s + 1); i !== -1 && i < chunkEnd; i = buf.indexOf(needle, i + 1)) if (!onHit(i, len)) return false;
          at = chunkEnd + k;
          since = chunkEnd;
          hits = 0;
        }
      }
      return true;
    },
  };
}

/**
 * A scanner for a printable-ASCII query folded as RE2 folds case in a canonical JSON body (see
 * FileContent.findAllFolded): a letter matches either case, k also U+212A (E2 84 AA), s also
 * U+017F (C5 BF). The rare piece is one byte of the query that is not k or s (a letter counts as
 * its two cases, each found with memchr); a query of only k and s letters, or a dense text, is
 * searched with `fallback` (the folded pattern over the bytes read as Latin-1). Null for an empty
 * query or one outside printable ASCII.
 */
export function makeFoldedScanner(query: string): RawScanner | null {
  // After DENSE_AFTER candidates, a scan whose candidates come more often than one per DENSE_BYTES
  // hands the next DENSE_CHUNK bytes over to the plain search (locals, as in makeExactScanner).
  const DENSE_AFTER = 64;
  const DENSE_BYTES = 64;
  const DENSE_CHUNK = 64 * 1024;
  const RANK = byteRank();
  if (query.length === 0 || !/^[\x20-\x7e]*$/.test(query)) return null;
  const len = query.length;
  const lower = Buffer.from(query.toLowerCase(), 'latin1');
  const letter = new Uint8Array(len);
  for (let j = 0; j < len; j++) letter[j] = (lower[j] as number) >= 0x61 && (lower[j] as number) <= 0x7a ? 1 : 0;
  /** End of the match starting at s, or -1. */
  const matchAt = (buf: Buffer, s: number): number => {
    let p = s;
    const n = buf.length;
    for (let j = 0; j < len; j++) {
      if (p >= n) return -1;
      const c = lower[j] as number;
      const x = buf[p] as number;
      if (letter[j] === 0) {
        if (x !== c) return -1;
        p++;
      } else if ((x | 0x20) === c) p++;
      else if (c === 0x6b && x === 0xe2 && buf[p + 1] === 0x84 && buf[p + 2] === 0xaa) p += 3;
      else if (c === 0x73 && x === 0xc5 && buf[p + 1] === 0xbf) p += 2;
      else return -1;
    }
    return p;
  };
  const maxLength = [...lower].reduce((sum, c) => sum + (c === 0x6b ? 3 : c === 0x73 ? 2 : 1), 0);
  const pattern = foldedPattern(query);
  /** Every occurrence starting in [from, to) by the folded pattern (a dense text, or no rare piece). */
  const fallback = (buf: Buffer, from: number, to: number, onHit: (i: number, length: number) => boolean): boolean => {
    if (from >= to) return true;
    // Read as Latin-1, one character per byte: indexes are byte offsets.
    const hay = buf.toString('latin1', from, Math.min(buf.length, to + maxLength - 1));
    pattern.lastIndex = 0;
    for (let m = pattern.exec(hay); m !== null && from + m.index < to; m = pattern.exec(hay)) {
      if (!onHit(from + m.index, m[0].length)) return false;
      pattern.lastIndex = m.index + 1;
    }
    return true;
  };
  // The piece found with Buffer.indexOf: up to SUB_BYTES query bytes with at most two letters (each
  // letter doubles the variants searched: q, Q) and no k or s (whose folded forms are other bytes).
  // A piece shorter than 7 bytes is searched in C++ (see makeExactScanner), so only its hits cost
  // JS; the cost guessed from each variant's first byte (the bytes memchr stops at) picks it.
  const SUB_BYTES = 6;
  const weight = (byte: number) => ((RANK[byte] as number) / 14) ** 2;
  let k = -1;
  let subLength = 0;
  let best = Infinity;
  for (let j = 0; j < len; j++) {
    let letters = 0;
    for (let l = 1; l <= SUB_BYTES && j + l <= len; l++) {
      const c = lower[j + l - 1] as number;
      if (c === 0x6b || c === 0x73) break;
      letters += letter[j + l - 1] as number;
      if (letters > 2) break;
      const first = lower[j] as number;
      const firstCost = letter[j] === 1 ? weight(first) + weight(first - 0x20) : weight(first);
      // A one-byte piece hands each hit of its byte to JS.
      const cost = (1 << letters) + firstCost * (1 << (letters - (letter[j] as number))) * (l === 1 ? 10 : 1);
      if (cost < best || (cost === best && l > subLength)) {
        best = cost;
        k = j;
        subLength = l;
      }
    }
  }
  if (k === -1) {
    return {
      maxLength,
      scan(buf, from, to, onHit) {
        for (let a = from; a < to; a += DENSE_CHUNK) if (!fallback(buf, a, Math.min(to, a + DENSE_CHUNK), onHit)) return false;
        return true;
      },
    };
  }
  // Every case variant of the piece.
  let variants: Buffer[] = [Buffer.from(lower.subarray(k, k + subLength))];
  for (let j = 0; j < subLength; j++) {
    if (letter[k + j] !== 1) continue;
    variants = variants.flatMap((v) => {
      const upper = Buffer.from(v);
      upper[j] = (v[j] as number) - 0x20;
      return [v, upper];
    });
  }
  // The piece sits minPre to maxPre bytes after a match's start (k and s before it may take more bytes).
  const minPre = k;
  let maxPre = k;
  for (let j = 0; j < k; j++) maxPre += lower[j] === 0x6b ? 2 : lower[j] === 0x73 ? 1 : 0;
  return {
    maxLength,
    scan(buf, from, to, onHit) {
      const stop = to + maxPre;
      /** The next hit of each variant (-1: none left). */
      const next = new Array<number>(variants.length);
      /** Starts below this were tried already: each start is tried once, in ascending order. */
      let tried = from;
      /** Where the count of hits started. */
      let since = from;
      for (let v = 0; v < variants.length; v++) next[v] = buf.indexOf(variants[v] as Buffer, from + minPre);
      let hits = 0;
      for (;;) {
        // The nearest hit of any variant.
        let v = -1;
        for (let w = 0; w < variants.length; w++) if ((next[w] as number) !== -1 && (v === -1 || (next[w] as number) < (next[v] as number))) v = w;
        if (v === -1) return true;
        const c = next[v] as number;
        next[v] = buf.indexOf(variants[v] as Buffer, c + 1);
        if (c >= stop) return true;
        const last = Math.min(to - 1, c - minPre);
        for (let s = Math.max(tried, c - maxPre); s <= last; s++) {
          const e = matchAt(buf, s);
          if (e !== -1 && !onHit(s, e - s)) return false;
        }
        tried = Math.max(tried, last + 1);
        if (++hits >= DENSE_AFTER && c - since < hits * DENSE_BYTES) {
          // The pattern takes the next DENSE_CHUNK bytes of starts; the piece goes on after them.
          const chunkEnd = Math.min(to, tried + DENSE_CHUNK);
          if (!fallback(buf, tried, chunkEnd, onHit)) return false;
          if (chunkEnd >= to) return true;
          tried = chunkEnd;
          since = chunkEnd;
          hits = 0;
          for (let w = 0; w < variants.length; w++) if ((next[w] as number) !== -1 && (next[w] as number) < chunkEnd + minPre) next[w] = buf.indexOf(variants[w] as Buffer, chunkEnd + minPre);
        }
      }
    },
  };
}

/**
 * The raw-byte pattern (bytes read as Latin-1) of a printable-ASCII query folded as RE2 folds it:
 * a letter matches either case, k also U+212A (UTF-8 E2 84 AA) and s also U+017F (C5 BF).
 */
export function foldedPattern(query: string): RegExp {
  let source = '';
  for (const c of query) {
    const lower = c.toLowerCase();
    const upper = c.toUpperCase();
    if (lower === upper) source += c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
    else if (lower === 'k') source += '(?:[kK]|\u00e2\u0084\u00aa)';
    else if (lower === 's') source += '(?:[sS]|\u00c5\u00bf)';
    else source += `[${lower}${upper}]`;
  }
  return new RegExp(source, 'g');
}

/** What a raw scan looks for: exact bytes, or a printable-ASCII query folded as above. */
export type ScanNeedle = { exact: Uint8Array } | { folded: string };

/** A part of a file to scan: occurrences starting in `[start, end)`, reading up to `readEnd` (shared/search/scanSplit.ts). */
export interface ScanJob {
  fd: number;
  start: number;
  end: number;
  readEnd: number;
}

/** Outcome of scanning a part (`scanPart`). */
export const PART_DONE = 1;
export const PART_FAILED = 2;
export const PART_STOPPED = 3;
export const PART_FULL = 4;
/** The window a part is read in (scanPart); small enough that the scan finds it still in cache. */
export const SCAN_PART_WINDOW = 256 * 1024;

/**
 * Scans one part of a file with `scanner`, window by window: each occurrence starting in the part
 * (file position, length) goes to `onHit` (false: the part is full). `stopped` is looked at before
 * each window, `onWindow` called after each. Returns a PART_ outcome; a short read (the file is
 * shorter than when the scan began) fails the part, which the caller then scans on its own.
 * The pool's threads run it too (electron/worker/scanThread.ts).
 *
 * Windows are SCAN_PART_WINDOW bytes, read into `scratch.buf` (grown when too small, and kept by
 * the caller for the next part): a buffer allocated per part is fresh memory, and the kernel
 * faulted in every page of it during the read, which made a split search slower than one thread.
 */
export function scanPart(
  read: (fd: number, buffer: Uint8Array, offset: number, length: number, position: number) => number,
  job: ScanJob,
  scanner: RawScanner,
  onHit: (position: number, length: number) => boolean,
  stopped: () => boolean,
  onWindow: () => void,
  scratch: { buf: Buffer },
): number {
  const WINDOW = SCAN_PART_WINDOW;
  const overlap = scanner.maxLength - 1;
  const size = Math.min(WINDOW + overlap, Math.max(0, job.readEnd - job.start));
  if (scratch.buf.length < size) scratch.buf = Buffer.allocUnsafe(WINDOW + overlap);
  const buf = scratch.buf;
  let pos = job.start;
  while (pos < job.end) {
    if (stopped()) return 3;
    const want = Math.min(WINDOW + overlap, job.readEnd - pos);
    let n = 0;
    while (n < want) {
      const got = read(job.fd, buf, n, want - n, pos + n);
      if (got <= 0) return 2;
      n += got;
    }
    const base = pos;
    const ownEnd = Math.min(job.end, pos + WINDOW);
    if (!scanner.scan(buf.subarray(0, n), 0, ownEnd - base, (i, length) => onHit(base + i, length))) return 4;
    onWindow();
    pos = ownEnd;
  }
  return 1;
}

/**
 * Scans pieces of a file (flat [start, end, readEnd] triples, shared/search/scanSplit.ts) taken one at a
 * time with `next()` (a shared counter: whichever thread is free takes the next piece, so a thread
 * the system gives no time holds up at most the piece it has), until none is left. Its hits are
 * ascending, as the pieces it takes are; `onPiece(k, outcome)` hears each piece it ends. Returns a
 * PART_ outcome.
 */
export function scanPieces(
  read: (fd: number, buffer: Uint8Array, offset: number, length: number, position: number) => number,
  fd: number,
  pieces: ArrayLike<number>,
  next: () => number,
  scanner: RawScanner,
  onHit: (position: number, length: number) => boolean,
  stopped: () => boolean,
  onWindow: () => void,
  scratch: { buf: Buffer },
  onPiece?: (k: number, outcome: number) => void,
): number {
  for (;;) {
    const k = next();
    if (3 * k >= pieces.length) return 1;
    const outcome = scanPart(read, { fd, start: pieces[3 * k] as number, end: pieces[3 * k + 1] as number, readEnd: pieces[3 * k + 2] as number }, scanner, onHit, stopped, onWindow, scratch);
    onPiece?.(k, outcome);
    if (outcome !== 1) return outcome;
  }
}

/** Every occurrence in a range of a file, found over both cores (electron/worker/searchPool.ts). */
export interface FileHits {
  /** The occurrences starting in file bytes `[start, end)` are all here. */
  start: number;
  end: number;
  /** Flat [file position, length] pairs, every occurrence (overlapping ones too), ascending. */
  hits: Float64Array;
}

/** A scan of whole files over several threads. */
export interface ParallelScan {
  /**
   * Every occurrence of `needle` (found with `scanner`, the caller's: the threads look for the same
   * piece of it) starting in a range of the file open as `fd` that holds file bytes
   * `[start, end)`; null when it does not scan them (too few bytes, too many hits, stopped, closed,
   * or no search is running): the caller then reads them itself. With `sparseBytes`, also null once
   * a scan found more than one occurrence per `sparseBytes` bytes (a caller that reads around each
   * occurrence then reads its own bytes), and no more of the file is scanned for that needle.
   */
  fileHits(fd: number, needle: ScanNeedle, scanner: RawScanner, start: number, end: number, sparseBytes?: number): FileHits | null;
  /**
   * True only when `fileHits` over `[start, end)` would list occurrences and none of them starts in
   * it; asked as `fileHits` is (the scan goes on as far), without making a list to hand back.
   */
  noneIn(fd: number, needle: ScanNeedle, scanner: RawScanner, start: number, end: number): boolean;
}
