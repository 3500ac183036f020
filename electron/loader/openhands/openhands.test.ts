/** The OpenHands importer (SPEC §10, docs/FORMATS.md §6): V0 trajectories and V1 event folders, real and synthetic, through the real loader and CLI. */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChatMessage, LoadedSession, ViewEntry } from '../../../shared/index';
import { runCli } from '../../cli/testing/runCli';
import { BAD_CORPUS_DIR } from '../../../tools/testing/badCorpus';
import { tempDir } from '../../../tools/testing/files';
import { claudeCodeFormat } from '../claudeCode/index';
import { codexFormat } from '../codex/index';
import { CODEX_SYNTHETIC_DIR } from '../codex/testing/synthetic';
import { isLoadError, openReadOnly, safeClose } from '../common/openFile';
import { loadSession } from '../session';
import { claims, DETECT_CONTEXT, sessionLoader } from '../testing/importers';
import { sweAgentFormat } from '../sweAgent/index';
import { SWE_SYNTHETIC_DIR } from '../sweAgent/testing/synthetic';
import { openHandsFormat } from './index';
import { FORGOTTEN_WORD, OPENHANDS_SYNTHETIC_DIR, openHandsSynthetic, SUMMARY, V1_SUMMARY } from './testing/synthetic';

const ROOT = join(import.meta.dirname, '../../..');
const REAL_DIR = join(ROOT, 'e2e/fixtures/real/openhands');
const synthetic = (name: string) => join(OPENHANDS_SYNTHETIC_DIR, name);
const V1 = synthetic('v1-conversation');
const tmp = tempDir('session-inspector-openhands-');

const { load, closeAll } = sessionLoader();
afterAll(() => {
  closeAll();
  tmp.cleanup();
});

type Ev = Record<string, unknown> & { id: number; args?: Record<string, unknown>; tool_call_metadata?: { tool_call_id: string; model_response: { choices?: { message: { content: string } }[] } } };
const events = (path: string): Ev[] => JSON.parse(readFileSync(path, 'utf8')) as Ev[];
const messages = (s: LoadedSession): ChatMessage[] => Array.from({ length: s.minted.length }, (_, i) => s.minted.at(i) as ChatMessage);
/** Every file under `dir`, recursively, as paths. */
const walk = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.isFile() && !e.name.endsWith('.md') ? [join(dir, e.name)] : []));

type Given = { id: number; role: string; content: string; tool_call_id?: string };
/** Where an event's text is: its `args.content` (a message), its `content` (an observation), its tool call's `model_response` text. */
type Field = 'args' | 'content' | 'response';
const [U, A, S, T] = ['user', 'assistant', 'system', 'tool'];

/**
 * What the model was given from each V0 file, written by hand from its events (OpenHands'
 * ConversationMemory: a message or system action is its `args.content`; an action with a tool call
 * is an assistant message of its `model_response` text; an observation answering a tool call is a
 * `tool` message of its `content`; state changes, null observations and condensations give
 * nothing): [event id, role, where its text is]. Only the texts and tool call ids are read from the file.
 */
type Row = readonly [number, string, Field];
/** A tool call (action `id`, its text the model response's) and the observation answering it (`id + 1`). */
const turn = (id: number): Row[] => [
  [id, A, 'response'],
  [id + 1, T, 'content'],
];
const GIVEN: Record<string, readonly Row[]> = {
  'basic_interactions.json': [
    [0, U, 'args'],
    [3, A, 'args'],
    [6, U, 'args'],
    [9, A, 'args'],
    [12, U, 'args'],
    [15, A, 'response'],
  ],
  'basic.json': [[0, U, 'args'], ...turn(3), [5, A, 'response']],
  'basic_gui_mode.json': [[4, U, 'args'], ...turn(7), ...turn(9), ...turn(11), ...turn(13), [15, A, 'args']],
  'wrong_initial_state.json': [[0, U, 'args'], ...turn(3), ...turn(5), ...turn(7), [9, A, 'response']],
  'v0-condensed.json': [[0, S, 'args'], [1, U, 'args'], ...turn(3), ...turn(5), ...turn(7), ...turn(10), [12, A, 'response']],
  'v0-damaged.json': [[0, S, 'args'], [1, U, 'args'], ...turn(3), ...turn(10), [12, A, 'response']],
};
GIVEN['v0-range-no-summary.json'] = GIVEN['v0-condensed.json'] ?? [];

