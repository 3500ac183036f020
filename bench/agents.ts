/**
 * The agents' own files at their real sizes: a Claude Code session of 512 MiB (`--size` to run
 * smaller) written by electron/loader/claudeCode/testing/generate.ts from real-format records, with
 * compactions, microcompactions, parallel tool calls and persisted outputs. Rows, each measured in
 * the same run against the least a JSONL reader does with the file (bench/runners/indexBaseline.ts:
 * read, split, `JSON.parse` every line), alternating fresh processes after the file was read once:
 *
 * - `check FILE`: time ≤ 1.5× the baseline's;
 * - its peak RSS ≤ 0.25 × the file + 300 MB;
 * - `view --at N` of the middle model call: time ≤ 1.5× the baseline's;
 * - following a copy of it through the real worker (bench/runners/followHost.ts): a prompt and its
 *   answer appended every second, each shown ≤ 1 s after its write (SPEC §13's live promise: the
 *   median and the worst), and the worker's CPU while nothing is appended < 25% of a core, as the
 *   follow group holds for the native sidecar.
 *
 * The session is written under the OS temp folder, kept while its manifest names the same
 * generator version, seed and size.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { GeneratedTranscript } from '../electron/loader/claudeCode/testing/generate';
import { generateClaudeTranscript } from '../electron/loader/claudeCode/testing/generate';
import type { Timed } from './policy';
import { timeCli } from './policy';
import type { BenchRow } from './report';
import { median } from './report';
import { outDir } from './fixtures';
import { followRows } from './follow';
import { mapInTokens } from './agentsMap';
import type { FollowResult } from './runners/followHost';
import type { IndexRunResult } from './runners/indexBaseline';
import { MB, formatBytes, repoRoot, runChild, warmPageCache, workerBundle } from './util';

export const AGENTS_SIZE = 512 * 1024 * 1024;
export const AGENTS_TIME_TARGET = 1.5;
/** Bumped whenever the generator's output for the same options changes. */
const GENERATOR_VERSION = 1;
/** Following: a prompt and its answer this often, for this long, then this long with nothing appended. */
const FOLLOW_EVERY_MS = 1000;
const FOLLOW_APPEND_MS = 12_000;
const FOLLOW_IDLE_MS = 5000;
/** Outputs a quarter of the import fixture's: more calls to the megabyte, as long sessions have. */
const OUTPUT_SCALE = 0.25;
/** A compaction per this share of the file: ten in all. */
const COMPACTIONS = 10;

export interface AgentsContext {
  bytes: number;
  seed: number;
  runs: number;
  log: (line: string) => void;
}

