/**
 * Names from a session file (its file name, the model, tool call ids and names, reduction ids and
 * stubs) carrying OSC 52 clipboard writes, bidi overrides, script tags and lone surrogates
 * (`e2e/fixtures/bad/hostile-names.sidecar.jsonl`, opened under a hostile file name): every
 * control and bidi character is shown as a visible symbol, nothing is left raw in the page's text,
 * the reductions still expand and verify, and nothing runs.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { nameText } from '../../renderer/text/nameText';
import { expect, test } from '../fixtures';
import { REPO_ROOT } from '../paths';

const OSC52 = '\u001b]52;c;cm0gLXJmIH4=\u0007';
const SHOWN_OSC52 = '\u241b]52;c;cm0gLXJmIH4=\u2407';
const FILE_NAME = `${OSC52}invoice\u202Egnp.sidecar.jsonl`;
const IDS = ['r<script>alert(1)</script>', `r${OSC52}`];

test.use({
  // eslint-disable-next-line no-empty-pattern
  sessionFiles: async ({}, use, testInfo) => {
    const path = testInfo.outputPath(FILE_NAME);
    copyFileSync(join(REPO_ROOT, 'e2e', 'fixtures', 'bad', 'hostile-names.sidecar.jsonl'), path);
    await use([path]);
  },
});

test('hostile names are shown as visible symbols, never raw, and their reductions still verify', async ({ inspector, inspectorApp }) => {
  const page = inspector.page;
  await inspector.waitLoaded();
  expect(nameText(FILE_NAME)).toBe(`${SHOWN_OSC52}invoice\u27e8U+202E\u27e9gnp.sidecar.jsonl`);
  await expect(page.getByRole('banner')).toContainText(nameText(FILE_NAME));
  await expect(inspector.status).toContainText(nameText(FILE_NAME));
  await expect(inspector.status).toContainText(`model <img src=x onerror=alert(1)>${SHOWN_OSC52}`);
  // The tool call's name and id, as symbols.
  await expect(inspector.row(1).getByRole('group', { name: `Tool call sh\u27e8U+202E\u27e9exe${SHOWN_OSC52}`, exact: true })).toBeVisible();
  await expect(inspector.row(1)).toContainText(`call_<img src=x onerror=alert(1)>${SHOWN_OSC52}`);

  for (const id of IDS) {
    await expect(inspector.stubChip(id)).toContainText(nameText(id));
    await inspector.expand(id);
    await expect(inspector.expanded(id)).toContainText('hash verified');
    await inspector.collapse(id);
  }
  await inspector.openTab('Log');
  const log = page.getByRole('table', { name: 'Reduction log' });
  for (const id of IDS) await expect(log).toContainText(nameText(id));

  // Nothing in the page's text is a raw control, bidi override or lone surrogate.
  const text = await page.evaluate(() => (globalThis as unknown as { document: { body: { innerText: string } } }).document.body.innerText);
  // eslint-disable-next-line no-control-regex
  expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  expect(new TextDecoder().decode(new TextEncoder().encode(text))).toBe(text);
  expect(inspectorApp.events.dialogs).toEqual([]);
  expect(inspectorApp.events.pageErrors).toEqual([]);
  await expect(page.locator('img, script:not([type="module"])')).toHaveCount(0);
});
