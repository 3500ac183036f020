/**
 * A Codex rollout of about N bytes for the import benchmark, in the shapes of docs/FORMATS.md §2 (0.12x):
 * `session_meta`, then per turn `turn_context`, the user's prompt (a `response_item` message and
 * its `event_msg` copy), encrypted `reasoning`, `exec_command` function calls with their outputs
 * (a few hundred bytes to megabytes), the answer (and its `event_msg` copy), `token_count` events;
 * a local compaction (`compacted` with the kept prompts and the summary) every 30 MB. Seeded.
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { seededText } from '../electron/loader/claudeCode/testing/generate';

export interface GeneratedRollout {
  path: string;
  bytes: number;
  lines: number;
  turns: number;
  toolCalls: number;
  compactions: number;
}

export function generateCodexRollout(dir: string, options: { bytes: number; seed?: number; compactEvery?: number }): GeneratedRollout {
  const { random, int, pick, hex, sentence, output: outputOf } = seededText(options.seed ?? 1130);
  const output = (bytes: number): string => outputOf(bytes, 'rs');
  const WORDS = ['cargo', 'test', 'diff', 'src'];

  mkdirSync(dir, { recursive: true });
  const id = `019ed628-${hex(4)}-7${hex(3)}-8${hex(3)}-${hex(12)}`;
  const path = join(dir, `rollout-2026-06-17T15-17-40-${id}.jsonl`);
  const fd = openSync(path, 'w');
  let bytes = 0;
  let lines = 0;
  let pending: string[] = [];
  let pendingBytes = 0;
  let clock = Date.parse('2026-06-17T15:17:40.000Z');
  const write = (type: string, payload: unknown) => {
    const text = `${JSON.stringify({ timestamp: new Date((clock += int(5, 3000))).toISOString(), type, payload })}\n`;
    const n = Buffer.byteLength(text);
    pending.push(text);
    pendingBytes += n;
    bytes += n;
    lines++;
    if (pendingBytes >= 4 * 1024 * 1024) {
      writeSync(fd, pending.join(''));
      pending = [];
      pendingBytes = 0;
    }
  };
  const cwd = '/home/dev/work/project';
  write('session_meta', { id, timestamp: new Date(clock).toISOString(), cwd, originator: 'codex-tui', cli_version: '0.126.0', source: 'cli', model_provider: 'openai', base_instructions: { text: `You are Codex. ${sentence(400)}` } });
  const stats = { turns: 0, toolCalls: 0, compactions: 0 };
  const prompts: unknown[] = [];
  const compactEvery = options.compactEvery ?? 30_000_000;
  let nextCompaction = compactEvery;
  let tokens = 0;
  while (bytes < options.bytes) {
    stats.turns++;
    const turnId = `019ed628-${hex(4)}-7${hex(3)}-8${hex(3)}-${hex(12)}`;
    write('turn_context', { turn_id: turnId, cwd, approval_policy: 'on-request', sandbox_policy: { type: 'workspace-write', network_access: false }, model: 'gpt-5.5', effort: 'medium', summary: 'auto', truncation_policy: { mode: 'tokens', limit: 10000 } });
    const text = `${sentence(int(8, 60))}?`;
    const prompt = { type: 'message', role: 'user', content: [{ type: 'input_text', text }] };
    prompts.push(prompt);
    write('response_item', prompt);
    write('event_msg', { type: 'user_message', message: text, images: [], kind: 'plain' });
    const steps = int(1, 6);
    for (let s = 0; s < steps; s++) {
      write('response_item', { type: 'reasoning', summary: random() < 0.5 ? [{ type: 'summary_text', text: sentence(int(10, 60)) }] : [], content: null, encrypted_content: `gAAAAB${hex(int(200, 1200))}` });
      if (s === steps - 1) break;
      stats.toolCalls++;
      const callId = `call_${hex(24)}`;
      write('response_item', { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: `${pick(['cargo test', 'git diff', 'rg -n', 'ls -la'])} ${pick(WORDS)}`, workdir: cwd, yield_time_ms: 10000 }), call_id: callId });
      const r = random();
      const size = r < 0.7 ? int(50, 3000) : r < 0.95 ? int(3000, 40_000) : r < 0.995 ? int(40_000, 400_000) : int(1_000_000, 3_000_000);
      write('response_item', { type: 'function_call_output', call_id: callId, output: `Chunk ID: ${hex(6)}\nWall time: 0.${hex(4)} seconds\nProcess exited with code 0\nOutput:\n${output(size)}` });
      tokens += Math.round(size / 4);
      write('event_msg', { type: 'token_count', info: { total_token_usage: { input_tokens: tokens, cached_input_tokens: Math.round(tokens / 2), output_tokens: int(10, 900), total_tokens: tokens + 100 } }, rate_limits: null });
    }
    const answer = sentence(int(5, 150));
    write('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: answer }], phase: 'final_answer' });
    write('event_msg', { type: 'agent_message', message: answer });
    if (bytes >= nextCompaction && bytes < options.bytes) {
      nextCompaction += compactEvery;
      stats.compactions++;
      const summary = `Another language model started to solve this problem and produced a summary of its thinking process. ${sentence(int(200, 600))}`;
      write('compacted', { message: summary, replacement_history: [...prompts.slice(-20), { type: 'message', role: 'user', content: [{ type: 'input_text', text: summary }] }] });
      write('event_msg', { type: 'context_compacted' });
    }
  }
  writeSync(fd, pending.join(''));
  closeSync(fd);
  return { path, bytes, lines, ...stats };
}
