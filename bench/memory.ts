/**
 * Peak memory of the worker while the sidecar is open and searched: a fresh `node` process hosts
 * the real resolver worker (bench/runners/memoryHost.ts), opens the sidecar, searches the needle
 * (substring) and a regex, expands the largest original in 64 KiB slices at five places, and
 * reports its `VmHWM` (the whole process: worker thread plus a minimal host thread). An idle
 * process that started the worker and opened nothing is reported beside it.
 *
 * Target: peak ≤ 0.25 × file size + 150 MB, in decimal MB (10^6 bytes) throughout.
 */
import type { BenchRow } from './report';
import type { BenchContext } from './context';
import { needleRegex } from './search';
import type { MemoryResult } from './runners/memoryHost';
import { MB, runChild, workerBundle } from './util';

export function memoryBound(fileBytes: number): number {
  return 0.25 * fileBytes + 150 * MB;
}

export async function runMemoryBench(ctx: BenchContext): Promise<BenchRow[]> {
  const { sidecar, bytes, manifest } = ctx.fixture;
  const needle = manifest?.needle.text ?? 'error';
  const hugeId = manifest?.huge.reduce((a, b) => (b.bytes > a.bytes ? b : a)).reduction_id;
  const common = { workerPath: workerBundle, sidecar, needle, regex: needleRegex(needle), ...(hugeId !== undefined ? { hugeId } : {}) };
  const idle = await runChild<MemoryResult>('memoryHost', { ...common, mode: 'idle' });
  const full = await runChild<MemoryResult>('memoryHost', { ...common, mode: 'full' });
  ctx.log(`memory: idle ${(idle.peakRss / MB).toFixed(0)} MB; ${full.stages.map((s) => `${s.step} ${(s.peakRss / MB).toFixed(0)} MB (${(s.ms / 1000).toFixed(2)} s)`).join(', ')}`);
  const bound = memoryBound(bytes);
  return [
    {
      group: 'memory',
      metric: 'worker process peak RSS: open, 2 searches, 5 slices of the largest',
      value: full.peakRss / MB,
      unit: 'MB',
      target: `≤ 0.25 × file + 150 MB = ${(bound / MB).toFixed(0)} MB`,
      pass: full.peakRss <= bound,
      note:
        `VmHWM of the whole child (worker thread + minimal host thread); peak after ${full.stages.map((s) => `${s.step}: ${(s.peakRss / MB).toFixed(0)}`).join(', ')} MB; ` +
        `substring matches ${full.substringMatches}, regex matches ${full.regexMatches}; sliced ${full.huge?.id} (${((full.huge?.totalBytes ?? 0) / MB).toFixed(0)} MB)`,
    },
    {
      group: 'memory',
      metric: 'idle worker process peak RSS (nothing open)',
      value: idle.peakRss / MB,
      unit: 'MB',
      note: 'a separate child, VmHWM once its worker answered a first request: the floor under the row above',
    },
  ];
}
