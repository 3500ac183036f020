/**
 * The indexing baseline: the least any reader of a JSONL file must do. readSync in 1 MiB chunks,
 * split on `\n` bytes (Buffer.indexOf), concatenate the pieces of a line that straddles chunks
 * (long lines included), `toString('utf8')` and `JSON.parse` every line. Nothing is kept.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { elapsedMs, memoryStatus, readInput, runMain } from './common';

interface Input {
  path: string;
}

export interface IndexRunResult {
  ms: number;
  bytes: number;
  lines: number;
  peakRss: number;
}

const CHUNK = 1024 * 1024;
const LF = 0x0a;

function parseLine(bytes: Buffer): void {
  if (bytes.length === 0) return;
  // The value is dropped: parsing is the work.
  JSON.parse(bytes.toString('utf8'));
}

runMain((): IndexRunResult => {
  const { path } = readInput<Input>();
  const size = statSync(path).size;
  const started = performance.now();
  const fd = openSync(path, 'r');
  const buffer = Buffer.allocUnsafe(CHUNK);
  let pending: Buffer[] = [];
  let pendingLength = 0;
  let position = 0;
  let lines = 0;
  for (;;) {
    const n = readSync(fd, buffer, 0, CHUNK, position);
    if (n <= 0) break;
    position += n;
    const chunk = buffer.subarray(0, n);
    let start = 0;
    for (let nl = chunk.indexOf(LF, start); nl !== -1; nl = chunk.indexOf(LF, start)) {
      const segment = chunk.subarray(start, nl);
      if (pending.length === 0) {
        parseLine(segment);
      } else {
        pending.push(segment);
        parseLine(Buffer.concat(pending, pendingLength + segment.length));
        pending = [];
        pendingLength = 0;
      }
      lines++;
      start = nl + 1;
    }
    if (start < n) {
      // Copied: the buffer is reused by the next read.
      const rest = Buffer.from(chunk.subarray(start));
      pending.push(rest);
      pendingLength += rest.length;
    }
  }
  if (pendingLength > 0) {
    parseLine(Buffer.concat(pending, pendingLength));
    lines++;
  }
  closeSync(fd);
  const ms = elapsedMs(started);
  return { ms, bytes: size, lines, peakRss: memoryStatus().peakRss };
});
