/**
 * Latencies through the real worker client (bench/runners/latencyHost.ts), medians over fresh
 * opens: time to first rows, time to the first 64 KiB of a small stub and of the largest original,
 * and a 64 KiB slice from the middle of the largest original, cold and warm. Reported only (no
 * target): absolute times on a shared machine.
 */
import type { BenchRow } from './report';
import { median } from './report';
import type { BenchContext } from './context';
import type { LatencyResult } from './runners/latencyHost';
import { PREVIEW_EVENT } from './runners/common';
import { MB, formatBytes, runChild, workerBundle } from './util';

export async function runLatencyBench(ctx: BenchContext): Promise<BenchRow[]> {
  const { sidecar, manifest } = ctx.fixture;
  const hugeId = manifest?.huge.reduce((a, b) => (b.bytes > a.bytes ? b : a)).reduction_id;
  const r = await runChild<LatencyResult>('latencyHost', { workerPath: workerBundle, sidecar, runs: ctx.runs, ...(hugeId !== undefined ? { hugeId } : {}) });
  const opens = r.firstRowsMs.length;
  const probe = r.previewEvent
    ? `rows probe sent on \`${PREVIEW_EVENT}\` or the open reply, whichever came first (${r.viaPreview}/${opens} answered via the event)`
    : `no \`${PREVIEW_EVENT}\` event in shared/contract.ts: rows probe sent on the open reply`;
  const huge = `${r.huge.id}, ${(r.huge.totalBytes / MB).toFixed(0)} MB`;
  const row = (metric: string, values: number[], note: string): BenchRow => ({ group: 'latency', metric: `${metric} (median of ${values.length})`, value: median(values), unit: 'ms', note });
  ctx.log(`latency: first rows ${r.firstRowsMs.map((v) => v.toFixed(0)).join(', ')} ms; open ${r.openMs.map((v) => v.toFixed(0)).join(', ')} ms`);
  return [
    row('first rows', r.firstRowsMs, `from sending open until rows 0–50 answer with a row; fresh worker per open; ${probe}`),
    row('open reply', r.openMs, 'from sending open until the open reply (whole indexing pass in the worker)'),
    row('first 64 KiB of a small stub', r.smallFirstBytesMs, `expand(${r.small.id}, [0, 65536)) right after the open; original ${formatBytes(r.small.totalBytes)}`),
    row('first 64 KiB of the largest stub', r.hugeFirstBytesMs, `expand(${huge}, [0, 65536)) right after the open`),
    row('64 KiB from the middle of the largest (cold)', r.middleColdMs, `expand(${huge}, [mid, mid + 65536)) as the first request of a fresh open`),
    row('64 KiB from the middle of the largest (warm)', r.middleWarmMs, 'the same request repeated 5 times after the cold one (median per open)'),
  ];
}
