/**
 * SPEC §10 in the app, on Codex rollouts through the HTTP host. The one real rollout with a
 * compaction is committed gzipped (see the README in e2e/fixtures/real/codex), so the compaction is
 * the synthetic `local-compaction.jsonl` (a `compacted` item with its `replacement_history`: three
 * dropped runs, one group); a real rollout shows the badge and no picker. Expected values are read
 * from the files: by the CLI, or (the number of model calls) from the raw lines — Codex writes one
 * `token_count` per model response (docs/formats/codex.md).
 */
import { readFileSync } from 'node:fs';
import { audit } from '../axe';
import { cliCheck } from '../cli';
import { expect, test } from '../fixtures';
import { expectFormat, fixture, walkCompaction } from '../importedSession';

// Its tests share the worker's page, each with its own host (fixtures.ts, reusePage).
test.use({ reusePage: true });

const COMPACTED = fixture('synthetic/codex/local-compaction.jsonl');
const REAL = fixture('real/codex/rollout-0.40.0-vscode-unmodified.jsonl');
const PARALLEL = fixture('real/codex/rollout-0.118-exec-parallel-calls-ENTIRE.jsonl');

/** Codex's own count of its model responses: how many times the cumulative usage of its `token_count` events changed. */
function tokenCountedResponses(path: string): number {
  let last = '';
  let n = 0;
  for (const text of readFileSync(path, 'utf8').split('\n')) {
    if (!text.includes('"token_count"')) continue;
    const rec = JSON.parse(text) as { type?: string; payload?: { type?: string; info?: { total_token_usage?: unknown } | null } };
    if (rec.type !== 'event_msg' || rec.payload?.type !== 'token_count' || !rec.payload.info) continue;
    const total = JSON.stringify(rec.payload.info.total_token_usage);
    if (total !== last) n++;
    last = total;
  }
  return n;
}

test.describe('a compacted Codex rollout', () => {
  test.use({ sessionFiles: [COMPACTED] });

  test('says it is Codex; the compaction expands to the dropped transcript, slices and searches; axe passes in both themes', async ({ inspector }) => {
    await inspector.waitLoaded();
    await expectFormat(inspector, 'Codex');
    await walkCompaction(inspector, COMPACTED);
  });
});

test.describe('a real Codex rollout', () => {
  test.use({ sessionFiles: [REAL] });

  test('opens with its format and message count, and no session picker (a rollout is one session)', async ({ inspector }) => {
    await inspector.waitLoaded();
    const { summary } = cliCheck([REAL]);
    await expectFormat(inspector, 'Codex');
    await expect(inspector.status).toContainText(`${summary.messages} messages`);
    expect(summary.sessions).toHaveLength(1);
    await expect(inspector.sessionPicker).toHaveCount(0);
    expect(await audit(inspector)).toEqual([]);
  });
});

test.describe('a real Codex exec rollout with parallel tool calls', () => {
  test.use({ sessionFiles: [PARALLEL] });

  test('the Model call slider counts one call per model response, not one per tool call', async ({ inspector }) => {
    await inspector.waitLoaded();
    const responses = tokenCountedResponses(PARALLEL);
    expect(responses).toBe(14);
    await expect(inspector.modelCallSlider).toHaveAttribute('max', String(responses));
  });
});
