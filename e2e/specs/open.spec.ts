import { basename } from 'node:path';
import { cliCheck } from '../cli';
import { expect, test } from '../fixtures';
import { SESSION_SIDECAR } from '../paths';

// Its tests share the worker's page, each with its own host (fixtures.ts, reusePage).
test.use({ reusePage: true });

test.describe('opening a session', () => {
  test('lists the projected view, names the file and finishes loading', async ({ inspector }) => {
    await inspector.waitLoaded();
    await expect(inspector.progress).toBeHidden();
    await expect(inspector.status).toContainText(basename(SESSION_SIDECAR));

    // The first row is the cleared range of the first turns (r3 over view 0..8): a stub row.
    const summary = cliCheck([SESSION_SIDECAR]).summary;
    expect(summary.messages).toBeGreaterThan(0);
    await expect(inspector.rows.first()).toHaveAccessibleName(/^Messages? 0(?!\d)/);
    await expect(inspector.rows.first()).toHaveAttribute('data-row', '0');
    await expect(inspector.rows.first()).toHaveAttribute('data-index', '0');
    await expect(inspector.stubChips.first()).toBeVisible();
  });

  test('the good sample has no findings', async ({ inspector }) => {
    expect(cliCheck([SESSION_SIDECAR]).findings).toEqual([]);
    await inspector.waitLoaded();
    await inspector.openTab('Findings');
    await expect(inspector.findings).toBeVisible();
    // `Findings (N)` counts the findings: none here (a count of 0 is a finished check).
    await expect(inspector.tab('Findings')).toHaveAccessibleName(/^Findings( \(0\))?$/);
    await expect(inspector.findingItems).toHaveCount(0);
  });
});
