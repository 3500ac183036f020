/**
 * SPEC §11 over the real and synthetic foreign fixtures: the importers' lines give every assistant
 * message a call. A reduction's `origin` is a line of the file (Claude Code, Codex) or an event of
 * it (SWE-agent steps, OpenHands events): either way, the record that logged it comes at or before
 * every call given it.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CODEX_SYNTHETIC_DIR } from './codex/testing/synthetic';
import { OPENHANDS_SYNTHETIC_DIR } from './openhands/testing/synthetic';
import { MINI_SYNTHETIC_DIR } from './sweAgent/testing/miniSynthetic';
import { SWE_SYNTHETIC_DIR } from './sweAgent/testing/synthetic';
import { loadSession } from './session';

const REAL = join(import.meta.dirname, '../../e2e/fixtures/real');
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
  ...jsonl(CODEX_SYNTHETIC_DIR),
  ...traj(join(REAL, 'swe-agent')),
  ...traj(SWE_SYNTHETIC_DIR),
  ...json(join(REAL, 'mini-swe-agent')),
  ...json(MINI_SYNTHETIC_DIR),
  ...json(join(REAL, 'openhands')),
  ...json(OPENHANDS_SYNTHETIC_DIR),
  join(OPENHANDS_SYNTHETIC_DIR, 'v1-conversation/base_state.json'),
];

describe('model calls of foreign sessions', () => {
  it.each(FIXTURES.map((f) => [f.slice(f.lastIndexOf('/', f.lastIndexOf('/') - 1) + 1), f] as const))('%s: one call per assistant message, each given only the reductions recorded before it', async (_name, path) => {
    const loaded = await loadSession([path]);
    if (!loaded.ok) throw new Error(loaded.error.message);
    const s = loaded.session;
    try {
      const assistants: number[] = [];
      for (let i = 0; i < s.minted.length; i++) if (s.minted.at(i)?.role === 'assistant') assistants.push(i);
      expect(s.calls.map((c) => c.index)).toEqual(assistants);
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
