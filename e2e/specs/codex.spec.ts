/**
 * SPEC §10 in the app, on Codex rollouts through the HTTP host. The real rollouts of
 * e2e/fixtures/real/codex hold no compaction (the only public one is too large to commit: see the
 * README there), so the compaction is the synthetic `local-compaction.jsonl` (a `compacted` item
 * with its `replacement_history`: three dropped runs, one group); a real rollout shows the badge
 * and no picker. Every expected value is read from the files by the CLI.
 */
import { audit } from '../axe';
import { cliCheck } from '../cli';
import { expect, test } from '../fixtures';
import { expectFormat, fixture, walkCompaction } from '../importedSession';

const COMPACTED = fixture('synthetic/codex/local-compaction.jsonl');
const REAL = fixture('real/codex/rollout-0.40.0-vscode-unmodified.jsonl');

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
