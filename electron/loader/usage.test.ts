/**
 * SPEC §15 recorded usage over the real corpus: for every call of every real Claude Code, Codex
 * and Inspect file, `view --at N` (viewOutput, what the command prints) gives the context the file
 * records for that call, read from the raw records with plain `JSON.parse` (testing/rawCalls.ts),
 * not through the importers (OpenHands V0 too, where its responses carry LiteLLM usage);
 * compactions carry the file's before and after; SWE-agent, mini-swe-agent and native files record
 * no usage.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../tools/testing/files';
import { viewOutput } from '../cli/view';
import { rawResponses } from './codex/testing/responses';
import { zipEntries } from './testing/rawInspect';
import type { RawUsage } from './testing/rawCalls';
import { rawClaudeCodeCalls, rawClaudeCodeUsage, rawCodexUsage, rawInspectContexts, rawMiniUsage, rawOpenHandsUsage, rawOpenHandsV1Usage } from './testing/rawCalls';
import type { LoadedSession } from './session';
import { loadSession } from './session';

const REAL = join(import.meta.dirname, '../../e2e/fixtures/real');
const SAMPLES = join(import.meta.dirname, '../../samples');
const tmp = tempDir('session-inspector-usage-');
afterAll(() => tmp.cleanup());
const COMPACTED_ROLLOUT = join(tmp.dir, 'codex', 'rollout-0.118-remote-compaction-subagent-ENTIRE.jsonl');
mkdirSync(join(tmp.dir, 'codex'));
writeFileSync(COMPACTED_ROLLOUT, gunzipSync(readFileSync(join(REAL, 'codex/rollout-0.118-remote-compaction-subagent-ENTIRE.jsonl.gz'))));

const files = (dir: string, suffix: string): string[] =>
  readdirSync(dir)
    .filter((n) => n.endsWith(suffix))
    .map((n) => join(dir, n));
const CLAUDE = [...files(join(REAL, 'claude-code'), '.jsonl'), join(REAL, 'claude-code/cc-2.1.17-subagent/29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl'), join(REAL, 'claude-code/cc-2.1.17-subagent/29ccd257-68b1-427f-ae5f-6524b7cb6f20/subagents/agent-a2271d1.jsonl')];
const CODEX = [...files(join(REAL, 'codex'), '.jsonl'), COMPACTED_ROLLOUT];
const INSPECT = [...files(join(REAL, 'inspect'), '.json'), ...files(join(REAL, 'inspect'), '.eval')];
/** mini-swe-agent 2.x saved states (`extra.response` on each assistant message) and the bare lists of 1.x's tests (no usage). */
const MINI_2 = files(join(REAL, 'mini-swe-agent'), '.json').filter((f) => f.includes('-2.2.7-'));
const MINI_1 = files(join(REAL, 'mini-swe-agent'), '.json').filter((f) => !f.includes('-2.2.7-'));
const name = (p: string): string => p.slice(p.lastIndexOf('/', p.lastIndexOf('/') - 1) + 1);

async function open(path: string): Promise<LoadedSession> {
  const loaded = await loadSession([path]);
  if (!loaded.ok) throw new Error(loaded.error.message);
  return loaded.session;
}

/** `view --at N`'s tokens for every call, by the call's line. */
function viewTokens(s: LoadedSession): Map<number, { context: number; window?: number; input: number; cache_read: number; cache_write: number } | null> {
  const out = new Map<number, { context: number; window?: number; input: number; cache_read: number; cache_write: number } | null>();
  for (const c of s.calls) out.set(c.line, (viewOutput(s, c.call) as { tokens: { context: number; window?: number; input: number; cache_read: number; cache_write: number } | null }).tokens);
  return out;
}

/** Every call gives exactly the raw context for its line (null where the file records none), and every raw count lands on a call. */
function expectRecorded(s: LoadedSession, raw: Map<number, RawUsage>, checkWindow: boolean): void {
  expect(raw.size).toBeGreaterThan(0);
  const got = viewTokens(s);
  for (const line of raw.keys()) expect(got.has(line), `a call at line ${line}`).toBe(true);
  for (const [line, t] of got) {
    const want = raw.get(line);
    expect(t?.context ?? null, `call at line ${line}`).toBe(want?.context ?? null);
    if (t) {
      expect(t.input).toBe(t.context);
      expect(t.input).toBeGreaterThanOrEqual(t.cache_read + t.cache_write);
    }
    if (checkWindow && want?.window !== undefined) expect(t?.window).toBe(want.window);
  }
}

