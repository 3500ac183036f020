/**
 * A large SWE-agent trajectory for the import bench (bench/import.ts): `turns` steps of a run whose
 * history processor (`last_n_observations`) keeps the last KEPT observations whole and replaces
 * older ones with `Old environment output: (N lines omitted)` — each step's `query` is its own
 * call's input, so the file grows with the square of the turns, as real ones do. Deterministic for
 * a seed; written in pieces (the whole text is never one string).
 */
import { closeSync, openSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { rng } from '../../claudeCode/testing/generate';

export interface GeneratedTraj {
  path: string;
  bytes: number;
  turns: number;
  /** Observations the last step's input shows elided (each a derived reduction). */
  elided: number;
}

/** Observations given whole to a call (SWE-agent's default `last_n_observations`). */
const KEPT = 5;
const WORDS = ['assert', 'return', 'self', 'value', 'field', 'schema', 'dump', 'load', 'error', 'marshmallow', 'test', 'passed', 'failed', 'line', 'module', 'import'];

/** Writes `<dir>/generated.traj` of about `bytes` bytes. */
export function generateTraj(dir: string, options: { bytes: number; seed: number }): GeneratedTraj {
  const next = rng(options.seed);
  const lineOf = () => Array.from({ length: 8 + Math.floor(next() * 8) }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ');
  const observationBytes = 16_000;
  // Step k's input holds min(k, KEPT) observations whole and about 470 bytes per older turn (its
  // action, an elided observation); the step itself and the history add two observations a turn.
  const perTurn = (k: number) => Math.min(k, KEPT) * observationBytes + k * 470 + 2 * observationBytes + 1000;
  let turns = 0;
  for (let total = 0; total < options.bytes; turns++) total += perTurn(turns);
  const sys = { role: 'system', content: 'You are an autonomous programmer.', message_type: 'system_prompt' };
  const task = { role: 'user', content: 'Fix the failing test in tests/test_fields.py.', message_type: 'observation' };
  const history: Record<string, unknown>[] = [sys, task];
  const lines: number[] = [];
  for (let k = 0; k < turns; k++) {
    const command = `grep -n ${WORDS[k % WORDS.length]} src/module_${k}.py`;
    history.push({ role: 'assistant', content: `Looking at module ${k}.`, thought: `Looking at module ${k}.`, action: command, tool_calls: [{ id: `call_${k}`, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command }) } }], message_type: 'action' });
    let text = '';
    let n = 0;
    while (text.length < observationBytes) {
      text += `${lineOf()}\n`;
      n++;
    }
    lines.push(n);
    history.push({ role: 'tool', content: text, tool_call_ids: [`call_${k}`], message_type: 'observation' });
  }
  const path = join(dir, 'generated.traj');
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, '{\n"environment": "swe_main",\n"trajectory": [\n');
    for (let k = 0; k < turns; k++) {
      // Step k's own call was given history[0 .. 2 + 2k): observations older than the last KEPT elided.
      const input = history.slice(0, 2 + 2 * k).map((m, i) => {
        const obs = i >= 3 && (i - 3) % 2 === 0 ? (i - 3) / 2 : -1;
        return obs >= 0 && obs < k - KEPT ? { ...m, content: `Old environment output: (${lines[obs]} lines omitted)` } : m;
      });
      const a = history[2 + 2 * k] as Record<string, unknown>;
      const o = history[3 + 2 * k] as Record<string, unknown>;
      const step = { action: a.action, observation: o.content, response: a.content, thought: a.thought, execution_time: 0.1, state: {}, query: input };
      writeSync(fd, `${JSON.stringify(step)}${k + 1 < turns ? ',' : ''}\n`);
    }
    writeSync(fd, '],\n"history": [\n');
    history.forEach((m, i) => writeSync(fd, `${JSON.stringify(m)}${i + 1 < history.length ? ',' : ''}\n`));
    writeSync(fd, `],\n"info": {"exit_status": "submitted"},\n"replay_config": ${JSON.stringify(JSON.stringify({ agent: { model: { name: 'gpt-4o' } } }))}\n}\n`);
  } finally {
    closeSync(fd);
  }
  return { path, bytes: statSync(path).size, turns, elided: Math.max(0, turns - 1 - KEPT) };
}