/** The messages GIVEN names for the file at `path`, their texts (and a tool message's call id) read from its events. */
function givenIn(path: string): Given[] {
  const byId = new Map((JSON.parse(readFileSync(path, 'utf8')) as unknown[]).filter((e): e is Ev => typeof e === 'object' && e !== null && 'id' in e).map((e) => [e.id, e]));
  return (GIVEN[basename(path)] ?? []).map(([id, role, field]) => {
    const e = byId.get(id);
    if (!e) throw new Error(`${path} has no event ${id}`);
    const content = field === 'args' ? e.args?.content : field === 'content' ? e.content : e.tool_call_metadata?.model_response.choices?.[0]?.message.content;
    if (content !== null && content !== undefined && typeof content !== 'string') throw new Error(`${path} event ${id}: its ${field} text is not a string`);
    // A response without text (`content: null`) gave the model none.
    return { id, role, content: content ?? '', ...(role === T ? { tool_call_id: e.tool_call_metadata?.tool_call_id } : {}) };
  });
}

/** The §3.5 transcript of given messages: per message "⟨role[ tool_call_id]⟩\n" + content + "\n". */
const transcript = (given: Given[]): string => given.map((m) => `\u27E8${m.role}${m.tool_call_id ? ` ${m.tool_call_id}` : ''}\u27E9\n${m.content}\n`).join('');

async function cli<T>(args: string[]): Promise<T> {
  const r = await runCli(args);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
}
const viewAt = (path: string, n?: number) => cli<{ format: string; call: number | null; calls: number; messages: ViewEntry[] }>(['view', ...(n === undefined ? [] : ['--at', String(n)]), path]);

describe('fixtures', () => {
  it('the committed synthetic files are what the builder writes, and nothing else', () => {
    const built = openHandsSynthetic();
    for (const [name, text] of Object.entries(built)) expect(readFileSync(synthetic(name), 'utf8'), name).toBe(text);
    expect(walk(OPENHANDS_SYNTHETIC_DIR).map((p) => relative(OPENHANDS_SYNTHETIC_DIR, p)).sort()).toEqual(Object.keys(built).sort());
  });

  it('the real fixtures README names every real file with its size in bytes', () => {
    const readme = readFileSync(join(REAL_DIR, 'README.md'), 'utf8');
    for (const name of readdirSync(REAL_DIR).filter((n) => n.endsWith('.json'))) {
      expect(readme).toContain(`\`${name}\``);
      expect(readme).toContain(readFileSync(join(REAL_DIR, name)).length.toLocaleString('en-US'));
    }
  });
});

describe('real V0 trajectories (OpenHands tests/runtime/trajs)', () => {
  it.each(readdirSync(REAL_DIR).filter((n) => n.endsWith('.json')))('%s: every event the model is given is one message, in order, each tool result answering its call; one call per assistant message; no findings', async (name) => {
    const path = join(REAL_DIR, name);
    const s = await load(path);
    const want = givenIn(path).map(({ id: _id, ...m }) => m);
    expect(want.length).toBeGreaterThan(0);
    expect(messages(s).map((m) => ({ role: m.role, content: m.content, ...(m.tool_call_id ? { tool_call_id: m.tool_call_id } : {}) }))).toEqual(want);
    const callIds = messages(s).flatMap((m) => (m.tool_calls ?? []).map((c) => c.id));
    for (const m of messages(s)) if (m.role === 'tool') expect(callIds).toContain(m.tool_call_id);
    expect(s.calls).toHaveLength(want.filter((m) => m.role === 'assistant').length);
    expect(s.log).toEqual([]);
    expect(s.check().findings).toEqual([]);
    expect(s.files).toMatchObject([{ format: 'openhands-v0' }]);
  });

  it('a tool call keeps the arguments the model wrote (model_response), not the parsed args', async () => {
    const path = join(REAL_DIR, 'wrong_initial_state.json');
    const first = events(path).find((e) => e.tool_call_metadata) as Ev;
    const raw = JSON.stringify(first.tool_call_metadata?.model_response);
    const s = await load(path);
    const call = messages(s).find((m) => m.tool_calls)?.tool_calls?.[0];
    expect(call?.id).toBe(first.tool_call_metadata?.tool_call_id);
    expect(raw).toContain(JSON.stringify(call?.arguments));
  });
});

