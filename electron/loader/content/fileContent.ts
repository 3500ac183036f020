/**
 * A message's content read straight from the sidecar by byte range (a ByteSource): decoded from the
 * JSON string body window by window, from the nearest checkpoint, so a 64 KiB slice from the middle
 * of a 200 MB tool output reads a few hundred kilobytes. A body written with JSON.stringify's own
 * escapes is searched as raw file bytes, without decoding: a needle escaped the same way occurs in
 * the body at an escape boundary exactly where the content holds the needle.
 */
import { isUtf8 } from 'node:buffer';
import { fstatSync, readSync } from 'node:fs';
import type { ByteSource } from '../../../shared/index';
import { ContentUnavailableError } from '../../../shared/index';
import type { ReadSync } from '../common/lines';
import type { RawContent } from './rawRecord';
import { hashBody } from './rawRecord';
import { hashContentBody } from './contentHash';
import type { ContentServices } from './contentServices';
import type { ParallelScan, RawForm, RawScanner, ScanNeedle } from './rawScan';
import { byteFrequencies } from './rawScan';
import type { KeptBoundary } from './keptBoundary';
import { JsonStringError, JsonStringWalk, canonicalBody, decodedLength, isEscapeBoundary, locateDecoded, unescapeInto } from './jsonString';

const WINDOW_BYTES = 1024 * 1024;
/**
 * Raw bytes searched per read when a body is searched as raw bytes: small enough that the scan
 * after the read finds them in the CPU's cache (read + scan of the 256 MiB fixture: 42–47 ms of CPU
 * with 128–256 KiB windows, 55–59 ms with 1–4 MiB).
 */
const SEARCH_WINDOW_BYTES = 256 * 1024;
/** A body with more of the pool's occurrences than one per this many bytes reads its whole body (findAllDirect). */
const SPARSE_HIT_BYTES = 16 * 1024;
/** Bytes read past a window for a match of unbounded reach (findAllDirect): a longer one goes the decoded way. */
const DIRECT_UNBOUNDED_BYTES = 4 * 1024;

/**
 * Raw bytes to read for `decoded` more content bytes: as many plus a little, since most bytes are
 * literal; when escapes make that too few, the caller reads on.
 */
function rawNeeded(decoded: number): number {
  return Math.max(256, decoded + (decoded >> 4) + 64);
}

/** Bytes of the file a scanner's byte frequencies are learned from (see FileContent.sample), in SAMPLE_WINDOWS windows. */
const SAMPLE_BYTES = 64 * 1024;
const SAMPLE_WINDOWS = 8;

function unavailable(why: string): ContentUnavailableError {
  return new ContentUnavailableError(why);
}

/**
 * A needle as a canonical body writes it, and its scanner; null when it is not well-formed UTF-8
 * (its bytes then occur in no canonical body's raw form as they do in the content). The last one is
 * remembered in `scanners`: a search asks for the same one for each of thousands of contents.
 */
function rawForm(scanners: ContentServices['scanners'], needle: Uint8Array, sample: () => Uint8Array): RawForm | null {
  const last = scanners.lastForm;
  if (last !== null && last.copy.equals(needle)) return last.form;
  const copy = Buffer.from(needle);
  const text = copy.toString('utf8');
  const raw = !text.includes('\uFFFD') && Buffer.from(text, 'utf8').equals(copy) ? canonicalBody(text) : null;
  const form = raw === null ? null : { scanner: scanners.exactScanner(raw, () => byteFrequencies(sample())), needle: { exact: raw }, literal: raw.equals(copy) };
  scanners.lastForm = { copy, form };
  return form;
}

/** A message list that hands out the contents it keeps in the file without reading their records. */
export interface FileContentList {
  fileContent(index: number): FileContent | undefined;
}

/** Whether JSON string body bytes hold a backslash followed by `ud` or `uD` (where it is an escape, one of a surrogate; a literal backslash before it only makes the answer yes). */
export function hasSurrogateEscape(bytes: Uint8Array): boolean {
  for (let at = bytes.indexOf(0x5c); at !== -1 && at + 2 < bytes.length; at = bytes.indexOf(0x5c, at + 1)) {
    if (bytes[at + 1] === 0x75 && ((bytes[at + 2] as number) | 0x20) === 0x64) return true;
  }
  return false;
}

