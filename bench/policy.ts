/**
 * `view --policy` (the what-if view of shared/calls/whatIf.ts over a policy replay, shared/calls/replay.ts) on a
 * generated ~47 MB sidecar, with a policy that reduces little, against `view` of the same file:
 * each command a fresh `node bin/session-inspector.cjs` process writing to a pipe, alternating,
 * after the file was read once to warm the page cache; medians. Target: `view --policy` ≤ 2×
 * `view`'s time, and its peak RSS ≤ 0.25 × the file + 300 MB; and, a row of its own, ≤ 2× the least
 * a JSONL reader does with the file (bench/runners/indexBaseline.ts: read, split, JSON.parse every
 * line), with the same memory bound.
 *
 * Two policies: one that reduces nothing (every output kept whole: the replay's passes look at
 * every output at every turn and mint nothing; the view printed is about the file's size), and one
 * that reduces little (outputs over 1 MB truncated, duplicates deduplicated).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReductionPolicy } from '../shared/index';
import type { BenchRow } from './report';
import { median } from './report';
import type { IndexRunResult } from './runners/indexBaseline';
import { MB, repoRoot, runChild, warmPageCache } from './util';

export const POLICY_TARGET = 2;
export const POLICY_FIXTURE_BYTES = 47_000_000;
const BIN = join(repoRoot, 'bin', 'session-inspector.cjs');
const PEAK = join(repoRoot, 'bench', 'peakRss.cjs');

const POLICIES: { name: string; policy: ReductionPolicy }[] = [
  { name: 'reduces nothing', policy: { protect_last_n_tool_results: 2, max_tool_result_bytes: 50_000_000, kept_prefix_bytes: 2048, dedupe: false, clear_turns_before: null } },
  { name: 'reduces little', policy: { protect_last_n_tool_results: 2, max_tool_result_bytes: 1_000_000, kept_prefix_bytes: 2048, dedupe: true, clear_turns_before: null } },
];

export interface PolicyContext {
  seed: number;
  runs: number;
  outDir: string;
  log: (line: string) => void;
}

/** The generated sidecar under `dir`, generated unless its manifest names the same seed and size. */
function ensureSidecar(dir: string, seed: number, log: (line: string) => void): { path: string; bytes: number } {
  const path = join(dir, 'large.sidecar.jsonl');
  const manifestPath = join(dir, 'large.manifest.json');
  try {
    const m = JSON.parse(readFileSync(manifestPath, 'utf8')) as { seed?: number; target_bytes?: number; bytes?: number };
    if (m.seed === seed && m.target_bytes === POLICY_FIXTURE_BYTES && existsSync(path) && statSync(path).size === m.bytes) {
      log(`policy: reusing ${path}`);
      return { path, bytes: m.bytes };
    }
  } catch {
    // none yet: generate
  }
  mkdirSync(dir, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const run = spawnSync(npm, ['run', '--silent', 'generate', '--', '--size', String(POLICY_FIXTURE_BYTES), '--seed', String(seed), '--out', dir], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  if (run.status !== 0) throw new Error(`the generator exited with ${run.status ?? run.signal}`);
  return { path, bytes: statSync(path).size };
}

export interface Timed {
  ms: number;
  peakRss: number;
  outBytes: number;
}

/** One fresh CLI process: wall time, peak RSS (bench/peakRss.cjs), bytes it printed. */
export function timeCli(args: readonly string[]): Timed {
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['-r', PEAK, BIN, ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30 });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const stderr = r.stderr.toString();
  if (r.status !== 0) throw new Error(`session-inspector ${args.join(' ')} exited ${String(r.status)}: ${stderr.trim().slice(0, 500)}`);
  const kib = /@@peak-rss-kib (\d+)/.exec(stderr);
  return { ms, peakRss: kib ? Number(kib[1]) * 1024 : Number.NaN, outBytes: r.stdout.length };
}

export async function runPolicyBench(ctx: PolicyContext): Promise<BenchRow[]> {
  const dir = join(ctx.outDir, `policy-${POLICY_FIXTURE_BYTES}`);
  const sidecar = ensureSidecar(dir, ctx.seed, ctx.log);
  warmPageCache(sidecar.path);
  const bound = 0.25 * sidecar.bytes + 300 * MB;
  const files = POLICIES.map(({ name, policy }, k) => {
    const file = join(dir, `policy-${k}.json`);
    writeFileSync(file, JSON.stringify(policy));
    return { name, file };
  });
  const view: Timed[] = [];
  const baseline: IndexRunResult[] = [];
  const withPolicy: Timed[][] = files.map(() => []);
  for (let run = 1; run <= ctx.runs; run++) {
    baseline.push(await runChild<IndexRunResult>('indexBaseline', { path: sidecar.path }));
    view.push(timeCli(['view', sidecar.path]));
    files.forEach((f, k) => withPolicy[k]?.push(timeCli(['view', '--policy', f.file, sidecar.path])));
    ctx.log(`policy: run ${run}/${ctx.runs}: read+parse ${(baseline.at(-1)?.ms ?? 0).toFixed(0)} ms, view ${(view.at(-1)?.ms ?? 0).toFixed(0)} ms, ${withPolicy.map((t) => `${(t.at(-1)?.ms ?? 0).toFixed(0)} ms`).join(', ')}`);
  }
  const viewMs = median(view.map((t) => t.ms));
  const baseMs = median(baseline.map((b) => b.ms));
  return files.flatMap((f, k) => {
    const times = withPolicy[k] ?? [];
    const ms = median(times.map((t) => t.ms));
    const peak = median(times.map((t) => t.peakRss));
    const againstReadParse: BenchRow = {
      group: 'policy',
      metric: `view --policy (${f.name}) against a plain read+parse of the same bytes (median of ${ctx.runs})`,
      value: ms,
      unit: 'ms',
      baseline: { name: 'read+parse', value: baseMs },
      ratio: baseMs / ms,
      target: `≥ ${(1 / POLICY_TARGET).toFixed(2)}× read+parse (time ≤ ${POLICY_TARGET}× a plain read and parse), peak RSS ≤ ${(bound / MB).toFixed(0)} MB`,
      pass: ms <= POLICY_TARGET * baseMs && peak <= bound,
      note: `the least a JSONL reader does (bench/runners/indexBaseline.ts: read, split, JSON.parse every line), in its own fresh process; view --policy / read+parse = ${(ms / baseMs).toFixed(2)}×; peak RSS ${(peak / MB).toFixed(0)} MB`,
    };
    const againstView: BenchRow = {
      group: 'policy',
      metric: `view --policy (${f.name}), ${(sidecar.bytes / MB).toFixed(0)} MB sidecar (median of ${ctx.runs})`,
      value: ms,
      unit: 'ms',
      baseline: { name: 'view', value: viewMs },
      ratio: viewMs / ms,
      target: `≥ ${(1 / POLICY_TARGET).toFixed(2)}× view (time ≤ ${POLICY_TARGET}× view's), peak RSS ≤ ${(bound / MB).toFixed(0)} MB`,
      pass: ms <= POLICY_TARGET * viewMs && peak <= bound,
      note:
        `fresh processes, alternating, page cache warmed; view --policy / view = ${(ms / viewMs).toFixed(2)}×, / read+split+JSON.parse (${baseMs.toFixed(0)} ms) = ${(ms / baseMs).toFixed(2)}×; ` +
        `printed ${((times[0]?.outBytes ?? 0) / MB).toFixed(1)} MB (view ${((view[0]?.outBytes ?? 0) / MB).toFixed(1)} MB); ` +
        `peak RSS ${(peak / MB).toFixed(0)} MB, view ${(median(view.map((t) => t.peakRss)) / MB).toFixed(0)} MB, read+parse ${(median(baseline.map((b) => b.peakRss)) / MB).toFixed(0)} MB`,
    };
    return [againstView, againstReadParse];
  });
}
