/**
 * Long lines scanned ahead on a thread (scanAhead.ts, scanAheadThread.ts, docs/streaming-import.md
 * "Long lines scanned ahead"): whatever the pass takes from the thread is the scan it would have
 * made of that line itself, token and all; a line the thread has not reached is the pass's to scan;
 * and `stop` leaves the thread out of the file before the pass closes it.
 */
import { closeSync, openSync, readSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../tools/testing/files';
import { scanLine } from './largeStrings';
import { ScanAhead } from './scanAhead';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

interface Line {
  offset: number;
  length: number;
}

/** Every line of `bytes` (its `\n` left out, a `\r` kept), as the pass finds them. */
function linesOf(bytes: Buffer): Line[] {
  const out: Line[] = [];
  let start = 0;
  for (let nl = bytes.indexOf(0x0a); nl !== -1; nl = bytes.indexOf(0x0a, start)) {
    out.push({ offset: start, length: nl - start });
    start = nl + 1;
  }
  return out;
}

const PIECES = ['a', 'é', '中', '😀', '"', '\\', '\n', '\t', '\u0001', 'x'.repeat(40), 'y'.repeat(300)];
const text = fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }).map((p) => p.join(''));
/** A record with string values long and short, a line that is not one record, or a short one. */
const line = fc.oneof(
  fc.array(text, { minLength: 1, maxLength: 4 }).map((values) => JSON.stringify({ type: 'user', values, n: values.length })),
  fc.array(text, { minLength: 1, maxLength: 4 }).map((values) => JSON.stringify({ values }).slice(0, -3)),
  fc.constant('{}'),
);

/** Scans each line of `lo` bytes or more, ahead on the thread, taking `pick` of them in order; checks each against the pass's own scan. */
function scanEach(bytes: Buffer, options: { lo: number; inMemory: number; chunk: number; patient: boolean; pick: (k: number) => boolean; from: number }): { taken: number; asked: number } {
  const path = tmp.path('lines.jsonl');
  writeFileSync(path, bytes);
  const fd = openSync(path, 'r');
  // Started at a line within the pass's reads, as a pass starts it once it has scanned a few long lines itself.
  const lines = linesOf(bytes);
  const start = lines[Math.min(options.from, lines.length - 1)]?.offset ?? 0;
  const ahead = ScanAhead.start({ fd, start, grid: 0, end: bytes.length, lowBytes: options.lo, highBytes: 1 << 30, inMemoryLineBytes: options.inMemory, minRawBytes: options.lo, chunkBytes: options.chunk, patient: options.patient });
  if (!ahead) throw new Error('the scan-ahead thread did not start (is dist/scanAheadThread.cjs built?)');
  let taken = 0;
  let asked = 0;
  try {
    const long = lines.filter((l) => l.length >= options.lo && l.offset >= start);
    long.forEach((l, k) => {
      if (!options.pick(k)) return;
      asked++;
      const got = ahead.take(l.offset, l.length);
      // The pass holds a line's bytes when it lies in one read with its newline, or is short enough to be read whole.
      const oneRead = Math.floor(l.offset / options.chunk) === Math.floor((l.offset + l.length) / options.chunk);
      const inMemory = oneRead || l.length <= options.inMemory ? { bytes: bytes.subarray(l.offset, l.offset + l.length) } : {};
      const own = scanLine({ fd, read: readSync, offset: l.offset, length: l.length, minRawBytes: options.lo, ...inMemory }) ?? null;
      if (got === undefined) {
        // Only a pass that does not wait scans a line itself.
        expect(options.patient).toBe(false);
        return;
      }
      taken++;
      expect(got).toEqual(own);
    });
  } finally {
    ahead.stop();
    closeSync(fd);
  }
  return { taken, asked };
}

describe('long lines scanned ahead on a thread', () => {
  it('a scan taken from the thread is the pass’s own scan of that line: large values, none, not a record, CRLF, past the chunk, by range (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(line, fc.boolean()), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 16, max: 600 }),
        fc.integer({ min: 16, max: 3000 }),
        fc.integer({ min: 32, max: 5000 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 3 }),
        fc.nat(10),
        (records, lo, inMemory, chunk, patient, every, from) => {
          const bytes = Buffer.from(records.map(([r, crlf]) => `${r}${crlf ? '\r\n' : '\n'}`).join(''));
          const { taken, asked } = scanEach(bytes, { lo, inMemory, chunk, patient, pick: (k) => k % every === 0, from });
          // A pass that waits takes every line it asks for from the thread, even one that skips lines.
          if (patient) expect(taken).toBe(asked);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('started mid-read, reads on the pass’s grid: a line across the pass’s read boundary is read by range by both', () => {
    // Lines of about 700 bytes read 1,000 at a time: started at the second line, the thread's first
    // read ends at 1,000 as the pass's does, and the lines across a boundary are read by range.
    const bytes = Buffer.from(Array.from({ length: 12 }, (_, k) => `${JSON.stringify({ k, value: `${'v'.repeat(640)} ✓` })}\n`).join(''));
    const { taken, asked } = scanEach(bytes, { lo: 100, inMemory: 16, chunk: 1000, patient: true, pick: () => true, from: 1 });
    expect(asked).toBe(11);
    expect(taken).toBe(11);
  });

  it('stops out of any read of the file; then the pass scans every line itself', () => {
    const value = 'compiled ✓ "quoted"\n'.repeat(400);
    const bytes = Buffer.from(Array.from({ length: 2000 }, (_, k) => `${JSON.stringify({ k, value })}\n`).join(''));
    const path = tmp.path('stop.jsonl');
    writeFileSync(path, bytes);
    const fd = openSync(path, 'r');
    const ahead = ScanAhead.start({ fd, start: 0, grid: 0, end: bytes.length, lowBytes: 4096, highBytes: 1 << 30, inMemoryLineBytes: 1 << 20, minRawBytes: 4096, chunkBytes: 64 * 1024, patient: true });
    if (!ahead) throw new Error('the scan-ahead thread did not start');
    const lines = linesOf(bytes);
    try {
      const first = ahead.take(lines[0]!.offset, lines[0]!.length);
      expect(first?.large).toHaveLength(1);
      ahead.stop();
      expect(ahead.reading()).toBe(false);
      expect(ahead.take(lines[1]!.offset, lines[1]!.length)).toBeUndefined();
      expect(ahead.taken).toBe(1);
    } finally {
      ahead.stop();
      closeSync(fd);
    }
  });
});
