/**
 * SPEC §16 `export --call N --as PROVIDER` on real files of every agent the corpus holds
 * (e2e/fixtures/real/, samples/): each body type-checks against its provider's SDK types, gives
 * the model what `view --at N` says it was given, message by message (`--expanded`: the
 * originals), and pairs every tool call with its result (docs/export.md, "Provider requests").
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderExport, Provider } from '../../shared/export/request';
import { PROVIDERS, exportInput, imageOf } from '../../shared/export/request';
import { callRequest, requestFor } from '../../shared/export/callRequest';
import { exportInputs } from '../../shared/testing/exportInputs';
import { utf8Decode } from '../../shared/index';
import type { Atom, ViewMessage } from '../../shared/testing/providerBodies';
import { bodyAtoms, mergeTexts, paired, pairingViolations, viewAtoms } from '../../shared/testing/providerBodies';
import type { LoadedSession } from '../loader/session';
import { loadSession } from '../loader/session';
import { providerTypeErrors } from './testing/providerTypes';
import { largeOutput } from '../../tools/testing/changingFile';
import { makeHeader, messageRecord, reductionRecord, tempDir, writeSidecar } from '../../tools/testing/files';
import { assistant, makeReduction, tool, user } from '../../shared/testing/builders';
import { main } from './main';
import { runCli } from './testing/runCli';
import type { TypedBody } from './testing/providerTypes';
import { viewOutput } from './view';

const ROOT = join(import.meta.dirname, '../..');
const REAL = join(ROOT, 'e2e/fixtures/real');

/** Every session file of the corpus the loader opens as one file (folders and compressed copies have tests of their own). */
function corpus(): string[] {
  const files: string[] = [];
  for (const agent of readdirSync(REAL)) {
    for (const name of readdirSync(join(REAL, agent))) {
      const path = join(REAL, agent, name);
      if (name === 'README.md' || name.endsWith('.gz') || statSync(path).isDirectory()) continue;
      files.push(path);
    }
  }
  files.push(join(ROOT, 'samples/demo.sidecar.jsonl'), join(ROOT, 'samples/session.sidecar.jsonl'), join(ROOT, 'samples/legacy.sidecar.jsonl'));
  return files;
}


/**
 * The text of a message as a body gives it: a native message with images holds each as a
 * `data:` line of its content (the bytes the agent counted), which a body gives as an image block.
 */
function textGiven(m: ViewMessage, withImages: (index: number) => boolean): string {
  if ((m.reductions ?? []).length > 0 || !withImages(m.index)) return m.content;
  return m.content
    .split('\n')
    .filter((line) => !line.startsWith('data:image/'))
    .join('\n')
    .replace(/\n+$/, '');
}

/** The body's atoms without the system text a chat body leads with (the recorded instructions). */
function messageAtoms(provider: Provider, out: ProviderExport, instructions: readonly string[]): Atom[] {
  const atoms = bodyAtoms(provider, out.request);
  const lead = instructions.filter((s) => s !== '').join('\n\n');
  if (provider === 'openai-chat' && lead !== '') {
    expect(atoms[0]).toEqual({ kind: 'text', role: 'system', text: lead });
    return atoms.slice(1);
  }
  return atoms;
}

/** What a call was given in the request's own instructions field: the sidecar's system prompt, Codex's base instructions. */
function instructionTexts(session: LoadedSession, call: number): string[] {
  const system = session.system();
  const texts = system && session.minted.at(0)?.role !== 'system' ? [system.content] : [];
  for (const ins of session.instructionsAt(call) ?? []) if (ins.placement === 'instructions') texts.push(ins.text);
  return texts;
}

/** The session's messages before call N, whole, as the originals' view (no reduction applied). */
function originals(session: LoadedSession, call: number): ViewMessage[] {
  const end = session.calls[call - 1]?.index ?? 0;
  const out: ViewMessage[] = [];
  for (let i = 0; i < end; i++) {
    const m = session.minted.at(i);
    if (!m) continue;
    out.push({ index: i, role: m.role, content: m.large ? utf8Decode(m.large.read(0, m.large.length)) : m.content, ...(m.tool_call_id !== undefined ? { tool_call_id: m.tool_call_id } : {}), ...(m.tool_calls ? { tool_calls: m.tool_calls } : {}) });
  }
  return out;
}

interface Exported {
  label: string;
  provider: Provider;
  out: ProviderExport;
  expected: Atom[];
  instructions: string[];
}

const exported: Exported[] = [];
const sessions: LoadedSession[] = [];

