/**
 * A large Inspect AI `.eval` for the import bench (bench/import.ts): sample `1_epoch_1` holds about
 * `bytes` of sample JSON — a tool-using conversation whose every call is a `model` event with
 * `input_refs` into `events_data.messages` (as inspect_ai ≥ 0.3.13x condenses them), some tool
 * outputs cut (`truncated`) — and three small samples follow. Deflated entries, laid out as the
 * writer lays them; the layout of the entries a reader of the first sample must inflate is returned
 * so the bench's baseline can inflate exactly those bytes without a zip reader.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rng } from '../../claudeCode/testing/generate';
import { zipLayout } from './synthetic';

export interface GeneratedEval {
  path: string;
  bytes: number;
  sampleBytes: number;
  messages: number;
  calls: number;
  truncated: number;
  /** Where the entries the first sample's reader inflates lie: header, summaries, the sample. */
  read: { name: string; dataStart: number; compressedSize: number }[];
}

const WORDS = ['def', 'return', 'import', 'class', 'self', 'value', 'error', 'test', 'assert', 'path', 'module', 'config', 'None', 'True', 'data', 'result'];

export function generateInspectEval(dir: string, options: { bytes: number; seed?: number }): GeneratedEval {
  const random = rng(options.seed ?? 1);
  const line = (): string => Array.from({ length: 6 + Math.floor(random() * 8) }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
  const messages: Record<string, unknown>[] = [
    { id: 'm0', role: 'system', content: 'You are a software agent.', source: 'input' },
    { id: 'm1', role: 'user', content: 'Fix the failing tests.', source: 'input' },
  ];
  const events: Record<string, unknown>[] = [];
  let size = 0;
  let calls = 0;
  let truncated = 0;
  while (size < options.bytes) {
    const n = messages.length;
    const callId = `call_${n}`;
    const assistant = { id: `m${n}`, role: 'assistant', content: line(), source: 'generate', tool_calls: [{ id: callId, function: 'bash', arguments: { cmd: line() }, type: 'function' }] };
    events.push({ uuid: `model-${n}`, event: 'model', model: 'openai/gpt-bench', input: [], input_refs: [[0, n]], tools: [], tool_choice: 'auto', config: {}, output: { model: 'gpt-bench', choices: [{ message: assistant, stop_reason: 'tool_calls' }] } });
    calls++;
    const output = Array.from({ length: 200 + Math.floor(random() * 400) }, line).join('\n');
    const cut = random() < 0.1;
    const tool = { id: `m${n + 1}`, role: 'tool', content: output, tool_call_id: callId, function: 'bash' };
    events.push({ uuid: `tool-${n}`, event: 'tool', type: 'function', id: callId, function: 'bash', arguments: {}, result: '', message_id: tool.id, ...(cut ? { truncated: [output.length * 4, 16384] } : {}) });
    if (cut) truncated++;
    messages.push(assistant, tool);
    // The text stands twice in the sample (messages and the message pool), with the events around it.
    size += 2 * output.length + 1200;
  }
  const sample = { id: 1, epoch: 1, input: 'Fix the failing tests.', target: '', messages, events, events_data: { messages, calls: [] }, attachments: {} };
  const small = (id: number) => ({ id, epoch: 1, input: `Small task ${id}`, target: '', messages: [{ id: 'a', role: 'user', content: `Small task ${id}` }], events: [], attachments: {} });
  const header = { version: 2, status: 'success', eval: { task: 'bench', model: 'openai/gpt-bench' }, plan: {}, results: {}, stats: {} };
  const samples = [sample, small(2), small(3), small(4)];
  const entries: { name: string; data: Buffer }[] = [
    { name: '_journal/start.json', data: Buffer.from(JSON.stringify({ version: 2, eval: header.eval, plan: {} })) },
    ...samples.map((s) => ({ name: `samples/${s.id}_epoch_1.json`, data: Buffer.from(JSON.stringify(s)) })),
    { name: 'summaries.json', data: Buffer.from(JSON.stringify(samples.map((s) => ({ id: s.id, epoch: 1, input: s.input, target: '' })))) },
    { name: 'header.json', data: Buffer.from(JSON.stringify(header)) },
  ];
  const { bytes: file, layout } = zipLayout(entries);
  const read = layout.filter((e) => ['header.json', 'summaries.json', 'samples/1_epoch_1.json'].includes(e.name));
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'bench.eval');
  writeFileSync(path, file);
  return { path, bytes: file.length, sampleBytes: (entries[1] as { data: Buffer }).data.length, messages: messages.length, calls, truncated, read };
}