export class FileContent implements ByteSource {
  readonly length: number;

  constructor(
    private readonly fd: number,
    private readonly readFile: ReadSync,
    private readonly raw: RawContent,
    /** False once the session is closed: reads then fail. */
    private readonly isOpen: () => boolean,
    /** The load's buffers, scanners, hashing, prepared work and raw scan (contentServices.ts). */
    private readonly services: ContentServices,
  ) {
    this.length = raw.length;
  }

  /** Hashed while indexing for large contents, else on first use and remembered with the index. */
  get sha256(): string {
    if (this.raw.sha256 === undefined) {
      this.check();
      try {
        // Verified in the background since the open (backgroundVerify.ts), or hashed here: the
        // fast loop for the escapes JSON.stringify writes; the general decoder for the rest (and
        // for the error a malformed body deserves).
        const hashed = this.services.prepared.claimedHash(this.raw) ?? this.hashHere();
        if (hashed.length !== this.raw.length) throw unavailable('the content changed since it was indexed');
        this.raw.sha256 = hashed.sha256;
      } catch (e) {
        if (e instanceof JsonStringError) throw unavailable(e.message);
        throw e;
      }
    }
    return this.raw.sha256;
  }

  private hashHere(): { sha256: string; length: number } {
    this.services.events.hashComputed?.();
    const { hashing, scratch } = this.services;
    return (
      hashContentBody(this.fd, this.readFile, hashing.createHash, this.raw.start, this.raw.rawLength, hashing.decoder()) ??
      hashBody(this.fd, this.readFile, this.raw.start, this.raw.rawLength, WINDOW_BYTES, scratch)
    );
  }

  /**
   * The body, for a thread that hashes it or finds a boundary in it (backgroundVerify.ts): undefined
   * once closed, or when the content is read through an injected reader (which another thread
   * cannot call) rather than `fs.readSync`.
   */
  body(): { key: object; fd: number; start: number; rawLength: number; length: number; hashed: boolean; canonical: boolean } | undefined {
    if (!this.isOpen() || this.readFile !== readSync) return undefined;
    const { start, rawLength, length, canonical } = this.raw;
    return { key: this.raw, fd: this.fd, start, rawLength, length, hashed: this.raw.sha256 !== undefined, canonical };
  }

  /**
   * The content as JSON.stringify writes it, quotes included, copied from the file without decoding
   * it: the body between its quotes is that text when every escape in it is one JSON.stringify
   * writes (`canonical`: JSON requires the rest, quotes, backslashes and control characters, to be
   * escaped), its bytes are valid UTF-8 (a byte that is not would decode to U+FFFD), and it has no
   * escape of a lone surrogate (which `read` decodes to U+FFFD too). Undefined otherwise.
   */
  jsonText(): Buffer | undefined {
    if (!this.raw.canonical) return undefined;
    this.check();
    const quoted = Buffer.allocUnsafe(this.raw.rawLength + 2);
    quoted[0] = 0x22;
    quoted[quoted.length - 1] = 0x22;
    this.readRaw(quoted.subarray(1, quoted.length - 1), 0, this.raw.rawLength);
    // Checked already when policy replay kept the content in the file (`plain`).
    return this.raw.plain === true || (isUtf8(quoted) && !hasSurrogateEscape(quoted)) ? quoted : undefined;
  }

