/** The SWE-agent trajectory importer (SPEC §10, docs/FORMATS.md §3) over real and synthetic files, through the real loader and CLI. */
import { readdirSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChatMessage, LoadedSession, ViewEntry } from '../../../shared/index';
import { runCli } from '../../cli/testing/runCli';
import { BAD_CORPUS_DIR } from '../../../tools/testing/badCorpus';
import { tempDir } from '../../../tools/testing/files';
import { claudeCodeFormat } from '../claudeCode/index';
import { codexFormat } from '../codex/index';
import { CODEX_SYNTHETIC_DIR } from '../codex/testing/synthetic';
import { isLoadError, openReadOnly, safeClose } from '../common/openFile';
import { claims, DETECT_CONTEXT, sessionLoader } from '../testing/importers';
import type { DetectContext } from '../common/source';
import { contentText } from './build';
import { sweAgentFormat } from './index';
import { CUT_NOTICE, ELIDED, LONG_OUTPUT, SWE_SYNTHETIC_DIR, sweSynthetic } from './testing/synthetic';

const ROOT = join(import.meta.dirname, '../../..');
const REAL_DIR = join(ROOT, 'e2e/fixtures/real/swe-agent');
const MARSHMALLOW = join(REAL_DIR, 'marshmallow-1867-function-calling-replace-from-source.traj');
const TEST_REPO = join(REAL_DIR, 'sweagenttestrepo-1c2844.traj');
const synthetic = (name: string) => join(SWE_SYNTHETIC_DIR, name);
const tmp = tempDir('session-inspector-swe-');

const { load, closeAll } = sessionLoader();
afterAll(() => {
  closeAll();
  tmp.cleanup();
});

const messages = (s: LoadedSession): ChatMessage[] => Array.from({ length: s.minted.length }, (_, i) => s.minted.at(i) as ChatMessage);
type Doc = { trajectory: Record<string, unknown>[]; history: Record<string, unknown>[] };
const docOf = (path: string): Doc => JSON.parse(readFileSync(path, 'utf8')) as Doc;
const texts = (list: unknown[]): string[] => list.map((m) => contentText((m as { content: unknown }).content) ?? '');

async function viewAt(path: string, n?: number): Promise<{ call: number | null; calls: number; messages: ViewEntry[] }> {
  const r = await runCli(['view', ...(n === undefined ? [] : ['--at', String(n)]), path]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { call: number | null; calls: number; messages: ViewEntry[] };
}

describe('synthetic fixtures', () => {
  it('the committed files are what the builder writes, and nothing else', () => {
    for (const [name, text] of Object.entries(sweSynthetic())) expect(readFileSync(synthetic(name), 'utf8'), name).toBe(text);
    expect(readdirSync(SWE_SYNTHETIC_DIR).sort()).toEqual(Object.keys(sweSynthetic()).sort());
  });

  it('the real fixtures README names every real file with its size in bytes', () => {
    const readme = readFileSync(join(REAL_DIR, 'README.md'), 'utf8');
    for (const name of readdirSync(REAL_DIR).filter((n) => n.endsWith('.traj'))) {
      expect(readme).toContain(`\`${name}\``);
      expect(readme).toContain(readFileSync(join(REAL_DIR, name)).length.toLocaleString('en-US'));
    }
  });
});

describe('real trajectory with per-step inputs (marshmallow-1867, SWE-agent 3ea751c)', () => {
  const doc = docOf(MARSHMALLOW);

  it('the reading docs/FORMATS.md §3 warns of holds here: step k`s messages end with its own action and observation, so it is call k+2`s input', () => {
    // Step k's assistant message is history[2 + 2k]; its list has 4 + 2k messages: it ends with that message's observation.
    doc.trajectory.forEach((step, k) => {
      const list = step.messages as Record<string, unknown>[];
      expect(list).toHaveLength(4 + 2 * k);
      expect(list[list.length - 2]?.role).toBe('assistant');
      expect(doc.history[2 + 2 * k]?.action).toBe(step.action);
    });
  });

  it('view --at N reproduces the recorded input of every call byte for byte (call 1: system and task; call N: step N−2`s messages)', async () => {
    const { calls } = await viewAt(MARSHMALLOW);
    expect(calls).toBe(doc.trajectory.length);
    for (let n = 1; n <= calls; n++) {
      const recorded = n === 1 ? doc.history.slice(0, 2) : (doc.trajectory[n - 2]?.messages as unknown[]);
      const v = await viewAt(MARSHMALLOW, n);
      expect(v.call).toBe(n);
      expect(v.messages.map((m) => m.content), `call ${n}`).toEqual(texts(recorded));
    }
  });

  it('the latest view is the last step`s list (what a next call would be given), the history in full behind it', async () => {
    const last = doc.trajectory[doc.trajectory.length - 1]?.messages as unknown[];
    expect((await viewAt(MARSHMALLOW)).messages.map((m) => m.content)).toEqual(texts(last));
    const s = await load(MARSHMALLOW);
    expect(messages(s).map((m) => m.content)).toEqual(texts(doc.history));
  });

  it('each replaced observation is one derived tool_output_elided, minted at the first step that shows it, whose expansion verifies to the history text', async () => {
    const s = await load(MARSHMALLOW);
    expect(s.log.length).toBeGreaterThan(0);
    for (const r of s.log) {
      expect(r).toMatchObject({ kind: 'tool_output_elided', provenance: 'derived', hash_origin: 'import' });
      expect(r.stub).toMatch(/^Old environment output: \(\d+ lines omitted\)$/);
      const k = Number(/^step (\d+)$/.exec(r.origin && 'event' in r.origin ? r.origin.event : '')?.[1]);
      expect(texts(doc.trajectory[k]?.messages as unknown[])[r.ptr.index]).toBe(r.stub);
      if (k > 0) expect(texts(doc.trajectory[k - 1]?.messages as unknown[])[r.ptr.index]).not.toBe(r.stub);
      const out = s.expand(r.id);
      if (!out.ok) throw new Error(out.error.message);
      expect(out.value.content).toBe(contentText(doc.history[r.ptr.index]?.content));
    }
    expect(s.check().findings).toEqual([]);
  });
});

describe('real trajectory without per-step inputs (sweagenttestrepo)', () => {
  it('the history is the view, then the last step (submit) that history lacks; one call per step, every tool call answered, nothing reduced', async () => {
    const doc = docOf(TEST_REPO);
    const s = await load(TEST_REPO);
    const view = messages(s);
    const last = doc.trajectory[doc.trajectory.length - 1];
    // What this real file shows: 5 steps, 4 assistant messages in history; the 5th step's action is `submit`.
    expect(doc.history.filter((m) => m.role === 'assistant')).toHaveLength(doc.trajectory.length - 1);
    expect(view.slice(0, -1).map((m) => m.content)).toEqual(texts(doc.history));
    expect(view.slice(0, -1).map((m) => m.role)).toEqual(doc.history.map((m) => m.role));
    expect(view.at(-1)).toEqual({ role: 'assistant', content: last?.response, metadata: { swe_step: doc.trajectory.length - 1, swe_action: 'submit' } });
    const ids = view.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id));
    expect(view.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(ids);
    expect(s.log).toEqual([]);
    expect((await viewAt(TEST_REPO)).calls).toBe(doc.trajectory.length);
    expect(s.check().findings).toEqual([]);
  });
});

