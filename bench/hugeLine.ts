/**
 * One line of 250 MB in a Claude Code transcript (docs/large-lines.md): `check` of a generated
 * transcript whose one tool result is a 250 MB string (escapes and multi-byte characters
 * throughout), each run a fresh `node bin/session-inspector.cjs` process, against the least a JSONL
 * reader does with the file (bench/runners/indexBaseline.ts: read, split, JSON.parse every line)
 * in the same run, alternating, after the file was read once to warm the page cache; medians.
 * Targets: peak RSS ≤ 0.25 × the file + 300 MB, time ≤ 2× the baseline's.
 */
import { closeSync, existsSync, mkdirSync, openSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchRow } from './report';
import { median } from './report';
import type { IndexRunResult } from './runners/indexBaseline';
import { timeCli } from './policy';
import { MB, runChild, warmPageCache } from './util';

export const HUGE_LINE_BYTES = 250_000_000;
export const HUGE_LINE_TIME_TARGET = 2;

export interface HugeLineContext {
  runs: number;
  outDir: string;
  log: (line: string) => void;
}

/** Writes (or reuses) the transcript: a prompt, a tool call, its result of `bytes` raw bytes on one line, an answer. */
export function writeHugeLineTranscript(path: string, bytes: number): number {
  if (existsSync(path) && statSync(path).size > bytes) return statSync(path).size;
  const fd = openSync(path, 'w');
  try {
    const sessionId = '3f1c7a52-0000-4000-8000-000000000001';
    const rec = (uuid: string, parent: string | null, fields: Record<string, unknown>): string =>
      JSON.stringify({ parentUuid: parent, isSidechain: false, userType: 'external', cwd: '/work', sessionId, version: '2.1.17', uuid, timestamp: '2026-01-01T00:00:00.000Z', ...fields });
    writeSync(fd, `${rec('u1', null, { type: 'user', message: { role: 'user', content: 'print the build log' } })}\n`);
    writeSync(fd, `${rec('a1', 'u1', { type: 'assistant', message: { id: 'msg_1', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'cat build.log' } }] } })}\n`);
    const [before, after] = rec('u2', 'a1', { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '@' }] } }).split('"@"') as [string, string];
    writeSync(fd, `${before}"`);
    const unit = JSON.stringify('2026-01-01 12:00:00 INFO worker-7 compiled "src/ledger/post.ts" in 12 ms\tcafé ✓\n').slice(1, -1);
    const chunk = unit.repeat(Math.ceil((1 << 20) / unit.length));
    for (let written = 0; written < bytes; written += chunk.length) writeSync(fd, chunk);
    writeSync(fd, `"${after}\n`);
    writeSync(fd, `${rec('a2', 'u2', { type: 'assistant', message: { id: 'msg_2', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'The build passed.' }] } })}\n`);
  } finally {
    closeSync(fd);
  }
  return statSync(path).size;
}

export async function runHugeLineBench(ctx: HugeLineContext): Promise<BenchRow[]> {
  const dir = join(ctx.outDir, `hugeline-${HUGE_LINE_BYTES}`);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'huge-line.jsonl');
  const size = writeHugeLineTranscript(path, HUGE_LINE_BYTES);
  warmPageCache(path);
  const bound = 0.25 * size + 300 * MB;
  const baseline: IndexRunResult[] = [];
  const check: { ms: number; peakRss: number }[] = [];
  for (let run = 1; run <= ctx.runs; run++) {
    baseline.push(await runChild<IndexRunResult>('indexBaseline', { path }));
    check.push(timeCli(['check', path]));
    ctx.log(`hugeline: run ${run}/${ctx.runs}: read+parse ${(baseline.at(-1)?.ms ?? 0).toFixed(0)} ms, ${((baseline.at(-1)?.peakRss ?? 0) / MB).toFixed(0)} MB; check ${(check.at(-1)?.ms ?? 0).toFixed(0)} ms, ${((check.at(-1)?.peakRss ?? 0) / MB).toFixed(0)} MB`);
  }
  const ms = median(check.map((c) => c.ms));
  const peak = median(check.map((c) => c.peakRss));
  const baseMs = median(baseline.map((b) => b.ms));
  const basePeak = median(baseline.map((b) => b.peakRss));
  const sizeNote = `${(size / MB).toFixed(0)} MB file, one line of ${(HUGE_LINE_BYTES / MB).toFixed(0)} MB`;
  return [
    {
      group: 'hugeline',
      metric: `peak RSS of check, ${sizeNote} (median of ${ctx.runs})`,
      value: peak / MB,
      unit: 'MB',
      baseline: { name: 'read+parse', value: basePeak / MB },
      ratio: basePeak / peak,
      target: `≤ 0.25 × file + 300 MB (${(bound / MB).toFixed(0)} MB)`,
      pass: peak <= bound,
      note: `peak RSS / file size = ${(peak / size).toFixed(3)}; read+split+JSON.parse of the same file peaks at ${(basePeak / MB).toFixed(0)} MB (${(basePeak / size).toFixed(2)} × the file)`,
    },
    {
      group: 'hugeline',
      metric: `check, ${sizeNote} (median of ${ctx.runs})`,
      value: ms,
      unit: 'ms',
      baseline: { name: 'read+parse', value: baseMs },
      ratio: baseMs / ms,
      target: `≥ ${(1 / HUGE_LINE_TIME_TARGET).toFixed(2)}× read+parse (time ≤ ${HUGE_LINE_TIME_TARGET}×)`,
      pass: ms <= HUGE_LINE_TIME_TARGET * baseMs,
      note: `fresh processes, alternating, page cache warmed; check / read+split+JSON.parse = ${(ms / baseMs).toFixed(2)}×`,
    },
  ];
}
