/**
 * Peak memory of a process hosting the resolver worker: the worker thread plus this minimal host
 * thread, read as `VmHWM` from /proc/self/status (it covers every thread of the process).
 *
 * `idle`: start the worker, wait until it answers, open nothing.
 * `full`: open the sidecar, search the needle as a substring, search a regex, and expand the
 * largest reduction in 64 KiB slices at five places (start, quarter, middle, three quarters, end).
 */
import { elapsedMs, memoryStatus, readInput, runMain } from './common';
import { SLICE, params, startClient, value } from './workerClient';

interface Input {
  workerPath: string;
  mode: 'idle' | 'full';
  sidecar: string;
  needle: string;
  regex: string;
  /** The reduction to slice; default: the one with the largest original. */
  hugeId?: string;
}

export interface MemoryResult {
  mode: 'idle' | 'full';
  peakRss: number;
  /** VmHWM after each step, in order. */
  stages: { step: string; peakRss: number; ms: number }[];
  substringMatches?: number;
  regexMatches?: number;
  huge?: { id: string; totalBytes: number };
}

runMain(async (): Promise<MemoryResult> => {
  const input = readInput<Input>();
  const client = startClient(input.workerPath);
  const stages: MemoryResult['stages'] = [];
  const step = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const out = await run();
    stages.push({ step: name, peakRss: memoryStatus().peakRss, ms: elapsedMs(started) });
    return out;
  };

  // The worker has started once it answers anything; with nothing open, `log` answers no_session.
  await step('worker started', () => client.request('log', {}));
  if (input.mode === 'idle') {
    await client.dispose();
    return { mode: 'idle', peakRss: memoryStatus().peakRss, stages };
  }

  await step('open', async () => value('open', await client.open([input.sidecar], 1)));
  const substring = await step('substring search', async () =>
    value('substring search', await client.request('search', params('search', { searchId: 'm1', query: input.needle, mode: 'substring', case_sensitive: true, max_matches: 100 }))),
  );
  const regex = await step('regex search', async () =>
    value('regex search', await client.request('search', params('search', { searchId: 'm2', query: input.regex, mode: 'regex', case_sensitive: true, max_matches: 100 }))),
  );
  const huge = await step('expand 5 × 64 KiB of the largest', async () => {
    let id = input.hugeId;
    if (id === undefined) {
      const { entries } = value('log', await client.request('log', {}));
      const largest = entries.reduce((a, b) => ((b.reduction.ptr.bytes ?? 0) > (a.reduction.ptr.bytes ?? 0) ? b : a));
      id = largest.reduction.id;
    }
    const first = value(`expand ${id}`, await client.request('expand', { id, range: [0, SLICE] }));
    const total = first.total_bytes;
    for (const at of [0.25, 0.5, 0.75, 1]) {
      const start = Math.max(0, Math.min(total - SLICE, Math.floor(total * at)));
      value(`expand ${id}`, await client.request('expand', { id, range: [start, start + SLICE] }));
    }
    return { id, totalBytes: total };
  });
  await client.close();
  const peakRss = memoryStatus().peakRss;
  await client.dispose();
  return { mode: 'full', peakRss, stages, substringMatches: substring.total_matches, regexMatches: regex.total_matches, huge };
});
