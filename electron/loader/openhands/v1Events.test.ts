/**
 * OpenHands V1 event folders read as the SDK gives them to the model (docs/formats/openhands.md): a
 * real gpt-4o-mini run and a synthetic one with parallel tool calls, a rejection and a scaffold
 * error. Every expectation is read off the raw event files or written by hand, never from the
 * importer.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChatMessage, LoadedSession } from '../../../shared/index';
import { runCli } from '../../cli/testing/runCli';
import { sessionLoader } from '../testing/importers';
import { OPENHANDS_SYNTHETIC_DIR, V1_AGENT_ERROR, V1_REJECTION } from './testing/synthetic';

const REAL = join(import.meta.dirname, '../../../e2e/fixtures/real/openhands/v1-gpt-4o-mini');
const PARALLEL = join(OPENHANDS_SYNTHETIC_DIR, 'v1-parallel');

const { load, closeAll } = sessionLoader();
afterAll(() => closeAll());

type Raw = Record<string, unknown>;
/** A folder's event files, parsed, in the order of their names. */
const rawEvents = (folder: string): Raw[] =>
  readdirSync(join(folder, 'events'))
    .filter((n) => /^event-.*\.json$/.test(n))
    .sort()
    .map((n) => JSON.parse(readFileSync(join(folder, 'events', n), 'utf8')) as Raw);
const messages = (s: LoadedSession): ChatMessage[] => Array.from({ length: s.minted.length }, (_, i) => s.minted.at(i) as ChatMessage);
const obj = (v: unknown): Raw => (typeof v === 'object' && v !== null ? (v as Raw) : {});
const partsText = (v: unknown): string => (Array.isArray(v) ? v.map((p) => { const t = obj(p).text; return typeof t === 'string' ? t : ''; }).join('') : '');

describe('a real V1 conversation (openhands-sdk, gpt-4o-mini)', () => {
  const raw = rawEvents(REAL);

  it('is one message per event the model is given, one call per model response', async () => {
    const s = await load(join(REAL, 'base_state.json'));
    // By hand from the eight event files: the system prompt, the task, terminal call and result, finish call and result, a question, the answer.
    expect(messages(s).map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'user', 'assistant']);
    const responses = new Set(raw.map((e) => e.llm_response_id).filter((id) => typeof id === 'string'));
    expect(responses.size).toBe(3);
    expect(s.calls).toHaveLength(responses.size);
    expect(s.check().findings).toEqual([]);
  });

  it('a terminal result reads as the SDK renders it: prefix, text, suffix, working folder, interpreter, exit code', async () => {
    const s = await load(join(REAL, 'base_state.json'));
    const event = raw.find((e) => e.kind === 'ObservationEvent' && e.tool_name === 'terminal')!;
    const o = obj(event.observation);
    const md = obj(o.metadata);
    const want = `${String(md.prefix)}${partsText(o.content)}${String(md.suffix)}\n[Current working directory: ${String(md.working_dir)}]\n[Python interpreter: ${String(md.py_interpreter_path)}]\n[Command finished with exit code ${String(md.exit_code)}]`;
    const got = messages(s).find((m) => m.role === 'tool' && m.tool_call_id === event.tool_call_id);
    expect(got?.content).toBe(want);
    // The other result (finish) is its content parts as they are.
    const finish = raw.find((e) => e.kind === 'ObservationEvent' && e.tool_name === 'finish')!;
    expect(messages(s).find((m) => m.tool_call_id === finish.tool_call_id)?.content).toBe(partsText(obj(finish.observation).content));
  });

  it('check --strict exits 0', async () => {
    const r = await runCli(['check', '--strict', join(REAL, 'base_state.json')]);
    expect(r.code, r.stdout).toBe(0);
  });
});

describe('a V1 conversation with parallel tool calls, a rejection and a scaffold error', () => {
  it('the two actions of one response are one assistant message with both tool calls; three responses, three calls', async () => {
    const s = await load(join(PARALLEL, 'base_state.json'));
    const all = messages(s);
    expect(all.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'assistant', 'tool', 'assistant']);
    expect(all[2]?.content).toBe('Running both at once.');
    expect(all[2]?.tool_calls?.map((c) => [c.id, c.name, c.arguments])).toEqual([
      ['call_act-1', 'terminal', '{"command":"pytest -q"}'],
      ['call_act-2', 'terminal', '{"command":"rm -rf build"}'],
    ]);
    expect(s.calls).toHaveLength(3);
    // Each call is given everything before its response: the second call sees both results.
    const second = s.callInput(2);
    expect(second?.minted.length).toBe(5);
    expect(s.check().findings).toEqual([]);
  });

  it('an error result has the SDK`s error header; a rejection says it was rejected; a scaffold error is its text', async () => {
    const s = await load(join(PARALLEL, 'base_state.json'));
    const byCall = new Map(messages(s).filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content]));
    expect(byCall.get('call_act-1')).toBe(
      '[An error occurred during execution.]\nE   assert 3 == 4\n1 failed in 0.04s\n[The command completed with exit code 1.]\n[Current working directory: /workspace/project]\n[Python interpreter: /usr/bin/python3]\n[Command finished with exit code 1]',
    );
    expect(byCall.get('call_act-2')).toBe(`Action rejected: ${V1_REJECTION}`);
    expect(byCall.get('call_act-3')).toBe(V1_AGENT_ERROR);
  });

  it('view --at 2 gives the second call its input: the combined message and both results', async () => {
    const r = await runCli(['view', '--at', '2', join(PARALLEL, 'base_state.json')]);
    expect(r.code, r.stderr).toBe(0);
    const view = JSON.parse(r.stdout) as { calls: number; messages: { role: string; tool_call_id?: string }[] };
    expect(view.calls).toBe(3);
    expect(view.messages.map((m) => m.tool_call_id ?? m.role)).toEqual(['system', 'user', 'assistant', 'call_act-1', 'call_act-2']);
  });
});