beforeAll(async () => {
  for (const file of corpus()) {
    const loaded = await loadSession([file]);
    if (!loaded.ok) throw new Error(`${file}: ${loaded.error.message}`);
    const session = loaded.session;
    sessions.push(session);
    const c = session.calls.length;
    // The first call, the middle one and the last: after every compaction and clearing the file holds.
    for (const call of c === 0 ? [] : [...new Set([1, Math.ceil(c / 2), c])]) {
      const withImages = (i: number): boolean => session.minted.at(i)?.content_parts?.some((p) => imageOf(p) !== undefined) ?? false;
      const view = JSON.parse(JSON.stringify(viewOutput(session, call))) as { messages: ViewMessage[] };
      for (const provider of PROVIDERS) {
        for (const expanded of call === c ? [false, true] : [false]) {
          const made = callRequest(session, call, provider, expanded);
          if (!made) throw new Error(`${file}: call ${call} is no call`);
          // A request the file records as sent is exported as is (exportRecorded.test.ts); here, the conversion of the same call.
          const input = made.source.body === 'recorded' ? exportInput(session, call, expanded) : undefined;
          const out = input ? requestFor(input, provider) : made;
          const label = `${file.slice(ROOT.length + 1)} call ${call} ${provider}${expanded ? ' --expanded' : ''}`;
          exported.push({ label, provider, out, expected: mergeTexts(paired(viewAtoms((expanded ? originals(session, call) : view.messages).map((m) => ({ ...m, content: textGiven(m, withImages) })), provider))), instructions: instructionTexts(session, call) });
        }
      }
    }
  }
}, 120_000);

afterAll(() => {
  for (const s of sessions) s.close();
});

describe('export --call N --as PROVIDER on real sessions', () => {
  it('covers every agent of the corpus', () => {
    const formats = new Set(exported.map((e) => e.out.source.format));
    expect([...formats].sort()).toEqual(['claude-code', 'codex', 'inspect', 'openhands', 'supercode', 'swe-agent']);
    expect(exported.length).toBeGreaterThan(100);
  });

  it('every body type-checks against its provider SDK type (MessageCreateParams, ChatCompletionCreateParams, ResponseCreateParams)', () => {
    const bodies: TypedBody[] = exported.map((e) => ({ provider: e.provider, body: e.out.request, label: e.label }));
    // And synthetic inputs: orphan results, placeholders, arguments that are no JSON object, images.
    fc.sample(exportInputs, { numRuns: 40, seed: 7 }).forEach((input, k) => {
      for (const provider of PROVIDERS) bodies.push({ provider, body: requestFor(input, provider).request, label: `synthetic ${k} ${provider}` });
    });
    // Three bodies each API refuses, in the same compile: the check is not vacuous.
    bodies.push(
      { provider: 'anthropic', label: 'refused: a tool role', body: { model: 'm', messages: [{ role: 'tool', content: 'x' }] } },
      { provider: 'openai-chat', label: 'refused: a tool message without its call id', body: { model: 'm', messages: [{ role: 'tool', content: 'x' }] } },
      { provider: 'openai-responses', label: 'refused: a misspelt output', body: { model: 'm', input: [{ type: 'function_call_output', call_id: 'c', outputs: 'x' }] } },
    );
    const errors = providerTypeErrors(bodies);
    expect([...errors.keys()].map((label) => label.replace(/, (messages|input)\[\d+\]$/, '')).sort()).toEqual(['refused: a misspelt output', 'refused: a tool message without its call id', 'refused: a tool role']);
  }, 300_000);

  it('every body gives the model what view --at N says it was given, message by message (--expanded: the originals)', () => {
    for (const e of exported) {
      expect(mergeTexts(messageAtoms(e.provider, e.out, e.instructions)), e.label).toEqual(e.expected);
    }
  });

  it("every tool call is paired with its result, ids matching (and Anthropic's turns alternate)", () => {
    for (const e of exported) expect(pairingViolations(e.provider, e.out.request), e.label).toEqual([]);
    // The corpus does call tools: the pairing is not vacuous.
    expect(exported.filter((e) => bodyAtoms(e.provider, e.out.request).some((a) => a.kind === 'result')).length).toBeGreaterThan(50);
  });

  it('the model is the one recorded, and the recorded instructions are the system prompt / instructions', () => {
    for (const e of exported) {
      // A file that names no model (mini-swe-agent's) says so.
      if (typeof e.out.request.model !== 'string') expect(e.out.not_recorded, e.label).toContain('model');
      const lead = e.instructions.filter((s) => s !== '').join('\n\n');
      if (e.provider === 'openai-responses') expect(e.out.request.instructions, e.label).toEqual(lead === '' ? undefined : lead);
      if (e.provider === 'anthropic' && lead !== '') expect(String(e.out.request.system).startsWith(lead), e.label).toBe(true);
    }
  });
});