  /**
   * What a search's scanner learns the text's byte frequencies from (to pick the rarest piece of a
   * needle): SAMPLE_WINDOWS windows spread over the whole file, whose bytes are mostly the
   * contents a search reads, else (a file of at most SAMPLE_BYTES, or one whose size cannot be
   * had) the body's first raw bytes. One content's head alone said nothing of letters it lacks:
   * on the bench's 1 GiB sidecar the needle was scanned for from `Z`, 60% more common there than
   * `Q`, in 87–100 ms against 80–90 from `Q` (docs/search.md "The piece of a needle scanned for").
   */
  private sample(): Uint8Array {
    let size = 0;
    try {
      size = fstatSync(this.fd).size;
    } catch {
      size = 0;
    }
    if (size > SAMPLE_BYTES) {
      const window = SAMPLE_BYTES / SAMPLE_WINDOWS;
      const buf = Buffer.allocUnsafe(SAMPLE_BYTES);
      let filled = 0;
      for (let k = 0; k < SAMPLE_WINDOWS; k++) {
        const at = Math.floor(((size - window) * k) / (SAMPLE_WINDOWS - 1));
        const n = this.readFile(this.fd, buf, filled, window, at);
        if (n <= 0) break;
        filled += n;
      }
      if (filled > 0) return buf.subarray(0, filled);
    }
    const buf = Buffer.allocUnsafe(Math.min(this.raw.rawLength, SAMPLE_BYTES));
    return buf.subarray(0, this.readRaw(buf, 0, buf.length));
  }

  /** Character boundaries asked for before: a stub's kept prefix is asked for by every search. */
  private readonly boundaries = new Map<number, number>();

  /** The truncation's hidden-span start, found by the background thread (keptBoundary.ts). */
  private keptBoundary(): KeptBoundary | undefined {
    this.kept ??= this.services.prepared.keptBoundary(this.raw);
    return this.kept;
  }

  private kept: KeptBoundary | undefined;

  floorBoundary(offset: number): number {
    const known = this.boundaries.get(offset);
    if (known !== undefined) return known;
    const kept = this.keptBoundary();
    if (kept?.kept === offset) return kept.floored;
    this.services.events.keptBoundaryDecoded?.();
    const from = Math.max(0, offset - 3);
    const window = this.read(from, Math.min(this.length, offset + 1));
    let floored = offset;
    while (floored > from && ((window[floored - from] as number) & 0xc0) === 0x80) floored--;
    if (this.boundaries.size >= 4) this.boundaries.clear();
    this.boundaries.set(offset, floored);
    return floored;
  }

  private check(): void {
    if (!this.isOpen()) throw unavailable('the session is closed');
  }

  /** Reads `length` raw body bytes at raw offset `at` into `buf`. */
  private readRaw(buf: Buffer, at: number, length: number): number {
    let filled = 0;
    while (filled < length) {
      const n = this.readFile(this.fd, buf, filled, length - filled, this.raw.start + at + filled);
      if (n <= 0) throw unavailable('the file is shorter than when it was indexed');
      filled += n;
    }
    return filled;
  }

  /** Positions found by searches (just before each match), so the snippet around it reads little. */
  private readonly anchors: { raw: number; decoded: number }[] = [];

  private addAnchor(raw: number, decoded: number): void {
    const last = this.anchors[this.anchors.length - 1];
    if (last?.raw === raw) return;
    this.anchors.push({ raw, decoded });
    if (this.anchors.length > 8) this.anchors.shift();
  }

  private readonly oneByte = Buffer.alloc(1);

  /** The byte at raw body offset `i`. */
  private byteAt(i: number): number {
    this.readRaw(this.oneByte, i, 1);
    return this.oneByte[0] as number;
  }

  /** The last escape boundary at or before raw offset `pos` (and after `floor`). */
  private boundaryAtOrBefore(pos: number, floor: number): number {
    const start = Math.max(floor, pos - 64);
    const buf = Buffer.allocUnsafe(pos - start);
    this.readRaw(buf, start, pos - start);
    const byteAt = (i: number): number => (i >= start && i < pos ? (buf[i - start] as number) : this.byteAt(i));
    let q = pos;
    while (q > floor && !isEscapeBoundary(q, byteAt)) q--;
    return q;
  }

