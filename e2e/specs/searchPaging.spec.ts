/**
 * Search past the agent's bounds. A generated session hides exactly 65
 * occurrences of a word — six in each of ten elided outputs, five past the kept prefix of a
 * truncated one — and shows it three times to the model (the user's message, two in the kept
 * prefix). The agent's result stops at 50 (one page of matches, SEARCH_PAGE_SIZE); `Every match`
 * pages through all 65 (`1 of 65` … `65 of 65`, past the page's end, then wraps to `1 of 65`),
 * opening each match's reduction with every hit of it marked; `Search in` switches to what the
 * model saw; the log filters by kind. The sidecar is written at test time, once per worker, into a
 * temporary folder.
 */
import { writeFileSync } from 'node:fs';
import type { Locator, Page } from '@playwright/test';
import { hashOf } from '../../shared/testing/builders';
import { stubText } from '../../shared/format/constants';
import type { ChatMessage, Reduction } from '../../shared/format/types';
import { audit } from '../axe';
import { cliLog, cliSearch } from '../cli';
import { expect, testWithWrittenSidecar } from '../fixtures';
import { matchName } from '../inspectorPage';

const WORD = 'zephyr';
const ELIDED = 10;
const PER_OUTPUT = 6;
/** Occurrences in the truncated output's kept prefix (seen by the model) and past it (hidden). */
const KEPT_HITS = 2;
const CUT_HITS = 5;
const TOTAL = ELIDED * PER_OUTPUT + CUT_HITS;

function output(k: number, hits: number): string {
  return Array.from({ length: hits }, (_, j) => `run ${k}.${j}: the ${WORD} wind turned\n`).join('');
}

function writeSidecar(path: string): void {
  const view: ChatMessage[] = [{ role: 'user', content: `Find every ${WORD} in the logs.` }];
  const log: Reduction[] = [];
  const call = (k: number) => view.push({ role: 'assistant', content: '', tool_calls: [{ id: `call_${k}`, name: 'shell', arguments: `{"cmd":"cat run${k}.log"}` }] });
  for (let k = 0; k < ELIDED; k++) {
    call(k);
    const content = output(k, PER_OUTPUT);
    view.push({ role: 'tool', tool_call_id: `call_${k}`, content });
    const id = `r${k + 1}`;
    const bytes = Buffer.byteLength(content);
    log.push({ id, kind: 'tool_output_elided', ptr: { index: view.length - 1, hash: hashOf(content), bytes }, stub: stubText(id, 'tool_output_elided', bytes), minted_at: view.length });
  }
  call(ELIDED);
  const kept = output(ELIDED, KEPT_HITS);
  const content = kept + output(ELIDED + 1, CUT_HITS);
  const bytes = Buffer.byteLength(content);
  const keptBytes = Buffer.byteLength(kept);
  const id = `r${ELIDED + 1}`;
  view.push({ role: 'tool', tool_call_id: `call_${ELIDED}`, content });
  log.push({ id, kind: 'tool_output_truncated', ptr: { index: view.length - 1, hash: hashOf(content), bytes }, kept_bytes: keptBytes, stub: stubText(id, 'tool_output_truncated', bytes - keptBytes), minted_at: view.length });
  view.push({ role: 'assistant', content: 'Done.' });
  const lines = [
    { t: 'header', format: 'supercode-sidecar', version: 1, session_id: 's-paging', created_at: '2026-12-01T00:00:00Z', model: 'm', gate: true, policy: null },
    ...view.map((msg, i) => ({ t: 'message', i, msg })),
    ...log.map((r) => ({ t: 'reduction', r })),
  ];
  writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
}

const test = testWithWrittenSidecar('paging', writeSidecar);

const position = (page: Page): Locator => page.getByRole('status', { name: 'Match position', exact: true });
const nextMatch = (page: Page): Locator => page.getByRole('button', { name: 'Next match', exact: true });
const previousMatch = (page: Page): Locator => page.getByRole('button', { name: 'Previous match', exact: true });
const scope = (page: Page, name: 'Hidden content' | 'What the model saw'): Locator =>
  page.getByRole('radiogroup', { name: 'Search in', exact: true }).getByRole('radio', { name, exact: true });

