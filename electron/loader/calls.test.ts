/**
 * SPEC §11 over the real and synthetic foreign fixtures. The calls a file holds are read from its raw
 * records with plain `JSON.parse`, not from the importer: a Codex rollout's model responses
 * (docs/formats/codex.md, by `rawResponses`), a Claude Code transcript's API responses on its live
 * branch (docs/formats/claude-code.md, "Model calls"), a SWE-agent trajectory's steps, an OpenHands
 * conversation's model responses (docs/formats/openhands.md), a mini-swe-agent list's assistant
 * messages (`testing/rawCalls.ts`). A reduction's `origin` is a line of the
 * file (Claude Code, Codex) or an event of it (SWE-agent steps, OpenHands events): either way, the
 * record that logged it comes at or before every call given it.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../tools/testing/files';
import { rawResponses } from './codex/testing/responses';
import { rawClaudeCodeCalls, rawOpenHandsCalls, rawSweAgentCalls } from './testing/rawCalls';
import { CODEX_SYNTHETIC_DIR } from './codex/testing/synthetic';
import { OPENHANDS_SYNTHETIC_DIR } from './openhands/testing/synthetic';
import { MINI_SYNTHETIC_DIR } from './sweAgent/testing/miniSynthetic';
import { SWE_SYNTHETIC_DIR } from './sweAgent/testing/synthetic';
import { loadSession } from './session';

const REAL = join(import.meta.dirname, '../../e2e/fixtures/real');
const tmp = tempDir('session-inspector-calls-');
afterAll(() => tmp.cleanup());
/** The real rollout committed gzipped (a remote compaction mid-turn), unpacked under the temp folder. */
const COMPACTED_ROLLOUT = join(tmp.dir, 'codex', 'rollout-0.118-remote-compaction-subagent-ENTIRE.jsonl');
mkdirSync(join(tmp.dir, 'codex'));
writeFileSync(COMPACTED_ROLLOUT, gunzipSync(readFileSync(join(REAL, 'codex/rollout-0.118-remote-compaction-subagent-ENTIRE.jsonl.gz'))));
const ending = (suffix: string) => (dir: string) =>
  readdirSync(dir)
    .filter((n) => n.endsWith(suffix))
    .map((n) => join(dir, n));
const jsonl = ending('.jsonl');
const traj = ending('.traj');
const json = ending('.json');
const FIXTURES = [
  ...jsonl(join(REAL, 'claude-code')),
  ...jsonl(join(REAL, 'codex')),
  COMPACTED_ROLLOUT,
  ...jsonl(CODEX_SYNTHETIC_DIR),
  ...traj(join(REAL, 'swe-agent')),
  ...traj(SWE_SYNTHETIC_DIR),
  ...json(join(REAL, 'mini-swe-agent')),
  ...json(MINI_SYNTHETIC_DIR),
  ...json(join(REAL, 'openhands')),
  ...json(OPENHANDS_SYNTHETIC_DIR),
  join(REAL, 'openhands/v1-gpt-4o-mini/base_state.json'),
  join(OPENHANDS_SYNTHETIC_DIR, 'v1-conversation/base_state.json'),
  join(OPENHANDS_SYNTHETIC_DIR, 'v1-parallel/base_state.json'),
  join(OPENHANDS_SYNTHETIC_DIR, 'v1-damaged/base_state.json'),
  join(REAL, 'claude-code/cc-2.1.17-subagent/29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl'),
  join(REAL, 'claude-code/cc-2.1.17-subagent/29ccd257-68b1-427f-ae5f-6524b7cb6f20/subagents/agent-a2271d1.jsonl'),
];

/**
 * The calls read from the raw file, by the line SPEC §11 gives each (a Codex rollout's response
 * lines, a Claude Code response's first line on the live branch, a SWE-agent history message's
 * position, an OpenHands event's position), or by view index (a mini-swe-agent list is the view).
 */
function rawCalls(path: string): { lines: number[] } | { indices: number[] } {
  if (path.includes('/codex/')) return { lines: rawResponses(path).map((r) => r.line) };
  if (path.includes('/claude-code/')) return { lines: rawClaudeCodeCalls(path).map((c) => c.line) };
  if (path.includes('/swe-agent/') && !path.includes('/mini-swe-agent/')) {
    const raw = rawSweAgentCalls(path);
    expect(raw?.mismatched ?? []).toEqual([]);
    return { lines: raw?.lines ?? [] };
  }
  if (path.includes('/openhands/')) return { lines: rawOpenHandsCalls(path) ?? [] };
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return { indices: [] }; // a torn document: no messages, no calls
  }
  const list: unknown = Array.isArray(doc) ? doc : (doc as { messages?: unknown }).messages;
  return { indices: Array.isArray(list) ? (list as { role?: unknown }[]).flatMap((m, i) => (m.role === 'assistant' ? [i] : [])) : [] };
}

describe('model calls of foreign sessions', () => {
  it.each(FIXTURES.map((f) => [f.slice(f.lastIndexOf('/', f.lastIndexOf('/') - 1) + 1), f] as const))('%s: the calls the raw file holds, each an assistant message given only the reductions recorded before it', async (_name, path) => {
    const loaded = await loadSession([path]);
    if (!loaded.ok) throw new Error(loaded.error.message);
    const s = loaded.session;
    try {
      const raw = rawCalls(path);
      if ('lines' in raw) expect(s.calls.map((c) => c.line)).toEqual(raw.lines);
      else expect(s.calls.map((c) => c.index)).toEqual(raw.indices);
      for (const call of s.calls) expect(s.minted.at(call.index)?.role).toBe('assistant');
      for (const call of s.calls) {
        const input = s.callInput(call.call);
        expect(input?.minted.length).toBe(call.index);
        for (const r of input?.log ?? []) {
          const span = s.callTimeline.spans.find((x) => x.reduction.id === r.id);
          expect(span?.from).toBeLessThanOrEqual(call.line);
          expect(r.origin).toBeDefined();
          if (r.origin && 'line' in r.origin) expect(r.origin.line).toBeLessThanOrEqual(call.line);
          else expect(r.origin?.event).toMatch(/\S/);
        }
      }
      // What the file shows last: every reduction applies to the latest view.
      expect(s.callInput(null)?.log).toEqual([...s.log]);
    } finally {
      s.close();
    }
  });
});
