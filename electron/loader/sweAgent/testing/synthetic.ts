/**
 * Synthetic SWE-agent trajectories (`e2e/fixtures/synthetic/swe-agent/`), written by
 * `writeSweSynthetic`: the edge cases the real files lack, in SWE-agent's shapes (docs/FORMATS.md §3). A
 * test fails when the committed files drift from this builder.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SWE_SYNTHETIC_DIR = join(import.meta.dirname, '../../../../e2e/fixtures/synthetic/swe-agent');

type Msg = Record<string, unknown>;
const sys: Msg = { role: 'system', content: 'You are an autonomous programmer.', agent: 'main', message_type: 'system_prompt' };
const task: Msg = { role: 'user', content: [{ type: 'text', text: 'Fix the failing test.' }], agent: 'main', message_type: 'observation' };
const act = (id: string, cmd: string): Msg => ({ role: 'assistant', content: `Running ${cmd}.`, thought: `Running ${cmd}.`, action: cmd, tool_calls: [{ id, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: cmd }) } }], message_type: 'action' });
const obs = (id: string, text: string): Msg => ({ role: 'tool', content: text, tool_call_ids: [id], message_type: 'observation' });
const step = (a: Msg, o: Msg, input: Msg[], key: 'query' | 'messages' = 'query'): Msg => ({ action: a.action, observation: o.content, response: a.content, thought: a.thought, execution_time: 0.1, state: {}, [key]: input });

/** An observation long enough to be cut; its first line is what a prefix-keeping processor keeps. */
export const LONG_OUTPUT = `FAILED tests/test_a.py::test_one\n${Array.from({ length: 40 }, (_, i) => `line ${i} of the log`).join('\n')}\n`;
export const CUT_NOTICE = '\n<response clipped: 40 lines>';
export const ELIDED = 'Old environment output: (2 lines omitted)';

/**
 * `query-cut.traj`: newer `query` steps, each its own call's input (it ends before the step's own
 * action). Call 3 is given the first output cut to its first line, call 4 the second elided;
 * then a step of an unknown shape and a message of an unknown role.
 */
function queryCut(): Msg {
  const a1 = act('c1', 'pytest');
  const o1 = obs('c1', LONG_OUTPUT);
  const a2 = act('c2', 'cat a.py');
  const o2 = obs('c2', 'def one():\n    return 2\n');
  const a3 = act('c3', 'sed -i s/2/1/ a.py');
  const o3 = obs('c3', '');
  const a4 = act('c4', 'submit');
  const o4 = obs('c4', 'submitted');
  const cut = { ...o1, content: `FAILED tests/test_a.py::test_one\n${CUT_NOTICE.slice(1)}` };
  const history = [sys, task, a1, o1, a2, o2, a3, o3, a4, o4, { role: 'critic', content: 'Looks done.' }];
  const trajectory = [
    step(a1, o1, [sys, task]),
    step(a2, o2, [sys, task, a1, o1]),
    step(a3, o3, [sys, task, a1, cut, a2, o2]),
    step(a4, o4, [sys, task, a1, cut, a2, { ...o2, content: ELIDED }, a3, o3]),
    { note: 'a step of another shape' },
  ];
  return { environment: 'swe_main', trajectory, history, info: { exit_status: 'submitted' }, replay_config: JSON.stringify({ agent: { model: { name: 'gpt-4o' } } }) };
}

export function sweSynthetic(): Record<string, string> {
  const doc = queryCut();
  const text = `${JSON.stringify(doc, null, 2)}\n`;
  return {
    'query-cut.traj': text,
    // SWE-agent's demonstrations: `history` alone.
    'history-only.traj': `${JSON.stringify({ history: [sys, task, act('c1', 'ls'), obs('c1', 'a.py\n')] }, null, 2)}\n`,
    // A run killed while writing: the document stops mid-way (on line 40).
    'torn.traj': text.split('\n').slice(0, 40).join('\n'),
  };
}

export function writeSweSynthetic(dir = SWE_SYNTHETIC_DIR): void {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(sweSynthetic())) writeFileSync(join(dir, name), text);
}
