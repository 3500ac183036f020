/**
 * Synthetic mini-swe-agent trajectories (`e2e/fixtures/synthetic/mini-swe-agent/`), written by
 * `miniSynthetic`: the saved-state shape `{info, messages, trajectory_format}` with tool calls (the
 * real 1.x files are bare lists of text messages), an item without a role, a torn file, and a
 * closing `exit` message under the older format tag `mini-swe-agent-1`. A test
 * fails when the committed files drift from this builder.
 */
import { join } from 'node:path';

export const MINI_SYNTHETIC_DIR = join(import.meta.dirname, '../../../../e2e/fixtures/synthetic/mini-swe-agent');

type Msg = Record<string, unknown>;
const call = (id: string, command: string): Msg => ({
  role: 'assistant',
  content: `THOUGHT: run ${command}`,
  tool_calls: [{ id, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command }) } }],
  extra: { actions: [{ command, tool_call_id: id }], cost: 0.001, timestamp: 1735689600 },
});
const result = (id: string, output: string): Msg => ({ role: 'tool', tool_call_id: id, content: `<returncode>0</returncode>\n<output>\n${output}</output>`, extra: { raw_output: output } });

function toolcalls(): Msg {
  const messages: unknown[] = [
    { role: 'system', content: 'You are a helpful assistant that can interact with a computer.' },
    { role: 'user', content: 'Please solve this issue: the greeting is misspelled.' },
    call('call_1', 'grep -rn helo .'),
    result('call_1', './greet.py:1:print("helo")\n'),
    call('call_2', "sed -i s/helo/hello/ greet.py"),
    result('call_2', ''),
    { role: 'assistant', content: 'Done.\n\n```mswea_bash_command\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```', extra: { exit_status: 'Submitted', submission: '' } },
  ];
  return {
    info: { model_stats: { instance_cost: 0.002, api_calls: 3 }, config: { agent: { step_limit: 0 }, model: { model_name: 'anthropic/claude-sonnet-4-5-20250929' }, agent_type: 'minisweagent.agents.default.DefaultAgent' }, mini_version: '1.17.0', exit_status: 'Submitted', submission: '' },
    messages,
    trajectory_format: 'mini-swe-agent-1.1',
  };
}

export function miniSynthetic(): Record<string, string> {
  const doc = toolcalls();
  const text = `${JSON.stringify(doc, null, 2)}\n`;
  const withItem = { ...doc, messages: [...(doc.messages as unknown[]).slice(0, 2), { type: 'reasoning', summary: [] }, ...(doc.messages as unknown[]).slice(2)] };
  return {
    'toolcalls.traj.json': text,
    // A Responses API item (no role) among the messages.
    'roleless-item.traj.json': `${JSON.stringify(withItem, null, 2)}\n`,
    // A run killed while writing: the document stops mid-way (on line 25).
    'torn.traj.json': text.split('\n').slice(0, 25).join('\n'),
    // The closing exit message (2.x writes it, agents/default.py) under the older format tag: a run stopped by its step limit.
    'exit-format-1.traj.json': `${JSON.stringify(
      {
        ...doc,
        info: { ...(doc.info as Record<string, unknown>), exit_status: 'LimitsExceeded' },
        messages: [...(doc.messages as unknown[]).slice(0, 6), { role: 'exit', content: 'LimitsExceeded', extra: { exit_status: 'LimitsExceeded', submission: '' } }],
        trajectory_format: 'mini-swe-agent-1',
      },
      null,
      2,
    )}\n`,
  };
}
