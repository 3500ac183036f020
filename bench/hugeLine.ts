/**
 * One line of 250 MB in a Claude Code transcript and in a Codex rollout (docs/large-lines.md):
 * `check` of a generated transcript whose one tool result is a 250 MB string, and of a rollout
 * whose one `function_call_output` is, and of a transcript whose one tool call's input is (escapes and multi-byte characters throughout), each run a fresh `node bin/session-inspector.cjs` process, against the least a JSONL
 * reader does with the file (bench/runners/indexBaseline.ts: read, split, JSON.parse every line)
 * in the same run, alternating, after the file was read once to warm the page cache; medians.
 * Targets: peak RSS ≤ 0.25 × the file + 300 MB, time ≤ 2× the baseline's, and peak RSS at most
 * the native reader's `check` of a sidecar holding the same line, measured alternating in the
 * same runs: an imported file's line held as lightly as the native format's (docs/large-lines.md).
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

/** The 250 MB body: JSON-escaped log lines with escapes and multi-byte characters, a MiB at a time. */
function writeHugeBody(fd: number, bytes: number): void {
  const unit = JSON.stringify('2026-01-01 12:00:00 INFO worker-7 compiled "src/ledger/post.ts" in 12 ms\tcafé ✓\n').slice(1, -1);
  const chunk = unit.repeat(Math.ceil((1 << 20) / unit.length));
  for (let written = 0; written < bytes; written += chunk.length) writeSync(fd, chunk);
}

/** A Claude Code record of the generated transcripts. */
const claudeRec = (uuid: string, parent: string | null, fields: Record<string, unknown>): string =>
  JSON.stringify({ parentUuid: parent, isSidechain: false, userType: 'external', cwd: '/work', sessionId: '3f1c7a52-0000-4000-8000-000000000001', version: '2.1.17', uuid, timestamp: '2026-01-01T00:00:00.000Z', ...fields });

/** Writes (or reuses) the transcript: a prompt, a tool call, its result of `bytes` raw bytes on one line, an answer. */
export function writeHugeLineTranscript(path: string, bytes: number): number {
  if (existsSync(path) && statSync(path).size > bytes) return statSync(path).size;
  const fd = openSync(path, 'w');
  try {
    const rec = claudeRec;
    writeSync(fd, `${rec('u1', null, { type: 'user', message: { role: 'user', content: 'print the build log' } })}\n`);
    writeSync(fd, `${rec('a1', 'u1', { type: 'assistant', message: { id: 'msg_1', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'cat build.log' } }] } })}\n`);
    const [before, after] = rec('u2', 'a1', { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '@' }] } }).split('"@"') as [string, string];
    writeSync(fd, `${before}"`);
    writeHugeBody(fd, bytes);
    writeSync(fd, `"${after}\n`);
    writeSync(fd, `${rec('a2', 'u2', { type: 'assistant', message: { id: 'msg_2', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'The build passed.' }] } })}\n`);
  } finally {
    closeSync(fd);
  }
  return statSync(path).size;
}

/**
 * Writes (or reuses) the transcript: a prompt, a tool call whose input (a file's content) is
 * `bytes` raw bytes on one line, its result, an answer: a value outside a message's text, shown cut
 * (docs/large-lines.md).
 */
