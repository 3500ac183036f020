/**
 * The `.eval` import baseline: the least any reader of an Inspect AI log's sample must do — read
 * the compressed bytes of the entries it needs (their places given by the generator, so no zip
 * reader runs), inflate each with node:zlib and `JSON.parse` it. Nothing is kept.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';
import { elapsedMs, memoryStatus, readInput, runMain } from './common';
import type { IndexRunResult } from './indexBaseline';

interface Input {
  path: string;
  read: { dataStart: number; compressedSize: number }[];
}

runMain((): IndexRunResult => {
  const { path, read } = readInput<Input>();
  const size = statSync(path).size;
  const started = performance.now();
  const fd = openSync(path, 'r');
  for (const e of read) {
    const compressed = Buffer.allocUnsafe(e.compressedSize);
    let filled = 0;
    while (filled < e.compressedSize) {
      const n = readSync(fd, compressed, filled, e.compressedSize - filled, e.dataStart + filled);
      if (n <= 0) throw new Error(`${path} ends inside an entry`);
      filled += n;
    }
    // The value is dropped: inflating and parsing are the work.
    JSON.parse(inflateRawSync(compressed).toString('utf8'));
  }
  closeSync(fd);
  return { ms: elapsedMs(started), bytes: size, lines: -1, peakRss: memoryStatus().peakRss };
});