describe('synthetic trajectory: query steps, a kept prefix, unknown shapes', () => {
  const path = synthetic('query-cut.traj');
  const doc = docOf(path);

  it('a `query` is its own call`s input: view --at N is step N−1`s query for every call', async () => {
    const { calls } = await viewAt(path);
    expect(calls).toBe(4);
    for (let n = 1; n <= calls; n++) expect((await viewAt(path, n)).messages.map((m) => m.content), `call ${n}`).toEqual(texts(doc.trajectory[n - 1]?.query as unknown[]));
  });

  it('a kept prefix is tool_output_truncated (kept_bytes the prefix, stub the rest); a placeholder is tool_output_elided', async () => {
    const s = await load(path);
    const [cut, elided] = s.log;
    const firstLine = `${LONG_OUTPUT.split('\n')[0] ?? ''}\n`;
    expect(cut).toMatchObject({ kind: 'tool_output_truncated', ptr: { index: 3 }, kept_bytes: Buffer.byteLength(firstLine), stub: CUT_NOTICE.slice(1), origin: { event: 'step 2' } });
    expect(elided).toMatchObject({ kind: 'tool_output_elided', ptr: { index: 5 }, stub: ELIDED, origin: { event: 'step 3' } });
    const out = s.expand(cut?.id ?? '');
    expect(out.ok && out.value.content).toBe(LONG_OUTPUT);
  });

  it('a step of another shape and a message of an unknown role are unknown_record warnings; the message is kept', async () => {
    const s = await load(path);
    const findings = s.check().findings;
    expect(findings.map((f) => [f.code, f.severity])).toEqual([
      ['unknown_record', 'warning'],
      ['unknown_record', 'warning'],
    ]);
    expect(messages(s)).toHaveLength(doc.history.length);
    expect(messages(s).at(-1)).toMatchObject({ role: 'user', content: 'Looks done.', metadata: { swe_role: 'critic' } });
    expect(s.model).toBe('gpt-4o');
  });

  it('history alone (a demonstration) is read; each assistant message is a call', async () => {
    const s = await load(synthetic('history-only.traj'));
    expect(messages(s)).toHaveLength(4);
    expect((await viewAt(synthetic('history-only.traj'))).calls).toBe(1);
  });
});

