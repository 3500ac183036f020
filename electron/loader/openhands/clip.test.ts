/**
 * A terminal output the OpenHands SDK cut in the middle when it gave it to the model
 * (`maybe_truncate` in `TerminalObservation.to_llm_content`, docs/formats/openhands.md): the event
 * holds the whole text, the model was given its head, a notice and its tail. The conversations are
 * the real gpt-4o-mini folder with its terminal observation's output made long (no public V1 folder
 * holds a cut output); the model's text is written by hand from the SDK's rule (30,000 characters
 * in all, the 113-character notice, the head one character longer than the tail).
 */
import { createHash } from 'node:crypto';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectView } from '../../../shared/index';
import type { LoadedSession } from '../../../shared/index';
import { tempDir } from '../../../tools/testing/files';
import { sessionLoader } from '../testing/importers';
import { maybeTruncate } from './build';

const REAL = join(import.meta.dirname, '../../../e2e/fixtures/real/openhands/v1-gpt-4o-mini');
/** The SDK's notice (openhands-sdk `utils/truncate.py`, `DEFAULT_TRUNCATE_NOTICE`). */
const NOTICE = '<response clipped><NOTE>Due to the max output limit, only part of the full response has been shown to you.</NOTE>';
/** What the real event's metadata adds after the output (its suffix, working folder, interpreter and exit code), by hand. */
const AFTER =
  '\n[The command completed with exit code 0.]\n[Current working directory: /workspace/project/software-agent-sdk]\n[Python interpreter: /workspace/project/software-agent-sdk/.venv/bin/python]\n[Command finished with exit code 0]';

const tmp = tempDir('session-inspector-openhands-clip-');
const { load, closeAll } = sessionLoader();
afterAll(() => {
  closeAll();
  tmp.cleanup();
});

/** The real folder copied, its terminal observation's output replaced by `output` (and `save_dir`, when given, recorded on it). */
function conversation(name: string, output: string, saveDir?: string): string {
  const dir = join(tmp.dir, name);
  cpSync(REAL, dir, { recursive: true });
  const file = readdirSync(join(dir, 'events')).find((n) => n.startsWith('event-00003-'))!;
  const event = JSON.parse(readFileSync(join(dir, 'events', file), 'utf8')) as { kind: string; observation: { kind: string; content: { text: string }[]; full_output_save_dir?: string } };
  expect([event.kind, event.observation.kind]).toEqual(['ObservationEvent', 'TerminalObservation']);
  event.observation.content[0]!.text = output;
  if (saveDir !== undefined) event.observation.full_output_save_dir = saveDir;
  writeFileSync(join(dir, 'events', file), JSON.stringify(event));
  return join(dir, 'base_state.json');
}

/** The text of view message `index` as the model was given it at call `call`. */
function givenText(s: LoadedSession, call: number, index: number): string {
  const input = s.callInput(call);
  if (!input) throw new Error(`no call ${call}`);
  const row = projectView(input.minted, input.log).find((r) => r.index === index);
  return row?.text ?? '';
}

describe('an OpenHands terminal output over 30,000 characters', () => {
  it('the model is given its head, the notice and its tail; the view holds it whole as the original of a tool_output_truncated', async () => {
    const output = Array.from({ length: 4000 }, (_, i) => `line ${String(i + 1).padStart(5, '0')}`).join('\n');
    const s = await load(conversation('ascii', output));
    const full = output + AFTER;
    // The terminal's result is message 3 (system, task, terminal call, result); call 2 is the next response.
    expect(s.minted.at(3)?.content).toBe(full);
    expect(s.calls.map((c) => c.index)).toEqual([2, 4, 7]);
    expect(givenText(s, 1, 3)).toBe(''); // not given to the first call at all
    expect(NOTICE).toHaveLength(113);
    // 30,000 − 113 = 29,887 characters of the output: 14,944 from its head, 14,943 from its tail.
    const model = full.slice(0, 14_944) + NOTICE + full.slice(-14_943);
    expect(model).toHaveLength(30_000);
    expect(givenText(s, 2, 3)).toBe(model);
    expect(givenText(s, 3, 3)).toBe(model);
    expect(s.log.map((r) => [r.kind, r.provenance, r.ptr.index, r.ptr.bytes, r.kept_bytes])).toEqual([['tool_output_truncated', 'derived', 3, Buffer.byteLength(full), 14_944]]);
  });

  it('counts characters as Python does (code points) and names the file the SDK saved the whole output to', async () => {
    const output = '😀'.repeat(40_000);
    const saveDir = '/workspace/conversations/cd94/observations/';
    const s = await load(conversation('saved', output, saveDir));
    const full = output + AFTER;
    const chars = Array.from(full);
    const path = `/workspace/conversations/cd94/observations/terminal_output_${createHash('sha256').update(full, 'utf8').digest('hex').slice(0, 8)}.txt`;
    // The head (14,944 characters, all on one line) ends at line 1: "starts around line 2".
    const notice = `<response clipped><NOTE>Due to the max output limit, only part of the full response has been shown to you. The complete output has been saved to ${path} - you can use other tools to view the full content (truncated part starts around line 2).</NOTE>`;
    const tail = 30_000 - notice.length - 14_944;
    const model = chars.slice(0, 14_944).join('') + notice + chars.slice(-tail).join('');
    expect(Array.from(model)).toHaveLength(30_000);
    expect(givenText(s, 2, 3)).toBe(model);
    expect(s.minted.at(3)?.content).toBe(full);
  });

  it('leaves an output of 30,000 characters or fewer whole', async () => {
    const s = await load(conversation('fits', 'x'.repeat(30_000 - AFTER.length)));
    expect(s.log).toEqual([]);
    expect(givenText(s, 2, 3)).toBe('x'.repeat(30_000 - AFTER.length) + AFTER);
  });

  it('cuts as the SDK’s own tests say (openhands-sdk tests/sdk/utils/test_truncate.py)', () => {
    // 1,000 characters at a limit of 200: 87 left beside the notice, 44 from the head and 43 from the tail.
    expect(maybeTruncate('A'.repeat(1000), 200)).toEqual({ kept: 'A'.repeat(44), stub: NOTICE + 'A'.repeat(43) });
    expect(maybeTruncate('A'.repeat(50), 50)).toBeUndefined();
    expect(maybeTruncate('', 100)).toBeUndefined();
    expect(maybeTruncate('test', 0)).toBeUndefined();
    // The line the cut starts around: the head is ⌈(400 − 113) / 2⌉ = 144 characters, 72 lines of "x\n", so line 73.
    expect(maybeTruncate('x\n'.repeat(500), 400, '/d')?.stub).toContain(`saved to /d/output_output_${createHash('sha256').update('x\n'.repeat(500)).digest('hex').slice(0, 8)}.txt - you can use other tools to view the full content (truncated part starts around line 73)`);
    expect(maybeTruncate('x\r\n'.repeat(500), 400, '/d')?.stub).toContain('(truncated part starts around line 49)');
  });
});
