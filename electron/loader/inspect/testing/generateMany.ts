/**
 * A multi-sample Inspect AI `.eval` at any size (the bench's 500 samples and 1.1 GB of sample JSON,
 * the tests' few samples): each sample a tool-using conversation in the shapes inspect_ai writes
 * (e2e/fixtures/real/inspect/: `messages`, `events` with `model` events whose `input_refs` point
 * into `events_data.messages`, `tool` events, `output`, `scores`, `model_usage`, `attachments`),
 * `summaries.json` as its recorder writes it (one EvalSampleSummary per sample: id, epoch, input,
 * target, scores, model_usage, times, `message_count` = the sample's `messages` length), `header.json`
 * with results and stats, `reductions.json` and `_journal/start.json`. Some samples end on a token
 * limit with their last call's output not in the history (the view shows it as one more message
 * than `message_count`). Written to disk one deflated entry at a time: the archive is never held.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { rng } from '../../claudeCode/testing/generate';
import type { ZipEntrySpec, ZipLayoutEntry } from './synthetic';
import { writeZip } from './synthetic';

/** Bumped whenever what the generator writes changes: a cached file of another version is not reused. */
export const MANY_SAMPLES_GENERATOR_VERSION = 1;

export interface ManySamplesOptions {
  samples: number;
  /** About how many bytes of sample JSON the samples hold together. */
  sampleBytes: number;
  seed?: number;
}

export interface GeneratedSample {
  /** `<id>_epoch_<n>`, as the session picker names it. */
  session: string;
  entry: string;
  /** Its `messages` length (the summary's `message_count`). */
  history: number;
  /** True when it ends on a limit with the last call's output not in the history. */
  limited: boolean;
  bytes: number;
}

export interface GeneratedManyEval {
  path: string;
  /** The archive's size. */
  bytes: number;
  /** The samples' JSON bytes together (inflated). */
  sampleBytes: number;
  samples: GeneratedSample[];
  /** Where every entry's compressed data lies (the baseline inflates the samples' without a zip reader). */
  layout: ZipLayoutEntry[];
}

type Obj = Record<string, unknown>;
const MODEL = 'openai/gpt-4o-mini';
const WORDS = ['def', 'return', 'import', 'class', 'self', 'value', 'error', 'test', 'assert', 'path', 'module', 'config', 'None', 'True', 'data', 'result'];

/** One sample of about `bytes` JSON bytes. */
function sampleOf(id: number, bytes: number, limited: boolean, random: () => number): Obj {
  const line = (): string => Array.from({ length: 6 + Math.floor(random() * 8) }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
  const input = `Task ${id}: make the failing tests in module_${id} pass.`;
  const messages: Obj[] = [
    { id: `s${id}m0`, role: 'system', content: 'You are a software agent. Use the bash tool.', source: 'input' },
    { id: `s${id}m1`, role: 'user', content: input, source: 'input' },
  ];
  const events: Obj[] = [{ event: 'sample_init', sample: { id, epoch: 1, input, target: 'PASS' }, state: {} }];
  const usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
  const call = (n: number, assistant: Obj): Obj => {
    const inTokens = 200 * n;
    usage.input_tokens += inTokens;
    usage.output_tokens += 40;
    usage.total_tokens += inTokens + 40;
    return { event: 'model', model: MODEL, input: [], input_refs: [[0, n]], tools: [{ name: 'bash', description: 'Run a bash command.', parameters: { type: 'object', properties: { cmd: { type: 'string' } } } }], tool_choice: 'auto', config: {}, output: { model: 'gpt-4o-mini', choices: [{ message: assistant, stop_reason: assistant.tool_calls ? 'tool_calls' : 'stop' }], usage: { input_tokens: inTokens, output_tokens: 40, total_tokens: inTokens + 40 } } };
  };
  let size = 0;
  while (size < bytes) {
    const n = messages.length;
    const callId = `call_${id}_${n}`;
    const assistant = { id: `s${id}m${n}`, role: 'assistant', content: line(), source: 'generate', model: 'gpt-4o-mini', tool_calls: [{ id: callId, function: 'bash', arguments: { cmd: line() }, type: 'function' }] };
    events.push(call(n, assistant));
    const output = Array.from({ length: 20 + Math.floor(random() * 200) }, line).join('\n');
    const tool = { id: `s${id}m${n + 1}`, role: 'tool', content: output, tool_call_id: callId, function: 'bash' };
    events.push({ event: 'tool', type: 'function', id: callId, function: 'bash', arguments: {}, result: '', message_id: tool.id });
    messages.push(assistant, tool);
    // The text stands twice in the sample (messages and the message pool), with the events around it.
    size += 2 * output.length + 1400;
  }
  const last = { id: `s${id}m${messages.length}`, role: 'assistant', content: limited ? 'Still working on it.' : 'The tests pass now.', source: 'generate', model: 'gpt-4o-mini' };
  events.push(call(messages.length, last));
  // A sample cut by its token limit ends with its last call's output outside the history.
  if (!limited) messages.push(last);
  const value = limited ? 'I' : random() < 0.7 ? 'C' : 'I';
  return {
    id,
    epoch: 1,
    input,
    target: 'PASS',
    messages,
    output: { model: 'gpt-4o-mini', choices: [{ message: last, stop_reason: 'stop' }] },
    scores: { match: { value, answer: value === 'C' ? 'PASS' : 'FAIL', explanation: line() } },
    metadata: {},
    store: {},
    events,
    events_data: { messages, calls: [] },
    model_usage: { [MODEL]: usage },
    total_time: 10 + random() * 100,
    working_time: 9 + random() * 90,
    uuid: `uuid-${id}`,
    ...(limited ? { limit: { type: 'token', limit: usage.total_tokens } } : {}),
    attachments: {},
  };
}

/** The sample's EvalSampleSummary, as inspect_ai's recorder writes it into summaries.json. */
function summaryOf(s: Obj): Obj {
  const limit = s.limit as { type: string } | undefined;
  return {
    id: s.id,
    epoch: s.epoch,
    input: s.input,
    target: s.target,
    metadata: {},
    scores: s.scores,
    model_usage: s.model_usage,
    total_time: s.total_time,
    working_time: s.working_time,
    uuid: s.uuid,
    ...(limit ? { limit: limit.type } : {}),
    retries: 0,
    completed: true,
    message_count: (s.messages as unknown[]).length,
  };
}

const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v), 'utf8');