  /** The last checkpoint (or anchor) at or before a decoded (or raw) offset. */
  private checkpoint(offset: number, decoded: boolean): { raw: number; decoded: number } {
    const cps = this.raw.checkpoints;
    let best = { raw: 0, decoded: 0 };
    for (const a of this.anchors) {
      const at = decoded ? a.decoded : a.raw;
      if (at <= offset && at > (decoded ? best.decoded : best.raw)) best = a;
    }
    let lo = 0;
    let hi = cps.length / 2 - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const r = cps[mid * 2] as number;
      const d = cps[mid * 2 + 1] as number;
      if ((decoded ? d : r) <= offset) {
        if ((decoded ? d : r) > (decoded ? best.decoded : best.raw)) best = { raw: r, decoded: d };
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return best;
  }

  read(start: number, end: number): Uint8Array {
    const from = Math.max(0, Math.min(start, this.length));
    const to = Math.max(from, Math.min(end, this.length));
    const result = Buffer.allocUnsafe(to - from);
    this.readInto(from, to, result, 0);
    return result;
  }

  readInto(start: number, end: number, result: Uint8Array, at: number): void {
    this.check();
    const from = Math.max(0, Math.min(start, this.length));
    const to = Math.max(from, Math.min(end, this.length));
    if (to === from) return;
    let { raw: rawPos, decoded } = this.checkpoint(from, true);
    const raw = this.services.scratch.get('read-raw', WINDOW_BYTES);
    const out = this.services.scratch.get('read-out', WINDOW_BYTES);
    let filled = 0;
    /** Copies decoded bytes `[decoded, decoded + piece.length)` that fall in `[from, to)`. */
    const take = (piece: Uint8Array): void => {
      const a = Math.max(from, decoded);
      const b = Math.min(to, decoded + piece.length);
      if (a < b) {
        result.set(piece.subarray(a - decoded, b - decoded), at + a - from);
        filled += b - a;
      }
      decoded += piece.length;
    };
    // The WebAssembly walk decodes a tool output's escapes (one every line) several times faster
    // than unescapeInto's loop (docs/streaming-import.md); without WebAssembly, that loop.
    const walk = new JsonStringWalk({ sink: take, checkpointBytes: Number.MAX_SAFE_INTEGER });
    try {
      while (decoded < to) {
        if (rawPos >= this.raw.rawLength) throw unavailable('the content changed since it was indexed');
        const n = this.readRaw(raw, rawPos, Math.min(WINDOW_BYTES, this.raw.rawLength - rawPos, rawNeeded(to - decoded)));
        const final = rawPos + n >= this.raw.rawLength;
        let consumed: number;
        if (walk.decoding) {
          const r = walk.feed(raw, 0, n, rawPos, final);
          // A quote inside the body: not the bytes that were indexed.
          if ('close' in r) throw unavailable('the content changed since it was indexed');
          consumed = r.resume;
        } else {
          const r = unescapeInto(raw, 0, n, out, 0, final);
          take(out.subarray(0, r.written));
          consumed = r.consumed;
        }
        if (consumed === 0) throw unavailable('an escape is longer than a read window');
        rawPos += consumed;
      }
    } catch (e) {
      if (e instanceof JsonStringError) throw unavailable(e.message);
      throw e;
    }
    if (filled !== to - from) throw unavailable('the content changed since it was indexed');
  }

  /** The raw body offset of decoded offset `target` (a character boundary). */
  /** Raw offsets found before: a stub's hidden span starts at the same offset in every search. */
  private readonly rawOffsets = new Map<number, number>();

  private rawOffsetOf(target: number): number {
    if (target >= this.length) return this.raw.rawLength;
    if (target <= 0) return 0;
    const known = this.rawOffsets.get(target);
    if (known !== undefined) return known;
    const kept = this.keptBoundary();
    if (kept?.floored === target) return kept.raw;
    this.services.events.keptBoundaryDecoded?.();
    const found = this.locateRaw(target);
    if (this.rawOffsets.size >= 4) this.rawOffsets.clear();
    this.rawOffsets.set(target, found);
    return found;
  }

  private locateRaw(target: number): number {
    let { raw: rawPos, decoded } = this.checkpoint(target, true);
    const raw = this.services.scratch.get('read-raw', WINDOW_BYTES);
    for (;;) {
      if (decoded === target) return rawPos;
      const n = this.readRaw(raw, rawPos, Math.min(WINDOW_BYTES, this.raw.rawLength - rawPos, rawNeeded(target - decoded)));
      const r = locateDecoded(raw, 0, n, decoded, target, rawPos + n >= this.raw.rawLength);
      if ('at' in r) return rawPos + r.at;
      if (r.resume === 0) throw unavailable('an escape is longer than a read window');
      rawPos += r.resume;
      decoded = r.decoded;
      if (rawPos >= this.raw.rawLength) return this.raw.rawLength;
    }
  }

  /** The decoded offset of raw body offset `target` (an escape boundary), walking from `from`. */
  private decodedOffsetOf(target: number, from: { raw: number; decoded: number }): number {
    // An anchor a little before the match: the snippet around it then decodes from there. The walk
    // starts at or before it (a checkpoint just before the match would leave the snippet's start
    // before every anchor, to be decoded from the checkpoint before: up to 256 KiB per snippet).
    const want = Math.max(from.raw, target - 1024);
    const cp = this.checkpoint(want, false);
    const start = cp.raw > from.raw ? cp : from;
    const near = this.boundaryAtOrBefore(want, start.raw);
    const decodedNear = this.walk(start, near);
    // Anchors a little before the match and at it: the snippet, and a regex's window around the
    // match (the literal prefilter reads it at once), decode from there, not from a checkpoint.
    this.addAnchor(near, decodedNear);
    const decoded = this.walk({ raw: near, decoded: decodedNear }, target);
    this.addAnchor(target, decoded);
    return decoded;
  }

  /** Walks escapes from `from` to raw offset `target` (both escape boundaries): the decoded offset there. */
  private walk(from: { raw: number; decoded: number }, target: number): number {
    let { raw: rawPos, decoded } = from;
    const buf = this.services.scratch.get('walk', WINDOW_BYTES);
    while (rawPos < target) {
      const want = Math.min(buf.length, target - rawPos);
      const n = this.readRaw(buf, rawPos, want);
      // Cut before an escape that the window's end would split.
      let cut = n;
      if (rawPos + n < target) {
        const tail = buf.lastIndexOf(0x5c, n - 1);
        if (tail !== -1 && tail >= n - 12) cut = tail;
        while (cut > 0 && buf[cut - 1] === 0x5c) cut--;
        if (cut === 0) cut = n;
      }
      decoded += decodedLength(buf, 0, cut);
      rawPos += cut;
    }
    return decoded;
  }

  findAll(needle: Uint8Array, start: number, end: number, onMatch: (offset: () => number) => boolean): void {
    this.check();
    if (needle.length === 0 || end - start < needle.length) return;
    const form = rawForm(this.services.scanners, needle, () => this.sample());
    try {
      if (this.raw.canonical && form !== null) this.findRaw(form.scanner, form.needle, start, end, onMatch);
      else this.findDecoded(Buffer.from(needle), start, end, onMatch);
    } catch (e) {
      if (e instanceof JsonStringError) throw unavailable(e.message);
      throw e;
    }
  }

  /** The load's pool, when this body is searched over it as findRaw searches it: a canonical body read with fs.readSync (the pool's threads read the file so). */
  private scanPool(): ParallelScan | null {
    return this.raw.canonical && this.readFile === readSync ? this.services.parallelScan : null;
  }

  rawRange(start: number, end: number): { file: number; from: number; to: number } | undefined {
    if (this.scanPool() === null) return undefined;
    this.check();
    const body = this.raw.start;
    return { file: this.fd, from: body + this.rawOffsetOf(start), to: body + this.rawOffsetOf(end) };
  }

  /**
   * True only when the pool's list for `needle`'s raw form (ParallelScan.noneIn, while a search
   * runs) covers the file's `[from, to)` and holds no occurrence starting there: `findAll` over the
   * span `rawRange` gave that range then finds nothing (findRaw delivers only occurrences starting
   * in it). Asking drives the pool's scan as findRaw's asking does.
   */
  literalAbsence(needle: Uint8Array): ((file: number, from: number, to: number) => boolean) | null {
    const pool = this.scanPool();
    if (pool === null || needle.length === 0) return null;
    const form = rawForm(this.services.scanners, needle, () => this.sample());
    if (form === null) return null;
    return (file, from, to) => pool.noneIn(file, form.needle, form.scanner, from, to);
  }

  findAllFolded(query: string, start: number, end: number, onMatch: (offset: () => number, length: number) => boolean): boolean {
    this.check();
    // A canonical body writes letters, digits and printable ASCII as themselves and every other
    // character as its UTF-8 bytes, never as an escape: the folded forms are exact byte patterns.
    const scanner = this.raw.canonical && !query.includes('"') && !query.includes('\\') ? this.services.scanners.foldedScanner(query) : null;
    if (scanner === null) return false;
    if (end - start < query.length) return true;
    try {
      this.findRaw(scanner, { folded: query }, start, end, onMatch);
    } catch (e) {
      if (e instanceof JsonStringError) throw unavailable(e.message);
      throw e;
    }
    return true;
  }

  /**
   * ByteSource.findAllDirect over the raw body: in a canonical body a `rawSafe` pattern
   * matches only bytes written literally, and no match holds a backslash, so its matches in the
   * decoded content are exactly its matches in the raw bytes that start at an escape boundary (a
   * start inside an escape's tail, like the digits of `\u001b`, is skipped), at the same bytes.
   * The literal is found as findAll finds it; around each occurrence q the starts from
   * max(x, q − 4·before) to q are tried in order with the direct matcher, as scanCandidates does in
   * decoded text (x: where the next match may start). Only the offsets asked are walked to.
   */
  findAllDirect(
    literal: Uint8Array,
    direct: { matchAt(bytes: Uint8Array, start: number, end: number): number | undefined },
    before: number,
    reach: number,
    start: number,
    end: number,
    onMatch: (offset: () => number, length: number) => boolean,
  ): number | undefined {
    this.check();
    const form = this.raw.canonical ? rawForm(this.services.scanners, literal, () => this.sample()) : null;
    // A rawSafe literal is written as itself; anything else is left to the decoded search.
    if (form === null || !form.literal || !Number.isFinite(before)) return undefined;
    if (end - start < literal.length) return end;
    const scanner = form.scanner;
    try {
      const rawStart = this.rawOffsetOf(start);
      const rawEnd = this.rawOffsetOf(end);
      const walker = this.offsetWalker(rawStart, start);
      const maxBefore = 4 * before;
      // Bytes kept before a window's own part (starts up to maxBefore back, and the bytes an escape
      // boundary is told by) and after it (the longest match from a start in it).
      const pre = maxBefore + 16;
      // An unbounded reach (`x[0-9a-z]*`) reads DIRECT_UNBOUNDED_BYTES past a window's own part
      // (each window re-reads that much: 64 KiB per 256 KiB cost the regex row 15%); a match that
      // reaches the end of what was read is left to the decoded search (below).
      const post = Math.max(Number.isFinite(reach) ? 4 * reach : DIRECT_UNBOUNDED_BYTES, literal.length) + 4;
      const window = this.services.scratch.get('search', SEARCH_WINDOW_BYTES + pre + post);
      /** No match starts in [rawStart, x) but those reported; the last one ended at lastEnd ≤ x. */
      let x = rawStart;
      let lastEnd = rawStart;
      /** Set when a start's bytes are not well-formed UTF-8, or its match may run past the bytes read: the decoded search goes on from lastEnd. */
      let undecided = false;
      let stopped = false;
      /**
       * The literal at raw q, in `view` (raw bytes from `base`, `n` of them): the starts from
       * max(x, q − maxBefore) to q are tried in order. False when the search stops here.
       */
      const tryAt = (q: number, view: Buffer, base: number, n: number): boolean => {
        if (q < x) return true;
        const byteAt = (i: number): number => (i >= base && i < base + n ? (view[i - base] as number) : this.byteAt(i));
        for (let st = Math.max(x, q - maxBefore); st <= q; st++) {
          if (((view[st - base] as number) & 0xc0) === 0x80 || !isEscapeBoundary(st, byteAt)) continue;
          const e = direct.matchAt(view, st - base, n);
          // Not well-formed UTF-8 there, or a match that may go on past the bytes read.
          if (e === undefined || (e === n && base + n < rawEnd)) {
            undecided = true;
            return false;
          }
          if (e < 0) continue;
          const matchEnd = base + e;
          if (!onMatch(walker.offsetOf(st), matchEnd - st)) {
            stopped = true;
            return false;
          }
          lastEnd = x = matchEnd;
          return true;
        }
        x = q + 1;
        return true;
      };
      const hits = this.sparseHits(form.needle, scanner, rawStart, rawEnd);
      if (hits !== null) {
        // The pool listed the literal's occurrences: only the bytes around each are read.
        for (const q of hits) {
          if (q < x) continue;
          const base = Math.max(0, Math.max(x, q - maxBefore) - 16);
          const n = this.readRaw(window, base, Math.min(rawEnd, q + post) - base);
          if (!tryAt(q, window.subarray(0, n), base, n)) break;
        }
      } else {
        for (let pos = rawStart; pos < rawEnd && !undecided && !stopped; ) {
          const ownEnd = Math.min(rawEnd, pos + SEARCH_WINDOW_BYTES);
          const base = Math.max(0, pos - pre);
          const n = this.readRaw(window, base, Math.min(rawEnd, ownEnd + post) - base);
          const view = window.subarray(0, n);
          scanner.scan(view, Math.max(pos, x) - base, ownEnd - base, (i) => tryAt(base + i, view, base, n));
          pos = ownEnd;
        }
      }
      if (undecided) return walker.offsetOf(lastEnd)();
      return end;
    } catch (e) {
      if (e instanceof JsonStringError) throw unavailable(e.message);
      throw e;
    }
  }

  /**
   * Decoded offsets of raw match positions met in order from `rawStart` (decoded `start`): each is
   * computed only when asked, walking from the last one computed (so a search that asks for every
   * offset walks the body once).
   */
  private offsetWalker(rawStart: number, start: number): { offsetOf(p: number): () => number } {
    let last = { raw: rawStart, decoded: start };
    return {
      offsetOf: (p) => {
        const anchor = last;
        let memo: number | undefined;
        return () => {
          if (memo === undefined) {
            memo = this.decodedOffsetOf(p, anchor);
            last = { raw: p, decoded: memo };
          }
          return memo;
        };
      },
    };
  }

  /**
   * Searches the raw body for a needle's raw forms (`scanner`, `needle`), keeping the
   * leftmost-first, non-overlapping occurrences that start at escape boundaries. With the services'
   * ParallelScan (the worker's pool, while a search runs), the occurrences come from its scan of
   * the file around the body over both cores, and only the bytes before each are read here; else
   * the body is read here.
   */
  private findRaw(scanner: RawScanner, needle: ScanNeedle, start: number, end: number, onMatch: (offset: () => number, length: number) => boolean): void {
    const rawStart = this.rawOffsetOf(start);
    const rawEnd = this.rawOffsetOf(end);
    const walker = this.offsetWalker(rawStart, start);
    /** Where the last match reported ended: the next starts there or later. */
    let lastEnd = rawStart;
    const deliver = (p: number, length: number, byteAt: (i: number) => number): boolean => {
      // A match starting at an escape boundary is whole escapes and characters: its decoded offset is walked to.
      if (p < lastEnd || !isEscapeBoundary(p, byteAt)) return true;
      if (!onMatch(walker.offsetOf(p), length)) return false;
      lastEnd = p + length;
      return true;
    };
    const listed = this.poolHits(needle, scanner, rawStart, rawEnd);
    if (listed !== null) {
      const { hits, from } = listed;
      const body = this.raw.start;
      for (let h = from; h < hits.length; h += 2) {
        const p = (hits[h] as number) - body;
        const length = hits[h + 1] as number;
        if (p >= rawEnd) return;
        if (p + length > rawEnd || p < lastEnd) continue;
        if (!deliver(p, length, this.bytesBefore(p))) return;
      }
      return;
    }
    this.scanSerial(scanner, rawStart, rawEnd, () => lastEnd, deliver);
  }

  /**
   * The pool's occurrences of `needle` (the services' ParallelScan, while a search runs) when its list
   * covers this body's raw `[rawStart, rawEnd)`: the flat [file position, length] pairs, and the
   * index of the first pair at or after rawStart. Null when it has none (`sparseBytes`: see
   * ParallelScan.fileHits).
   */
  private poolHits(needle: ScanNeedle, scanner: RawScanner, rawStart: number, rawEnd: number, sparseBytes?: number): { hits: Float64Array; from: number } | null {
    const body = this.raw.start;
    // Only over the file as fs.readSync reads it: the pool's threads read it that way.
    const found = this.readFile === readSync ? this.services.parallelScan?.fileHits(this.fd, needle, scanner, body + rawStart, body + rawEnd, sparseBytes) : null;
    if (!found || found.start > body + rawStart || body + rawEnd > found.end) return null;
    const hits = found.hits;
    // The first occurrence at or after the span's start (pairs: even indexes are positions).
    let lo = 0;
    let hi = hits.length / 2;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((hits[2 * mid] as number) < body + rawStart) lo = mid + 1;
      else hi = mid;
    }
    return { hits, from: 2 * lo };
  }

