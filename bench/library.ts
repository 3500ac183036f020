/**
 * The `library` group (bench/README.md): `sessions DIR --no-default-roots` over 2,000 small Claude
 * Code sessions (electron/library/testing/generated.ts), each run a fresh process through
 * bin/session-inspector.cjs, against a baseline process that walks the same folder, opens each
 * file and reads its first 64 KiB. Cold = an empty index cache (every file indexed whole, on the
 * indexing threads); warm = the cache the cold run left. Also reported: `--heads`. Runs
 * alternate, medians. Targets: cold ≤ 2× the baseline, warm ≤ 0.3× cold.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeSmallSessions } from '../electron/library/testing/generated';
import { outDir } from './fixtures';
import type { BenchRow } from './report';
import { median } from './report';
import { repoRoot } from './util';

export const LIBRARY_SESSIONS = 2000;
export const COLD_TARGET = 2;
export const WARM_TARGET = 0.3;
const BIN = join(repoRoot, 'bin', 'session-inspector.cjs');

/** The baseline: walk the folder, open each file and read its first 64 KiB. */
const BASELINE = `
const fs = require('node:fs'), path = require('node:path');
const buf = Buffer.allocUnsafe(65536);
let files = 0;
const walk = (d) => { for (const e of fs.readdirSync(d, { withFileTypes: true })) { const p = path.join(d, e.name);
  if (e.isDirectory()) walk(p); else if (e.isFile()) { const fd = fs.openSync(p, 'r'); fs.readSync(fd, buf, 0, 65536, 0); fs.closeSync(fd); files++; } } };
walk(process.argv[1]);
if (files === 0) process.exit(3);
`;

function timeOnce(args: string[], env: NodeJS.ProcessEnv): { ms: number; stdout: string } {
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.status !== 0) throw new Error(`${args.slice(0, 2).join(' ')} exited ${String(r.status)}: ${r.stderr.toString().trim()}`);
  return { ms, stdout: r.stdout.toString() };
}

export interface LibraryBenchOptions {
  runs: number;
  log: (line: string) => void;
}

export function runLibraryBench({ runs, log }: LibraryBenchOptions): BenchRow[] {
  log('library: building dist/cli.cjs, its chunks and dist/library.cjs');
  execFileSync(process.execPath, [join(repoRoot, 'scripts', 'build.mjs'), 'cli', 'library'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  const dir = join(outDir(), `library-${LIBRARY_SESSIONS}`);
  if (!existsSync(dir) || readdirSync(dir).length === 0) {
    log(`library: writing ${LIBRARY_SESSIONS} small sessions into ${dir}`);
    mkdirSync(dir, { recursive: true });
    writeSmallSessions(dir, LIBRARY_SESSIONS);
  }
  const cache = join(outDir(), 'library-cache');
  const env = { ...process.env, SESSION_INSPECTOR_CACHE_DIR: cache, HOME: join(outDir(), 'library-home') };
  const sessions = [BIN, 'sessions', dir, '--no-default-roots'];
  const listed = (stdout: string): number => (JSON.parse(stdout) as { sessions: unknown[] }).sessions.length;
  // The page cache and the code cache filled first.
  timeOnce(['-e', BASELINE, dir], env);
  timeOnce([...sessions, '--heads'], env);
  const rounds = Math.max(3, runs);
  const base: number[] = [];
  const cold: number[] = [];
  const warm: number[] = [];
  const heads: number[] = [];
  for (let round = 0; round < rounds; round++) {
    base.push(timeOnce(['-e', BASELINE, dir], env).ms);
    rmSync(cache, { recursive: true, force: true });
    const c = timeOnce(sessions, env);
    if (listed(c.stdout) !== LIBRARY_SESSIONS) throw new Error(`the cold listing listed ${listed(c.stdout)} sessions, not ${LIBRARY_SESSIONS}`);
    cold.push(c.ms);
    const w = timeOnce(sessions, env);
    if (listed(w.stdout) !== LIBRARY_SESSIONS) throw new Error(`the warm listing listed ${listed(w.stdout)} sessions`);
    warm.push(w.ms);
    heads.push(timeOnce([...sessions, '--heads'], env).ms);
  }
  const [b, c, w, h] = [base, cold, warm, heads].map((t) => median(t)) as [number, number, number, number];
  log(`library: medians of ${rounds}: baseline ${b.toFixed(0)} ms, cold ${c.toFixed(0)} ms, warm ${w.toFixed(0)} ms, --heads ${h.toFixed(0)} ms`);
  const baseline = { name: 'open + read 64 KiB each', value: b };
  return [
    { group: 'library', metric: `sessions, ${LIBRARY_SESSIONS} small sessions, cold cache`, value: c, unit: 'ms', baseline, ratio: b / c, target: `cold ≤ ${COLD_TARGET}× baseline`, pass: c <= COLD_TARGET * b, note: `cold / baseline = ${(c / b).toFixed(2)}×; each run a fresh process; every file indexed whole on the indexing threads` },
    { group: 'library', metric: `sessions, ${LIBRARY_SESSIONS} small sessions, warm cache`, value: w, unit: 'ms', baseline: { name: 'cold', value: c }, ratio: c / w, target: `warm ≤ ${WARM_TARGET}× cold`, pass: w <= WARM_TARGET * c, note: `warm / cold = ${(w / c).toFixed(2)}×, warm / baseline = ${(w / b).toFixed(2)}×` },
    { group: 'library', metric: `sessions --heads, ${LIBRARY_SESSIONS} small sessions`, value: h, unit: 'ms', baseline, ratio: b / h, note: `--heads / baseline = ${(h / b).toFixed(2)}×` },
  ];
}
