/**
 * The units of the foreign formats (electron/bundle/units.ts; docs/bundles.md): any kept set of
 * units is still a file of its format — it parses, every tool call keeps its result and every
 * result its call, and (Claude Code) every kept prompt is still on the branch the importer reads;
 * (SWE-agent, mini-swe-agent, OpenHands, Inspect) it loads with our loader as that format with no
 * finding the source lacks. Over generated transcripts (fast-check) and over real files.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage, SessionFileFormat } from '../../shared/index';
import { loadSession } from '../loader/session';
import { tempDir } from '../../tools/testing/files';
import { importClaudeCode } from '../loader/claudeCode/importer';
import { splitClaudeLines } from '../loader/claudeCode/index';
import type { RolloutLine } from '../loader/codex/build';
import { buildRollout } from '../loader/codex/build';
import type { FileUnits } from './units';
import { fileUnits } from './units';
import { readArchive } from './evalArchive';

const REAL = join(import.meta.dirname, '../../e2e/fixtures/real');
const dec = (b: Uint8Array) => new TextDecoder().decode(b);
const enc = (s: string) => new TextEncoder().encode(s);

/** Tool call ids of the view's assistant messages, and of its tool results. */
function pairs(view: readonly ChatMessage[]): { calls: string[]; results: string[] } {
  const calls = view.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.id) : []));
  const results = view.flatMap((m) => (m.role === 'tool' && m.tool_call_id !== undefined ? [m.tool_call_id] : []));
  return { calls: [...new Set(calls)].sort(), results: [...new Set(results)].sort() };
}

/** A subset of 0..count-1 from a list of booleans (fast-check). */
const subsetOf = (count: number, keep: readonly boolean[]): number[] => Array.from({ length: count }, (_, k) => k).filter((k) => keep[k % Math.max(keep.length, 1)] !== false);

// ── Claude Code ──

interface Turn {
  prompt: string;
  tools: number;
  compactAfter: boolean;
}

