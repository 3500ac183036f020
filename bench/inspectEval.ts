/**
 * The `inspect` group: `check` of a 500-sample Inspect AI `.eval` holding about 1.1 GB of sample
 * JSON (electron/loader/inspect/testing/generateMany.ts), each run a fresh
 * `node bin/session-inspector.cjs` process, against the least a reader of every sample does
 * (bench/runners/inflateBaseline.ts: read each sample entry's compressed bytes, inflate, `JSON.parse`)
 * in the same run, alternating, after the file was read once to warm the page cache; medians.
 * Targets: every sample counted, time ≤ 2× the baseline's, peak RSS ≤ 1 GB. The command line is
 * rebuilt first (`node scripts/build.mjs cli`) so the current sources are measured.
 *
 * The file is made once per generator version, sample count, size and seed, under the OS temp
 * folder (<tmpdir>/session-inspector-generated/bench-eval/<version>-<samples>-<bytes>-<seed>/),
 * with its layout in a manifest beside it, and reused while both are there.
 */
import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GeneratedManyEval } from '../electron/loader/inspect/testing/generateMany';
import { MANY_SAMPLES_GENERATOR_VERSION, writeManySamplesEval } from '../electron/loader/inspect/testing/generateMany';
import { GENERATED_ROOT } from '../tools/testing/generatedCache';
import { timeCli } from './policy';
import type { BenchRow } from './report';
import { median } from './report';
import type { IndexRunResult } from './runners/indexBaseline';
import { MB, repoRoot, runChild, warmPageCache } from './util';

export const EVAL_TIME_TARGET = 2;
export const EVAL_PEAK_TARGET = 1000 * MB;

export interface InspectEvalContext {
  samples: number;
  sampleBytes: number;
  seed: number;
  runs: number;
  log: (line: string) => void;
}

/** The generator's version: its number and the digest of the sources that write the file. */
function generatorVersion(): string {
  const hash = createHash('sha256').update(String(MANY_SAMPLES_GENERATOR_VERSION));
  for (const file of ['generateMany.ts', 'synthetic.ts']) hash.update(readFileSync(join(repoRoot, 'electron', 'loader', 'inspect', 'testing', file)));
  return hash.digest('hex').slice(0, 12);
}

/** The generated log (made now unless this version of the generator made it already). */
export function ensureManySamplesEval(ctx: InspectEvalContext): GeneratedManyEval {
  const dir = join(GENERATED_ROOT, 'bench-eval', `${generatorVersion()}-${ctx.samples}-${ctx.sampleBytes}-${ctx.seed}`);
  const path = join(dir, 'many-samples.eval');
  const manifest = join(dir, 'manifest.json');
  if (existsSync(manifest) && existsSync(path)) {
    const made = JSON.parse(readFileSync(manifest, 'utf8')) as GeneratedManyEval;
    if (statSync(path).size === made.bytes) return made;
  }
  mkdirSync(dir, { recursive: true });
  ctx.log(`inspect: writing ${ctx.samples} samples, ~${(ctx.sampleBytes / MB).toFixed(0)} MB of sample JSON, to ${path}`);
  const partial = `${path}.${process.pid}.partial`;
  try {
    const made = writeManySamplesEval(partial, { samples: ctx.samples, sampleBytes: ctx.sampleBytes, seed: ctx.seed });
    renameSync(partial, path);
    const kept = { ...made, path };
    writeFileSync(manifest, JSON.stringify(kept));
    return kept;
  } finally {
    rmSync(partial, { force: true });
  }
}

interface CheckSummary {
  summary: { sessions?: { id: string; messages: number; counting?: string }[] };
}

