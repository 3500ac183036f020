/** Indexing as the app does it: `loadSession([sidecar])` to completion, then close. */
import { statSync } from 'node:fs';
import { loadSession } from '../../electron/loader/session';
import { elapsedMs, memoryStatus, readInput, runMain } from './common';
import type { IndexRunResult } from './indexBaseline';

interface Input {
  path: string;
}

export interface OursRunResult extends IndexRunResult {
  messages: number;
  reductions: number;
  loadFindings: number;
}

runMain(async (): Promise<OursRunResult> => {
  const { path } = readInput<Input>();
  const size = statSync(path).size;
  const started = performance.now();
  const loaded = await loadSession([path]);
  const ms = elapsedMs(started);
  if (!loaded.ok) throw new Error(`loadSession failed: ${loaded.error.code}: ${loaded.error.message}`);
  const { session } = loaded;
  const result: OursRunResult = {
    ms,
    bytes: size,
    lines: -1,
    peakRss: memoryStatus().peakRss,
    messages: session.minted.length,
    reductions: session.log.length,
    loadFindings: session.loadFindings.length,
  };
  session.close();
  return result;
});
