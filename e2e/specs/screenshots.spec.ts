/**
 * The README's screenshots (docs/screenshots/*.png), taken in the main states after web-first
 * waits, at 1400×900. Chromium project only (see the config).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { cliSearch } from '../cli';
import { expect, test } from '../fixtures';
import type { InspectorPage } from '../inspectorPage';
import { sample, SCREENSHOTS_DIR, SESSION_SIDECAR } from '../paths';

test.use({ viewport: { width: 1400, height: 900 } });

async function shoot(inspector: InspectorPage, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  // No caret, no animation mid-way: the same state gives the same picture.
  await inspector.page.screenshot({ path: join(SCREENSHOTS_DIR, name), animations: 'disabled', caret: 'hide' });
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

  test('dark', async ({ inspector }) => {
    await inspector.page.emulateMedia({ colorScheme: 'dark' });
    await inspector.waitLoaded();
    await inspector.expand('r4');
    await inspector.readShownRange('r4');
    await shoot(inspector, 'dark.png');
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
});
