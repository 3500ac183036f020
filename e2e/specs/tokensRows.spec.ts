/**
 * SPEC §15, §16.1: every chip, log row and search result shows `<n> tokens est.` beside its bytes,
 * filled in after the rows show. The figures are `log`'s `hidden_tokens_est` for the same session
 * (the search result's: the tokens of the matched original, at least what it hid).
 */
import { cliLog, cliSearch } from '../cli';
import { audit } from '../axe';
import { expect, test } from '../fixtures';
import { SESSION_SIDECAR } from '../paths';

// Its tests share the worker's page, each with its own host (fixtures.ts, reusePage).
test.use({ reusePage: true });

const FILES = [SESSION_SIDECAR];
/** A commit hash of the git log one truncation hid: one match, in hidden content only. */
const HIDDEN_ONLY = 'a2b53e1dcf28a041449fa5b2017c234846c3eb0f';

interface Estimated {
  tokens: number;
  approximate?: true;
}

/** `log`'s hidden_tokens_est of each reduction of the sample, by id. */
function hiddenTokens(): Map<string, Estimated> {
  const out = new Map<string, Estimated>();
  for (const e of cliLog(FILES) as (ReturnType<typeof cliLog>[number] & { hidden_tokens_est: Estimated | null })[]) {
    if (e.hidden_tokens_est) out.set(e.id, e.hidden_tokens_est);
  }
  return out;
}

const count = (n: number) => new Intl.NumberFormat('en-US').format(n);
const figure = (e: Estimated) => `${count(e.tokens)} tokens est.${e.approximate ? ' approx.' : ''}`;
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test.describe('tokens beside bytes', () => {
  test("a chip's name and words say the tokens it hid, as log's hidden_tokens_est", async ({ inspector }) => {
    const figures = hiddenTokens();
    const first = cliLog(FILES).find((r) => r.kind === 'tool_output_truncated');
    const est = first && figures.get(first.id);
    if (!first || !est) throw new Error('the sample has no truncation with an estimate');
    await inspector.waitLoaded();
    const chip = await inspector.revealStub(first.id);
    await expect(chip).toHaveAccessibleName(new RegExp(`^Expand reduction ${first.id}\\b.* hidden ${escaped(figure(est))} `));
    await expect(chip).toContainText(figure(est));
  });

  test('each log row shows its hidden tokens in the Hidden tokens column', async ({ inspector }) => {
    // axe over the whole page takes long on a loaded machine.
    test.slow();
    const figures = hiddenTokens();
    await inspector.waitLoaded();
    await inspector.openTab('Log');
    await expect(inspector.logTable.getByRole('columnheader', { name: 'Hidden tokens', exact: true })).toBeVisible();
    await expect(inspector.logGoTo).toHaveCount(cliLog(FILES).length);
    for (const [id, est] of figures) {
      const row = inspector.logTable.getByRole('row').filter({ has: inspector.page.getByRole('button', { name: `Go to ${id}`, exact: true }) });
      await expect(row.getByRole('cell', { name: figure(est), exact: true })).toBeVisible();
    }
    expect(await audit(inspector)).toEqual([]);
  });

  test('a search result shows the tokens of the original it matched in, and the page stays axe clean', async ({ inspector }) => {
    test.slow();
    const [match] = cliSearch(FILES, HIDDEN_ONLY).matches;
    const hid = match && hiddenTokens().get(match.reduction_id);
    if (!match || !hid) throw new Error('the query has no match in an estimated reduction');
    await inspector.waitLoaded();
    await inspector.search(HIDDEN_ONLY);
    await expect(inspector.resultButtons).toHaveCount(1);
    const card = inspector.results.getByRole('listitem');
    const words = card.getByText(/^[\d,]+ tokens est\./);
    await expect(words).toBeVisible();
    const tokens = Number(/^([\d,]+) tokens/.exec((await words.textContent()) ?? '')?.[1]?.replace(/,/g, '') ?? Number.NaN);
    // The whole original is at least what its truncation hid from the model.
    expect(tokens).toBeGreaterThanOrEqual(hid.tokens);
    expect(await audit(inspector)).toEqual([]);
  });
});
