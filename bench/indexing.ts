/**
 * Indexing throughput: `loadSession([sidecar])` to completion against a bare baseline that reads
 * the same file in 1 MiB chunks, splits lines on `\n` bytes, decodes each as UTF-8 and
 * `JSON.parse`s it (bench/runners/indexBaseline.ts). Each run is a fresh `node` process, baseline
 * and ours alternating, after the file was read once to warm the page cache. Target: ours ≥ 0.8×
 * the baseline's MB/s (medians).
 */
import type { BenchRow } from './report';
import { median } from './report';
import type { BenchContext } from './context';
import type { IndexRunResult } from './runners/indexBaseline';
import type { OursRunResult } from './runners/indexOurs';
import { MB, runChild } from './util';

export const INDEXING_TARGET = 0.8;

export async function runIndexingBench(ctx: BenchContext): Promise<BenchRow[]> {
  const { sidecar, bytes } = ctx.fixture;
  const baseline: IndexRunResult[] = [];
  const ours: OursRunResult[] = [];
  for (let run = 1; run <= ctx.runs; run++) {
    const b = await runChild<IndexRunResult>('indexBaseline', { path: sidecar });
    baseline.push(b);
    const o = await runChild<OursRunResult>('indexOurs', { path: sidecar });
    ours.push(o);
    ctx.log(`indexing run ${run}/${ctx.runs}: baseline ${(b.ms / 1000).toFixed(2)} s, ours ${(o.ms / 1000).toFixed(2)} s`);
  }
  const mbps = (r: IndexRunResult) => bytes / MB / (r.ms / 1000);
  const base = median(baseline.map(mbps));
  const value = median(ours.map(mbps));
  const ratio = value / base;
  const last = ours[ours.length - 1] as OursRunResult;
  return [
    {
      group: 'indexing',
      metric: `index the sidecar: loadSession to completion (median of ${ctx.runs})`,
      value,
      unit: 'MB/s',
      baseline: { name: 'read+split+decode+JSON.parse', value: base },
      ratio,
      target: `≥ ${INDEXING_TARGET}× baseline`,
      pass: ratio >= INDEXING_TARGET,
      note:
        `fresh node process per run, alternating, page cache warmed; ours ${(median(ours.map((r) => r.ms)) / 1000).toFixed(2)} s, baseline ${(median(baseline.map((r) => r.ms)) / 1000).toFixed(2)} s; ` +
        `${last.messages} messages, ${last.reductions} reductions, ${last.loadFindings} load findings; ` +
        `peak RSS ours ${(median(ours.map((r) => r.peakRss)) / MB).toFixed(0)} MB, baseline ${(median(baseline.map((r) => r.peakRss)) / MB).toFixed(0)} MB`,
    },
  ];
}