/** A Claude Code transcript as Claude Code writes it: each record chained to the one before, one line per content block of a response, results after their calls. */
function claudeTranscript(turns: readonly Turn[]): string {
  const lines: string[] = [];
  let last: string | null = null;
  let n = 0;
  const add = (fields: Record<string, unknown>, parent: string | null = last): string => {
    const uuid = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
    lines.push(JSON.stringify({ parentUuid: parent, isSidechain: false, userType: 'external', cwd: '/w', sessionId: 'ssss', version: '2.1.17', ...fields, uuid, timestamp: '2026-01-01T00:00:00.000Z' }));
    last = uuid;
    return uuid;
  };
  turns.forEach((t, k) => {
    add({ type: 'user', message: { role: 'user', content: t.prompt } });
    const id = `msg_${k}`;
    const uses = Array.from({ length: t.tools }, (_, j) => `toolu_${k}_${j}`);
    const blocks = [{ type: 'text', text: `answer ${k}` }, ...uses.map((u) => ({ type: 'tool_use', id: u, name: 'Bash', input: { command: `echo ${u}` } }))];
    for (const b of blocks) add({ type: 'assistant', requestId: `req_${k}`, message: { id, model: 'claude-sonnet-4-5', role: 'assistant', type: 'message', content: [b], stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } } });
    for (const u of uses) add({ type: 'user', message: { role: 'user', content: [{ tool_use_id: u, type: 'tool_result', content: `out ${u}` }] } });
    if (t.compactAfter) {
      const before = last;
      const boundary = add({ type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', logicalParentUuid: before, compactMetadata: { trigger: 'auto', preTokens: 1000 } }, null);
      add({ type: 'user', isCompactSummary: true, message: { role: 'user', content: `summary after turn ${k}` } }, boundary);
    }
  });
  return lines.join('\n') + '\n';
}

const turnArb = fc.record({ prompt: fc.constantFrom('fix the build', 'run the tests', 'why did it fail', 'ship it'), tools: fc.nat({ max: 3 }), compactAfter: fc.boolean() }, { requiredKeys: ['prompt', 'tools', 'compactAfter'] });

describe('Claude Code units', () => {
  it('any kept set of units parses, keeps every tool call with its result, and every kept prompt on the branch (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(turnArb, { minLength: 1, maxLength: 8 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 64 }), (turns, keep) => {
        const text = claudeTranscript(turns.map((t, k) => ({ ...t, prompt: `${t.prompt} #${k}` })));
        const units = fileUnits('t.jsonl', 'claude-code', enc(text));
        // A tool call and its result(s) are one unit; so are a compaction's two records.
        for (const u of units.units) if (u.kind === 'compaction') expect(u.lines.length).toBe(2);
        const kept = subsetOf(units.count, keep);
        const rendered = dec(units.render(kept));
        const session = importClaudeCode(splitClaudeLines(rendered));
        expect(session.findings.filter((f) => f.code === 'malformed_line')).toEqual([]);
        const { calls, results } = pairs(session.messages);
        expect(results).toEqual(calls);
        // Every prompt kept is still read: the kept records still make one branch.
        const records = rendered.split('\n').flatMap((l) => (l ? [JSON.parse(l) as { type?: string; isCompactSummary?: boolean; message?: { content?: unknown } }] : []));
        const keptPrompts = records.flatMap((r) => (r.type === 'user' && typeof r.message?.content === 'string' && r.isCompactSummary !== true ? [r.message.content] : []));
        const seen = session.messages.filter((m) => m.role === 'user').map((m) => m.content);
        for (const p of keptPrompts) expect(seen).toContain(p);
      }),
      { numRuns: 150 },
    );
  });

  it('on real transcripts, any kept set keeps every tool call with its result (parallel calls, results written apart)', () => {
    const files = ['cc-2.1.7-parallel-results.jsonl', 'cc-2.1.119-parallel-results-cut.jsonl', 'cc-2.1.42-rewind.jsonl'].map((n) => readFileSync(join(REAL, 'claude-code', n)));
    fc.assert(
      fc.property(fc.nat({ max: files.length - 1 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 200 }), (f, keep) => {
        const units = fileUnits('t.jsonl', 'claude-code', new Uint8Array(files[f] as Buffer));
        const session = importClaudeCode(splitClaudeLines(dec(units.render(subsetOf(units.count, keep)))));
        const { calls, results } = pairs(session.messages);
        // A call whose result the source itself lacks stays unanswered; every result still has its call.
        for (const r of results) expect(calls).toContain(r);
        const whole = pairs(importClaudeCode(splitClaudeLines(dec(files[f] as Buffer))).messages);
        for (const c of calls) if (whole.results.includes(c)) expect(results).toContain(c);
      }),
      { numRuns: 60 },
    );
  });

  it('a kept record whose parent was removed is re-linked to its nearest kept ancestor, and only its parentUuid changes', () => {
    const text = claudeTranscript([{ prompt: 'one', tools: 0, compactAfter: false }, { prompt: 'two', tools: 0, compactAfter: false }, { prompt: 'three', tools: 0, compactAfter: false }]);
    const units = fileUnits('t.jsonl', 'claude-code', enc(text));
    // Units: prompt 1, response 1, prompt 2, response 2, prompt 3, response 3. Keep prompt 1 and prompt 3 with its response.
    expect(units.units.map((u) => u.kind)).toEqual(['message', 'response', 'message', 'response', 'message', 'response']);
    const kept = [0, 4, 5];
    const lines = dec(units.render(kept)).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const source = text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[1]?.parentUuid).toBe(source[0]?.uuid);
    expect({ ...lines[1], parentUuid: null }).toEqual({ ...source[4], parentUuid: null });
    expect(units.rewrites(kept)).toEqual([{ line: 5, bytes_before: enc(text.split('\n')[4] + '\n').length, bytes_after: enc(JSON.stringify(lines[1]) + '\n').length, why: 'parentUuid re-linked to the nearest kept ancestor' }]);
    expect(importClaudeCode(splitClaudeLines(dec(units.render(kept)))).messages.map((m) => m.content)).toEqual(['one', 'three', 'answer 2']);
  });
});

// ── Codex ──

function rolloutLines(text: string): RolloutLine[] {
  return text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l, i) => {
      try {
        return { line: i + 1, value: JSON.parse(l) as unknown };
      } catch (e) {
        return { line: i + 1, error: (e as Error).message };
      }
    });
}

