/**
 * `npm run bench`: the benchmarks in one table, as ratios against baselines measured in
 * the same run (see bench/README.md).
 *
 *   npm run bench -- [--size 1GiB] [--only indexing,memory,latency,search,renderer] [--runs 3]
 *                    [--seed N] [--fixture PATH] [--strict]
 *
 * Progress goes to stderr; stdout carries the machine line, the table and its notes. The same
 * table and the rows as JSON are written to bench/out/results.{md,json}. Exit status 0 even when a
 * target fails (its row says FAIL) unless --strict; 2 on a usage error or when no fixture can be made.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as wait } from 'node:timers/promises';
import { idleCore } from '../electron/worker/searchPool';
import type { BenchArgs, Group } from './args';
import { USAGE, UsageError, parseBenchArgs } from './args';
import type { BenchContext } from './context';
import type { Fixture } from './fixtures';
import { ensureFixture, outDir } from './fixtures';
import { runImportBench } from './import';
import { runIndexingBench } from './indexing';
import { runLatencyBench } from './latency';
import { runMemoryBench } from './memory';
import type { BenchRow } from './report';
import { formatTable } from './report';
import { runCallsBench } from './calls';
import { runRendererBench } from './renderer';
import { runFollowBench } from './follow';
import { runSearchBench } from './search';
import { runCliBench } from './cli';
import { runPolicyBench } from './policy';
import { runHugeLineBench } from './hugeLine';
import { runLibraryBench } from './library';
import { runTokensBench } from './tokens';
import { AGENTS_SIZE, runAgentsBench } from './agents';
import { runInspectEvalBench } from './inspectEval';
import { runBundleBench } from './bundle';
import type { Machine } from './util';
import { buildRunners, buildWorker, describeMachine, formatBytes, warmPageCache } from './util';

const log = (line: string) => process.stderr.write(`bench: ${line}\n`);

const FIXTURE_GROUPS: readonly Group[] = ['indexing', 'memory', 'latency', 'search', 'follow'];

function machineLine(m: Machine, fixture: Fixture | undefined, args: BenchArgs): string {
  const file = fixture ? `; sidecar ${formatBytes(fixture.bytes)} (${fixture.origin}${fixture.manifest ? `, seed ${fixture.manifest.seed}` : ''})` : '';
  return `${m.cpu}, ${m.cores} cores, ${m.ramGiB} GiB RAM, Node ${m.node}; load ${m.load}${file}; ${args.runs} runs; commit ${m.commit}; ${m.date}`;
}

/** The rows' notes, numbered as their rows (the table has no room for them). */
function notes(rows: readonly BenchRow[]): string {
  return rows.map((r, k) => (r.note ? `${k + 1}. ${r.group} — ${r.metric}: ${r.note}` : undefined)).filter((l) => l !== undefined).join('\n');
}

function failedRow(group: Group, e: unknown): BenchRow {
  const message = e instanceof Error ? e.message : String(e);
  return { group, metric: 'did not run to completion', value: Number.NaN, unit: '', target: 'runs', pass: false, note: message };
}

async function runSearchAtSizes(args: BenchArgs, sizes: readonly { label: string; bytes: number }[]): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const size of sizes) {
    const fixture = ensureFixture({ ...args, size }, log);
    log(`search at ${formatBytes(fixture.bytes)}: warming the page cache: reading ${fixture.sidecar} once`);
    warmPageCache(fixture.sidecar);
    for (const row of await runSearchBench({ fixture, runs: args.runs, log })) rows.push({ ...row, metric: `at ${formatBytes(fixture.bytes)}: ${row.metric}` });
  }
  return rows;
}

const loadText = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** At most this long is waited for the load a run left to fall (untilSearchSplits). */
const SETTLE_MAX_MS = 120_000;

/**
 * A search splits across threads only while the last minute's load average is under twice the
 * cores (electron/worker/searchPool.ts `idleCore`): a search group begun on a machine still loaded by
 * what ran before it (the full suite, a heavy group) would measure searches on one thread, as no
 * user's idle machine runs them. The groups that search wait until the product would split, at
 * most SETTLE_MAX_MS, and say how long they waited; past that they run and say so.
 */
async function untilSearchSplits(): Promise<void> {
  if (idleCore()) return;
  const began = performance.now();
  log(`waiting for the load average (${loadText()}) to fall below twice the cores, where a search splits across threads`);
  while (!idleCore() && performance.now() - began < SETTLE_MAX_MS) await wait(1000);
  const waited = ((performance.now() - began) / 1000).toFixed(0);
  log(idleCore() ? `waited ${waited} s; load average ${loadText()}` : `still loaded after ${waited} s (load average ${loadText()}): searches run on one thread`);
}