/** The raw line of a file as an object. */
function lineAt(path: string, line: number): Record<string, unknown> {
  return JSON.parse(readFileSync(path, 'utf8').split('\n')[line - 1] as string) as Record<string, unknown>;
}

describe('recorded usage per call: Claude Code', () => {
  it.each(CLAUDE.map((f) => [name(f), f] as const))('%s: view --at N gives the context of the last line of the call’s message.id', async (_n, path) => {
    const s = await open(path);
    try {
      expect(s.calls.map((c) => c.line)).toEqual(rawClaudeCodeCalls(path).map((c) => c.line));
      expectRecorded(s, rawClaudeCodeUsage(path), false);
    } finally {
      s.close();
    }
  });

  it.each(CLAUDE.filter((f) => readFileSync(f, 'utf8').includes('"compact_boundary"')).map((f) => [name(f), f] as const))('%s: each compaction carries preTokens as before and the next call’s context as after', async (_n, path) => {
    const s = await open(path);
    try {
      const raw = rawClaudeCodeUsage(path);
      const compactions = s.callTimeline.spans.filter((x) => x.reduction.kind === 'summarized');
      expect(compactions.length).toBeGreaterThan(0);
      const summary = s.check().summary.tokens;
      expect(summary?.compactions.length).toBe(compactions.length);
      for (const [k, { reduction }] of compactions.entries()) {
        const line = (reduction.origin as { line: number }).line;
        const boundary = lineAt(path, line);
        expect(boundary.subtype).toBe('compact_boundary');
        const pre = (boundary.compactMetadata as { preTokens?: number }).preTokens;
        const next = [...raw.keys()].filter((l) => l > line).sort((a, b) => a - b)[0];
        expect(reduction.tokens_before).toBe(pre);
        expect(reduction.tokens_after).toBe(next === undefined ? undefined : raw.get(next)?.context);
        expect(summary?.compactions[k]).toEqual({ call: s.calls.find((c) => c.line > line)?.call ?? null, before: pre ?? null, after: reduction.tokens_after ?? null });
      }
    } finally {
      s.close();
    }
  });
});

describe('recorded usage per call: Codex', () => {
  it.each(CODEX.map((f) => [name(f), f] as const))('%s: view --at N gives last_token_usage.input_tokens of the response’s token_count, and its window', async (_n, path) => {
    const s = await open(path);
    try {
      const responses = rawResponses(path).map((r) => r.line);
      expectRecorded(s, rawCodexUsage(path, responses), true);
    } finally {
      s.close();
    }
  });

  it('a remote compaction: before and after are the recorded contexts of the calls either side', async () => {
    const s = await open(COMPACTED_ROLLOUT);
    try {
      const raw = rawCodexUsage(COMPACTED_ROLLOUT, rawResponses(COMPACTED_ROLLOUT).map((r) => r.line));
      const runs = s.callTimeline.spans.filter((x) => x.reduction.kind === 'summarized');
      expect(runs.length).toBeGreaterThan(0);
      for (const { reduction } of runs) {
        const line = (reduction.origin as { line: number }).line;
        expect(lineAt(COMPACTED_ROLLOUT, line).type).toBe('compacted');
        const lines = [...raw.keys()].sort((a, b) => a - b);
        const before = lines.filter((l) => l < line).pop();
        const after = lines.find((l) => l > line);
        expect(reduction.tokens_before).toBe(raw.get(before as number)?.context);
        expect(reduction.tokens_after).toBe(raw.get(after as number)?.context);
        expect(reduction.tokens_after).toBeLessThan(reduction.tokens_before as number);
      }
      // One compaction event (one group), whatever the runs it dropped.
      expect(s.check().summary.tokens?.compactions).toHaveLength(new Set(runs.map((x) => x.reduction.group)).size);
    } finally {
      s.close();
    }
  });
});

