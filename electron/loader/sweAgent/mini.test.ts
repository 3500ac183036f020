/** mini-swe-agent trajectories (docs/FORMATS.md §4; mini.ts) over real and synthetic files, through the real loader and CLI. */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChatMessage, LoadedSession, ViewEntry } from '../../../shared/index';
import { runCli } from '../../cli/testing/runCli';
import { claudeCodeFormat } from '../claudeCode/index';
import { codexFormat } from '../codex/index';
import { openHandsFormat } from '../openhands/index';
import { loadSession } from '../session';
import { claims, sessionLoader } from '../testing/importers';
import { contentText } from './build';
import { sweAgentFormat } from './index';
import { MINI_SYNTHETIC_DIR, miniSynthetic } from './testing/miniSynthetic';

const ROOT = join(import.meta.dirname, '../../..');
const REAL_DIR = join(ROOT, 'e2e/fixtures/real/mini-swe-agent');
const synthetic = (name: string) => join(MINI_SYNTHETIC_DIR, name);
const files = (dir: string) =>
  readdirSync(dir)
    .filter((n) => !n.endsWith('.md'))
    .map((n) => join(dir, n));
const REAL = files(REAL_DIR);

const { load, closeAll } = sessionLoader();
afterAll(() => {
  closeAll();
});
const messages = (s: LoadedSession): ChatMessage[] => Array.from({ length: s.minted.length }, (_, i) => s.minted.at(i) as ChatMessage);
type Msg = { role?: string; content?: unknown; tool_call_id?: string };
type Exit = { role: 'exit'; content: string; extra: { exit_status: string } };
const rawList = (path: string): Msg[] => {
  const doc = JSON.parse(readFileSync(path, 'utf8')) as Msg[] | { messages: Msg[] };
  return Array.isArray(doc) ? doc : doc.messages;
};
/** The messages the model was given: the raw list less a closing exit message (2.x), which ends the run. */
const listOf = (path: string): Msg[] => {
  const list = rawList(path);
  return list.at(-1)?.role === 'exit' ? list.slice(0, -1) : list;
};
async function viewAt(path: string, n?: number): Promise<{ format: string; call: number | null; calls: number; messages: ViewEntry[] }> {
  const r = await runCli(['view', ...(n === undefined ? [] : ['--at', String(n)]), path]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { format: string; call: number | null; calls: number; messages: ViewEntry[] };
}

describe('fixtures', () => {
  it('the committed synthetic files are what the builder writes, and nothing else', () => {
    for (const [name, text] of Object.entries(miniSynthetic())) expect(readFileSync(synthetic(name), 'utf8'), name).toBe(text);
    expect(readdirSync(MINI_SYNTHETIC_DIR).sort()).toEqual(Object.keys(miniSynthetic()).sort());
  });
  it('the real fixtures README names every real file with its size in bytes', () => {
    const readme = readFileSync(join(REAL_DIR, 'README.md'), 'utf8');
    for (const path of REAL) {
      expect(readme).toContain(`\`${path.slice(REAL_DIR.length + 1)}\``);
      expect(readme).toContain(readFileSync(path).length.toLocaleString('en-US'));
    }
  });
});

describe.each([...REAL, synthetic('toolcalls.traj.json')].map((p) => [p.slice(p.lastIndexOf('/') + 1), p] as const))('%s', (_name, path) => {
  it('the view is the message list, role and text for each; nothing is reduced; no findings', async () => {
    const list = listOf(path);
    const s = await load(path);
    expect(messages(s).map((m) => [m.role, m.content])).toEqual(list.map((m) => [m.role, contentText(m.content)]));
    expect(s.log).toEqual([]);
    expect(s.check().findings).toEqual([]);
    expect(s.files).toMatchObject([{ format: 'mini-swe-agent-traj' }]);
  });

  it('every call N is given every message before the N-th assistant message (mini-swe-agent sends the whole list), byte for byte', async () => {
    const list = listOf(path);
    const assistants = list.flatMap((m, i) => (m.role === 'assistant' ? [i] : []));
    const latest = await viewAt(path);
    expect(latest.format).toBe('swe-agent');
    expect(latest.calls).toBe(assistants.length);
    for (let n = 1; n <= latest.calls; n++) {
      const v = await viewAt(path, n);
      expect(v.messages.map((m) => m.content), `call ${n}`).toEqual(list.slice(0, assistants[n - 1]).map((m) => contentText(m.content)));
    }
  });
});

describe('mini-swe-agent 2.x: the closing exit message is the run\'s end, not a message', () => {
  const ENDED = [...REAL.filter((p) => rawList(p).at(-1)?.role === 'exit'), synthetic('exit-format-1.traj.json')];
  it('two real 2.x files end with one (a submission, an API error)', () => {
    expect(ENDED.map((p) => (rawList(p).at(-1) as Exit).extra.exit_status)).toEqual(['InternalServerError', 'Submitted', 'LimitsExceeded']);
  });

  it.each(ENDED.map((p) => [p.slice(p.lastIndexOf('/') + 1), p] as const))('%s: no exit message in the view, its status on the session, check --strict passes', async (_name, path) => {
    const raw = rawList(path);
    const exit = raw.at(-1) as Exit;
    const s = await load(path);
    expect(s.minted.length).toBe(raw.length - 1);
    expect(messages(s).some((m) => m.metadata?.swe_role === 'exit')).toBe(false);
    expect(s.check().findings).toEqual([]);
    const [first] = s.check().summary.sessions;
    expect(first?.end?.status).toBe(exit.extra.exit_status);
    expect(exit.content.startsWith((first?.end?.detail ?? '').replace(/…$/, ''))).toBe(true);
    expect([...(first?.end?.detail ?? '')].length).toBeLessThanOrEqual(201);
    const strict = await runCli(['check', '--strict', path]);
    expect(strict.code, strict.stdout).toBe(0);
    expect((JSON.parse(strict.stdout) as { summary: { sessions: { end?: { status: string } }[] } }).summary.sessions[0]?.end?.status).toBe(exit.extra.exit_status);
  });

  it('a file with no exit message ends as info.exit_status says; a bare list says nothing', async () => {
    expect((await load(synthetic('toolcalls.traj.json'))).check().summary.sessions[0]?.end).toEqual({ status: 'Submitted' });
    expect((await load(join(REAL_DIR, 'local.traj.json'))).check().summary.sessions[0]?.end).toBeUndefined();
  });
});

describe('the saved-state shape', () => {
  it('tool calls and their results keep their ids; the model is info.config.model.model_name', async () => {
    const path = synthetic('toolcalls.traj.json');
    const doc = JSON.parse(readFileSync(path, 'utf8')) as { info: { config: { model: { model_name: string } } }; messages: Msg[] };
    const s = await load(path);
    const ids = messages(s).flatMap((m) => (m.tool_calls ?? []).map((c) => c.id));
    expect(ids.length).toBeGreaterThan(0);
    expect(messages(s).filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(doc.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id));
    expect(messages(s).filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(ids);
    expect(s.model).toBe(doc.info.config.model.model_name);
  });

  it('an item without a role is shown as its JSON with warnings, never dropped (indices stay aligned)', async () => {
    const path = synthetic('roleless-item.traj.json');
    const s = await load(path);
    expect(s.check().findings.map((f) => [f.code, f.severity])).toEqual([
      ['unknown_record', 'warning'],
      ['unknown_record', 'warning'],
    ]);
    expect(messages(s)).toHaveLength(listOf(path).length);
  });

  it('a torn file is one malformed_line at its last line, read as mini-swe-agent, no messages', async () => {
    const path = synthetic('torn.traj.json');
    const s = await load(path);
    expect(s.minted.length).toBe(0);
    expect(s.files).toMatchObject([{ format: 'mini-swe-agent-traj' }]);
    expect(s.check().findings).toMatchObject([{ code: 'malformed_line', line: readFileSync(path, 'utf8').split('\n').length }]);
  });
});

describe('the CLI and the files', () => {
  it('check names the format; log is empty; search finds nothing hidden (nothing is)', async () => {
    const path = REAL[0] ?? '';
    const check = await runCli(['check', path]);
    expect(check.code, check.stderr).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({ findings: [], summary: { format: 'swe-agent', files: [{ format: 'mini-swe-agent-traj' }] } });
    expect(JSON.parse((await runCli(['log', path])).stdout)).toEqual({ reductions: [] });
    const search = await runCli(['search', '--query', 'the', path]);
    expect(search.code, search.stderr).toBe(0);
    expect((JSON.parse(search.stdout) as { matches: unknown[] }).matches).toEqual([]);
  });

  it('a full session of every file leaves it byte-identical (SHA-256)', async () => {
    const all = [...REAL, ...files(MINI_SYNTHETIC_DIR)];
    const digest = () => all.map((f) => createHash('sha256').update(readFileSync(f)).digest('hex'));
    const before = digest();
    for (const path of all) {
      const r = await loadSession([path]);
      if (!r.ok) throw new Error(r.error.message);
      r.session.check();
      r.session.callInput(1);
      r.session.search('e');
      r.session.close();
    }
    expect(digest()).toEqual(before);
  });
});

describe('detection by content, both ways', () => {
  it.each([...REAL, ...files(MINI_SYNTHETIC_DIR)].map((p) => p.slice(ROOT.length + 1)))('the SWE-agent adapter claims %s, and no other adapter does', (name) => {
    const path = join(ROOT, name);
    expect(claims(path, sweAgentFormat)).toBe(true);
    for (const other of ['native', claudeCodeFormat, codexFormat, openHandsFormat] as const) expect(claims(path, other)).toBe(false);
  });
});