function codexRollout(turns: readonly Turn[]): string {
  const at = '2026-01-01T00:00:00.000Z';
  const lines: unknown[] = [{ timestamp: at, type: 'session_meta', payload: { id: 'sess-1', timestamp: at, cwd: '/w', originator: 'codex_cli_rs', cli_version: '0.118.0', instructions: null } }];
  const item = (payload: Record<string, unknown>) => lines.push({ timestamp: at, type: 'response_item', payload });
  const msg = (role: string, text: string) => item({ type: 'message', role, content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text }] });
  turns.forEach((t, k) => {
    lines.push({ timestamp: at, type: 'turn_context', payload: { cwd: '/w', model: 'gpt-5-codex' } });
    msg('user', t.prompt);
    for (let j = 0; j < t.tools; j++) item({ type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['echo', `${k}-${j}`] }), call_id: `call_${k}_${j}` });
    for (let j = 0; j < t.tools; j++) item({ type: 'function_call_output', call_id: `call_${k}_${j}`, output: `out ${k}-${j}` });
    msg('assistant', `answer ${k}`);
    lines.push({ timestamp: at, type: 'event_msg', payload: { type: 'token_count', info: null } });
    if (t.compactAfter) {
      lines.push({ timestamp: at, type: 'compacted', payload: { message: `summary after turn ${k}` } });
      lines.push({ timestamp: at, type: 'event_msg', payload: { type: 'context_compacted' } });
    }
  });
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

describe('Codex units', () => {
  it('any kept set of units keeps session_meta first, parses, and keeps every function call with its output (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(turnArb, { minLength: 1, maxLength: 8 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 64 }), (turns, keep) => {
        const text = codexRollout(turns);
        const units = fileUnits('r.jsonl', 'codex-rollout', enc(text));
        for (const u of units.units) if (u.kind === 'compaction') expect(u.lines.length).toBe(2);
        const rendered = dec(units.render(subsetOf(units.count, keep)));
        expect((JSON.parse(rendered.split('\n')[0] as string) as { type?: string }).type).toBe('session_meta');
        const index = buildRollout(rolloutLines(rendered));
        expect(index.findings.filter((f) => f.code === 'malformed_line')).toEqual([]);
        const { calls, results } = pairs(index.view);
        expect(results).toEqual(calls);
      }),
      { numRuns: 150 },
    );
  });

  it('on a real rollout, any kept set keeps every call with its output', () => {
    const file = readFileSync(join(REAL, 'codex', 'rollout-0.118-exec-parallel-calls-ENTIRE.jsonl'));
    const whole = pairs(buildRollout(rolloutLines(dec(file))).view);
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 200 }), (keep) => {
        const units = fileUnits('r.jsonl', 'codex-rollout', new Uint8Array(file));
        const { calls, results } = pairs(buildRollout(rolloutLines(dec(units.render(subsetOf(units.count, keep))))).view);
        for (const r of results) expect(calls).toContain(r);
        for (const c of calls) if (whole.results.includes(c)) expect(results).toContain(c);
      }),
      { numRuns: 40 },
    );
  });
});

// ── JSON document formats: SWE-agent, mini-swe-agent, OpenHands V0, Inspect .json ──

interface Loaded {
  format: string | undefined;
  view: ChatMessage[];
  codes: string[];
  log: { id: string; kind: string; stub: string }[];
  /** The sessions the file lists (an Inspect log's samples). */
  sessions: string[];
  /** An archive's sample entries, and the samples its summaries name. */
  entries: string[];
  summarized: string[];
}

/** An archive's sample entries (as session ids) and the samples its summaries name. */
async function archiveSamples(path: string): Promise<{ entries: string[]; summarized: string[] }> {
  const entries = await readArchive(path);
  if (!entries) return { entries: [], summarized: [] };
  const ids = entries.flatMap((e) => /^samples\/(.+)_epoch_(\d+)\.json$/.exec(e.name)?.slice(1, 3).join('_epoch_') ?? []);
  const summarized = entries
    .filter((e) => /^(summaries\.json|_journal\/summaries\/[^/]+\.json)$/.test(e.name))
    .flatMap((e) => JSON.parse(dec(e.bytes)) as { id: string | number; epoch?: number }[])
    .map((r) => `${r.id}_epoch_${r.epoch ?? 1}`);
  return { entries: ids, summarized };
}

const scratch = tempDir('session-inspector-format-units-');
afterAll(() => scratch.cleanup());
let written = 0;

