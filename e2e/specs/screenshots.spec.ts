/**
 * The README's screenshots, taken in the main states after web-first waits, at 1400×900. Chromium
 * project only (see the config). A test run writes them under its own output folder
 * (test-results/), never into the work tree; `npm run screenshots` (scripts/screenshots.mjs) sets
 * REFRESH_SCREENSHOTS_ENV and they go to docs/screenshots/ instead. The global docs guard
 * (e2e/docsGuard.ts) fails any other run that writes into docs/.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cliSearch } from '../cli';
import { REFRESH_SCREENSHOTS_ENV } from '../docsGuard';
import { expect, test } from '../fixtures';
import { firstCompaction, fixture } from '../importedSession';
import type { InspectorPage } from '../inspectorPage';
import { sample, SCREENSHOTS_DIR, SESSION_SIDECAR } from '../paths';
import { liveLog } from '../sessionData';

const VIEWPORT = { width: 1400, height: 900 };
test.use({ viewport: VIEWPORT });

/** Where `name` is written: docs/screenshots/ only for `npm run screenshots`, else the test's output folder. */
function screenshotPath(name: string): string {
  return process.env[REFRESH_SCREENSHOTS_ENV] === '1' ? join(SCREENSHOTS_DIR, name) : test.info().outputPath(name);
}

/** Width and height from a PNG's IHDR chunk (bytes 16–23, big-endian). */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(1, 4).toString('latin1'), 'a PNG signature').toBe('PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

async function shoot(inspector: InspectorPage, name: string): Promise<void> {
  const path = screenshotPath(name);
  mkdirSync(dirname(path), { recursive: true });
  // No caret, no animation mid-way: the same state gives the same picture.
  await inspector.page.screenshot({ path, animations: 'disabled', caret: 'hide' });
  // The picture is the whole window at the README's size.
  expect(pngSize(readFileSync(path))).toEqual(VIEWPORT);
}

test.describe('screenshots', () => {
  test('main, expanded, search, log', async ({ inspector }) => {
    await inspector.waitLoaded();
    await expect(inspector.status).toContainText('session.sidecar.jsonl');
    await shoot(inspector, 'main.png');

    await inspector.expand('r4');
    await inspector.readShownRange('r4');
    await shoot(inspector, 'expanded.png');
    await inspector.collapse('r4');

    const query = 'a2b53e1dcf28a041449fa5b2017c234846c3eb0f';
    const [match] = cliSearch([SESSION_SIDECAR], query).matches;
    if (!match) throw new Error(`no match for ${query}`);
    await inspector.search(query);
    await inspector.result(match.reduction_id, match.offset).click();
    await expect(inspector.marks(match.reduction_id).first()).toBeInViewport();
    await shoot(inspector, 'search.png');

    await inspector.openTab('Log');
    await expect(inspector.logGoTo.first()).toBeVisible();
    await shoot(inspector, 'log.png');
  });

  // A truncation sliced across kept_bytes, what the model saw beside what it did not.
  test('expanded-story', async ({ inspector }) => {
    await inspector.waitLoaded();
    await inspector.expand('r4');
    await inspector.setRange('r4', 700, 1500);
    await expect(inspector.seenPart('r4')).toBeVisible();
    await expect(inspector.hiddenPart('r4')).toBeVisible();
    await inspector.expanded('r4').scrollIntoViewIfNeeded();
    await shoot(inspector, 'expanded-story.png');
  });

  test('dark', async ({ inspector }) => {
    await inspector.page.emulateMedia({ colorScheme: 'dark' });
    await inspector.waitLoaded();
    await inspector.expand('r4');
    await inspector.readShownRange('r4');
    await shoot(inspector, 'dark.png');
  });

  // The diff between two calls beside the view, a rewind drawn where it happened.
  test('diff', async ({ inspector }) => {
    await inspector.waitLoaded();
    await inspector.compareCalls(12, null);
    await expect(inspector.diffTable).toBeVisible();
    const rewind = inspector.event(/^Rewind to message/);
    await inspector.scrollUntilVisible(inspector.view, rewind);
    await shoot(inspector, 'diff.png');
  });

  // A cleared range opened as one row per message; a duplicate's link to its canonical.
  test('range rows, canonical link', async ({ inspector }) => {
    const log = liveLog(SESSION_SIDECAR);
    const cleared = log.find((r) => r.kind === 'turns_cleared');
    const dup = log.find((r) => r.kind === 'duplicate_output' && r.canonical);
    if (!cleared?.end || !dup?.canonical) throw new Error('the sample has no cleared range or no duplicate with a canonical');
    await inspector.waitLoaded();
    await inspector.expand(cleared.id);
    await expect(inspector.messageRows(cleared.id)).toHaveCount(cleared.end - cleared.ptr.index);
    await inspector.expanded(cleared.id).scrollIntoViewIfNeeded();
    await shoot(inspector, 'range-rows.png');
    await inspector.collapse(cleared.id);
    await inspector.revealStub(dup.id);
    await expect(inspector.canonicalLink(dup.canonical.index)).toBeInViewport();
    await shoot(inspector, 'canonical-link.png');
  });

  // A model switch drawn where it happened, and the glossary of the help dialog.
  test('events, glossary', async ({ inspector }) => {
    await inspector.waitLoaded();
    const change = inspector.event(/^Model switch from/);
    await inspector.scrollUntilVisible(inspector.view, change);
    await expect(change).toBeInViewport();
    await shoot(inspector, 'events.png');
    await inspector.page.keyboard.press('?');
    await expect(inspector.shortcutsDialog).toBeVisible();
    await inspector.shortcutsDialog.getByText('Glossary', { exact: true }).click();
    await expect(inspector.shortcutsDialog.getByRole('term').filter({ hasText: 'summarized' })).toBeVisible();
    await shoot(inspector, 'glossary.png');
  });

  test.describe('a Claude Code compaction', () => {
    test.use({ sessionFiles: [fixture('real/claude-code/cc-2.0.76-compact-boundary.jsonl')] });

    test('claude-code-compaction', async ({ inspector, sessionFiles }) => {
      await inspector.waitLoaded();
      await expect(inspector.formatBadge).toHaveAccessibleName('Format: Claude Code');
      // The file's one compaction, expanded to the transcript it dropped.
      const run = firstCompaction(sessionFiles[0] ?? '');
      await inspector.expand(run.id);
      await inspector.readShownRange(run.id);
      await expect(inspector.expanded(run.id)).toContainText('hashed at import');
      await shoot(inspector, 'claude-code-compaction.png');
    });
  });

  test.describe('findings', () => {
    test.use({ sessionFiles: [sample('broken/hash_mismatch.sidecar.jsonl')] });

    test('findings', async ({ inspector }) => {
      await inspector.waitLoaded();
      await inspector.openTab('Findings');
      await expect(inspector.findingItems.first()).toBeVisible();
      await shoot(inspector, 'findings.png');
    });
  });

  // The model call slider on a past call, the Context map with its marks.
  test('model calls', async ({ inspector }) => {
    await inspector.waitLoaded();
    await expect(inspector.contextMap).toBeVisible();
    await inspector.showCall(20);
    await expect(inspector.rows.first()).toBeVisible();
    await shoot(inspector, 'model-calls.png');
  });
});