/** The sample a log opens first (natural order of `<id>_epoch_<n>`) and the Inspect version that wrote the log. */
async function firstSample(path: string): Promise<{ sample: unknown; version: string | undefined }> {
  const versionOf = (h: unknown): string | undefined => (h as { eval?: { packages?: { inspect_ai?: string } } } | undefined)?.eval?.packages?.inspect_ai;
  const byId = (a: string, b: string): number => a.localeCompare(b, 'en', { numeric: true });
  if (path.endsWith('.json')) {
    const doc = JSON.parse(readFileSync(path, 'utf8')) as { samples: { id: string | number; epoch?: number }[] };
    const sorted = [...doc.samples].sort((a, b) => byId(`${a.id}_epoch_${a.epoch ?? 1}`, `${b.id}_epoch_${b.epoch ?? 1}`));
    return { sample: sorted[0], version: versionOf(doc) };
  }
  const entries = await zipEntries(path);
  const names = [...entries.keys()].filter((n) => /^samples\/.+_epoch_\d+\.json$/.test(n)).sort((a, b) => byId(a.slice(8), b.slice(8)));
  const header = entries.get('header.json') ?? entries.get('_journal/start.json');
  return { sample: JSON.parse(entries.get(names[0] as string) as string) as unknown, version: versionOf(header ? (JSON.parse(header) as unknown) : undefined) };
}

describe('recorded usage per call: Inspect', () => {
  it.each(INSPECT.map((f) => [name(f), f] as const))('%s: the calls’ contexts are the model events’ output.usage, read as the log’s version counts it', async (_n, path) => {
    const s = await open(path);
    try {
      const { sample, version } = await firstSample(path);
      const want = rawInspectContexts(sample, version);
      const got = s.calls.flatMap((c) => {
        const t = (viewOutput(s, c.call) as { tokens: { context: number } | null }).tokens;
        return t ? [t.context] : [];
      });
      expect(got).toEqual(want);
      expect(s.check().summary.tokens?.calls_recorded).toBe(want.length);
    } finally {
      s.close();
    }
  });
});

describe('recorded usage per call: OpenHands V0', () => {
  it.each(files(join(REAL, 'openhands'), '.json').map((f) => [name(f), f] as const))('%s: view --at N gives the prompt_tokens of the response’s LiteLLM usage', async (_n, path) => {
    const s = await open(path);
    try {
      expectRecorded(s, rawOpenHandsUsage(path), false);
    } finally {
      s.close();
    }
  });
});

describe('recorded usage per call: OpenHands V1', () => {
  it("v1-gpt-4o-mini: view --at N gives the prompt_tokens and context_window base_state.json's token_usages record for the call's llm_response_id", async () => {
    const path = join(REAL, 'openhands/v1-gpt-4o-mini/base_state.json');
    const s = await open(path);
    try {
      const raw = rawOpenHandsV1Usage(path);
      expect(raw.size).toBe(s.calls.length);
      expectRecorded(s, raw, true);
    } finally {
      s.close();
    }
  });
});

describe('recorded usage per call: mini-swe-agent 2.x', () => {
  it.each(MINI_2.map((f) => [name(f), f] as const))('%s: view --at N gives the prompt_tokens of the response’s LiteLLM usage on its assistant message', async (_n, path) => {
    const s = await open(path);
    try {
      const raw = rawMiniUsage(path);
      // Every call of the file records its usage (the last response of an error exit was never written).
      expect(raw.size).toBe(s.calls.length);
      expectRecorded(s, raw, false);
    } finally {
      s.close();
    }
  });
});

describe('formats that record no usage', () => {
  const NONE = [...files(join(REAL, 'swe-agent'), '.traj'), ...MINI_1, join(SAMPLES, 'session.sidecar.jsonl'), join(SAMPLES, 'demo.sidecar.jsonl')];
  it.each(NONE.map((f) => [name(f), f] as const))('%s: view --at N has tokens null at every call; the summary counts no recorded call', async (_n, path) => {
    const s = await open(path);
    try {
      expect(s.calls.length).toBeGreaterThan(0);
      for (const c of s.calls) expect((viewOutput(s, c.call) as { tokens: unknown }).tokens).toBeNull();
      expect(s.check().summary.tokens).toEqual({ calls_recorded: 0, max_context: null, window: null, compactions: expect.any(Array) as unknown });
      expect(s.check().summary.cache_breaks).toEqual([]);
    } finally {
      s.close();
    }
  });
});
