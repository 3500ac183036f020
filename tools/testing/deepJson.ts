/**
 * Sessions of every format the loader reads with one record nested `depth` levels deep: in a
 * tool call's input or arguments (`arguments`), or elsewhere in a record (`record`). Each other
 * record is ordinary; `rawMessages` counts the file's messages from its bytes by the format's own
 * rule (never by asking the importer). Used by electron/loader/deepJson.test.ts, the command-line
 * test and the bad-input corpus (badCorpusFormats.ts). See docs/deep-json.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SessionBuilder } from '../../electron/loader/claudeCode/testing/build';
import { zipOf } from '../../electron/loader/inspect/testing/synthetic';
import { makeHeader, messageRecord } from './files';

/** The depth the corpus and the per-format tests use: past every recursive consumer's stack. */
export const DEEP_LEVELS = 6000;

export type DeepVariant = 'arguments' | 'record';

export interface DeepCase {
  /** The format, as `check` names it in its summary. */
  format: string;
  variant: DeepVariant;
  /** Every file of the session, by its path relative to a folder of its own. */
  files: Record<string, Buffer>;
  /** The file to open. */
  open: string;
  /** `--session`, for a file that holds several. */
  session?: string;
  /** The file's messages, counted from its bytes. */
  rawMessages: number;
  /** What the finding's message names: the line, file or path of the deep record. */
  names: string;
  /** The finding's line, when it has one. */
  line?: number;
  /** A native record deeper than the cap is not read: its index is a hole. */
  hole?: number;
}

/** `depth` arrays, one inside the other, around a 0, as JSON text (12 KB at 6,000 levels). */
export const deepText = (depth: number): string => `${'['.repeat(depth)}0${']'.repeat(depth)}`;

const PLACEHOLDER = '"@@DEEP@@"';
/** JSON text of `v` with every "@@DEEP@@" string replaced by a value nested `depth` levels. */
function withDeep(v: unknown, depth: number, space?: number): string {
  return JSON.stringify(v, null, space).split(PLACEHOLDER).join(deepText(depth));
}
const DEEP = '@@DEEP@@';
const lines = (ls: readonly string[]): Buffer => Buffer.from(ls.map((l) => `${l}\n`).join(''), 'utf8');
const parseLines = (b: Buffer): unknown[] =>
  b
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as unknown);
type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null ? (v as Obj) : {});

function nativeSidecar(variant: DeepVariant, depth: number): DeepCase {
  const call = { id: 'call_1', name: 'shell', arguments: variant === 'arguments' ? DEEP : '{"cmd":"make"}' };
  const records = [
    JSON.stringify(makeHeader()),
    JSON.stringify(messageRecord(0, { role: 'user', content: 'Run the checks' })),
    withDeep(messageRecord(1, { role: 'assistant', content: '', tool_calls: [call] }), depth),
    withDeep(messageRecord(2, { role: 'tool', tool_call_id: 'call_1', content: 'PASS all\n', ...(variant === 'record' ? { metadata: { trace: DEEP } } : {}) }), depth),
    JSON.stringify(messageRecord(3, { role: 'assistant', content: 'All checks pass.' })),
  ];
  const bytes = lines(records);
  const deepLine = variant === 'arguments' ? 3 : 4;
  return { format: 'supercode-sidecar', variant, files: { 's.sidecar.jsonl': bytes }, open: 's.sidecar.jsonl', rawMessages: parseLines(bytes).filter((r) => obj(r).t === 'message').length, names: `line ${deepLine}`, line: deepLine, hole: deepLine - 2 };
}

