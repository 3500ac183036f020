/**
 * The `follow` group: appends of 1 MB/s to a copy of the fixture sidecar followed by the
 * real worker (bench/runners/followHost.ts). Rows and their targets: the time from an
 * append to the worker's `sessionUpdated` event (≤ 1 s each), the worker's CPU while
 * idle-following (< 25% of a core), and the RSS growth against the bytes appended after a warm-up
 * (≤ 1×: the index keeps handles, not content, so memory grows by less than the new records); the
 * growth over the whole append window is reported with it.
 */
import { copyFileSync, constants, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchContext } from './context';
import { outDir } from './fixtures';
import type { BenchRow } from './report';
import { median } from './report';
import type { FollowResult } from './runners/followHost';
import { MB, formatBytes, runChild, workerBundle } from './util';

const IDLE_MS = 5000;
const APPEND_MS = 15_000;
/** The first appends, after which memory is measured again (one-time growth of the heap is not the records'). */
const WARM_MS = 5000;
/** RSS growth after the warm-up, per byte appended: at most the new records themselves. */
const MAX_GROWTH_RATIO = 1;
const EVERY_MS = 100;
/** 100 KB every 100 ms: 1 MB/s. */
const CHUNK_BYTES = 100_000;

export async function runFollowBench(ctx: BenchContext): Promise<BenchRow[]> {
  const copy = join(outDir(), 'follow.sidecar.jsonl');
  ctx.log(`follow: copying ${ctx.fixture.sidecar} (${formatBytes(ctx.fixture.bytes)}) to ${copy}: the fixture is never appended to`);
  copyFileSync(ctx.fixture.sidecar, copy, constants.COPYFILE_FICLONE);
  try {
    const r = await runChild<FollowResult>('followHost', { workerPath: workerBundle, sidecar: copy, idleMs: IDLE_MS, appendMs: APPEND_MS, everyMs: EVERY_MS, chunkBytes: CHUNK_BYTES, warmMs: WARM_MS }, ['--expose-gc']);
    const idleShare = r.idleCpuMs / r.idleWallMs;
    const growth = r.rssAfter - r.rssBefore;
    const steady = (r.rssAfter - r.rssWarm) / r.appendedAfterWarm;
    ctx.log(`follow: latencies ${r.latenciesMs.map((v) => v.toFixed(0)).join(', ')} ms; idle CPU ${(idleShare * 100).toFixed(1)}%; RSS ${formatBytes(r.rssBefore)} → ${formatBytes(r.rssAfter)}`);
    const rate = `${(r.appendedBytes / MB / (APPEND_MS / 1000)).toFixed(2)} MB/s in ${r.appends} appends of ${formatBytes(CHUNK_BYTES)}`;
    return [
      ...followRows(r, { group: 'follow', metric: '', appended: `${rate} to a ${formatBytes(ctx.fixture.bytes)} sidecar of ${r.messagesAtOpen} messages, opened followed in ${(r.openMs / 1000).toFixed(1)} s; appends began once the worker had settled (the hashes verified after the open), ${(r.settleMs / 1000).toFixed(1)} s after the open reply`, idle: ' (the worker thread and its host thread)' }),
      {
        group: 'follow',
        metric: 'RSS growth / bytes appended, after warm-up',
        value: steady,
        unit: '×',
        target: `≤ ${MAX_GROWTH_RATIO}`,
        pass: steady <= MAX_GROWTH_RATIO,
        note: `RSS ${formatBytes(r.rssWarm)} → ${formatBytes(r.rssAfter)} for the ${formatBytes(r.appendedAfterWarm)} appended after the first ${WARM_MS / 1000} s`,
      },
      { group: 'follow', metric: 'RSS growth / bytes appended, whole window', value: growth / r.appendedBytes, unit: '×', note: `RSS ${formatBytes(r.rssBefore)} → ${formatBytes(r.rssAfter)} (${formatBytes(growth)}) for ${formatBytes(r.appendedBytes)} appended` },
    ];
  } finally {
    rmSync(copy, { force: true });
  }
}

/**
 * The rows every follow measure gives (this group's and the agents group's): append → shown, the
 * median and the worst (SPEC §13: ≤ 1 s), and the CPU while nothing is appended (< 25% of a core).
 * `metric` goes before each row's own words; `appended` and `idle` end the first and the last note.
 */
export function followRows(r: FollowResult, about: { group: string; metric: string; appended: string; idle: string }): BenchRow[] {
  const { group, metric } = about;
  const worst = Math.max(...r.latenciesMs);
  const within = r.latenciesMs.filter((v) => v <= 1000).length;
  const idle = r.idleCpuMs / r.idleWallMs;
  return [
    { group, metric: `${metric}append → sessionUpdated (median of ${r.appends})`, value: median(r.latenciesMs), unit: 'ms', target: '≤ 1000', pass: median(r.latenciesMs) <= 1000, note: about.appended },
    { group, metric: `${metric}append → sessionUpdated (worst)`, value: worst, unit: 'ms', target: '≤ 1000 each', pass: worst <= 1000, note: `${within}/${r.appends} within 1 s` },
    { group, metric: `${metric}worker CPU while idle-following`, value: idle * 100, unit: '% of a core', target: '< 25', pass: idle < 0.25, note: `process.cpuUsage over ${(r.idleWallMs / 1000).toFixed(1)} s with nothing appended${about.idle}` },
  ];
}
