/**
 * The `cli` group: a cold command line. `check` of the 7-line demo sample
 * (samples/demo.sidecar.jsonl) through bin/session-inspector.cjs against `node -e 0`, each in a
 * fresh process, alternating, medians; target ≤ 1.5× `node -e 0`. Also reported: `check` with the
 * code cache off (SESSION_INSPECTOR_CODE_CACHE=0: every start compiles its chunk from the text, as
 * the very first start does), and `--help` (the command line has no `--version`).
 *
 * The bundle is rebuilt first (`node scripts/build.mjs cli`) so the current sources are measured,
 * and the code cache lives in a folder of its own under bench/out (XDG_CACHE_HOME), filled by one
 * run before the measured ones: a user's second start onwards.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { outDir } from './fixtures';
import type { BenchRow } from './report';
import { median } from './report';
import { repoRoot } from './util';

/** The target: a cold `check` of the demo within 1.5× a Node that does nothing. */
export const CLI_TARGET = 1.5;
const DEMO = join(repoRoot, 'samples', 'demo.sidecar.jsonl');
const BIN = join(repoRoot, 'bin', 'session-inspector.cjs');

interface Case {
  name: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** The exit status this case must end with (a run that fails is not a measurement). */
  status: number;
}

/** Wall time of one fresh process, in ms. */
function timeOnce(c: Case): number {
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, c.args, { cwd: repoRoot, env: c.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.status !== c.status) throw new Error(`${c.name} exited ${String(r.status)} (expected ${c.status}): ${r.stderr.toString().trim()}`);
  return ms;
}

export interface CliBenchOptions {
  runs: number;
  log: (line: string) => void;
}

export function runCliBench({ runs, log }: CliBenchOptions): BenchRow[] {
  log('cli: building dist/cli.cjs and its chunks (node scripts/build.mjs cli)');
  execFileSync(process.execPath, [join(repoRoot, 'scripts', 'build.mjs'), 'cli'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  const cacheHome = join(outDir(), 'cli-cache');
  rmSync(cacheHome, { recursive: true, force: true });
  mkdirSync(cacheHome, { recursive: true });
  const cached = { ...process.env, XDG_CACHE_HOME: cacheHome, SESSION_INSPECTOR_CODE_CACHE: '' };
  const cases: Case[] = [
    { name: 'node -e 0', args: ['-e', '0'], env: process.env, status: 0 },
    { name: 'check demo', args: [BIN, 'check', DEMO], env: cached, status: 0 },
    { name: 'check demo, no code cache', args: [BIN, 'check', DEMO], env: { ...process.env, SESSION_INSPECTOR_CODE_CACHE: '0' }, status: 0 },
    { name: '--help', args: [BIN, '--help'], env: cached, status: 0 },
  ];
  // Fills the code cache (and the page cache) before anything is measured.
  for (const c of cases) timeOnce(c);
  // Process starts swing on a loaded machine: many rounds, every case once per round, in turn.
  const rounds = Math.max(15, runs * 5);
  const times = cases.map((): number[] => []);
  for (let round = 0; round < rounds; round++) cases.forEach((c, k) => times[k]?.push(timeOnce(c)));
  const [node, check, uncached, help] = times.map((t) => median(t)) as [number, number, number, number];
  log(`cli: medians of ${rounds}: node -e 0 ${node.toFixed(0)} ms, check ${check.toFixed(0)} ms, check without the code cache ${uncached.toFixed(0)} ms, --help ${help.toFixed(0)} ms`);
  const baseline = { name: 'node -e 0', value: node };
  const spread = (t: readonly number[]) => `${Math.min(...t).toFixed(0)}–${Math.max(...t).toFixed(0)} ms`;
  return [
    {
      group: 'cli',
      metric: `check of the demo, cold process (median of ${rounds})`,
      value: check,
      unit: 'ms',
      baseline,
      ratio: node / check,
      target: `≥ ${(1 / CLI_TARGET).toFixed(2)}× node -e 0 (check ≤ ${CLI_TARGET}× its time)`,
      pass: check <= CLI_TARGET * node,
      note: `bin/session-inspector.cjs check samples/demo.sidecar.jsonl, code cache filled by an earlier start; check / node -e 0 = ${(check / node).toFixed(2)}×; check ${spread(times[1] ?? [])}, node -e 0 ${spread(times[0] ?? [])}`,
    },
    { group: 'cli', metric: 'check of the demo, no code cache', value: uncached, unit: 'ms', baseline, ratio: node / uncached, note: `${(uncached / node).toFixed(2)}× node -e 0. SESSION_INSPECTOR_CODE_CACHE=0: the chunk is compiled from its text, as on the first start after an install` },
    { group: 'cli', metric: '--help, cold process', value: help, unit: 'ms', baseline, ratio: node / help, note: `${(help / node).toFixed(2)}× node -e 0. dist/cli.cjs alone: no command chunk is loaded` },
  ];
}