function nativeSnapshot(variant: DeepVariant, depth: number): DeepCase {
  const messages = [
    { role: 'user', content: 'Run the checks' },
    { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', name: 'shell', arguments: variant === 'arguments' ? DEEP : '{}' }] },
    { role: 'tool', tool_call_id: 'call_1', content: 'PASS all\n', ...(variant === 'record' ? { metadata: { trace: DEEP } } : {}) },
    { role: 'assistant', content: 'All checks pass.' },
  ];
  const bytes = Buffer.from(withDeep({ format: 'supercode-session', version: 1, session_id: 's-deep', model: 'model-a', messages }, depth), 'utf8');
  const hole = variant === 'arguments' ? 1 : 2;
  const raw = JSON.parse(bytes.toString('utf8')) as { messages: unknown[] };
  return { format: 'supercode-snapshot', variant, files: { 's.session.json': bytes }, open: 's.session.json', rawMessages: raw.messages.length, names: `messages[${hole}]`, hole };
}

function claudeCode(variant: DeepVariant, depth: number): DeepCase {
  const b = new SessionBuilder();
  b.user('Find the failing test', null);
  const [call] = b.assistant('msg_1', [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: variant === 'arguments' ? { command: DEEP } : { command: 'npm test' } }]);
  b.result('toolu_1', 'FAIL b.test.ts\n', call, variant === 'record' ? { toolUseResult: { stdout: DEEP } } : {});
  b.assistant('msg_2', [{ type: 'text', text: 'b.test.ts fails.' }]);
  const bytes = lines(b.lines.map((l) => l.split(PLACEHOLDER).join(deepText(depth))));
  const deepLine = variant === 'arguments' ? 2 : 3;
  const rawMessages = parseLines(bytes).filter((r) => obj(r).type === 'user' || obj(r).type === 'assistant').length;
  return { format: 'claude-code', variant, files: { 'session.jsonl': bytes }, open: 'session.jsonl', rawMessages, names: `line ${deepLine}`, line: deepLine };
}

function codex(variant: DeepVariant, depth: number): DeepCase {
  const T = '2026-04-30T15:06:55.536Z';
  const rec = (type: string, payload: unknown): string => withDeep({ timestamp: T, type, payload }, depth);
  const msg = (role: string, text: string): Obj => ({ type: 'message', role, content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text }] });
  const records = [
    rec('session_meta', { id: '00000000-0000-7000-8000-0000000000d1', timestamp: T, cwd: '/work/demo', originator: 'codex-tui', cli_version: '0.126.0', source: 'cli', model_provider: 'openai' }),
    rec('turn_context', { cwd: '/work/demo', approval_policy: 'on-request', model: 'gpt-5.5', effort: 'medium', summary: 'auto' }),
    rec('response_item', msg('user', 'Find the failing test')),
    // Arguments are usually JSON text; a writer that stores the value itself is read too.
    rec('response_item', { type: 'function_call', name: 'exec_command', arguments: variant === 'arguments' ? DEEP : '{"cmd":"npm test"}', call_id: 'call_1' }),
    rec('response_item', { type: 'function_call_output', call_id: 'call_1', output: 'FAIL b.test.ts\n', ...(variant === 'record' ? { metadata: DEEP } : {}) }),
    rec('response_item', msg('assistant', 'b.test.ts fails.')),
  ];
  const bytes = lines(records);
  const deepLine = variant === 'arguments' ? 4 : 5;
  const rawMessages = parseLines(bytes).filter((r) => obj(r).type === 'response_item').length;
  return { format: 'codex-rollout', variant, files: { 'rollout.jsonl': bytes }, open: 'rollout.jsonl', rawMessages, names: `line ${deepLine}`, line: deepLine };
}

/** OpenAI-style messages (SWE-agent's history, mini-swe-agent's messages), the call's arguments a value rather than text. */
function openAiMessages(variant: DeepVariant): Obj[] {
  return [
    { role: 'system', content: 'You are an autonomous programmer.' },
    { role: 'user', content: 'Fix the failing test.', ...(variant === 'record' ? { extra: { trace: DEEP } } : {}) },
    { role: 'assistant', content: 'Running the tests.', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: variant === 'arguments' ? { command: DEEP } : '{"command":"pytest"}' } }] },
    { role: 'tool', content: 'FAILED test_a.py\n', tool_call_id: 'c1' },
    { role: 'assistant', content: 'test_a.py fails.' },
  ];
}

function sweAgent(variant: DeepVariant, depth: number): DeepCase {
  const bytes = Buffer.from(withDeep({ history: openAiMessages(variant).map((m) => ({ ...m, agent: 'main' })), info: {} }, depth, 2), 'utf8');
  const raw = JSON.parse(bytes.toString('utf8')) as { history: unknown[] };
  return { format: 'swe-agent-traj', variant, files: { 'task.traj': bytes }, open: 'task.traj', rawMessages: raw.history.length, names: variant === 'arguments' ? 'history[2].tool_calls[0]' : 'history[1].extra' };
}

