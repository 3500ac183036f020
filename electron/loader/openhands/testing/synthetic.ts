/**
 * Synthetic OpenHands files (`e2e/fixtures/synthetic/openhands/`), written by `openHandsSynthetic`:
 * the branches the real trajectories lack (none of them condenses), in the writers' shapes (V0
 * `openhands/events/serialization`, `CondensationAction`; V1 the SDK's event models). A test fails
 * when the committed files drift from this builder.
 */
import { join } from 'node:path';

export const OPENHANDS_SYNTHETIC_DIR = join(import.meta.dirname, '../../../../e2e/fixtures/synthetic/openhands');

type Ev = Record<string, unknown>;

/** A word only the first forgotten observation holds (search finds it in a hidden range). */
export const FORGOTTEN_WORD = 'quokkafeather';
export const SUMMARY = 'Summary: pytest failed in test_io.py (the temp dir is shared); the fix is to use tmp_path.';
export const V1_SUMMARY = 'Summary: the user asked for a README; ls showed the files.';

const ts = (i: number): string => `2025-03-0${1 + (i % 9)}T10:00:${String(i % 60).padStart(2, '0')}.000000`;
const user = (id: number, text: string): Ev => ({ id, timestamp: ts(id), source: 'user', message: text, action: 'message', args: { content: text, image_urls: null, wait_for_response: false } });
const modelResponse = (id: string, fn: string, args: Record<string, unknown>, text: string) => ({
  id: `chatcmpl-${id}`,
  model: 'claude-3-5-sonnet-20241022',
  object: 'chat.completion',
  choices: [{ finish_reason: 'tool_calls', index: 0, message: { content: text, role: 'assistant', tool_calls: [{ index: 1, function: { arguments: JSON.stringify(args), name: fn }, id, type: 'function' }] } }],
});
const act = (id: number, action: string, call: string, fn: string, args: Record<string, unknown>, text: string): Ev => ({
  id,
  timestamp: ts(id),
  source: 'agent',
  message: text,
  action,
  tool_call_metadata: { function_name: fn, tool_call_id: call, model_response: modelResponse(call, fn, args, text), total_calls_in_response: 1 },
  args: { ...args, thought: text },
});
const obs = (id: number, cause: number, observation: string, call: string, fn: string, content: string): Ev => ({
  id,
  timestamp: ts(id),
  source: 'agent',
  message: `Observed ${observation}`,
  cause,
  observation,
  content,
  extras: {},
  tool_call_metadata: { function_name: fn, tool_call_id: call, model_response: { id: `chatcmpl-${call}` }, total_calls_in_response: 1 },
});
const condensation = (id: number, args: Record<string, unknown>): Ev => ({ id, timestamp: ts(id), source: 'agent', message: 'Summary: …', action: 'condensation', args: { forgotten_event_ids: null, forgotten_events_start_id: null, forgotten_events_end_id: null, summary: null, summary_offset: null, ...args } });

/** The first nine events every V0 file shares: system, task, a state change, three tool calls. */
function opening(): Ev[] {
  return [
    { id: 0, timestamp: ts(0), source: 'agent', message: 'You are OpenHands agent.', action: 'system', args: { content: 'You are OpenHands agent, a helpful AI assistant.', tools: [] } },
    user(1, 'Fix the flaky test in test_io.py.'),
    { id: 2, timestamp: ts(2), source: 'environment', message: '', observation: 'agent_state_changed', content: '', extras: { agent_state: 'running' } },
    act(3, 'run', 'toolu_01', 'execute_bash', { command: 'pytest tests/test_io.py' }, 'Running the test first.'),
    obs(4, 3, 'run', 'toolu_01', 'execute_bash', `FAILED tests/test_io.py::test_roundtrip - ${FORGOTTEN_WORD} not found in /tmp/shared\n1 failed in 0.12s`),
    act(5, 'read', 'toolu_02', 'str_replace_editor', { command: 'view', path: '/workspace/tests/test_io.py' }, 'Reading the test.'),
    obs(6, 5, 'read', 'toolu_02', 'str_replace_editor', 'def test_roundtrip():\n    d = "/tmp/shared"\n    assert write_read(d) == "ok"\n'),
    act(7, 'run', 'toolu_03', 'execute_bash', { command: 'ls /tmp/shared' }, 'Checking the shared dir.'),
    obs(8, 7, 'run', 'toolu_03', 'execute_bash', 'leftover.txt\n'),
  ];
}