describe('V0 condensation: non-contiguous forgotten ids with a summary', () => {
  const path = synthetic('v0-condensed.json');
  const evs = events(path);
  const cond = evs.find((e) => e.action === 'condensation') as Ev;
  const forgotten = cond.args?.forgotten_event_ids as number[];

  it('each contiguous run of forgotten messages is one recorded summarized reduction of one group; the summary is the first run`s stub', async () => {
    const s = await load(path);
    const given = givenIn(path);
    const runs = s.log.map((r) => given.slice(r.ptr.index, r.end).map((e) => e.id));
    expect(runs.flat()).toEqual(forgotten);
    expect(runs).toHaveLength(2);
    for (const r of s.log) expect(r).toMatchObject({ kind: 'summarized', provenance: 'recorded', hash_origin: 'import', origin: { event: String(cond.id) }, group: s.log[0]?.group, stub: SUMMARY });
    // Each run expands to the transcript of its forgotten events, as the file holds them.
    s.log.forEach((r, i) => {
      const out = s.expand(r.id);
      if (!out.ok) throw new Error(out.error.message);
      expect(out.value.content).toBe(transcript(given.filter((e) => runs[i]?.includes(e.id))));
    });
    expect(s.check().findings).toEqual([]);
  });

  it('the latest view is what the next call gets: forgotten events out, the summary once in their place; a call before the condensation saw them', async () => {
    const latest = await viewAt(path);
    expect(latest.format).toBe('openhands');
    const texts = latest.messages.map((m) => m.content);
    expect(texts.filter((t) => t === SUMMARY)).toHaveLength(1);
    expect(texts.join('\n')).not.toContain(FORGOTTEN_WORD);
    const s = await load(path);
    const condensationLine = evs.indexOf(cond) + 1;
    const before = s.calls.filter((c) => c.line < condensationLine);
    const after = s.calls.filter((c) => c.line > condensationLine);
    expect(before.length).toBeGreaterThan(0);
    expect(after.length).toBeGreaterThan(0);
    for (const c of before) {
      const v = await viewAt(path, c.call);
      expect(v.messages.some((m) => m.content === SUMMARY)).toBe(false);
      if (c.index > 3) expect(v.messages.map((m) => m.content).join('\n')).toContain(FORGOTTEN_WORD);
    }
    for (const c of after) expect((await viewAt(path, c.call)).messages.filter((m) => m.content === SUMMARY)).toHaveLength(1);
  });
});