/** Runs `check` once and names what it did not count as the generator wrote it (a run that miscounts is not a measurement). */
function verifyCounts(made: GeneratedManyEval): string {
  const r = spawnSync(process.execPath, [join(repoRoot, 'bin', 'session-inspector.cjs'), 'check', made.path], { cwd: repoRoot, maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`check exited ${String(r.status)}: ${r.stderr.toString().slice(0, 500)}`);
  const sessions = (JSON.parse(r.stdout.toString()) as CheckSummary).summary.sessions ?? [];
  const byId = new Map(sessions.map((s) => [s.id, s]));
  const wrong = made.samples.filter((s) => {
    const got = byId.get(s.session);
    return got === undefined || got.counting !== undefined || got.messages !== s.history + (s.limited ? 1 : 0);
  });
  if (wrong.length > 0 || sessions.length !== made.samples.length) throw new Error(`check listed ${sessions.length} of ${made.samples.length} samples; ${wrong.length} miscounted (first: ${wrong[0]?.session ?? 'none'})`);
  return `all ${sessions.length} samples counted, ${sessions.reduce((n, s) => n + s.messages, 0)} messages`;
}

export async function runInspectEvalBench(ctx: InspectEvalContext): Promise<BenchRow[]> {
  ctx.log('inspect: building dist/cli.cjs and its chunks (node scripts/build.mjs cli)');
  execFileSync(process.execPath, [join(repoRoot, 'scripts', 'build.mjs'), 'cli'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  const made = ensureManySamplesEval(ctx);
  warmPageCache(made.path);
  const counted = verifyCounts(made);
  ctx.log(`inspect: ${counted}`);
  const read = made.layout.filter((e) => e.name.startsWith('samples/'));
  const baseline: IndexRunResult[] = [];
  const check: { ms: number; peakRss: number }[] = [];
  for (let run = 1; run <= ctx.runs; run++) {
    baseline.push(await runChild<IndexRunResult>('inflateBaseline', { path: made.path, read }));
    check.push(timeCli(['check', made.path]));
    ctx.log(`inspect: run ${run}/${ctx.runs}: unzip+parse ${(baseline.at(-1)?.ms ?? 0).toFixed(0)} ms, ${((baseline.at(-1)?.peakRss ?? 0) / MB).toFixed(0)} MB; check ${(check.at(-1)?.ms ?? 0).toFixed(0)} ms, ${((check.at(-1)?.peakRss ?? 0) / MB).toFixed(0)} MB`);
  }
  const ms = median(check.map((c) => c.ms));
  const peak = median(check.map((c) => c.peakRss));
  const baseMs = median(baseline.map((b) => b.ms));
  const basePeak = median(baseline.map((b) => b.peakRss));
  const what = `${made.samples.length}-sample .eval, ${(made.sampleBytes / MB).toFixed(0)} MB of sample JSON in a ${(made.bytes / MB).toFixed(0)} MB archive`;
  return [
    {
      group: 'inspect',
      metric: `check, ${what} (median of ${ctx.runs})`,
      value: ms,
      unit: 'ms',
      baseline: { name: 'unzip+parse', value: baseMs },
      ratio: baseMs / ms,
      target: `≥ ${(1 / EVAL_TIME_TARGET).toFixed(2)}× unzip+parse (time ≤ ${EVAL_TIME_TARGET}×), every sample counted`,
      pass: ms <= EVAL_TIME_TARGET * baseMs,
      note: `${counted}; fresh processes, alternating, page cache warmed; check / (inflate + JSON.parse of every sample entry) = ${(ms / baseMs).toFixed(2)}×`,
    },
    {
      group: 'inspect',
      metric: `peak RSS of check, ${what} (median of ${ctx.runs})`,
      value: peak / MB,
      unit: 'MB',
      baseline: { name: 'unzip+parse', value: basePeak / MB },
      ratio: basePeak / peak,
      target: `≤ ${(EVAL_PEAK_TARGET / MB).toFixed(0)} MB`,
      pass: peak <= EVAL_PEAK_TARGET,
      note: `inflating and parsing one sample at a time peaks at ${(basePeak / MB).toFixed(0)} MB`,
    },
  ];
}
