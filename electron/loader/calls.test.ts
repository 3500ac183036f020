/** SPEC §11 over the real and synthetic foreign fixtures: the importers' lines give every assistant message a call. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CODEX_SYNTHETIC_DIR } from './codex/testing/synthetic';
import { loadSession } from './session';

const REAL = join(import.meta.dirname, '../../e2e/fixtures/real');
const jsonl = (dir: string) =>
  readdirSync(dir)
    .filter((n) => n.endsWith('.jsonl'))
    .map((n) => join(dir, n));
const FIXTURES = [...jsonl(join(REAL, 'claude-code')), ...jsonl(join(REAL, 'codex')), ...jsonl(CODEX_SYNTHETIC_DIR)];

describe('model calls of foreign sessions', () => {
  it.each(FIXTURES.map((f) => [f.slice(f.lastIndexOf('/') + 1), f] as const))('%s: one call per assistant message, each given only the reductions recorded before it', async (_name, path) => {
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
          const origin = r.origin && 'line' in r.origin ? r.origin.line : undefined;
          expect(origin).toBeDefined();
          expect(origin!).toBeLessThanOrEqual(call.line);
        }
      }
      // What the file shows last: every reduction applies to the latest view.
      expect(s.callInput(null)?.log).toEqual([...s.log]);
    } finally {
      s.close();
    }
  });
});
