/**
 * Indexing with long lines scanned off the indexing thread gives the index one thread
 * gives — over generated sidecars with torn, malformed, blank, CRLF and non-UTF-8 lines, any pass
 * split points, any batch and lookahead sizes, answers arriving in any order, and workers that fail.
 * The pools here run in this thread (the split and merge are what is tested); one test drives the
 * real worker_threads pool over the real bundle.
 */
import { mkdirSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { generateSession, sidecarText } from '../../../tools/samples/sessionGenerator';
import { tempDir } from '../../../tools/testing/files';
import type { ReadSync } from '../common/lines';
import { isLoadError, openReadOnly } from '../common/openFile';
import type { IndexPass } from '../common/source';
import { LoadCancelled } from '../common/source';
import type { PoolAnswer, ScanJob, ScanPool } from './indexPool';
import { ScratchBuffers } from '../content/scratch';
import { ThreadScanPool, scanLongLine } from './indexPool';
import type { IndexerOptions } from './sidecarIndex';
import { RAW_SCAN_MIN_BYTES, SidecarIndexer } from './sidecarIndex';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

/** A pool in this thread: answers each batch after `delays[k]` turns of the event loop (so out of order), some answers replaced by errors. */
class FakePool implements ScanPool {
  readonly size = 2;
  batches = 0;
  jobs = 0;
  private k = 0;
  constructor(
    private readonly delays: readonly number[],
    private readonly failEvery = 0,
  ) {}

  async scan(fd: number, read: ReadSync, jobs: readonly ScanJob[]): Promise<PoolAnswer[]> {
    this.batches++;
    const turns = this.delays.length === 0 ? 0 : (this.delays[this.batches % this.delays.length] as number);
    for (let t = 0; t < turns; t++) await new Promise<void>((resolve) => setImmediate(resolve));
    return jobs.map((job) => {
      this.jobs++;
      if (this.failEvery > 0 && this.k++ % this.failEvery === 0) return { error: 'a worker failed' };
      return { scan: scanLongLine(fd, read, job, new ScratchBuffers()) };
    });
  }
}

function pass(final: boolean, chunkSize: number, signal?: { aborted: boolean }, progress: (bytes: number) => void = () => undefined): IndexPass {
  return { chunkSize, maxRecordBytes: 256 * 1024 * 1024, read: readSync, progress: { add: progress }, final, ...(signal ? { signal } : {}) };
}

/** Indexes `path` in passes ending at `ends` (then a final pass to the end); the index and where each pass stopped. */
async function indexIn(path: string, ends: readonly number[], chunkSize: number, options: IndexerOptions) {
  const file = openReadOnly(path);
  if (isLoadError(file)) throw new Error(file.message);
  try {
    const indexer = new SidecarIndexer(file, options);
    const stops = [];
    // Progress per pass: never negative, and each pass's adds sum to the bytes it covered.
    const progress: number[] = [];
    const add = (bytes: number) => {
      expect(bytes).toBeGreaterThanOrEqual(0);
      progress[progress.length - 1] = (progress[progress.length - 1] as number) + bytes;
    };
    for (const end of [...ends.map((e) => Math.min(e, file.size)), file.size]) {
      progress.push(0);
      stops.push(await indexer.indexTo(end, pass(end === file.size, chunkSize, undefined, add)));
    }
    return { index: indexer.index(), stops, progress };
  } finally {
    // The file is closed by hand: no reader holds it.
    (await import('node:fs')).closeSync(file.fd);
  }
}

/** Damage applied to a generated sidecar's lines, each kind at the line `at` picks. */
type Damage = { kind: 'torn-middle' | 'garbage' | 'blank' | 'crlf' | 'bad-utf8' | 'cut-end' | 'long-blank'; at: number };

function damaged(text: string, damage: readonly Damage[]): Buffer {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const out: Buffer[] = lines.map((l) => Buffer.from(l, 'utf8'));
  let cutEnd = false;
  for (const d of damage) {
    const i = 1 + (d.at % Math.max(1, out.length - 1));
    const line = out[i] as Buffer;
    if (d.kind === 'torn-middle') out[i] = Buffer.concat([line.subarray(0, Math.floor(line.length / 2)), out[i + 1] ?? Buffer.alloc(0)]);
    if (d.kind === 'garbage') out.splice(i, 0, Buffer.from('{"t":"message","i":3,"msg":{"role":"tool","content":"oops'));
    if (d.kind === 'blank') out.splice(i, 0, Buffer.from('   \t'));
    if (d.kind === 'long-blank') out.splice(i, 0, Buffer.alloc(RAW_SCAN_MIN_BYTES + 10, 0x20));
    if (d.kind === 'crlf') out[i] = Buffer.concat([line, Buffer.from('\r')]);
    if (d.kind === 'bad-utf8') {
      // A 0xff byte inside a string of the record: the line is read with U+FFFD, or refused when long.
      const quote = line.lastIndexOf(0x22, line.length - 3);
      if (quote > 0) out[i] = Buffer.concat([line.subarray(0, quote), Buffer.from([0xff]), line.subarray(quote)]);
    }
    if (d.kind === 'cut-end') cutEnd = true;
  }
  const joined = Buffer.concat(out.flatMap((l) => [l, Buffer.from('\n')]));
  return cutEnd ? joined.subarray(0, joined.length - 1 - Math.floor(((out[out.length - 1] as Buffer).length * 2) / 3)) : joined;
}

const damageArb = fc.array(fc.record({ kind: fc.constantFrom('torn-middle', 'garbage', 'blank', 'crlf', 'bad-utf8', 'cut-end', 'long-blank'), at: fc.nat() }), { maxLength: 4 }) as fc.Arbitrary<Damage[]>;

describe('indexing with a scan pool', () => {
  it('gives the single-thread index over generated sidecars, for any damage, pass ends, batch and lookahead sizes and answer order', async () => {
    let n = 0;
    let scannedByPool = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 2 ** 31 }),
        fc.boolean(),
        damageArb,
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 3 }),
        fc.integer({ min: 64, max: 1 << 16 }),
        fc.record({ lookaheadBytes: fc.integer({ min: 1, max: 1 << 18 }), lookaheadLines: fc.integer({ min: 1, max: 64 }), batchBytes: fc.integer({ min: 1, max: 1 << 16 }), batchLines: fc.integer({ min: 1, max: 8 }), inFlight: fc.integer({ min: 1, max: 4 }) }),
        fc.array(fc.nat({ max: 3 }), { maxLength: 5 }),
        fc.nat({ max: 4 }),
        async (seed, legacy, damage, cuts, chunkSize, sizes, delays, failEvery) => {
          const text = sidecarText(generateSession({ seed, messages: 60, legacy }).records);
          const path = join(tmp.dir, `pool-${n++}.sidecar.jsonl`);
          const bytes = damaged(text, damage);
          writeFileSync(path, bytes);
          const ends = cuts.map((c) => Math.floor(c * bytes.length)).sort((a, b) => a - b);
          const single = await indexIn(path, ends, chunkSize, { pool: null });
          const pool = new FakePool(delays, failEvery);
          const pooled = await indexIn(path, ends, chunkSize, { pool, ...sizes });
          scannedByPool += pool.jobs;
          expect(pooled.stops).toEqual(single.stops);
          expect(pooled.progress).toEqual(single.progress);
          expect(pooled.index).toEqual(single.index);
        },
      ),
      { numRuns: 60 },
    );
    // The pool was used: the property is not about single-thread runs only.
    expect(scannedByPool).toBeGreaterThan(0);
  });

  it('keeps the line numbers of malformed lines in their findings', async () => {
    const text = sidecarText(generateSession({ seed: 7, messages: 60 }).records);
    const path = join(tmp.dir, 'malformed.sidecar.jsonl');
    const bytes = damaged(text, [
      { kind: 'garbage', at: 5 },
      { kind: 'bad-utf8', at: 20 },
      { kind: 'torn-middle', at: 30 },
    ]);
    writeFileSync(path, bytes);
    const pool = new FakePool([2, 0, 1]);
    const { index } = await indexIn(path, [], 4096, { pool, batchLines: 2, lookaheadLines: 16 });
    const lines = bytes.toString('latin1').split('\n');
    const malformed = index.findings.filter((f) => f.code === 'malformed_line');
    expect(malformed.length).toBeGreaterThanOrEqual(2);
    expect(pool.jobs).toBeGreaterThan(0);
    // Each finding names the line that holds the garbage, the bad byte or the torn record's fragment.
    for (const f of malformed) {
      const line = lines[(f.line as number) - 1] as string;
      expect(line.includes('"oops') || line.includes('\xff') || f.message.includes('torn')).toBe(true);
    }
  });

  it('stops a cancelled pass with scans in flight', async () => {
    const text = sidecarText(generateSession({ seed: 11, messages: 200 }).records);
    const path = join(tmp.dir, 'cancel.sidecar.jsonl');
    writeFileSync(path, text);
    const file = openReadOnly(path);
    if (isLoadError(file)) throw new Error(file.message);
    const signal = { aborted: false };
    // A pool that never answers until the pass is cancelled.
    let release: (() => void) | undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let asked = 0;
    const pool: ScanPool = {
      size: 1,
      scan: async (fd, read, jobs) => {
        asked++;
        signal.aborted = true;
        await held;
        return jobs.map((job) => ({ scan: scanLongLine(fd, read, job, new ScratchBuffers()) }));
      },
    };
    const indexer = new SidecarIndexer(file, { pool, batchLines: 1 });
    const done = indexer.indexTo(file.size, pass(true, 1 << 16, signal));
    release?.();
    await expect(done).rejects.toBeInstanceOf(LoadCancelled);
    expect(asked).toBeGreaterThan(0);
    (await import('node:fs')).closeSync(file.fd);
  });

  it('scans every line itself when its workers die or cannot start, and gives the same index', async () => {
    const text = sidecarText(generateSession({ seed: 5, messages: 120 }).records);
    const path = join(tmp.dir, 'dying.sidecar.jsonl');
    writeFileSync(path, text);
    // A worker that exits at its first batch, and a script that does not exist.
    const dying = join(tmp.dir, 'dying-worker.cjs');
    writeFileSync(dying, "require('node:worker_threads').parentPort.on('message', () => process.exit(3));\n");
    const single = await indexIn(path, [], 1 << 16, { pool: null });
    for (const script of [dying, join(tmp.dir, 'no-such-worker.cjs')]) {
      const threads = new ThreadScanPool(script, 2);
      try {
        const pooled = await indexIn(path, [], 1 << 16, { pool: threads, batchLines: 2, lookaheadLines: 32 });
        expect(pooled.index).toEqual(single.index);
      } finally {
        threads.close();
      }
    }
  });

  it('scans with real worker threads over the bundled worker, and gives the same index', async () => {
    const out = join(tmp.dir, 'bundle');
    mkdirSync(out);
    await build({ entryPoints: [{ in: join(import.meta.dirname, 'indexPoolWorker.ts'), out: 'indexPool' }], outdir: out, outExtension: { '.js': '.cjs' }, bundle: true, platform: 'node', format: 'cjs', logLevel: 'silent' });
    const text = sidecarText(generateSession({ seed: 3, messages: 120 }).records);
    const path = join(tmp.dir, 'threads.sidecar.jsonl');
    writeFileSync(path, text);
    const threads = new ThreadScanPool(join(out, 'indexPool.cjs'), 2);
    try {
      const single = await indexIn(path, [], 1 << 16, { pool: null });
      const pooled = await indexIn(path, [], 1 << 16, { pool: threads, batchLines: 3, lookaheadLines: 64 });
      expect(pooled.index).toEqual(single.index);
      expect(pooled.index.view.length).toBeGreaterThan(0);
    } finally {
      threads.close();
    }
  });
});