describe('damaged trajectories', () => {
  it('a torn document is one malformed_line at its last line, no messages, and no throw', async () => {
    const path = synthetic('torn.traj');
    const s = await load(path);
    const lines = readFileSync(path, 'utf8').split('\n').length;
    expect(s.minted.length).toBe(0);
    expect(s.check().findings).toMatchObject([{ code: 'malformed_line', severity: 'error', line: lines }]);
  });

  it('a syntax error is a malformed_line at the parser`s line', async () => {
    const path = tmp.path('broken.traj');
    writeFileSync(path, '{\n  "trajectory": [\n    {"action": "ls",}\n  ]\n}\n');
    const s = await load(path);
    expect(s.check().findings).toMatchObject([{ code: 'malformed_line', line: 3 }]);
  });
});

describe('the CLI on a real trajectory', () => {
  it('check names the format; log lists the derived reductions; expand restores one; search finds hidden text', async () => {
    const check = await runCli(['check', MARSHMALLOW]);
    expect(check.code, check.stderr).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({ findings: [], summary: { format: 'swe-agent', files: [{ format: 'swe-agent-traj' }] } });
    const log = JSON.parse((await runCli(['log', MARSHMALLOW])).stdout) as { reductions: { id: string; status: string; provenance: string; ptr: { index: number } }[] };
    expect(log.reductions.length).toBeGreaterThan(0);
    expect(new Set(log.reductions.map((r) => `${r.status}/${r.provenance}`))).toEqual(new Set(['verified/derived']));
    const first = log.reductions[0];
    const expand = JSON.parse((await runCli(['expand', '--id', first?.id ?? '', MARSHMALLOW])).stdout) as { reduction_id: string; content?: string };
    const hidden = contentText(docOf(MARSHMALLOW).history[first?.ptr.index ?? -1]?.content) ?? '';
    expect(expand).toMatchObject({ reduction_id: first?.id, content: hidden });
    const word = hidden.split(/\s+/).find((w) => w.length > 6) ?? '';
    const search = await runCli(['search', '--query', word, MARSHMALLOW]);
    expect(search.code, search.stderr).toBe(0);
    expect(search.stdout).toContain(first?.id ?? '');
  });
});

describe('--format swe-agent', () => {
  it('reads a trajectory as forced, and refuses a Codex rollout with unrecognized_file', async () => {
    const ok = await runCli(['check', '--format', 'swe-agent', TEST_REPO]);
    expect(ok.code, ok.stderr).toBe(0);
    const codex = join(CODEX_SYNTHETIC_DIR, readdirSync(CODEX_SYNTHETIC_DIR)[0] ?? '');
    const refused = await runCli(['check', '--format', 'swe-agent', codex]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr + refused.stdout).toContain('unrecognized_file');
    expect(refused.stderr + refused.stdout).toContain('is not a SWE-agent trajectory');
  });
});

describe('detection by content, both ways', () => {
  const context = DETECT_CONTEXT;
  const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile() && !e.name.endsWith('.md')).map((e) => join(dir, e.name));
  // The corpus's SWE-agent and mini-swe-agent entries (`swe-*`, `mini-*`) are damaged trajectories: still theirs.
  const badSwe = files(BAD_CORPUS_DIR).filter((p) => /^(swe|mini)-/.test(basename(p)));
  const swe = [...files(REAL_DIR), ...files(SWE_SYNTHETIC_DIR), ...badSwe];
  const others = [...files(join(ROOT, 'samples')), ...files(join(ROOT, 'samples/broken')), ...files(BAD_CORPUS_DIR).filter((p) => !badSwe.includes(p)), ...files(join(ROOT, 'e2e/fixtures/real/claude-code')), ...files(join(ROOT, 'e2e/fixtures/real/codex')), ...files(CODEX_SYNTHETIC_DIR)];

  it.each(others)('the SWE-agent adapter does not claim %s', (path) => {
    expect(claims(path, sweAgentFormat)).toBe(false);
  });
  it('a file of another format is told apart from its first 4 KiB, never read whole', () => {
    const path = join(ROOT, 'e2e/fixtures/real/codex', readdirSync(join(ROOT, 'e2e/fixtures/real/codex')).find((n) => n.endsWith('.jsonl')) ?? '');
    let bytes = 0;
    const counting: DetectContext = {
      ...context,
      read: (fd: number, buffer: Uint8Array, offset: number, length: number, position: number) => {
        const n = readSync(fd, buffer, offset, length, position);
        bytes += n;
        return n;
      },
    };
    const f = openReadOnly(path);
    if (isLoadError(f)) throw new Error(f.message);
    try {
      expect(sweAgentFormat.detect(f, counting).ok).toBe(false);
    } finally {
      safeClose(f.fd);
    }
    expect(f.size).toBeGreaterThan(4096);
    expect(bytes).toBeLessThanOrEqual(4096);
  });
  it.each(swe)('the SWE-agent adapter claims %s, and no other adapter does', (path) => {
    expect(claims(path, sweAgentFormat)).toBe(true);
    expect(claims(path, 'native')).toBe(false);
    expect(claims(path, claudeCodeFormat)).toBe(false);
    expect(claims(path, codexFormat)).toBe(false);
  });
});