describe('V0 condensation: a start/end range without a summary, then a summary at another offset', () => {
  const path = synthetic('v0-range-no-summary.json');

  it('a range without a summary is one turns_cleared with an empty stub (the model was given nothing there); its expansion is the range`s transcript', async () => {
    const evs = events(path);
    const s = await load(path);
    const [cleared, summarized] = s.log;
    const first = evs.find((e) => e.action === 'condensation') as Ev;
    const { forgotten_events_start_id: a, forgotten_events_end_id: b } = first.args as { forgotten_events_start_id: number; forgotten_events_end_id: number };
    expect(cleared).toMatchObject({ kind: 'turns_cleared', stub: '', provenance: 'recorded', origin: { event: String(first.id) } });
    expect(cleared && 'group' in cleared).toBe(false);
    const out = s.expand(cleared?.id ?? '');
    expect(out.ok && out.value.content).toBe(transcript(givenIn(path).filter((e) => e.id >= a && e.id <= b)));
    expect(summarized).toMatchObject({ kind: 'summarized', stub: SUMMARY });
  });

  it('a summary_offset that puts the summary elsewhere than the first forgotten run is a warning naming both places', async () => {
    const s = await load(path);
    expect(s.check().findings).toMatchObject([{ code: 'unknown_record', severity: 'warning', message: expect.stringMatching(/summary_offset 0 .* first forgotten run/) as unknown }]);
  });
});

describe('damaged V0 input opens, with findings', () => {
  it('a non-object, an event that is neither action nor observation, a condensation naming nothing and one forgetting nothing visible: four warnings, the rest shown', async () => {
    const path = synthetic('v0-damaged.json');
    const s = await load(path);
    const findings = s.check().findings;
    expect(findings.map((f) => f.code)).toEqual(['unknown_record', 'unknown_record', 'unknown_record', 'unknown_record']);
    expect(messages(s).map((m) => ({ role: m.role, content: m.content }))).toEqual(givenIn(path).map((m) => ({ role: m.role, content: m.content })));
    expect(s.log).toEqual([]);
  });

  it('a torn trajectory is one malformed_line at its last line, no messages, no throw', async () => {
    const path = synthetic('v0-torn.json');
    const s = await load(path);
    expect(s.minted.length).toBe(0);
    expect(s.check().findings).toMatchObject([{ code: 'malformed_line', severity: 'error', line: readFileSync(path, 'utf8').split('\n').length }]);
  });
});