/** A file's bytes as the loader reads them from disk: its file format, view, finding codes and reductions. */
async function loadBytes(name: string, bytes: Uint8Array, session?: string): Promise<Loaded> {
  const dir = scratch.path(`c${written++}`);
  mkdirSync(dir);
  const path = join(dir, name);
  writeFileSync(path, bytes);
  const r = await loadSession([path], session !== undefined ? { session } : {});
  if (!r.ok) throw new Error(`${name} does not load: ${r.error.message}`);
  try {
    const s = r.session;
    const view = Array.from({ length: s.minted.length }, (_, k) => s.minted.at(k) as ChatMessage);
    const archive = s.files[0]?.format === 'inspect-eval' ? await archiveSamples(path) : { entries: [], summarized: [] };
    return { format: s.files[0]?.format, view, codes: [...new Set(s.check().findings.map((f) => f.code))].sort(), log: s.log.map((x) => ({ id: x.id, kind: x.kind, stub: x.stub })), sessions: (s.sessions ?? []).map((x) => x.id), ...archive };
  } finally {
    r.session.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const DOCUMENTS: { format: SessionFileFormat; path: string }[] = [
  { format: 'swe-agent-traj', path: 'swe-agent/marshmallow-1867-function-calling-replace-from-source.traj' },
  { format: 'swe-agent-traj', path: 'swe-agent/sweagenttestrepo-1c2844.traj' },
  { format: 'mini-swe-agent-traj', path: 'mini-swe-agent/sqlfluff-2419-2.2.7-submitted.traj.json' },
  { format: 'mini-swe-agent-traj', path: 'mini-swe-agent/github_issue.traj.json' },
  { format: 'mini-swe-agent-traj', path: 'mini-swe-agent/pvlib-1606-2.2.7-error-exit.traj.json' },
  { format: 'openhands-v0', path: 'openhands/basic_gui_mode.json' },
  { format: 'openhands-v0', path: 'openhands/wrong_initial_state.json' },
  { format: 'inspect-json', path: 'inspect/2025-05-12T20-28-26-04-00_security-guide.json' },
  { format: 'inspect-eval', path: 'inspect/2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval' },
  { format: 'inspect-eval', path: 'inspect/log_message_deduplication.eval' },
];

/** A real file's units; an archive's entries read as the bundle reads them. */
async function unitsOfReal(name: string, format: SessionFileFormat, path: string, bytes: Uint8Array): Promise<FileUnits> {
  return fileUnits(name, format, bytes, format === 'inspect-eval' ? { entries: (await readArchive(path)) ?? [] } : {});
}

describe.each(DOCUMENTS)('$format units of $path', ({ format, path }) => {
  const bytes = new Uint8Array(readFileSync(join(REAL, path)));
  const name = path.split('/').pop() as string;
  let whole: Loaded;
  let units: FileUnits;
  beforeAll(async () => {
    whole = await loadBytes(name, bytes);
    units = await unitsOfReal(name, format, join(REAL, path), bytes);
  });

  it('the file has units, and all of them kept is the same session', async () => {
    expect(units.count).toBeGreaterThan(1);
    const all = await loadBytes(name, units.render(Array.from({ length: units.count }, (_, k) => k)));
    expect(all).toEqual(whole);
  });

  it('any kept set of units loads as a file of its format with no new finding, keeps every tool call with its result, and keeps the elisions of the kept steps (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 1, maxLength: 64 }), async (keep) => {
        const got = await loadBytes(name, units.render(subsetOf(units.count, keep)));
        expect(got.format).toBe(format);
        for (const c of got.codes) expect(whole.codes).toContain(c);
        const { calls, results } = pairs(got.view);
        const source = pairs(whole.view);
        for (const r of results) expect(calls).toContain(r);
        for (const c of calls) if (source.results.includes(c)) expect(results).toContain(c);
        // A reduction still read is one of the source's (same kind, same stub): the elision settings and inputs stay in step.
        for (const r of got.log) expect(whole.log.map((w) => `${w.kind}\u0000${w.stub}`)).toContain(`${r.kind}\u0000${r.stub}`);
        expect(got.view.length).toBeLessThanOrEqual(whole.view.length);
        // A log's samples listed are the source's, and its summaries name only samples it holds.
        for (const id of got.sessions) expect(whole.sessions).toContain(id);
        for (const id of got.summarized) expect(got.entries).toContain(id);
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