function closing(from: number): Ev[] {
  return [
    act(from, 'edit', 'toolu_04', 'str_replace_editor', { command: 'str_replace', path: '/workspace/tests/test_io.py', old_str: '"/tmp/shared"', new_str: 'tmp_path' }, 'Using tmp_path.'),
    obs(from + 1, from, 'edit', 'toolu_04', 'str_replace_editor', 'The file /workspace/tests/test_io.py has been edited.'),
    act(from + 2, 'finish', 'toolu_05', 'finish', { message: 'Fixed.', task_completed: 'true' }, 'Done.'),
  ];
}

/** V1: one SDK event as its file's name and text. */
function v1File(n: number, e: Ev): [string, string] {
  return [`events/event-${String(n).padStart(5, '0')}-${String(e.id)}.json`, `${JSON.stringify(e, null, 2)}\n`];
}

function v1Conversation(prefix: string): Record<string, string> {
  const call = (n: number, id: string, cmd: string): Ev => ({
    kind: 'ActionEvent',
    id: `act-${id}`,
    timestamp: ts(n),
    source: 'agent',
    thought: [{ type: 'text', text: `Running ${cmd}.` }],
    reasoning_content: null,
    thinking_blocks: [],
    action: { kind: 'ExecuteBashAction', command: cmd },
    tool_name: 'execute_bash',
    tool_call_id: `call_${id}`,
    tool_call: { id: `call_${id}`, type: 'function', function: { name: 'execute_bash', arguments: JSON.stringify({ command: cmd }) } },
    llm_response_id: `resp-${id}`,
    security_risk: 'LOW',
  });
  const result = (n: number, id: string, text: string): Ev => ({
    kind: 'ObservationEvent',
    id: `obs-${id}`,
    timestamp: ts(n),
    source: 'environment',
    tool_name: 'execute_bash',
    tool_call_id: `call_${id}`,
    observation: { kind: 'ExecuteBashObservation', content: [{ type: 'text', text }], command: 'x', exit_code: 0, is_error: false },
    action_id: `act-${id}`,
  });
  const events: Ev[] = [
    { kind: 'SystemPromptEvent', id: 'sys', timestamp: ts(0), source: 'agent', system_prompt: { type: 'text', text: 'You are OpenHands agent.' }, tools: [] },
    { kind: 'MessageEvent', id: 'msg-1', timestamp: ts(1), source: 'user', llm_message: { role: 'user', content: [{ type: 'text', text: 'Write a README for this repo.' }] }, activated_microagents: [], extended_content: [] },
    call(2, 'a', 'ls'),
    result(3, 'a', `README.md.orig\nsetup.py\n${FORGOTTEN_WORD}.cfg\n`),
    { kind: 'ConversationStateUpdateEvent', id: 'state-1', timestamp: ts(4), source: 'environment', key: 'execution_status', value: 'running' },
    call(5, 'b', 'cat setup.py'),
    result(6, 'b', 'from setuptools import setup\nsetup(name="demo")\n'),
    call(7, 'c', 'cat README.md.orig'),
    result(8, 'c', '# Old readme\n'),
    { kind: 'Condensation', id: 'cond-1', timestamp: ts(9), source: 'environment', forgotten_event_ids: ['act-a', 'obs-a', 'act-c', 'obs-c'], summary: V1_SUMMARY, summary_offset: 2, llm_response_id: 'resp-cond' },
    call(10, 'd', 'echo "# demo" > README.md'),
    result(11, 'd', ''),
    { kind: 'MessageEvent', id: 'msg-2', timestamp: ts(12), source: 'agent', llm_message: { role: 'assistant', content: [{ type: 'text', text: 'README.md written.' }] }, activated_microagents: [], extended_content: [] },
  ];
  const files: Record<string, string> = {};
  events.forEach((e, n) => {
    const [name, text] = v1File(n, e);
    files[`${prefix}/${name}`] = text;
  });
  files[`${prefix}/base_state.json`] = `${JSON.stringify({ id: 'c0ffee00-0000-4000-8000-000000000001', agent: { kind: 'Agent', llm: { model: 'litellm_proxy/claude-sonnet-4-5', usage_id: 'agent' }, tools: [] }, workspace: { kind: 'LocalWorkspace', working_dir: '/workspace' }, persistence_dir: 'workspace/conversations', max_iterations: 500, stuck_detection: true, execution_status: 'finished', confirmation_policy: { kind: 'NeverConfirm' }, activated_knowledge_skills: [], stats: {} }, null, 2)}\n`;
  return files;
}