  /**
   * The raw offsets in `[rawStart, rawEnd)` where the pool (the services' ParallelScan, while a
   * search runs) found `needle` in this body, when it listed them and they are sparse (at most one
   * per SPARSE_HIT_BYTES, and a few): reading a little around each then costs less than reading the
   * body. Null otherwise, and the caller reads the body.
   */
  private sparseHits(needle: ScanNeedle, scanner: RawScanner, rawStart: number, rawEnd: number): number[] | null {
    const listed = this.poolHits(needle, scanner, rawStart, rawEnd, SPARSE_HIT_BYTES);
    if (listed === null) return null;
    const { hits, from } = listed;
    const body = this.raw.start;
    const most = 4 + Math.floor((rawEnd - rawStart) / SPARSE_HIT_BYTES);
    const list: number[] = [];
    for (let h = from; h < hits.length && (hits[h] as number) < body + rawEnd; h += 2) {
      if (list.length >= most) return null;
      list.push((hits[h] as number) - body);
    }
    return list;
  }

  /** The bytes just before raw offset p, read at once, for `isEscapeBoundary` (which looks only there). */
  private bytesBefore(p: number): (i: number) => number {
    const from = Math.max(0, p - 16);
    const buf = Buffer.allocUnsafe(p - from);
    this.readRaw(buf, from, p - from);
    return (i) => (i >= from && i < p ? (buf[i - from] as number) : this.byteAt(i));
  }

