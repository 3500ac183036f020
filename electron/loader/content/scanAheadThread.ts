/**
 * The scan-ahead thread (scanAhead.ts), bundled to dist/scanAheadThread.cjs: it reads the pass's
 * range of the file on its own, finds its lines as the pass does (LineSource.indexTo), and scans each
 * long one for its large values with the pass's own function (largeStrings.ts `scanLine`), posting
 * the scan for the pass to take when it gets there. It keeps at most `aheadLines` scans unreceived,
 * skips a line the pass has already taken, and stops before its next read once told. Only reads.
 */
import { readSync } from 'node:fs';
import { workerData } from 'node:worker_threads';
import type { ReadSync } from '../common/lines';
import { readExactly } from '../common/lines';
import { scanLine } from './largeStrings';
import type { ScanAheadData, ScannedLine } from './scanAheadProtocol';
import { ENDED, PASS_AT, POSTED, READING, RECEIVED, STOP, THREAD_AT } from './scanAheadProtocol';

const data = workerData as ScanAheadData;
const control = new Int32Array(data.control);
const positions = new Float64Array(data.positions);
const tokenJson = Buffer.from(data.tokenJson);
const LF = 0x0a;

class Stopped extends Error {}

const stopped = (): boolean => Atomics.load(control, STOP) !== 0;

/** Every read says it is reading first, so the pass never closes the file under one. */
const read: ReadSync = (fd, buffer, offset, length, position) => {
  Atomics.store(control, READING, 1);
  try {
    if (stopped()) throw new Stopped();
    return readSync(fd, buffer, offset, length, position);
  } finally {
    Atomics.store(control, READING, 0);
    Atomics.notify(control, READING);
  }
};

/** Posts the scan of `[offset, offset + length)`; `chunkBytes`: its bytes when they are in hand. */
function scanOne(offset: number, length: number, chunkBytes: Buffer | undefined): void {
  // Not more than aheadLines unreceived: the pass may be slower, and each holds its rest.
  let posted = Atomics.load(control, POSTED);
  for (;;) {
    if (stopped()) throw new Stopped();
    const received = Atomics.load(control, RECEIVED);
    if (posted - received < data.aheadLines) break;
    Atomics.wait(control, RECEIVED, received, 100);
  }
  positions[THREAD_AT] = offset;
  try {
    if (offset < (positions[PASS_AT] as number)) return;
    let line: ScannedLine;
    try {
      const bytes = chunkBytes ?? (length <= data.inMemoryLineBytes ? readExactly(data.fd, offset, length, read) : undefined);
      // The file shrank: the pass reads the line itself and says so.
      if (bytes === undefined && length <= data.inMemoryLineBytes) throw new Error('the file shrank');
      const scan = scanLine({ fd: data.fd, read, offset, length, ...(bytes ? { bytes } : {}), minRawBytes: data.minRawBytes, tokenJson });
      line = { offset, length, scan: scan ?? null };
    } catch (e) {
      if (e instanceof Stopped) throw e;
      line = { offset, length, scan: null, failed: true };
    }
    data.port.postMessage(line);
    posted = Atomics.add(control, POSTED, 1) + 1;
    Atomics.notify(control, POSTED);
  } finally {
    positions[THREAD_AT] = -1;
  }
}

function run(): void {
  const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(data.chunkBytes, data.end - data.grid)));
  let readAt = data.start;
  let lineStart = data.start;
  while (readAt < data.end) {
    // Up to the pass's next read boundary: the first read may start within one of the pass's reads.
    const boundary = data.grid + (Math.floor((readAt - data.grid) / data.chunkBytes) + 1) * data.chunkBytes;
    const want = Math.min(data.end, boundary) - readAt;
    const chunk = readExactly(data.fd, readAt, want, read, buffer);
    if (!chunk) return;
    const chunkAt = readAt;
    readAt += want;
    let from = 0;
    for (let nl = chunk.indexOf(LF); nl !== -1; nl = chunk.indexOf(LF, from)) {
      const lineEnd = chunkAt + nl;
      const length = lineEnd - lineStart;
      if (length >= data.lowBytes && length <= data.highBytes && lineStart >= (positions[PASS_AT] as number)) {
        scanOne(lineStart, length, lineStart >= chunkAt ? chunk.subarray(lineStart - chunkAt, nl) : undefined);
      }
      lineStart = lineEnd + 1;
      from = nl + 1;
    }
  }
}

try {
  run();
} catch (e) {
  if (!(e instanceof Stopped)) throw e;
} finally {
  Atomics.store(control, ENDED, 1);
  Atomics.notify(control, POSTED);
  // What it posted stays for the pass to receive; the pass closes the channel.
  data.port.unref();
}
