/** The benchmark's Claude Code generator: deterministic for a seed, and what it writes imports cleanly. */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../tools/testing/files';
import { loadSession } from '../session';
import { generateClaudeTranscript } from './testing/generate';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('generateClaudeTranscript', () => {
  it('writes the same bytes for a seed, other bytes for another seed', () => {
    const a = generateClaudeTranscript(tmp.path('a'), { bytes: 300_000, seed: 5 });
    const b = generateClaudeTranscript(tmp.path('b'), { bytes: 300_000, seed: 5 });
    const c = generateClaudeTranscript(tmp.path('c'), { bytes: 300_000, seed: 6 });
    expect(readFileSync(a.path).equals(readFileSync(b.path))).toBe(true);
    expect(readFileSync(a.path).equals(readFileSync(c.path))).toBe(false);
    expect(a.bytes).toBe(readFileSync(a.path).length);
    expect(a.bytes).toBeGreaterThanOrEqual(300_000);
  });

  it('imports without findings: one summarized run for the latest compaction; persisted outputs after it are truncations, unavailable only where a file is missing', async () => {
    const g = generateClaudeTranscript(tmp.path('d'), { bytes: 3_000_000, seed: 11, compactEvery: 1_000_000 });
    expect(g.compactions).toBeGreaterThan(1);
    const loaded = await loadSession([g.path]);
    if (!loaded.ok) throw new Error(loaded.error.message);
    const { session } = loaded;
    try {
      expect(session.loadFindings).toEqual([]);
      const kinds = session.log.map((r) => r.kind);
      expect(kinds.filter((k) => k === 'summarized')).toHaveLength(1);
      // Persisted outputs before the latest compaction are inside its summarized run, not logged apart.
      const truncated = session.log.filter((r) => r.kind === 'tool_output_truncated');
      expect(truncated.length).toBeLessThanOrEqual(g.persisted);
      expect(truncated.filter((r) => r.ptr.hash === null).length).toBeLessThanOrEqual(g.persistedMissing);
    } finally {
      session.close();
    }
  });
});
