import { closeSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { SearchMode } from '../../shared/index';
import { ptrHash, sha256Hex, stubText, utf8Encode } from '../../shared/index';
import type { Reduction } from '../../shared/index';
import { loadSession } from '../loader/session';
import type { RawScanner, ScanNeedle } from '../loader/content/rawScan';
import { ScannerCache } from '../loader/content/rawScan';
import { createContentServices } from '../loader/content/contentServices';
import { FileContent } from '../loader/content/fileContent';
import { makeHeader, messageRecord, reductionRecord, tempDir, writeSidecar } from '../../tools/testing/files';
import { SPLIT_MIN_CORES, SearchPool, idleCore } from './searchPool';

const tmp = tempDir('search-pool-');
afterAll(() => tmp.cleanup());
let files = 0;

/** A sidecar whose tool outputs (each read from the file by range, as a large output is) are all elided. */
function sidecarOf(outputs: readonly string[]): string {
  const records: object[] = [makeHeader({ session_id: 's-pool' }), messageRecord(0, { role: 'user', content: 'go' })];
  const reductions: Reduction[] = [];
  outputs.forEach((content, k) => {
    const index = 2 + 2 * k;
    records.push(messageRecord(index - 1, { role: 'assistant', content: '', tool_calls: [{ id: `call_${k}`, name: 'shell', arguments: '{}' }] }));
    records.push(messageRecord(index, { role: 'tool', tool_call_id: `call_${k}`, content }));
    const bytes = utf8Encode(content).length;
    reductions.push({ id: `r${k}`, kind: 'tool_output_elided', ptr: { index, hash: ptrHash(sha256Hex([utf8Encode(content)])), bytes }, stub: stubText(`r${k}`, 'tool_output_elided', bytes), minted_at: index + 1 });
  });
  return writeSidecar(tmp.path(`p${++files}.sidecar.jsonl`), [...records, ...reductions.map(reductionRecord)]);
}

/** Outputs of 4 KiB or more (read by range), from pieces that make escapes, K, ſ, é and the queries' pieces. */
const outputArb = fc
  .array(fc.constantFrom('ab', 'Ab', 'needle', 'NEEDLE', '\n', '"', '\\', 'k', 'K', '\u212A', 's', '\u017F', 'é', '😀', 'x', ' ', 'TS1234'), { minLength: 1, maxLength: 40 })
  .chain((pieces) => fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 60 }).map((picked) => picked.join('')))
  .map((unit) => unit.repeat(Math.ceil(4200 / Math.max(1, unit.length))));
const queryArb: fc.Arbitrary<{ query: string; mode: SearchMode; case_sensitive: boolean }> = fc.oneof(
  fc.record({ query: fc.constantFrom('needle', 'ab', 'b\n', '"a', 'k', 'sK', 'Ks', 'é', '\\'), mode: fc.constant('substring' as const), case_sensitive: fc.boolean() }),
  fc.record({ query: fc.constantFrom('needle[a-z ]*', 'TS\\d{4}', 'ab+', 'abab[ab]*', 'x?needle'), mode: fc.constant('regex' as const), case_sensitive: fc.constant(true) }),
);

/** Runs `body` over a file holding `content` (or `content` zero bytes) and a pool made by `make`; both are closed after. */
async function withFile(content: string | number, make: () => SearchPool, body: (fd: number, pool: SearchPool) => void): Promise<void> {
  const fd = openSync(tmp.path(`f${++files}.bin`), 'w+');
  if (typeof content === 'number') ftruncateSync(fd, content);
  else writeSync(fd, content);
  const pool = make();
  try {
    body(fd, pool);
  } finally {
    closeSync(fd);
    await pool.close();
  }
}

/** The scanner a content hands the pool with a needle (FileContent's, remembered as a load's services remember it). */
const scanners = new ScannerCache();
function scannerOf(needle: ScanNeedle): RawScanner {
  const scanner = 'exact' in needle ? scanners.exactScanner(Buffer.from(needle.exact)) : scanners.foldedScanner(needle.folded);
  if (scanner === null) throw new Error('no scanner for this needle');
  return scanner;
}

