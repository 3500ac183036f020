/**
 * Indexing throughput: `loadSession([sidecar])` to completion against a bare baseline that reads
 * the same file in 1 MiB chunks, splits lines on `\n` bytes, decodes each as UTF-8 and
 * `JSON.parse`s it (bench/runners/indexBaseline.ts). Each run is a fresh `node` process, baseline
 * and ours alternating, after the file was read once to warm the page cache. Target: ours
 * ≥ 2× the baseline's MB/s (medians) with both cores — the baseline is one thread, ours scans long
 * records on an indexing pool — and ours' peak RSS within the memory row's bound (memory.ts).
 */
import type { BenchRow } from './report';
import { median } from './report';
import type { BenchContext } from './context';
import { memoryBound } from './memory';
import type { IndexRunResult } from './runners/indexBaseline';
import type { OursRunResult } from './runners/indexOurs';
import type { RunnerName } from './util';
import { MB, runChild } from './util';

export const INDEXING_TARGET = 2;

/** What a throughput row says besides its figures. */
export interface ThroughputRow {
  group: string;
  metric: string;
  baselineName: string;
  /** Ours must reach this fraction of the baseline's MB/s. */
  target: number;
  /** The note's start: how the file was made or found. */
  about: string;
  /** The baseline's runner and input (default: indexBaseline over the file). */
  baseline?: { runner: RunnerName; input: unknown };
  /** When set, ours' median peak RSS must also stay within this many bytes. */
  peakRssBound?: number;
}

/**
 * A throughput row from alternating runs over `path` (baseline, ours, baseline…, each a fresh
 * process): medians of MB/s, their ratio, and a note with both times, the session's counts and both
 * processes' peak RSS.
 */
export async function alternatingRow(row: ThroughputRow, path: string, bytes: number, runs: number, log: (line: string) => void): Promise<BenchRow> {
  const baseline: IndexRunResult[] = [];
  const ours: OursRunResult[] = [];
  for (let run = 1; run <= runs; run++) {
    const b = await runChild<IndexRunResult>(row.baseline?.runner ?? 'indexBaseline', row.baseline?.input ?? { path });
    baseline.push(b);
    const o = await runChild<OursRunResult>('indexOurs', { path });
    ours.push(o);
    log(`${row.group} ${row.metric}: run ${run}/${runs}: baseline ${(b.ms / 1000).toFixed(2)} s, ours ${(o.ms / 1000).toFixed(2)} s`);
  }
  const mbps = (r: IndexRunResult) => bytes / MB / (r.ms / 1000);
  const base = median(baseline.map(mbps));
  const value = median(ours.map(mbps));
  const last = ours[ours.length - 1] as OursRunResult;
  const peakRss = median(ours.map((r) => r.peakRss));
  const rssHolds = row.peakRssBound === undefined || peakRss <= row.peakRssBound;
  return {
    group: row.group,
    metric: `${row.metric} (median of ${runs})`,
    value,
    unit: 'MB/s',
    baseline: { name: row.baselineName, value: base },
    ratio: value / base,
    target: `≥ ${row.target}× baseline${row.peakRssBound === undefined ? '' : `, peak RSS ≤ ${(row.peakRssBound / MB).toFixed(0)} MB`}`,
    pass: value / base >= row.target && rssHolds,
    note:
      `${row.about}; fresh node process per run, alternating, page cache warmed; ` +
      `ours ${(median(ours.map((r) => r.ms)) / 1000).toFixed(2)} s, baseline ${(median(baseline.map((r) => r.ms)) / 1000).toFixed(2)} s; ` +
      `${last.messages} messages, ${last.reductions} reductions, ${last.loadFindings} load findings; ` +
      `peak RSS ours ${(peakRss / MB).toFixed(0)} MB, baseline ${(median(baseline.map((r) => r.peakRss)) / MB).toFixed(0)} MB`,
  };
}

export async function runIndexingBench(ctx: BenchContext): Promise<BenchRow[]> {
  const { sidecar, bytes } = ctx.fixture;
  const about = `sidecar ${ctx.fixture.origin}`;
  return [await alternatingRow({ group: 'indexing', metric: 'index the sidecar: loadSession to completion', baselineName: 'read+split+decode+JSON.parse (one thread)', target: INDEXING_TARGET, peakRssBound: memoryBound(bytes), about: `${about}; ours on both cores (indexing pool)` }, sidecar, bytes, ctx.runs, (line) => ctx.log(line))];
}
