/**
 * The baseline of a one-document format (a SWE-agent `.traj`): the least any reader must do — read
 * the whole file, decode it as UTF-8 and `JSON.parse` it. Nothing is kept.
 */
import { readFileSync, statSync } from 'node:fs';
import { elapsedMs, memoryStatus, readInput, runMain } from './common';
import type { IndexRunResult } from './indexBaseline';

runMain((): IndexRunResult => {
  const { path } = readInput<{ path: string }>();
  const size = statSync(path).size;
  const started = performance.now();
  // The value is dropped: parsing is the work.
  JSON.parse(readFileSync(path).toString('utf8'));
  return { ms: elapsedMs(started), bytes: size, lines: 1, peakRss: memoryStatus().peakRss };
});
