/** The library entry's `tokens` (docs/library.md): the recorded context of the session's last call that records usage, read from the raw records (loader/testing/rawCalls.ts). */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSession } from '../loader/session';
import { rawClaudeCodeCalls, rawClaudeCodeUsage } from '../loader/testing/rawCalls';
import { countsOf } from './index';

const ROOT = join(import.meta.dirname, '../..');

async function counts(path: string) {
  const loaded = await loadSession([path]);
  if (!loaded.ok) throw new Error(loaded.error.message);
  try {
    return countsOf(loaded.session);
  } finally {
    loaded.session.close();
  }
}

describe('library counts: tokens', () => {
  it('a Claude Code transcript: the context its last call records', async () => {
    const path = join(ROOT, 'e2e/fixtures/real/claude-code/cc-2.1.14-two-compactions.jsonl');
    const usage = rawClaudeCodeUsage(path);
    const last = rawClaudeCodeCalls(path)
      .map((c) => usage.get(c.line)?.context)
      .filter((x) => x !== undefined)
      .pop();
    expect(last).toBeGreaterThan(0);
    expect((await counts(path)).tokens).toBe(last);
  });

  it('a native session records none: null', async () => {
    expect((await counts(join(ROOT, 'samples/session.sidecar.jsonl'))).tokens).toBeNull();
  });
});