  /**
   * Every occurrence starting in raw `[from, to)` (and from `after()` on) given to `deliver`, read in
   * windows of SEARCH_WINDOW_BYTES that overlap by the longest occurrence less one byte: an
   * occurrence starting in a window's own part lies wholly in it, and is reported there only.
   */
  private scanSerial(scanner: RawScanner, from: number, to: number, after: () => number, deliver: (p: number, length: number, byteAt: (i: number) => number) => boolean): void {
    const overlap = scanner.maxLength - 1;
    const window = this.services.scratch.get('search', SEARCH_WINDOW_BYTES + overlap);
    let pos = from;
    while (pos < to) {
      const n = this.readRaw(window, pos, Math.min(SEARCH_WINDOW_BYTES + overlap, to - pos));
      const view = window.subarray(0, n);
      const base = pos;
      const byteAt = (i: number): number => (i >= base && i < base + n ? (view[i - base] as number) : this.byteAt(i));
      const ownEnd = Math.min(to, base + SEARCH_WINDOW_BYTES);
      if (!scanner.scan(view, Math.max(0, after() - base), ownEnd - base, (i, length) => deliver(base + i, length, byteAt))) return;
      pos = ownEnd;
    }
  }

  /** Searches decoded windows (a body with other escapes, or a needle that has no escaped form). */
  private findDecoded(needle: Buffer, start: number, end: number, onMatch: (offset: () => number) => boolean): void {
    let pos = start;
    while (pos + needle.length <= end) {
      const to = Math.min(end, pos + SEARCH_WINDOW_BYTES + needle.length - 1);
      const window = Buffer.from(this.read(pos, to));
      let from = 0;
      let next = pos + Math.max(1, window.length - needle.length + 1);
      for (;;) {
        const i = window.indexOf(needle, from);
        if (i === -1) break;
        const offset = pos + i;
        if (!onMatch(() => offset)) return;
        from = i + needle.length;
        if (pos + from > next) next = pos + from;
      }
      if (to >= end) break;
      pos = next;
    }
  }
}