function miniSweAgent(variant: DeepVariant, depth: number): DeepCase {
  const bytes = Buffer.from(withDeep({ info: { mini_version: '1.17.0', exit_status: 'Submitted' }, messages: openAiMessages(variant), trajectory_format: 'mini-swe-agent-1' }, depth, 2), 'utf8');
  const raw = JSON.parse(bytes.toString('utf8')) as { messages: unknown[] };
  return { format: 'mini-swe-agent-traj', variant, files: { 'task.traj.json': bytes }, open: 'task.traj.json', rawMessages: raw.messages.length, names: variant === 'arguments' ? 'messages[2].tool_calls[0]' : 'messages[1].extra' };
}

/** An Inspect sample: its tool call's arguments are an object, as Inspect writes them. */
function inspectSample(variant: DeepVariant, id: number): Obj {
  return {
    id,
    epoch: 1,
    input: 'Fix the failing test',
    target: '',
    messages: [
      { id: 'm0', role: 'system', content: 'You are a careful software agent.' },
      { id: 'm1', role: 'user', content: 'Fix the failing test', ...(variant === 'record' ? { metadata: { trace: DEEP } } : {}) },
      { id: 'm2', role: 'assistant', content: 'Running the tests.', tool_calls: [{ id: 'c1', function: 'bash', arguments: variant === 'arguments' ? { cmd: DEEP } : { cmd: 'pytest' } }] },
      { id: 'm3', role: 'tool', content: 'FAILED test_a.py\n', tool_call_id: 'c1', function: 'bash' },
      { id: 'm4', role: 'assistant', content: 'test_a.py fails.' },
    ],
  };
}
const INSPECT_HEADER = { version: 2, status: 'success', eval: { task: 'deep', model: 'openai/gpt-synthetic', dataset: { samples: 1 } }, plan: {}, results: {}, stats: {} };

function inspectJson(variant: DeepVariant, depth: number): DeepCase {
  const bytes = Buffer.from(withDeep({ ...INSPECT_HEADER, samples: [inspectSample(variant, 1)] }, depth, 2), 'utf8');
  const raw = JSON.parse(bytes.toString('utf8')) as { samples: { messages: unknown[] }[] };
  return { format: 'inspect-json', variant, files: { 'log.json': bytes }, open: 'log.json', rawMessages: raw.samples[0]!.messages.length, names: variant === 'arguments' ? 'samples[0].messages[2].tool_calls[0]' : 'samples[0].messages[1].metadata' };
}

function inspectEval(variant: DeepVariant, depth: number): DeepCase {
  const sample = Buffer.from(withDeep(inspectSample(variant, 1), depth), 'utf8');
  const summaries = Buffer.from(JSON.stringify([{ id: 1, epoch: 1, input: 'Fix the failing test', target: '' }]), 'utf8');
  const bytes = zipOf([
    { name: 'samples/1_epoch_1.json', data: sample },
    { name: 'summaries.json', data: summaries },
    { name: 'header.json', data: Buffer.from(JSON.stringify(INSPECT_HEADER), 'utf8') },
  ]);
  const raw = JSON.parse(sample.toString('utf8')) as { messages: unknown[] };
  // The archive's first entry must be one Inspect writes; samples/ is.
  return { format: 'inspect-eval', variant, files: { 'log.eval': bytes }, open: 'log.eval', rawMessages: raw.messages.length, names: `samples/1_epoch_1.json` };
}

/** V0: an action whose tool call has no recorded arguments is shown with its `args` as the arguments. */
function openHandsV0(variant: DeepVariant, depth: number): DeepCase {
  const events = [
    { id: 0, timestamp: '2025-03-01T10:00:00', source: 'agent', message: 'You are OpenHands agent.', action: 'system', args: { content: 'You are OpenHands agent.', tools: [] } },
    { id: 1, timestamp: '2025-03-01T10:00:01', source: 'user', message: 'Fix the flaky test.', action: 'message', args: { content: 'Fix the flaky test.', image_urls: null } },
    { id: 2, timestamp: '2025-03-01T10:00:02', source: 'agent', message: 'Running the test.', action: 'run', args: { command: variant === 'arguments' ? DEEP : 'pytest', thought: 'Running the test.' }, tool_call_metadata: { function_name: 'execute_bash', tool_call_id: 'toolu_01' } },
    { id: 3, timestamp: '2025-03-01T10:00:03', source: 'agent', message: 'FAILED test_io.py', observation: 'run', content: 'FAILED test_io.py\n', extras: { command: 'pytest', ...(variant === 'record' ? { trace: DEEP } : {}) }, tool_call_metadata: { function_name: 'execute_bash', tool_call_id: 'toolu_01' } },
    { id: 4, timestamp: '2025-03-01T10:00:04', source: 'agent', message: 'The temp dir is shared.', action: 'message', args: { content: 'The temp dir is shared.' } },
  ];
  const bytes = Buffer.from(withDeep(events, depth, 2), 'utf8');
  const raw = JSON.parse(bytes.toString('utf8')) as Obj[];
  return { format: 'openhands-v0', variant, files: { 'trajectory.json': bytes }, open: 'trajectory.json', rawMessages: raw.filter((e) => 'action' in e || 'observation' in e).length, names: variant === 'arguments' ? '[2].args.command' : '[3].extras.trace' };
}