describe('V1 event folders', () => {
  const eventFiles = readdirSync(join(V1, 'events')).sort();
  const v1Events = eventFiles.map((n) => JSON.parse(readFileSync(join(V1, 'events', n), 'utf8')) as Record<string, unknown>);

  it('the user opens base_state.json or any events/event-*.json: each opens the whole conversation, the same view; the folder itself is refused clearly', async () => {
    const fromState = await load(join(V1, 'base_state.json'));
    const fromEvent = await load(join(V1, 'events', eventFiles[3] ?? ''));
    expect(messages(fromEvent)).toEqual(messages(fromState));
    expect(fromState.files).toMatchObject([{ format: 'openhands-v1' }]);
    expect(fromState.model).toBe('litellm_proxy/claude-sonnet-4-5');
    const folder = await loadSession([V1]);
    expect(folder.ok).toBe(false);
    expect(!folder.ok && folder.error.message).toMatch(/directory/);
  });

  it('messages, tool calls and results follow the event files in name order; state updates are not messages', async () => {
    const s = await load(join(V1, 'base_state.json'));
    const given = v1Events.filter((e) => e.kind !== 'ConversationStateUpdateEvent' && e.kind !== 'Condensation');
    expect(messages(s).map((m) => m.metadata?.openhands_event)).toEqual(given.map((e) => e.id));
    const calls = messages(s).flatMap((m) => m.tool_calls ?? []);
    expect(calls.map((c) => c.id)).toEqual(given.filter((e) => e.kind === 'ActionEvent').map((e) => e.tool_call_id));
    expect(messages(s).filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(calls.map((c) => c.id));
  });

  it('a Condensation forgetting non-contiguous events is two summarized runs of one group over exactly those events; search finds a word only a forgotten event holds', async () => {
    const s = await load(join(V1, 'base_state.json'));
    const cond = v1Events.find((e) => e.kind === 'Condensation') as { id: string; forgotten_event_ids: string[] };
    const hiddenIds = s.log.flatMap((r) => Array.from({ length: (r.end ?? 0) - r.ptr.index }, (_, k) => messages(s)[r.ptr.index + k]?.metadata?.openhands_event));
    expect(hiddenIds).toEqual(cond.forgotten_event_ids);
    expect(new Set(s.log.map((r) => `${r.kind}/${r.group}/${r.stub}`))).toEqual(new Set([`summarized/condensation-${cond.id}/${V1_SUMMARY}`]));
    const found = s.search(FORGOTTEN_WORD);
    if (!found.ok) throw new Error(found.error.message);
    expect(found.value.matches.map((m) => m.reduction_id)).toContain(s.log[0]?.id);
    expect(s.check().findings).toEqual([]);
  });

  it('a torn event file is a malformed_line naming it, an unknown kind an unknown_record; the rest opens', async () => {
    const s = await load(synthetic('v1-damaged/base_state.json'));
    const findings = s.check().findings;
    expect(findings).toMatchObject([
      { code: 'malformed_line', severity: 'error', message: expect.stringContaining('event-00005-act-b.json') as unknown },
      { code: 'unknown_record', severity: 'warning', message: expect.stringContaining('FutureEvent') as unknown },
    ]);
    const whole = await load(join(V1, 'base_state.json'));
    expect(messages(s).map((m) => m.metadata?.openhands_event)).toEqual(messages(whole).map((m) => m.metadata?.openhands_event).filter((id) => id !== 'act-b'));
    expect(s.log.map((r) => r.kind)).toEqual(['summarized', 'summarized']);
  });
});

describe('never writes', () => {
  it('a full session of every fixture (load, check, view, expand every reduction, search, close) leaves every file byte-identical (SHA-256)', async () => {
    const files = [...walk(REAL_DIR), ...walk(OPENHANDS_SYNTHETIC_DIR)];
    const digest = () => files.map((f) => createHash('sha256').update(readFileSync(f)).digest('hex'));
    const before = digest();
    for (const path of [...walk(REAL_DIR), ...walk(OPENHANDS_SYNTHETIC_DIR).filter((p) => !p.includes('/events/'))]) {
      const r = await loadSession([path]);
      if (!r.ok) throw new Error(r.error.message);
      const s = r.session;
      s.check();
      s.callInput(null);
      for (const x of s.log) s.expand(x.id);
      s.search('e');
      s.close();
    }
    expect(digest()).toEqual(before);
  });
});

describe('the CLI', () => {
  const path = synthetic('v0-condensed.json');

  it('check names the format; log lists the recorded reductions verified; expand restores a run; search finds the forgotten word in it; view --at N gives each call its input', async () => {
    const check = await cli<{ findings: unknown[]; summary: { format: string; files: { format: string }[] } }>(['check', path]);
    expect(check).toMatchObject({ findings: [], summary: { format: 'openhands', files: [{ format: 'openhands-v0' }] } });
    const log = await cli<{ reductions: { id: string; status: string; provenance: string }[] }>(['log', path]);
    expect(log.reductions.map((r) => `${r.status}/${r.provenance}`)).toEqual(['verified/recorded', 'verified/recorded']);
    const first = log.reductions[0]?.id ?? '';
    const expand = await cli<{ reduction_id: string; content: string }>(['expand', '--id', first, path]);
    expect(expand.content).toContain(FORGOTTEN_WORD);
    const search = await cli<{ matches: { reduction_id: string }[] }>(['search', '--query', FORGOTTEN_WORD, path]);
    expect(search.matches.map((m) => m.reduction_id)).toEqual([first]);
    const { calls } = await viewAt(path);
    const s = await load(path);
    expect(calls).toBe(s.calls.length);
    for (const c of s.calls) {
      // Call c's input: every message before its assistant message, less those a condensation
      // logged before it hides; a group shows one row, at its first run.
      const live = s.log.filter((_r, i) => (s.logLines?.[i] ?? Infinity) < c.line);
      const hidden = new Set(live.flatMap((r) => Array.from({ length: (r.end ?? 0) - r.ptr.index }, (_, k) => r.ptr.index + k)));
      const rows = new Set(live.map((r) => Math.min(...live.filter((x) => x.group === r.group).map((x) => x.ptr.index))));
      const want = Array.from({ length: c.index }, (_, i) => i).filter((i) => !hidden.has(i) || rows.has(i));
      expect((await viewAt(path, c.call)).messages.map((m) => m.index), `call ${c.call}`).toEqual(want);
    }
  });

  it('--format openhands reads a trajectory as forced and refuses a SWE-agent trajectory', async () => {
    const ok = await runCli(['check', '--format', 'openhands', join(REAL_DIR, 'basic.json')]);
    expect(ok.code, ok.stderr).toBe(0);
    const refused = await runCli(['check', '--format', 'openhands', join(SWE_SYNTHETIC_DIR, 'history-only.traj')]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr + refused.stdout).toContain('is not an OpenHands');
  });

  it('two files are a usage error', async () => {
    const r = await runCli(['check', join(REAL_DIR, 'basic.json'), join(REAL_DIR, 'basic_interactions.json')]);
    expect(r.code).not.toBe(0);
    expect(r.stderr + r.stdout).toMatch(/pass one/);
  });
});

describe('detection by content, both ways', () => {
  const context = DETECT_CONTEXT;
  const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile() && !e.name.endsWith('.md')).map((e) => join(dir, e.name));
  // An event file that does not parse, or of a kind not read, is no OpenHands file by itself: its conversation opens from another.
  const notClaimed = new Set(['v1-damaged/events/event-00005-act-b.json', 'v1-damaged/events/event-00013-future.json']);
  // The corpus's OpenHands entries (`openhands-*`) are damaged trajectories: still OpenHands files.
  const badOurs = files(BAD_CORPUS_DIR).filter((p) => basename(p).startsWith('openhands-'));
  const ours = [...walk(REAL_DIR), ...walk(OPENHANDS_SYNTHETIC_DIR).filter((p) => !notClaimed.has(relative(OPENHANDS_SYNTHETIC_DIR, p))), ...badOurs];
  const others = [
    ...files(join(ROOT, 'samples')),
    ...files(join(ROOT, 'samples/broken')),
    ...files(BAD_CORPUS_DIR).filter((p) => !badOurs.includes(p)),
    ...walk(join(ROOT, 'e2e/fixtures/real')).filter((p) => !p.startsWith(REAL_DIR)),
    ...walk(join(ROOT, 'e2e/fixtures/synthetic')).filter((p) => !p.startsWith(OPENHANDS_SYNTHETIC_DIR)),
    ...files(CODEX_SYNTHETIC_DIR),
  ];

  it.each(others.map((p) => relative(ROOT, p)))('the OpenHands adapter does not claim %s', (path) => {
    expect(claims(join(ROOT, path), openHandsFormat)).toBe(false);
  });
  it.each(ours.map((p) => relative(ROOT, p)))('the OpenHands adapter claims %s, and no other adapter does', (path) => {
    const p = join(ROOT, path);
    expect(claims(p, openHandsFormat)).toBe(true);
    for (const other of ['native', claudeCodeFormat, codexFormat, sweAgentFormat] as const) expect(claims(p, other)).toBe(false);
  });
  it.each([...notClaimed])('%s is claimed by no adapter', (name) => {
    const p = synthetic(name);
    for (const a of ['native', claudeCodeFormat, codexFormat, sweAgentFormat, openHandsFormat] as const) expect(claims(p, a)).toBe(false);
  });

  it('an event file outside an events/ folder is refused with that reason', () => {
    const path = tmp.path('event-00000-sys.json');
    writeFileSync(path, readFileSync(join(V1, 'events', readdirSync(join(V1, 'events')).sort()[0] ?? '')));
    const f = openReadOnly(path);
    if (isLoadError(f)) throw new Error(f.message);
    try {
      const d = openHandsFormat.detect(f, context);
      expect(!d.ok && d.error.message).toMatch(/outside an events\/ folder/);
    } finally {
      safeClose(f.fd);
    }
  });
});