/** Writes the log to `path` (one sample made, deflated and written at a time). */
export function writeManySamplesEval(path: string, options: ManySamplesOptions): GeneratedManyEval {
  const random = rng(options.seed ?? 1);
  const each = options.sampleBytes / Math.max(1, options.samples);
  const summaries: Obj[] = [];
  const samples: GeneratedSample[] = [];
  let sampleBytes = 0;
  const evalSpec = { task: 'many_samples', task_id: 'manySamplesTask', run_id: 'manySamplesRun', created: '2026-01-01T00:00:00+00:00', model: MODEL, dataset: { name: 'generated', samples: options.samples }, packages: { inspect_ai: '0.3.140' } };
  function* entries(): Generator<ZipEntrySpec> {
    yield { name: '_journal/start.json', data: json({ version: 2, eval: evalSpec, plan: { steps: [{ solver: 'basic_agent' }] } }) };
    for (let k = 1; k <= options.samples; k++) {
      // Every 25th sample ends on its token limit; sizes vary from half to one and a half times the mean.
      const limited = k % 25 === 0;
      const s = sampleOf(k, each * (0.5 + random()), limited, random);
      const data = json(s);
      const entry = `samples/${k}_epoch_1.json`;
      sampleBytes += data.length;
      samples.push({ session: `${k}_epoch_1`, entry, history: (s.messages as unknown[]).length, limited, bytes: data.length });
      summaries.push(summaryOf(s));
      yield { name: entry, data };
    }
    yield { name: 'summaries.json', data: json(summaries) };
    yield { name: 'reductions.json', data: json([{ scorer: 'match', samples: summaries.map((s) => ({ sample_id: s.id, value: (s.scores as { match: { value: string } }).match.value })) }]) };
    const correct = summaries.filter((s) => (s.scores as { match: { value: string } }).match.value === 'C').length;
    yield {
      name: 'header.json',
      data: json({
        version: 2,
        status: 'success',
        eval: evalSpec,
        plan: { steps: [{ solver: 'basic_agent' }] },
        results: { total_samples: options.samples, completed_samples: options.samples, scores: [{ name: 'match', scorer: 'match', metrics: { accuracy: { name: 'accuracy', value: correct / Math.max(1, options.samples) } } }] },
        stats: { started_at: '2026-01-01T00:00:00+00:00', completed_at: '2026-01-01T01:00:00+00:00', model_usage: {} },
      }),
    };
  }
  const fd = openSync(path, 'w');
  let bytes = 0;
  let layout: ZipLayoutEntry[];
  try {
    layout = writeZip(entries(), (b) => {
      writeSync(fd, b);
      bytes += b.length;
    });
  } finally {
    closeSync(fd);
  }
  return { path, bytes, sampleBytes, samples, layout };
}