test.describe('paging through every match', () => {
  test(`1 of ${TOTAL} … ${TOTAL} of ${TOTAL}, each match opened in its reduction with its hits marked, then wraps`, async ({ inspector, inspectorApp, writtenFile }) => {
    // A step per match, each a navigation: a busy machine needs more than the default.
    test.setTimeout(240_000);
    const { page } = inspectorApp;
    const agent = cliSearch([writtenFile], WORD);
    expect(agent.total_matches, `the generated session hides exactly ${TOTAL}`).toBe(TOTAL);
    expect(agent.truncated, 'more than the agent sees').toBe(true);

    await inspector.waitLoaded();
    // Before any search, no heading stands over an empty list.
    await expect(page.getByRole('heading', { name: 'As the agent sees it', exact: true })).toBeHidden();
    await inspector.search(WORD);
    await expect(position(page)).toHaveText(`${TOTAL} matches`);
    // The agent's result is untouched, under its own heading.
    await expect(page.getByRole('heading', { name: 'As the agent sees it', exact: true })).toBeVisible();
    await expect(inspector.result(agent.matches[0]?.reduction_id ?? '', agent.matches[0]?.offset)).toHaveAccessibleName(matchName(agent.matches[0] as (typeof agent.matches)[number]));

    // Enter in the search box steps once the search it committed has answered.
    await inspector.searchBox.press('Enter');
    for (let n = 1; n <= TOTAL; n++) {
      if (n > 1) await nextMatch(page).click();
      await expect(position(page)).toHaveText(`${n} of ${TOTAL}`);
      // Matches come in order: six in each elided output, then five in the truncated one.
      const k = Math.min(ELIDED, Math.floor((n - 1) / PER_OUTPUT));
      const id = `r${k + 1}`;
      // At the first match of each reduction (and at the page boundary, 50): its region, every hit marked.
      if ((n - 1) % PER_OUTPUT === 0 || n === 51) {
        await expect(inspector.expanded(id)).toBeVisible();
        // Every hit inside the open region is marked: all the reduction's hidden hits.
        const marks = inspector.marks(id);
        await expect(marks).toHaveCount(k < ELIDED ? PER_OUTPUT : CUT_HITS);
        for (const text of await marks.allTextContents()) expect(text).toBe(WORD);
      }
    }
    // Past the last match, Next wraps to the first; Shift+Enter goes back to the last.
    await nextMatch(page).click();
    await expect(position(page)).toHaveText(`1 of ${TOTAL}`);
    await expect(inspector.expanded('r1')).toBeVisible();
    await inspector.searchBox.press('Shift+Enter');
    await expect(position(page)).toHaveText(`${TOTAL} of ${TOTAL}`);
    await previousMatch(page).click();
    await expect(position(page)).toHaveText(`${TOTAL - 1} of ${TOTAL}`);
    await expect(inspector.expanded(`r${ELIDED + 1}`)).toBeVisible();

    const violations = await audit(inspector);
    expect(violations).toEqual([]);
  });

  test('Search in "What the model saw" finds the three occurrences the model saw, landing on their rows', async ({ inspector, inspectorApp }) => {
    const { page } = inspectorApp;
    await inspector.waitLoaded();
    await inspector.search(WORD);
    await expect(position(page)).toHaveText(`${TOTAL} matches`);
    await scope(page, 'What the model saw').check();
    await expect(position(page)).toHaveText(`${KEPT_HITS + 1} matches`);
    await expect(page.getByRole('heading', { name: 'As the agent sees it', exact: true })).toBeHidden();
    await nextMatch(page).click();
    await expect(position(page)).toHaveText(`1 of ${KEPT_HITS + 1}`);
    await expect(inspector.selectedRow).toContainText(`Find every ${WORD}`);
    await nextMatch(page).click();
    await expect(position(page)).toHaveText(`2 of ${KEPT_HITS + 1}`);
    // The truncated output's row: the kept prefix the model saw, then its stub.
    await expect(inspector.selectedRow).toContainText(`run ${ELIDED}.0: the ${WORD}`);
    await scope(page, 'Hidden content').check();
    await expect(position(page)).toHaveText(`${TOTAL} matches`);

    const violations = await audit(inspector);
    expect(violations).toEqual([]);
  });

  test('the log filters by kind, each kind with its count', async ({ inspector, inspectorApp, writtenFile }) => {
    const { page } = inspectorApp;
    const entries = cliLog([writtenFile]);
    const count = (kind: string) => entries.filter((e) => e.kind === kind).length;
    expect(entries).toHaveLength(ELIDED + 1);
    await inspector.waitLoaded();
    await inspector.openTab('Log');
    const kind = page.getByRole('combobox', { name: 'Kind', exact: true });
    await expect(kind.getByRole('option')).toHaveText([`All kinds (${entries.length})`, `truncated (${count('tool_output_truncated')})`, `elided (${count('tool_output_elided')})`]);
    await expect(inspector.logGoTo).toHaveCount(entries.length);
    await kind.selectOption({ label: `truncated (${count('tool_output_truncated')})` });
    await expect(inspector.logGoTo).toHaveCount(count('tool_output_truncated'));
    await expect(inspector.logGoTo).toHaveAccessibleName(`Go to r${ELIDED + 1}`);
    await kind.selectOption({ label: `elided (${count('tool_output_elided')})` });
    await expect(inspector.logGoTo).toHaveCount(ELIDED);
    await kind.selectOption({ label: `All kinds (${entries.length})` });
    await expect(inspector.logGoTo).toHaveCount(entries.length);

    const violations = await audit(inspector);
    expect(violations).toEqual([]);
  });
});
