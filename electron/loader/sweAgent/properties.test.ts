/**
 * Properties of the SWE-agent importer over generated trajectories: whatever the history processors
 * replaced, and whichever reading a file's steps use (`query`: its own call's input; `messages`:
 * the next call's), every call's projected input is the recorded one, and every reduction verifies.
 */
import { writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { projectView } from '../../../shared/project';
import { tempDir } from '../../testing/files';
import { loadSession } from '../session';

const tmp = tempDir('session-inspector-swe-props-');
afterAll(() => tmp.cleanup());

type Msg = { role: string; content: string; tool_calls?: unknown[]; tool_call_ids?: string[] };
/** How step k's input shows an earlier observation: as is, elided, or cut to a prefix. */
const shown = fc.constantFrom<'same' | 'elided' | 'cut'>('same', 'elided', 'cut');

describe('SWE-agent importer properties', () => {
  it('every call`s projected input equals the recorded input, and every reduction expands to the history text', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ minLength: 1, maxLength: 30 }), { minLength: 1, maxLength: 6 }),
        fc.array(shown, { minLength: 6, maxLength: 6 }),
        fc.array(fc.nat({ max: 6 }), { minLength: 6, maxLength: 6 }),
        fc.boolean(),
        async (outputs, how, from, query) => {
          const history: Msg[] = [
            { role: 'system', content: 'sys' },
            { role: 'user', content: 'task' },
          ];
          outputs.forEach((o, j) => {
            history.push({ role: 'assistant', content: `act ${j}`, tool_calls: [{ id: `c${j}`, function: { name: 'bash', arguments: '{}' } }] });
            history.push({ role: 'tool', content: `out ${j}: ${o}`, tool_call_ids: [`c${j}`] });
          });
          // Observation j is replaced from call (j + 1 + from[j]) on, once replaced always replaced (as last_n_observations does).
          const inputOf = (call: number): Msg[] =>
            history.slice(0, 2 + 2 * call).map((m, i) => {
              const j = (i - 3) / 2;
              if (i < 3 || !Number.isInteger(j) || how[j] === 'same' || call < j + 1 + (from[j] ?? 0)) return m;
              return { ...m, content: how[j] === 'elided' ? 'Old environment output: (1 lines omitted)' : `out ${j}:<clipped>` };
            });
          const calls = outputs.length;
          // `query` (newer files) is the step's own input; `messages` (older) the next call's.
          const trajectory = outputs.map((_o, k) => ({ action: `act ${k}`, observation: '', ...(query ? { query: inputOf(k) } : { messages: inputOf(k + 1) }) }));
          const path = tmp.path('gen.traj');
          writeFileSync(path, JSON.stringify({ trajectory, history }));
          const r = await loadSession([path]);
          if (!r.ok) throw new Error(r.error.message);
          const s = r.session;
          try {
            expect(s.calls).toHaveLength(calls);
            for (let n = 1; n <= calls; n++) {
              const input = s.callInput(n);
              if (!input) throw new Error(`no input for call ${n}`);
              expect(projectView(input.minted, input.log).map((row) => row.text)).toEqual(inputOf(n - 1).map((m) => m.content));
            }
            for (const red of s.log) {
              const out = s.expand(red.id);
              expect(out.ok && out.value.content).toBe(history[red.ptr.index]?.content);
            }
            expect(s.check().findings).toEqual([]);
          } finally {
            s.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