/** The session of `bytes` for `seed`, generated unless the temp folder holds it already. */
function ensureSession(bytes: number, seed: number, log: (line: string) => void): GeneratedTranscript & { origin: string } {
  const key = { generator: 'claudeCode/testing/generate.ts', version: GENERATOR_VERSION, seed, bytes, outputScale: OUTPUT_SCALE, compactions: COMPACTIONS };
  const dir = join(tmpdir(), 'session-inspector-bench', `agents-claude-code-${bytes}-${seed}`);
  const manifestPath = join(dir, 'manifest.json');
  try {
    const m = JSON.parse(readFileSync(manifestPath, 'utf8')) as { key: unknown; made: GeneratedTranscript };
    if (JSON.stringify(m.key) === JSON.stringify(key) && existsSync(m.made.path) && statSync(m.made.path).size === m.made.bytes) return { ...m.made, origin: 'reused' };
  } catch {
    // none yet, or unreadable: generate
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const started = performance.now();
  const made = generateClaudeTranscript(dir, { bytes, seed, outputScale: OUTPUT_SCALE, compactEvery: Math.ceil(bytes / (COMPACTIONS + 1)) });
  writeFileSync(manifestPath, `${JSON.stringify({ key, made }, null, 2)}\n`);
  const seconds = (performance.now() - started) / 1000;
  log(`agents: generated ${made.path} (${formatBytes(made.bytes)}) in ${seconds.toFixed(1)} s`);
  return { ...made, origin: `generated in ${seconds.toFixed(0)} s` };
}

/** The session's model calls, as `view` counts them. */
function callCount(path: string): number {
  const r = spawnSync(process.execPath, [join(repoRoot, 'bin', 'session-inspector.cjs'), 'view', '--at', '1', path], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`view --at 1 exited ${String(r.status)}: ${r.stderr.toString().slice(0, 500)}`);
  return (JSON.parse(r.stdout.toString()) as { calls: number }).calls;
}

export async function runAgentsBench(ctx: AgentsContext): Promise<BenchRow[]> {
  const made = ensureSession(ctx.bytes, ctx.seed, ctx.log);
  warmPageCache(made.path);
  const calls = callCount(made.path);
  const middle = Math.max(1, Math.ceil(calls / 2));
  const baseline: IndexRunResult[] = [];
  const check: Timed[] = [];
  const view: Timed[] = [];
  for (let run = 1; run <= ctx.runs; run++) {
    baseline.push(await runChild<IndexRunResult>('indexBaseline', { path: made.path }));
    check.push(timeCli(['check', made.path]));
    view.push(timeCli(['view', '--at', String(middle), made.path]));
    const ms = (t: { ms: number } | undefined): string => `${(t?.ms ?? 0).toFixed(0)} ms`;
    ctx.log(`agents: run ${run}/${ctx.runs}: read+parse ${ms(baseline.at(-1))}; check ${ms(check.at(-1))}, ${((check.at(-1)?.peakRss ?? 0) / MB).toFixed(0)} MB; view --at ${middle} ${ms(view.at(-1))}`);
  }
  const baseMs = median(baseline.map((b) => b.ms));
  const basePeak = median(baseline.map((b) => b.peakRss));
  const checkMs = median(check.map((c) => c.ms));
  const checkPeak = median(check.map((c) => c.peakRss));
  const viewMs = median(view.map((c) => c.ms));
  const viewPeak = median(view.map((c) => c.peakRss));
  const follow = await followCopy(made, ctx);
  const map = await mapInTokens(made.path);
  ctx.log(`agents: the map in tokens through the HTTP host in Chromium: first reply ${map.firstMs.toFixed(0)} ms after the page was asked for, complete ${map.passMs.toFixed(0)} ms later, ${map.replies} replies, ${formatBytes(map.bytes)}; then searches ${map.searchesMs.map((ms) => ms.toFixed(0)).join(', ')} ms`);
  const bound = 0.25 * made.bytes + 300 * MB;
  const about = `Claude Code session, ${(made.bytes / MB).toFixed(0)} MB (${made.origin}): ${made.lines} lines, ${made.turns} turns, ${made.toolCalls} tool calls, ${calls} model calls, ${made.compactions} compactions, ${made.microcompactions} microcompactions, ${made.persisted} persisted outputs`;
  const n = `median of ${ctx.runs}`;
  return [
    {
      group: 'agents',
      metric: `check, Claude Code ${(made.bytes / MB).toFixed(0)} MB (${n})`,
      value: checkMs,
      unit: 'ms',
      baseline: { name: 'read+parse', value: baseMs },
      ratio: baseMs / checkMs,
      target: `time ≤ ${AGENTS_TIME_TARGET}× read+parse`,
      pass: checkMs <= AGENTS_TIME_TARGET * baseMs,
      note: `${about}; fresh processes, alternating, page cache warmed; check / read+split+JSON.parse = ${(checkMs / baseMs).toFixed(2)}×`,
    },
    {
      group: 'agents',
      metric: `peak RSS of check, Claude Code ${(made.bytes / MB).toFixed(0)} MB (${n})`,
      value: checkPeak / MB,
      unit: 'MB',
      baseline: { name: 'read+parse', value: basePeak / MB },
      ratio: basePeak / checkPeak,
      target: `≤ 0.25 × file + 300 MB (${(bound / MB).toFixed(0)} MB)`,
      pass: checkPeak <= bound,
      note: `peak RSS / file size = ${(checkPeak / made.bytes).toFixed(3)}; read+split+JSON.parse peaks at ${(basePeak / MB).toFixed(0)} MB`,
    },
    {
      group: 'agents',
      metric: `view --at ${middle} (the middle call), Claude Code ${(made.bytes / MB).toFixed(0)} MB (${n})`,
      value: viewMs,
      unit: 'ms',
      baseline: { name: 'read+parse', value: baseMs },
      ratio: baseMs / viewMs,
      target: `time ≤ ${AGENTS_TIME_TARGET}× read+parse`,
      pass: viewMs <= AGENTS_TIME_TARGET * baseMs,
      note: `view --at ${middle} of ${calls} / read+split+JSON.parse = ${(viewMs / baseMs).toFixed(2)}×; its peak RSS ${(viewPeak / MB).toFixed(0)} MB`,
    },
    {
      group: 'agents',
      metric: `the map in tokens, Claude Code ${(made.bytes / MB).toFixed(0)} MB: first estimates → complete, through the HTTP host in Chromium`,
      value: map.passMs,
      unit: 'ms',
      note: `reported (one run): ${map.replies} tokenMap replies, ${formatBytes(map.bytes)} of JSON; the first came ${(map.firstMs / 1000).toFixed(1)} s after the page was asked for (docs/tokens.md "How the pass runs")`,
    },
    {
      group: 'agents',
      metric: `the first search in the page once the map is complete, Claude Code ${(made.bytes / MB).toFixed(0)} MB: Enter → its count shown`,
      value: map.searchesMs[0] ?? Number.NaN,
      unit: 'ms',
      note: `reported (one run): a text found nowhere; a second such search then took ${((map.searchesMs[1] ?? Number.NaN) / 1000).toFixed(2)} s (docs/search.md)`,
    },
    ...followRows(follow, {
      group: 'agents',
      metric: `follow, Claude Code ${(made.bytes / MB).toFixed(0)} MB: `,
      appended: `a copy of the session followed through the worker (${follow.messagesAtOpen} messages, opened in ${(follow.openMs / 1000).toFixed(1)} s, settled ${(follow.settleMs / 1000).toFixed(1)} s after); a prompt and its answer (two records) appended every ${FOLLOW_EVERY_MS} ms; from each write to the sessionUpdated showing both`,
      idle: `; RSS ${formatBytes(follow.rssBefore)} before the appends, ${formatBytes(follow.rssAfter)} after (each after a full collection)`,
    }),
  ];
}

/**
 * Follows a copy of the session (with its tool-results folder: the session file itself is never
 * written) through the real worker, appending a prompt and its answer every FOLLOW_EVERY_MS.
 */
async function followCopy(made: GeneratedTranscript, ctx: AgentsContext): Promise<FollowResult> {
  const dir = join(outDir(), 'agents-follow');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const copy = join(dir, basename(made.path));
  try {
    copyFileSync(made.path, copy);
    const companions = join(dirname(made.path), basename(made.path, '.jsonl'));
    if (existsSync(companions)) cpSync(companions, join(dir, basename(companions)), { recursive: true });
    ctx.log(`agents: following ${copy}: a prompt and its answer every ${FOLLOW_EVERY_MS} ms for ${FOLLOW_APPEND_MS / 1000} s`);
    const r = await runChild<FollowResult>('followHost', { workerPath: workerBundle, sidecar: copy, idleMs: FOLLOW_IDLE_MS, appendMs: FOLLOW_APPEND_MS, everyMs: FOLLOW_EVERY_MS, chunkBytes: 0, warmMs: FOLLOW_APPEND_MS, records: 'claude-code' }, ['--expose-gc']);
    ctx.log(`agents: follow: latencies ${r.latenciesMs.map((v) => v.toFixed(0)).join(', ')} ms; idle CPU ${((r.idleCpuMs / r.idleWallMs) * 100).toFixed(1)}%`);
    return r;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
