/**
 * Accessibility, checked by axe-core (every WCAG 2.0/2.1 A and AA rule, and axe's best practices),
 * in the states a review found failing: stub chips whose visible text was not in their
 * accessible name, colour contrast below 4.5:1 (the file path in the header, `verified` on an open
 * chip, the dark theme's dim text, a search `mark` over red ANSI text at 1.29:1), and `role=status`
 * on the footer. Each theme is audited with a reduction open (its chip showing `verified`), a
 * search landed on a match inside red ANSI text, the header and the status bar showing.
 */
import { writeFileSync } from 'node:fs';
import { mintReductions } from '../../shared/resolver/mint';
import type { ChatMessage, ReductionPolicy } from '../../shared/format/types';
import { cliSearch } from '../cli';
import { SESSION_SIDECAR } from '../paths';
import { expect, test } from '../fixtures';
import type { Violation } from '../axe';
import { audit } from '../axe';

/** A test log whose failures are red and dim, as a terminal prints them: most of it truncated away. */
const RED = '\u001b[31m';
const DIM = '\u001b[2m';
const RESET = '\u001b[0m';
const TEST_LOG = [
  'PASS src/a.test.ts',
  ...Array.from({ length: 40 }, (_, k) => `${DIM}  ✓ case ${k} of the parser (3 ms)${RESET}`),
  `${RED}FAIL src/b.test.ts${RESET}`,
  `${RED}  ✕ parses the header: Expected 3, received 4${RESET}`,
  'Tests: 1 failed, 41 passed, 42 total',
  '',
].join('\n');
const policy: ReductionPolicy = { protect_last_n_tool_results: 0, max_tool_result_bytes: 256, kept_prefix_bytes: 19, dedupe: false, clear_turns_before: null };

function writeSession(path: string): void {
  const view: ChatMessage[] = [
    { role: 'user', content: 'Run the tests and tell me what fails.' },
    { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', name: 'shell', arguments: '{"cmd":"npm test"}' }] },
    { role: 'tool', tool_call_id: 'call_1', content: TEST_LOG },
    { role: 'assistant', content: 'One test fails: b.test.ts expects 3 and gets 4.' },
  ];
  const log = mintReductions(view, policy);
  const header = { t: 'header', format: 'supercode-sidecar', version: 1, session_id: 's-a11y', created_at: '2026-12-01T00:00:00Z', model: 'model-a', gate: true, policy };
  const lines = [header, ...view.map((msg, i) => ({ t: 'message', i, msg })), ...log.map((r) => ({ t: 'reduction', r }))];
  writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
}

test.use({
  // eslint-disable-next-line no-empty-pattern
  sessionFiles: async ({}, use, testInfo) => {
    const path = testInfo.outputPath('a11y.sidecar.jsonl');
    writeSession(path);
    await use([path]);
  },
});

test.describe('accessibility', () => {
  test('an open chip, a match in red text, the header and the status bar pass in both themes', async ({ inspector, sessionFiles }) => {
    await inspector.waitLoaded();
    // The file name is in the header and the status bar.
    await expect(inspector.status).toContainText('a11y.sidecar.jsonl');

    // Land on the failure, inside red ANSI text in the hidden bytes: the chip opens and verifies.
    const [match] = cliSearch(sessionFiles, 'FAIL src/b').matches;
    if (!match) throw new Error('the session hides no "FAIL src/b"');
    await inspector.search('FAIL src/b');
    await inspector.result(match.reduction_id, match.offset).click();
    await expect(inspector.marks(match.reduction_id).first()).toHaveText('FAIL src/b');
    await expect(inspector.stubChip(match.reduction_id)).toHaveAccessibleName(new RegExp(`^Collapse reduction ${match.reduction_id}\\b.*verified`));
    // The chip's name still starts as SPEC §7.1 says, and holds its visible text.
    await expect(inspector.stubChip(match.reduction_id)).toContainText('verified');

    const theme = await inspector.page.evaluate(() => (globalThis as unknown as { document: { documentElement: { dataset: { theme?: string } } } }).document.documentElement.dataset.theme);
    const first = await audit(inspector);

    await inspector.page.getByRole('button', { name: 'Toggle theme', exact: true }).click();
    await expect(inspector.page.locator('html')).toHaveAttribute('data-theme', theme === 'dark' ? 'light' : 'dark');
    await expect(inspector.marks(match.reduction_id).first()).toBeVisible();
    const second = await audit(inspector);
    expect({ [theme ?? 'default']: first, [theme === 'dark' ? 'light' : 'dark']: second }).toEqual({ [theme ?? 'default']: [], [theme === 'dark' ? 'light' : 'dark']: [] });
  });
});

test.describe('accessibility of every panel', () => {
  // The realistic sample: every reduction kind, findings, a log of all of them.
  test.use({ sessionFiles: [SESSION_SIDECAR] });

  test('the view, the log, the findings, search results and the shortcuts dialog pass axe-core in both themes', async ({ inspector }) => {
    // Ten full axe-core audits of a page of a few hundred rows: seconds each on a loaded machine.
    test.slow();
    await inspector.waitLoaded();
    const violations: Record<string, Violation[]> = {};
    for (const theme of ['first', 'second']) {
      if (theme === 'second') await inspector.page.getByRole('button', { name: 'Toggle theme', exact: true }).click();
      violations[`${theme} theme, the view`] = await audit(inspector);
      await inspector.openTab('Log');
      await expect(inspector.page.getByRole('table', { name: 'Reduction log' })).toBeVisible();
      violations[`${theme} theme, the log`] = await audit(inspector);
      await inspector.openTab('Findings');
      violations[`${theme} theme, the findings`] = await audit(inspector);
      await inspector.search('error');
      await expect(inspector.results.getByRole('button').first()).toBeVisible();
      violations[`${theme} theme, search results`] = await audit(inspector);
      await inspector.page.keyboard.press('Escape');
      await inspector.view.focus();
      await inspector.page.keyboard.press('?');
      await expect(inspector.shortcutsDialog).toBeVisible();
      violations[`${theme} theme, the shortcuts dialog`] = await audit(inspector);
      await inspector.page.keyboard.press('Escape');
      await expect(inspector.shortcutsDialog).toBeHidden();
    }
    expect(Object.fromEntries(Object.entries(violations).filter(([, v]) => v.length > 0))).toEqual({});
  });
});