export function writeHugeInputTranscript(path: string, bytes: number): number {
  if (existsSync(path) && statSync(path).size > bytes) return statSync(path).size;
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, `${claudeRec('u1', null, { type: 'user', message: { role: 'user', content: 'write the build log' } })}\n`);
    const [before, after] = claudeRec('a1', 'u1', { type: 'assistant', message: { id: 'msg_1', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Write', input: { file_path: '/work/build.log', content: '@' } }] } }).split('"@"') as [string, string];
    writeSync(fd, `${before}"`);
    writeHugeBody(fd, bytes);
    writeSync(fd, `"${after}\n`);
    writeSync(fd, `${claudeRec('u2', 'a1', { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'File created successfully at: /work/build.log' }] } })}\n`);
    writeSync(fd, `${claudeRec('a2', 'u2', { type: 'assistant', message: { id: 'msg_2', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'Written.' }] } })}\n`);
  } finally {
    closeSync(fd);
  }
  return statSync(path).size;
}

/** Writes (or reuses) the rollout: its meta, a prompt, a function call, its output of `bytes` raw bytes on one line, an answer. */
export function writeHugeLineRollout(path: string, bytes: number): number {
  if (existsSync(path) && statSync(path).size > bytes) return statSync(path).size;
  const fd = openSync(path, 'w');
  try {
    const rec = (type: string, payload: Record<string, unknown>): string => JSON.stringify({ timestamp: '2026-01-01T00:00:00.000Z', type, payload });
    writeSync(fd, `${rec('session_meta', { id: '3f1c7a52-0000-4000-8000-000000000002', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/work', originator: 'codex_cli_rs', cli_version: '0.118.0', instructions: null })}\n`);
    writeSync(fd, `${rec('turn_context', { cwd: '/work', approval_policy: 'never', model: 'gpt-5-codex' })}\n`);
    writeSync(fd, `${rec('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'print the build log' }] })}\n`);
    writeSync(fd, `${rec('response_item', { type: 'function_call', name: 'shell', arguments: '{"command":["cat","build.log"]}', call_id: 'call_1' })}\n`);
    const [before, after] = rec('response_item', { type: 'function_call_output', call_id: 'call_1', output: '@' }).split('"@"') as [string, string];
    writeSync(fd, `${before}"`);
    writeHugeBody(fd, bytes);
    writeSync(fd, `"${after}\n`);
    writeSync(fd, `${rec('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'The build passed.' }] })}\n`);
  } finally {
    closeSync(fd);
  }
  return statSync(path).size;
}

/**
 * Writes (or reuses) a native sidecar holding the same line: a prompt, a tool call, its output of
 * `bytes` raw bytes on one line, an answer (no reduction). What the native reader's `check` peaks
 * at on it is the imported files' memory target (docs/large-lines.md).
 */
export function writeHugeLineSidecar(path: string, bytes: number): number {
  if (existsSync(path) && statSync(path).size > bytes) return statSync(path).size;
  const fd = openSync(path, 'w');
  try {
    const rec = (o: Record<string, unknown>): string => `${JSON.stringify(o)}\n`;
    writeSync(fd, rec({ t: 'header', format: 'supercode-sidecar', version: 1, session_id: 's-huge-line', created_at: '2026-01-01T00:00:00Z', model: 'model-a', gate: false, policy: { protect_last_n_tool_results: 0, max_tool_result_bytes: 1 << 30, kept_prefix_bytes: 0, dedupe: false, clear_turns_before: null } }));
    writeSync(fd, rec({ t: 'message', i: 0, msg: { role: 'user', content: 'print the build log' } }));
    writeSync(fd, rec({ t: 'message', i: 1, msg: { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', name: 'shell', arguments: '{"cmd":"cat build.log"}' }] } }));
    writeSync(fd, '{"t":"message","i":2,"msg":{"role":"tool","tool_call_id":"call_1","content":"');
    writeHugeBody(fd, bytes);
    writeSync(fd, '"}}\n');
    writeSync(fd, rec({ t: 'message', i: 3, msg: { role: 'assistant', content: 'The build passed.' } }));
  } finally {
    closeSync(fd);
  }
  return statSync(path).size;
}

export async function runHugeLineBench(ctx: HugeLineContext): Promise<BenchRow[]> {
  const dir = join(ctx.outDir, `hugeline-${HUGE_LINE_BYTES}`);
  mkdirSync(dir, { recursive: true });
  const native = join(dir, 'huge-line.sidecar.jsonl');
  writeHugeLineSidecar(native, HUGE_LINE_BYTES);
  const files = [
    { name: 'Claude Code transcript', path: join(dir, 'huge-line.jsonl'), write: writeHugeLineTranscript },
    { name: 'Codex rollout', path: join(dir, 'huge-line-rollout.jsonl'), write: writeHugeLineRollout },
    { name: 'Claude Code transcript, the line a tool call input', path: join(dir, 'huge-input.jsonl'), write: writeHugeInputTranscript },
  ];
  const rows: BenchRow[] = [];
  for (const file of files) rows.push(...(await hugeLineRows(ctx, file.name, file.path, file.write(file.path, HUGE_LINE_BYTES), native)));
  return rows;
}

/** The rows (peak RSS, time, peak RSS against the native reader's on the same line) of `check` on one file. */
async function hugeLineRows(ctx: HugeLineContext, name: string, path: string, size: number, native: string): Promise<BenchRow[]> {
  warmPageCache(path);
  warmPageCache(native);
  const bound = 0.25 * size + 300 * MB;
  const baseline: IndexRunResult[] = [];
  const check: { ms: number; peakRss: number }[] = [];
  const nativeCheck: { ms: number; peakRss: number }[] = [];
  for (let run = 1; run <= ctx.runs; run++) {
    baseline.push(await runChild<IndexRunResult>('indexBaseline', { path }));
    check.push(timeCli(['check', path]));
    nativeCheck.push(timeCli(['check', native]));
    ctx.log(`hugeline (${name}): run ${run}/${ctx.runs}: read+parse ${(baseline.at(-1)?.ms ?? 0).toFixed(0)} ms, ${((baseline.at(-1)?.peakRss ?? 0) / MB).toFixed(0)} MB; check ${(check.at(-1)?.ms ?? 0).toFixed(0)} ms, ${((check.at(-1)?.peakRss ?? 0) / MB).toFixed(1)} MB; the native sidecar's check ${((nativeCheck.at(-1)?.peakRss ?? 0) / MB).toFixed(1)} MB`);
  }
  const ms = median(check.map((c) => c.ms));
  const peak = median(check.map((c) => c.peakRss));
  const nativePeak = median(nativeCheck.map((c) => c.peakRss));
  const baseMs = median(baseline.map((b) => b.ms));
  const basePeak = median(baseline.map((b) => b.peakRss));
  const sizeNote = `${name}, ${(size / MB).toFixed(0)} MB file, one line of ${(HUGE_LINE_BYTES / MB).toFixed(0)} MB`;
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
    {
      group: 'hugeline',
      metric: `peak RSS of check, ${sizeNote}, against the native reader's on a sidecar holding the same line (median of ${ctx.runs})`,
      value: peak / MB,
      unit: 'MB',
      baseline: { name: 'the native sidecar', value: nativePeak / MB },
      ratio: nativePeak / peak,
      target: '≤ the native reader’s',
      pass: peak <= nativePeak,
      note: `check of the sidecar peaks at ${nativeCheck.map((c) => (c.peakRss / MB).toFixed(1)).join(', ')} MB, of this file at ${check.map((c) => (c.peakRss / MB).toFixed(1)).join(', ')} MB (alternating)`,
    },
  ];
}