describe('SearchPool (raw searches over both cores)', () => {
  it('a search over the pool finds exactly what one thread finds: matches, counts and snippets, for any split', async () => {
    const pools: SearchPool[] = [];
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(outputArb, { minLength: 1, maxLength: 4 }), queryArb, fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 9000 }), fc.integer({ min: 1, max: 3000 }), async (outputs, q, threads, chunkBytes, pieceBytes) => {
          // Each run's pool is closed with it: its threads would otherwise stay up beside the next runs'.
          const pool = new SearchPool({ threads, minBytes: 1, chunkBytes, pieceBytes, split: () => true });
          pools.push(pool);
          // The pool answers only between begin and end: the search before begin runs on this thread alone.
          const loaded = await loadSession([sidecarOf(outputs)], { services: createContentServices({ parallelScan: pool }) });
          if (!loaded.ok) throw new Error(loaded.error.message);
          const { session } = loaded;
          try {
            const options = { mode: q.mode, case_sensitive: q.case_sensitive, max_matches: 1000 };
            const alone = session.search(q.query, options);
            pool.begin();
            const before = pool.windowsRead();
            const pooled = session.search(q.query, options);
            const read = pool.windowsRead() - before;
            pool.end();
            await pool.close();
            expect(pooled).toEqual(alone);
            // The pool did the reading of every substring it can find as raw bytes (a folded one: printable ASCII, no quote or backslash).
            if (q.mode === 'substring' && (q.case_sensitive || /^[\x20-\x7e]+$/.test(q.query.replace(/["\\]/g, '\u0001')))) expect(read).toBeGreaterThan(0);
          } finally {
            session.close();
          }
        }),
        { numRuns: 20 },
      );
    } finally {
      await Promise.all(pools.map((p) => p.close()));
    }
    // Each run starts up to three threads, and a search's end waits for them to leave its chunk: on a
    // loaded machine starting a thread takes seconds.
  }, 180_000);

  it('a regex whose literal is sparse is matched around the occurrences the pool listed, with what one thread finds', async () => {
    // Long outputs with a few needles, escapes before them (raw offsets differ from decoded ones),
    // one match running to the end of its content and one whose start is before its literal.
    const filler = (n: number) => 'log line\n\t"quoted" é 😀 '.repeat(n);
    const outputs = [
      `${filler(3000)}xneedle one${filler(2000)}needle two${filler(10)}`,
      `${filler(4000)}xx needle${filler(500)}`,
      `${filler(2000)}needle tail`,
    ];
    const pool = new SearchPool({ threads: 1, minBytes: 1, split: () => true });
    const loaded = await loadSession([sidecarOf(outputs)], { services: createContentServices({ parallelScan: pool }) });
    if (!loaded.ok) throw new Error(loaded.error.message);
    const { session } = loaded;
    const listed = vi.spyOn(FileContent.prototype as unknown as { sparseHits(...args: unknown[]): number[] | null }, 'sparseHits');
    try {
      for (const query of ['needle[a-z ]*', 'x?needle [a-z]+', 'e t[a-z]*']) {
        const options = { mode: 'regex' as const, case_sensitive: true, max_matches: 1000 };
        const alone = session.search(query, options);
        listed.mockClear();
        pool.begin();
        const pooled = session.search(query, options);
        pool.end();
        expect(pooled).toEqual(alone);
        expect(alone.ok && alone.value.total_matches).toBeGreaterThan(0);
        // A match may start before its literal (`x?`): 'xneedle one' is found whole.
        if (query.startsWith('x?')) expect(pooled.ok && pooled.value.matches.some((m) => m.length === 'xneedle one'.length)).toBe(true);
        // Every content was matched from the pool's list.
        expect(listed.mock.results.map((r) => Array.isArray(r.value))).toEqual([true, true, true]);
      }
    } finally {
      listed.mockRestore();
      session.close();
      await pool.close();
    }
  });

  it('stops within a piece per thread once the search is cancelled mid-scan', async () => {
    const epoch = new SharedArrayBuffer(4);
    let ownWindows = 0;
    let atCancel = -1;
    let pool: SearchPool | undefined;
    const make = () =>
      (pool = new SearchPool({
        threads: 2,
        minBytes: 1,
        chunkBytes: 64 * 1024 * 1024,
        pieceBytes: 256 * 1024,
        split: () => true,
        // The calling thread's first window (of the first piece, always its own) cancels the
        // search, as a new search's epoch would.
        onOwnWindow: () => {
          if (++ownWindows === 1) {
            Atomics.store(new Int32Array(epoch), 0, 1);
            atCancel = pool?.windowsRead() ?? -1;
          }
        },
      }));
    await withFile(64 * 1024 * 1024, make, (fd, p) => {
      p.begin({ epoch, slot: 0, value: 0 });
      expect(p.fileHits(fd, { exact: Buffer.from('needle') }, scannerOf({ exact: Buffer.from('needle') }), 0, 100)).toBeNull();
      p.end();
      // 256 pieces: after the cancel, each thread finishes at most the piece it had.
      expect(atCancel).toBeGreaterThan(0);
      expect(p.windowsRead() - atCancel).toBeLessThanOrEqual(2);
      expect(p.windowsRead()).toBeLessThan(256);
    });
  });

  it('gives up on a needle with more occurrences than it keeps, once per search', async () => {
    const make = () => new SearchPool({ threads: 1, minBytes: 1, chunkBytes: 16 * 1024, pieceBytes: 4096, maxHits: 100, split: () => true });
    await withFile('ab'.repeat(64 * 1024), make, (fd, pool) => {
      pool.begin();
      const needle = { exact: Buffer.from('a') };
      expect(pool.fileHits(fd, needle, scannerOf(needle), 0, 10)).toBeNull();
      const read = pool.windowsRead();
      // The contents after it read their own bytes: the pool scans no further chunk.
      expect(pool.fileHits(fd, needle, scannerOf(needle), 20_000, 20_010)).toBeNull();
      expect(pool.fileHits(fd, needle, scannerOf(needle), 60_000, 60_010)).toBeNull();
      expect(pool.windowsRead()).toBe(read);
      // Another needle, in the next search, is listed: none of its occurrences is there.
      pool.end();
      pool.begin();
      expect(pool.fileHits(fd, { exact: Buffer.from('abb') }, scannerOf({ exact: Buffer.from('abb') }), 100_000, 100_010)?.hits).toHaveLength(0);
      expect(pool.windowsRead()).toBeGreaterThan(read);
      pool.end();
    });
  });

  it('asked for sparse occurrences, gives up on a denser needle once per search, and scans no further', async () => {
    const make = () => new SearchPool({ threads: 1, minBytes: 1, chunkBytes: 16 * 1024, pieceBytes: 4096, split: () => true });
    await withFile('ab'.repeat(64 * 1024), make, (fd, pool) => {
      pool.begin();
      // 8,192 occurrences in the first 16 KiB: far more than one per KiB.
      expect(pool.fileHits(fd, { exact: Buffer.from('a') }, scannerOf({ exact: Buffer.from('a') }), 0, 10, 1024)).toBeNull();
      const read = pool.windowsRead();
      expect(read).toBeGreaterThan(0);
      expect(pool.fileHits(fd, { exact: Buffer.from('a') }, scannerOf({ exact: Buffer.from('a') }), 20_000, 20_010, 1024)).toBeNull();
      expect(pool.windowsRead()).toBe(read);
      // A needle that is sparse enough is listed.
      expect(pool.fileHits(fd, { exact: Buffer.from('abb') }, scannerOf({ exact: Buffer.from('abb') }), 40_000, 40_010, 1024)?.hits).toHaveLength(0);
      pool.end();
    });
  });

  it('after a chunk mostly asked for, scans on to the end of the file; after a sparse one, only the content asked', async () => {
    const size = 8 * 1024 * 1024;
    const make = () => new SearchPool({ threads: 1, minBytes: 1, chunkBytes: 1024 * 1024, minThreadShare: 0, split: () => true });
    await withFile(size, make, (fd, pool) => {
      const needle = { exact: Buffer.from('needle') };
      pool.begin();
      expect(pool.fileHits(fd, needle, scannerOf(needle), 0, 600 * 1024)?.start).toBe(0);
      expect(pool.scanning()).toEqual({ start: 0, end: 1024 * 1024 });
      // More than half of the first chunk was asked for: the next runs to the end.
      expect(pool.fileHits(fd, needle, scannerOf(needle), 1024 * 1024 - 10, 1024 * 1024 + 10)?.start).toBe(1024 * 1024 - 10);
      expect(pool.scanning()).toEqual({ start: 1024 * 1024 - 10, end: size });
      pool.end();
      pool.begin();
      expect(pool.fileHits(fd, needle, scannerOf(needle), 0, 100)?.start).toBe(0);
      expect(pool.scanning()).toEqual({ start: 0, end: 1024 * 1024 });
      // A hundred bytes of a megabyte: the next scan covers the content asked for, no more.
      expect(pool.fileHits(fd, needle, scannerOf(needle), 2 * 1024 * 1024, 2 * 1024 * 1024 + 10)?.hits).toHaveLength(0);
      expect(pool.scanning()).toEqual({ start: 2 * 1024 * 1024, end: 2 * 1024 * 1024 + 10 });
      pool.end();
    });
  });

  it('noneIn never says true over an occurrence, and over a range fileHits lists says true exactly when none starts in it (fast-check)', async () => {
    const make = () => new SearchPool({ threads: 1, minBytes: 1, chunkBytes: 4096, pieceBytes: 1024, minThreadShare: 0, split: () => true });
    const text = Array.from({ length: 400 }, (_, k) => (k % 37 === 0 ? 'needle' : k % 5 === 0 ? 'nee dle' : 'abc ')).join('');
    await withFile(text, make, (fd, pool) => {
      const needle = { exact: Buffer.from('needle') };
      const starts = [...text.matchAll(/needle/g)].map((m) => m.index);
      let saidNone = 0;
      fc.assert(
        fc.property(fc.array(fc.tuple(fc.nat(text.length), fc.nat(300)), { minLength: 1, maxLength: 8 }), (ranges) => {
          pool.begin();
          try {
            for (const [from, width] of ranges) {
              const to = Math.min(text.length, from + width);
              const listed = pool.fileHits(fd, needle, scannerOf(needle), from, to);
              const none = pool.noneIn(fd, needle, scannerOf(needle), from, to);
              const empty = !starts.some((s) => s >= from && s < to);
              // Never true over an occurrence; and over a range fileHits listed (so the same list), exactly when none starts in it.
              if (none) expect(empty).toBe(true);
              if (listed !== null && listed.start <= from && to <= listed.end) expect(none).toBe(empty);
              if (none) saidNone++;
            }
          } finally {
            pool.end();
          }
        }),
        { numRuns: 100 },
      );
      expect(saidNone).toBeGreaterThan(0);
    });
  });

  it('a later search of a literal loads only the contents whose range holds an occurrence, and finds what one thread finds (fast-check)', async () => {
    const pools: SearchPool[] = [];
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.boolean(), { minLength: 1, maxLength: 16 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 512, max: 80_000 }), fc.integer({ min: 256, max: 20_000 }), async (holds, threads, chunkBytes, pieceBytes) => {
          const outputs = holds.map((h, k) => (h ? `before needle after ${'x'.repeat(4200)} needle` : `${'abc '.repeat(1100)}${k}`));
          const pool = new SearchPool({ threads, minBytes: 1, chunkBytes, pieceBytes, minThreadShare: 0, split: () => true });
          pools.push(pool);
          const loaded = await loadSession([sidecarOf(outputs)], { services: createContentServices({ parallelScan: pool }) });
          if (!loaded.ok) throw new Error(loaded.error.message);
          const { session } = loaded;
          const findAll = vi.spyOn(FileContent.prototype, 'findAll');
          const folded = vi.spyOn(FileContent.prototype, 'findAllFolded');
          try {
            const options = { mode: 'substring' as const, case_sensitive: true, max_matches: 1000 };
            const alone = session.search('needle', options);
            // Every content is read by the first search, which learns each one's range in the file.
            expect(findAll).toHaveBeenCalledTimes(outputs.length);
            expect(alone.ok && alone.value.total_matches).toBe(2 * holds.filter(Boolean).length);
            for (let again = 0; again < 2; again++) {
              findAll.mockClear();
              pool.begin();
              const pooled = session.search('needle', options);
              pool.end();
              expect(pooled).toEqual(alone);
              expect(findAll).toHaveBeenCalledTimes(holds.filter(Boolean).length);
            }
            // A case-insensitive search has no such test: every content is read.
            pool.begin();
            session.search('needle', { ...options, case_sensitive: false });
            pool.end();
            expect(folded).toHaveBeenCalledTimes(outputs.length);
          } finally {
            findAll.mockRestore();
            folded.mockRestore();
            session.close();
            await pool.close();
          }
        }),
        { numRuns: 15 },
      );
    } finally {
      await Promise.all(pools.map((p) => p.close()));
    }
  }, 180_000);

  it('gives a content the hits of the pieces it needs while the threads scan on: the first piece is scanned here', async () => {
    const size = 8 * 1024 * 1024;
    const text = Buffer.alloc(size, 'x');
    // One needle per megabyte, at 1,000 bytes into each.
    for (let m = 0; m < 8; m++) text.write('needle', m * 1024 * 1024 + 1000, 'latin1');
    let own = 0;
    const make = () => new SearchPool({ threads: 1, minBytes: 1, chunkBytes: size, pieceBytes: 1024 * 1024, split: () => true, onOwnWindow: () => own++ });
    await withFile(text.toString('latin1'), make, (fd, pool) => {
      const needle = { exact: Buffer.from('needle') };
      pool.begin();
      const first = pool.fileHits(fd, needle, scannerOf(needle), 0, 100);
      // The chunk runs to the end of the file; this content's piece alone is merged, and the calling thread scanned it.
      expect(pool.scanning()).toEqual({ start: 0, end: size });
      expect(first).toMatchObject({ start: 0, end: 1024 * 1024 });
      expect(Array.from(first?.hits ?? [])).toEqual([1000, 6]);
      expect(own).toBeGreaterThan(0);
      // A content further on: the pieces up to its own, every occurrence in order, whoever scanned them.
      const later = pool.fileHits(fd, needle, scannerOf(needle), 5 * 1024 * 1024 + 500, 5 * 1024 * 1024 + 2000);
      expect(later?.end).toBe(6 * 1024 * 1024);
      expect(Array.from(later?.hits ?? [])).toEqual([0, 1, 2, 3, 4, 5].flatMap((m) => [m * 1024 * 1024 + 1000, 6]));
      pool.end();
      expect(pool.scanning()).toBeNull();
    });
  });

  it("a search that ends after the next one began (cancelled by it) leaves the next one's lists alone", async () => {
    const size = 4 * 1024 * 1024;
    const make = () => new SearchPool({ threads: 1, minBytes: 1, chunkBytes: size, split: () => true });
    await withFile(size, make, (fd, pool) => {
      const needle = { exact: Buffer.from('needle') };
      const first = pool.begin();
      expect(pool.fileHits(fd, needle, scannerOf(needle), 0, 100)?.start).toBe(0);
      const second = pool.begin();
      expect(second).not.toBe(first);
      expect(pool.fileHits(fd, needle, scannerOf(needle), 0, 100)?.start).toBe(0);
      // The first search ends now: the second still has its chunk, and lists on.
      pool.end(first);
      expect(pool.scanning()).toEqual({ start: 0, end: size });
      expect(pool.fileHits(fd, needle, scannerOf(needle), 1000, 2000)?.start).toBe(0);
      pool.end(second);
      expect(pool.scanning()).toBeNull();
      // Ended: raw searches read their own bytes until the next search begins.
      expect(pool.fileHits(fd, needle, scannerOf(needle), 0, 100)).toBeNull();
    });
  });

  it('reads nothing for a search already stopped, between searches or with no core idle, and its threads end on close', async () => {
    let idle = true;
    let closed: SearchPool | undefined;
    const make = () => (closed = new SearchPool({ threads: 2, minBytes: 1, split: () => idle }));
    await withFile(6 * 1024 * 1024, make, (fd, pool) => {
      const epoch = new SharedArrayBuffer(4);
      const needle = { exact: Buffer.from('needle') };
      // Between searches the pool scans nothing: each content reads its own bytes.
      expect(pool.fileHits(fd, needle, scannerOf(needle), 0, 100)).toBeNull();
      pool.begin({ epoch, slot: 0, value: 0 });
      expect(pool.fileHits(fd, needle, scannerOf(needle), 0, 100)?.hits).toHaveLength(0);
      const worked = pool.windowsRead();
      expect(worked).toBeGreaterThan(0);
      expect(pool.threadsRunning()).toBe(2);
      pool.end();
      // The search's epoch moves on (a new search, or a cancel): no window is read after it.
      pool.begin({ epoch, slot: 0, value: 0 });
      Atomics.store(new Int32Array(epoch), 0, 1);
      expect(pool.fileHits(fd, needle, scannerOf(needle), 0, 100)).toBeNull();
      expect(pool.windowsRead()).toBe(worked);
      pool.end();
      // prepare() starts nothing more once the threads run.
      pool.prepare();
      expect(pool.threadsRunning()).toBe(2);
      // A search begun with `split: false` (the caller's threads are busy) is not split either.
      pool.begin(undefined, false);
      expect(pool.fileHits(fd, needle, scannerOf(needle), 0, 100)).toBeNull();
      expect(pool.windowsRead()).toBe(worked);
      pool.end();
      // A search begun with no core idle is not split: the contents read their own bytes.
      idle = false;
      pool.begin();
      expect(pool.fileHits(fd, needle, scannerOf(needle), 0, 100)).toBeNull();
      expect(pool.windowsRead()).toBe(worked);
      pool.end();
    });
    // Closed (withFile awaited it): no thread runs, and the pool scans nothing more.
    expect(closed?.threadsRunning()).toBe(0);
    closed?.begin();
    expect(closed?.fileHits(0, { exact: Buffer.from('x') }, scannerOf({ exact: Buffer.from('x') }), 0, 1)).toBeNull();
  });
});

it('prepare starts the threads when a search would split, and none when it would not', async () => {
  const ready = new SearchPool({ threads: 2, split: () => true });
  const busy = new SearchPool({ threads: 2, split: () => false });
  try {
    ready.prepare();
    busy.prepare();
    expect(ready.threadsRunning()).toBe(2);
    expect(busy.threadsRunning()).toBe(0);
  } finally {
    await Promise.all([ready.close(), busy.close()]);
  }
  expect(ready.threadsRunning()).toBe(0);
});

describe('idleCore', () => {
  it('splits only with at least SPLIT_MIN_CORES cores and a load average under twice their number', () => {
    expect(idleCore(1, 0)).toBe(false);
    expect(idleCore(SPLIT_MIN_CORES, 0)).toBe(true);
    expect(idleCore(2, 3.5)).toBe(true);
    expect(idleCore(2, 4)).toBe(false);
    expect(idleCore(8, 15)).toBe(true);
    expect(idleCore(8, 16)).toBe(false);
  });
});