describe('export --call N on the command line', () => {
  const DEMO = join(ROOT, 'samples/demo.sidecar.jsonl');
  const CLAUDE = join(REAL, 'claude-code/cc-2.1.7-parallel-results.jsonl');
  const CODEX = join(REAL, 'codex/rollout-0.118-exec-parallel-calls-ENTIRE.jsonl');
  const SWE = join(REAL, 'swe-agent/sweagenttestrepo-1c2844.traj');

  it('prints the body alone and names on stderr each thing the file does not record', async () => {
    const r = await runCli(['export', '--call', '2', '--as', 'anthropic', CLAUDE]);
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout) as { model: string; messages: unknown[] };
    expect(Object.keys(body)).toEqual(['model', 'messages']);
    // The model of the session's assistant records.
    expect(body.model).toBe('claude-opus-4-5-20251101');
    expect(r.stderr).toContain('not recorded, left out: max_tokens (required by the API)');
    expect(r.stderr).toContain('not recorded, left out: tools (the tool schemas)');
  });

  it('--with-notes prints {request, not_recorded, source}; without --as, the provider the agent speaks', async () => {
    const cases: [string, string][] = [
      [CLAUDE, 'anthropic'],
      [CODEX, 'openai-responses'],
      [SWE, 'openai-chat'],
    ];
    for (const [file, provider] of cases) {
      const r = await runCli(['export', '--call', '1', '--with-notes', file]);
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as { request: Record<string, unknown>; not_recorded: string[]; source: { provider: string; call: number; files: string[] } };
      expect(Object.keys(out)).toEqual(['request', 'not_recorded', 'source']);
      expect(out.source).toMatchObject({ provider, call: 1, expanded: false, files: [file] });
      expect(out.not_recorded).toContain('tool_choice');
      expect(out.request).toEqual(JSON.parse((await runCli(['export', '--call', '1', '--as', provider, file])).stdout));
    }
  });

  it("--expanded gives the originals: the stubs the sample session's last call was given are gone, their bytes back", async () => {
    const SAMPLE = join(ROOT, 'samples/session.sidecar.jsonl');
    const calls = (JSON.parse((await runCli(['view', SAMPLE])).stdout) as { calls: number }).calls;
    const reduced = await runCli(['export', '--call', String(calls), '--as', 'openai-chat', SAMPLE]);
    const expanded = await runCli(['export', '--call', String(calls), '--as', 'openai-chat', '--expanded', SAMPLE]);
    expect(reduced.code, reduced.stderr).toBe(0);
    expect(expanded.code, expanded.stderr).toBe(0);
    expect(reduced.stdout).toContain('⟦reduced⟧');
    expect(expanded.stdout).not.toContain('⟦reduced⟧');
    expect(expanded.stdout.length).toBeGreaterThan(reduced.stdout.length);
  });

  it('refuses a missing or out-of-range --call and an unknown --as before or after reading, with the valid choices', async () => {
    const none = await runCli(['export', '--as', 'anthropic', DEMO]);
    expect(none.code).toBe(2);
    expect(JSON.parse(none.stdout)).toMatchObject({ error: { code: 'usage' } });
    const far = await runCli(['export', '--call', '99', '--as', 'anthropic', DEMO]);
    expect(far.code).toBe(2);
    expect((JSON.parse(far.stdout) as { error: { message: string } }).error.message).toContain('1 to 2');
    const bad = await runCli(['export', '--call', '1', '--as', 'gemini', DEMO]);
    expect(bad.code).toBe(2);
    expect((JSON.parse(bad.stdout) as { error: { message: string } }).error.message).toContain('anthropic, openai-chat, openai-responses');
  });

  it('--expanded with an original of several MB: the request written in pieces of about a MiB, the original whole in it', async () => {
    const content = largeOutput(6 << 20);
    const view = [user('run the tests'), assistant('', 'call_1'), tool(content, 'call_1'), assistant('done')];
    const log = [makeReduction(view, { id: 'r1', kind: 'tool_output_truncated', index: 2, kept_bytes: 1024 })];
    const dir = tempDir('session-inspector-export-expanded-');
    try {
      const path = writeSidecar(dir.path('large.sidecar.jsonl'), [makeHeader(), ...view.map((m, i) => messageRecord(i, m)), ...log.map(reductionRecord)]);
      const pieces: string[] = [];
      const code = await main(['export', '--call', '2', '--as', 'openai-chat', '--expanded', path], { stdout: (t) => void pieces.push(t), stderr: () => undefined });
      expect(code).toBe(0);
      expect(pieces.length).toBeGreaterThanOrEqual(4);
      expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(2 << 20);
      const body = JSON.parse(pieces.join('')) as { messages: { role: string; content: unknown }[] };
      expect(body.messages.find((m) => m.role === 'tool')?.content).toBe(content);
    } finally {
      dir.cleanup();
    }
  });
});