/** The rejection reason and scaffold error of `v1-parallel`. */
export const V1_REJECTION = 'Deleting the build folder needs a human.';
export const V1_AGENT_ERROR = 'Tool "deploy" not found. Available tools: ["terminal", "finish"]';

/**
 * V1 conversation `v1-parallel`, in the shapes of openhands-sdk 1.11 (TerminalObservation with its
 * metadata): one response calling two tools at once (two ActionEvents with one `llm_response_id`, a
 * state update between them), the first failing (`is_error`), the second rejected by the user
 * (`UserRejectObservation`); then a call of a tool that does not exist (`AgentErrorEvent`), then
 * the closing message: three model responses.
 */
function v1Parallel(prefix: string): Record<string, string> {
  const action = (n: number, id: string, response: string, thought: string, tool: string, args: Record<string, string>): Ev => ({
    kind: 'ActionEvent',
    id,
    timestamp: ts(n),
    source: 'agent',
    thought: thought === '' ? [] : [{ cache_prompt: false, type: 'text', text: thought }],
    thinking_blocks: [],
    action: { kind: 'TerminalAction', command: args.command ?? '', is_input: false, reset: false },
    tool_name: tool,
    tool_call_id: `call_${id}`,
    tool_call: { id: `call_${id}`, name: tool, arguments: JSON.stringify(args), origin: 'completion' },
    llm_response_id: response,
    security_risk: 'LOW',
    summary: `Run ${args.command ?? tool}`,
  });
  const events: Ev[] = [
    { kind: 'SystemPromptEvent', id: 'sys', timestamp: ts(0), source: 'agent', system_prompt: { cache_prompt: false, type: 'text', text: 'You are OpenHands agent.' }, tools: [] },
    { kind: 'MessageEvent', id: 'msg-1', timestamp: ts(1), source: 'user', llm_message: { role: 'user', content: [{ cache_prompt: false, type: 'text', text: 'Clean the build and run the tests.' }], thinking_blocks: [] }, activated_skills: [], extended_content: [] },
    action(2, 'act-1', 'chatcmpl-par-1', 'Running both at once.', 'terminal', { command: 'pytest -q' }),
    { kind: 'ConversationStateUpdateEvent', id: 'state-1', timestamp: ts(3), source: 'environment', key: 'stats', value: {} },
    action(4, 'act-2', 'chatcmpl-par-1', '', 'terminal', { command: 'rm -rf build' }),
    {
      kind: 'ObservationEvent',
      id: 'obs-1',
      timestamp: ts(5),
      source: 'environment',
      tool_name: 'terminal',
      tool_call_id: 'call_act-1',
      observation: {
        kind: 'TerminalObservation',
        content: [{ cache_prompt: false, type: 'text', text: 'E   assert 3 == 4\n1 failed in 0.04s' }],
        is_error: true,
        command: 'pytest -q',
        exit_code: 1,
        timeout: false,
        metadata: { exit_code: 1, pid: -1, username: 'openhands', hostname: 'runtime', working_dir: '/workspace/project', py_interpreter_path: '/usr/bin/python3', prefix: '', suffix: '\n[The command completed with exit code 1.]' },
      },
      action_id: 'act-1',
    },
    { kind: 'UserRejectObservation', id: 'rej-2', timestamp: ts(6), source: 'user', tool_name: 'terminal', tool_call_id: 'call_act-2', rejection_reason: V1_REJECTION, action_id: 'act-2' },
    action(7, 'act-3', 'chatcmpl-par-2', 'Deploying.', 'deploy', { target: 'prod' }),
    { kind: 'AgentErrorEvent', id: 'err-3', timestamp: ts(8), source: 'agent', tool_name: 'deploy', tool_call_id: 'call_act-3', error: V1_AGENT_ERROR },
    { kind: 'MessageEvent', id: 'msg-2', timestamp: ts(9), source: 'agent', llm_message: { role: 'assistant', content: [{ cache_prompt: false, type: 'text', text: 'The test fails; I did not delete build/.' }], thinking_blocks: [] }, llm_response_id: 'chatcmpl-par-3', activated_skills: [], extended_content: [] },
  ];
  const files: Record<string, string> = {};
  events.forEach((e, n) => {
    const [name, text] = v1File(n, e);
    files[`${prefix}/${name}`] = text;
  });
  files[`${prefix}/base_state.json`] = `${JSON.stringify({ id: 'c0ffee00-0000-4000-8000-000000000002', agent: { kind: 'Agent', llm: { model: 'openai/gpt-4o-mini', usage_id: 'agent' }, tools: [] }, workspace: { kind: 'LocalWorkspace', working_dir: '/workspace/project' }, execution_status: 'finished', stats: {} }, null, 2)}\n`;
  return files;
}