/** V1: an ActionEvent whose tool call has no arguments text is shown with its `action` as the arguments. */
function openHandsV1(variant: DeepVariant, depth: number): DeepCase {
  const ts = '2025-03-03T10:00:02.000000';
  const events: [string, Obj][] = [
    ['event-00000-sys.json', { kind: 'SystemPromptEvent', id: 'sys', timestamp: ts, source: 'agent', system_prompt: { type: 'text', text: 'You are OpenHands agent.' }, tools: [] }],
    ['event-00001-msg.json', { kind: 'MessageEvent', id: 'msg-1', timestamp: ts, source: 'user', llm_message: { role: 'user', content: [{ type: 'text', text: 'Write a README.' }] }, ...(variant === 'record' ? { extended_content: [], trace: DEEP } : {}) }],
    ['event-00002-act.json', { kind: 'ActionEvent', id: 'act-a', timestamp: ts, source: 'agent', thought: [{ type: 'text', text: 'Running ls.' }], action: { kind: 'ExecuteBashAction', command: variant === 'arguments' ? DEEP : 'ls' }, tool_name: 'execute_bash', tool_call_id: 'call_a', tool_call: { id: 'call_a', type: 'function', function: { name: 'execute_bash' } } }],
    ['event-00003-obs.json', { kind: 'ObservationEvent', id: 'obs-a', timestamp: ts, source: 'environment', tool_name: 'execute_bash', tool_call_id: 'call_a', observation: { kind: 'ExecuteBashObservation', content: [{ type: 'text', text: 'README.md\n' }] } }],
    ['event-00004-msg.json', { kind: 'MessageEvent', id: 'msg-2', timestamp: ts, source: 'agent', llm_message: { role: 'assistant', content: [{ type: 'text', text: 'There is a README already.' }] } }],
  ];
  const files: Record<string, Buffer> = { 'conversation/base_state.json': Buffer.from(JSON.stringify({ id: 'conv', agent: { kind: 'Agent', llm: { model: 'litellm_proxy/claude-sonnet-4-5' } }, execution_status: 'finished' }), 'utf8') };
  for (const [name, e] of events) files[`conversation/events/${name}`] = Buffer.from(withDeep(e, depth, 2), 'utf8');
  const kinds = Object.entries(files)
    .filter(([p]) => p.includes('/events/'))
    .map(([, b]) => obj(JSON.parse(b.toString('utf8'))).kind);
  const rawMessages = kinds.filter((k) => k === 'SystemPromptEvent' || k === 'MessageEvent' || k === 'ActionEvent' || k === 'ObservationEvent').length;
  const deepFile = variant === 'arguments' ? 'event-00002-act.json' : 'event-00001-msg.json';
  return { format: 'openhands-v1', variant, files, open: 'conversation/base_state.json', rawMessages, names: `events/${deepFile}`, line: variant === 'arguments' ? 3 : 2 };
}

/** Every format's session with a record `depth` levels deep, both variants. */
export function deepCases(depth: number = DEEP_LEVELS): DeepCase[] {
  const makers = [nativeSidecar, nativeSnapshot, claudeCode, codex, sweAgent, miniSweAgent, inspectJson, inspectEval, openHandsV0, openHandsV1];
  return makers.flatMap((make) => (['arguments', 'record'] as const).map((variant) => make(variant, depth)));
}

/** Writes a case's files into `dir` (a new folder of its own); answers the path to open. */
export function writeDeepCase(c: DeepCase, dir: string): string {
  for (const [rel, bytes] of Object.entries(c.files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), bytes);
  }
  return join(dir, c.open);
}
