/**
 * The specs' axe-core audit (e2e/axe.ts: axe put into the page once, `axe.run` there) gives what
 * `@axe-core/playwright`'s AxeBuilder gives for the same rules on the same page: the same rules
 * violated, passed and left incomplete, on as many elements each. The audit is cheaper, not weaker.
 */
import AxeBuilder from '@axe-core/playwright';
import type { AxeResults } from 'axe-core';
import { AXE_TAGS, axeResults } from '../axe';
import { expect, test } from '../fixtures';

/** Each outcome's rules, with the number of elements each was checked on. */
function outcomes(result: AxeResults): { violations: string[]; passes: string[]; incomplete: string[]; inapplicable: string[] } {
  const rules = (list: AxeResults['passes']): string[] => list.map((r) => `${r.id}: ${r.nodes.length}`).sort();
  return { violations: rules(result.violations), passes: rules(result.passes), incomplete: rules(result.incomplete), inapplicable: result.inapplicable.map((r) => r.id).sort() };
}

test('the audit gives AxeBuilder’s results on the sample with a search shown, twice in a row (axe kept in the page)', async ({ inspector }) => {
  test.slow();
  await inspector.waitLoaded();
  await inspector.search('error');
  await expect(inspector.results.getByRole('button').first()).toBeVisible();
  // The page must be done changing: every match counted (`Every match` fills in after the results).
  await expect(inspector.page.getByRole('status', { name: 'Match position', exact: true })).toHaveText(/^\d[\d,]* match(es)?$/);
  // …and every hidden-tokens figure shown, on the matches and on the chips: they are asked for once
  // the search is over (docs/tokens.md "Asked, not pushed"), so they may fill in after the count.
  const page = inspector.page;
  const figured = async (): Promise<boolean> => {
    const [matches, matchFigures, chips, chipFigures] = await Promise.all([page.locator('.search-match').count(), page.locator('.search-match .search-match-tokens').count(), page.locator('.stub-chip').count(), page.locator('.stub-chip .stub-chip-tokens').count()]);
    return matches > 0 && chips > 0 && matchFigures === matches && chipFigures === chips;
  };
  await expect.poll(figured).toBe(true);
  const first = outcomes(await axeResults(inspector.page));
  const again = outcomes(await axeResults(inspector.page));
  const builder = outcomes(await new AxeBuilder({ page: inspector.page }).withTags(AXE_TAGS).analyze());
  expect(first.passes.length).toBeGreaterThan(10);
  expect(first).toEqual(builder);
  expect(again).toEqual(builder);
});