/** Every synthetic file, by its path under OPENHANDS_SYNTHETIC_DIR. */
export function openHandsSynthetic(): Record<string, string> {
  const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;
  // Non-contiguous ids with a summary at summary_offset 2 (before event 5, message 4): two runs, one group.
  const condensed = [...opening(), condensation(9, { forgotten_event_ids: [3, 4, 7, 8], summary: SUMMARY, summary_offset: 2 }), ...closing(10)];
  // A start/end range without a summary (turns_cleared), then a contiguous summary whose offset is off.
  const ranged = [...opening(), condensation(9, { forgotten_events_start_id: 3, forgotten_events_end_id: 6 }), ...closing(10), condensation(13, { forgotten_event_ids: [7, 8], summary: SUMMARY, summary_offset: 0 })];
  const damaged = [
    ...opening().slice(0, 5),
    'not an event',
    { id: 50, timestamp: ts(50), source: 'agent', message: 'neither' },
    condensation(51, {}),
    condensation(52, { forgotten_event_ids: [999] }),
    ...closing(10),
  ];
  const torn = json(condensed).split('\n').slice(0, 30).join('\n');
  const v1 = v1Conversation('v1-conversation');
  // V1 with one torn event file and one event of an unknown kind.
  const v1Damaged = v1Conversation('v1-damaged');
  v1Damaged['v1-damaged/events/event-00005-act-b.json'] = '{"kind": "ActionEvent", "id": "act-b", "thought": [{"type": "te';
  v1Damaged['v1-damaged/events/event-00013-future.json'] = json({ kind: 'FutureEvent', id: 'future', timestamp: ts(13), source: 'environment' });
  return { 'v0-condensed.json': json(condensed), 'v0-range-no-summary.json': json(ranged), 'v0-damaged.json': json(damaged), 'v0-torn.json': torn, ...v1, ...v1Damaged, ...v1Parallel('v1-parallel') };
}