async function runGroup(group: Group, ctx: BenchContext | undefined, args: BenchArgs): Promise<BenchRow[]> {
  if (group === 'renderer') return runRendererBench({ log });
  // The model call slider and the Context map at 1,000,000 messages and 100,000 calls.
  if (group === 'calls') return runCallsBench({ log });
  // A cold command line (fresh processes; needs no fixture).
  if (group === 'cli') return runCliBench({ runs: args.runs, log });
  // `sessions` over 2,000 sessions of every format, cold and warm cache (fresh processes; its own generated folder), and the host's first rows.
  if (group === 'library') return runLibraryBench({ runs: args.runs, log });
  // `view --policy` on a ~47 MB sidecar against `view` (its own generated file, needs no fixture).
  if (group === 'policy') return runPolicyBench({ seed: args.seed, runs: args.runs, outDir: outDir(), log });
  // One 250 MB line in a Claude Code transcript: `check`'s peak RSS and time (its own generated file).
  if (group === 'hugeline') return runHugeLineBench({ runs: args.runs, outDir: outDir(), log });
  // Token estimates: 100 MB of hidden text, and view --at N with estimates against without (its own generated file).
  if (group === 'tokens') return runTokensBench({ runs: args.runs, outDir: outDir(), log });
  // The agents' own files at their real sizes: a 512 MiB Claude Code session (--size: another size).
  if (group === 'agents') return runAgentsBench({ bytes: args.sizeGiven ? args.size.bytes : AGENTS_SIZE, seed: args.seed, runs: args.runs, log });
  // `check` of a 500-sample .eval of about 1.1 GB of sample JSON against unzip + parse of every sample (its own generated file).
  if (group === 'inspect') return runInspectEvalBench({ samples: args.evalSamples, sampleBytes: args.evalSize.bytes, seed: args.seed, runs: args.runs, log });
  if (group === 'bundle') return runBundleBench({ runs: args.runs, log });
  if (group === 'import') return runImportBench({ bytes: args.importSize.bytes, seed: args.seed, runs: args.runs, outDir: outDir(), log });
  // The search group at each size asked for: a fixture of that size each, its rows named by it.
  if (group === 'search' && args.searchSizes) return runSearchAtSizes(args, args.searchSizes);
  if (!ctx) throw new Error(`${group} needs the fixture`);
  switch (group) {
    case 'indexing':
      return runIndexingBench(ctx);
    case 'memory':
      return runMemoryBench(ctx);
    case 'latency':
      return runLatencyBench(ctx);
    case 'search':
      return runSearchBench(ctx);
    // Following a sidecar appended at 1 MB/s.
    case 'follow':
      return runFollowBench(ctx);
  }
}

async function main(argv: readonly string[]): Promise<number> {
  let args: BenchArgs | 'help';
  try {
    args = parseBenchArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`bench: ${e.message}\n${USAGE}`);
    return 2;
  }
  if (args === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  const started = performance.now();
  const machine = describeMachine();

  let ctx: BenchContext | undefined;
  // With --search-sizes the search group makes its own fixtures (one per size).
  const fixtureGroups = args.groups.filter((g) => FIXTURE_GROUPS.includes(g) && !(g === 'search' && args.searchSizes));
  if (fixtureGroups.length > 0) {
    let fixture: Fixture;
    try {
      fixture = ensureFixture(args, log);
    } catch (e) {
      log(`no fixture: ${(e as Error).message}`);
      return 2;
    }
    log('bundling the runners (bench/out/runners) and the worker (dist/worker.cjs)');
    await buildRunners();
    if (args.groups.includes('memory') || args.groups.includes('latency') || args.groups.includes('follow') || args.groups.includes('search') || args.groups.includes('agents')) buildWorker();
    log(`warming the page cache: reading ${fixture.sidecar} once`);
    warmPageCache(fixture.sidecar);
    ctx = { fixture, runs: args.runs, log };
  } else if (args.groups.includes('search')) {
    log('bundling the runners (bench/out/runners) and the worker (dist/worker.cjs)');
    await buildRunners();
    buildWorker();
  } else if (args.groups.includes('import') || args.groups.includes('policy') || args.groups.includes('hugeline') || args.groups.includes('tokens') || args.groups.includes('agents') || args.groups.includes('inspect')) {
    log('bundling the runners (bench/out/runners)');
    await buildRunners();
    // The agents group follows its session through the worker.
    if (args.groups.includes('agents')) buildWorker();
  }

  const rows: BenchRow[] = [];
  for (const group of args.groups) {
    if (group === 'search' || group === 'agents') await untilSearchSplits();
    const groupStarted = performance.now();
    log(`${group}… (load average ${loadText()})`);
    try {
      rows.push(...(await runGroup(group, ctx, args)));
    } catch (e) {
      log(`${group} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      rows.push(failedRow(group, e));
    }
    log(`${group} done in ${((performance.now() - groupStarted) / 1000).toFixed(0)} s`);
  }

  const seconds = (performance.now() - started) / 1000;
  const head = machineLine(machine, ctx?.fixture, args);
  const table = formatTable(rows);
  const text = `${head}\n\n${table}\n\n${notes(rows)}\n`;
  process.stdout.write(`\n${text}`);
  const out = outDir();
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'results.md'), text);
  writeFileSync(join(out, 'results.json'), `${JSON.stringify({ machine, args, fixture: ctx?.fixture, seconds, rows }, null, 2)}\n`);
  log(`done in ${seconds.toFixed(0)} s; wrote ${join(out, 'results.md')} and results.json`);
  const failed = rows.filter((r) => r.pass === false).length;
  if (failed > 0) log(`${failed} row(s) FAIL${args.strict ? ' (--strict: exit 1)' : ''}`);
  return args.strict && failed > 0 ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
