import { readFileSync } from 'node:fs';
import { cliExpand, cliSearch } from '../cli';
import { expect, test } from '../fixtures';
import { matchName } from '../inspectorPage';
import type { InspectorPage, SearchOptions } from '../inspectorPage';
import { SESSION_SIDECAR } from '../paths';
import { duplicatesWithVisibleCanonical, liveLog } from '../sessionData';

// Its tests share the worker's page, each with its own host (fixtures.ts, reusePage).
test.use({ reusePage: true });

const FILES = [SESSION_SIDECAR];

/** A commit hash of the git log that r4 truncated: written once in the whole sidecar, past the kept prefix. */
const HIDDEN_ONLY = 'a2b53e1dcf28a041449fa5b2017c234846c3eb0f';
/** Dozens of hits in one reduction: more than the agent's result bound lets through. */
const MANY = 'Author:';
/** Hits spread over the build log and the cleared first turns. */
const SPREAD = 'error';

/** Searches in the UI and waits until the agent's JSON is the CLI's result for the same search. */
async function searchLikeCli(inspector: InspectorPage, query: string, options: SearchOptions = {}) {
  const cli = cliSearch(FILES, query, options);
  await inspector.search(query, options);
  await inspector.showAgentJson();
  await expect.poll(() => inspector.readAgentJson(), { message: `As the agent sees it, for ${JSON.stringify(query)}` }).toEqual(cli);
  return cli;
}

test.describe('searching hidden content', () => {
  test('a match in hidden content lands highlighted inside the expanded reduction', async ({ inspector }) => {
    const sidecarText = readFileSync(SESSION_SIDECAR, 'utf8');
    expect(sidecarText.split(HIDDEN_ONLY).length - 1, 'the query occurs once in the whole session').toBe(1);
    const cli = cliSearch(FILES, HIDDEN_ONLY);
    expect(cli.matches).toHaveLength(1);
    const [match] = cli.matches;
    if (!match) throw new Error('unreachable');
    expect(match.kind).not.toBe('turns_cleared');

    await inspector.waitLoaded();
    await inspector.search(HIDDEN_ONLY);
    await expect(inspector.resultButtons).toHaveCount(1);
    const result = inspector.result(match.reduction_id, match.offset);
    await expect(result).toHaveAccessibleName(matchName(match));
    await result.click();

    const region = inspector.expanded(match.reduction_id);
    await expect(region).toBeVisible();
    await expect(inspector.stubChip(match.reduction_id)).toHaveAccessibleName(new RegExp(`^Collapse reduction ${match.reduction_id}(?!\\d)`));
    const mark = inspector.marks(match.reduction_id).filter({ hasText: HIDDEN_ONLY });
    await expect(mark).toHaveCount(1);
    await expect(mark).toHaveText(HIDDEN_ONLY);
    await expect(mark).toBeInViewport();
    // The window shown around the match holds it.
    const shown = await inspector.readShownRange(match.reduction_id);
    expect(shown.start).toBeLessThanOrEqual(match.offset);
    expect(shown.end).toBeGreaterThanOrEqual(match.offset + match.length);
  });

  test('"As the agent sees it" is exactly the CLI search result, bounds included', async ({ inspector }) => {
    await inspector.waitLoaded();
    const cli = await searchLikeCli(inspector, MANY);
    expect(cli.truncated, 'this query overflows the agent bounds').toBe(true);
    await inspector.expectResults(cli.matches);
  });

  test('a duplicate whose canonical is visible is never a hit', async ({ inspector }) => {
    const [duplicate] = duplicatesWithVisibleCanonical(liveLog(SESSION_SIDECAR));
    if (!duplicate) throw new Error('the sample has no duplicate_output whose canonical is visible');
    const { content } = cliExpand(FILES, duplicate.id);
    // A string of that content that no searched hidden content holds.
    const unique = [...new Set(content.match(/[\w@/.-]{12,}/g) ?? [])].find((word) => cliSearch(FILES, word).total_matches === 0);
    if (!unique) throw new Error(`no word of ${duplicate.id}'s content is absent from the rest of the hidden content`);
    // And one it shares with hidden content elsewhere.
    const shared = [...new Set(content.match(/[\w@/.-]{8,}/g) ?? [])].find((word) => cliSearch(FILES, word).total_matches > 0);

    await inspector.waitLoaded();
    const none = await searchLikeCli(inspector, unique);
    expect(none.matches).toEqual([]);
    await inspector.expectResults([]);

    if (shared) {
      const some = await searchLikeCli(inspector, shared);
      expect(some.matches.map((m) => m.reduction_id)).not.toContain(duplicate.id);
      await inspector.expectResults(some.matches);
      await expect(inspector.result(duplicate.id)).toHaveCount(0);
    }
  });

  test('the regex and case toggles change the results', async ({ inspector }) => {
    await inspector.waitLoaded();
    const lower = MANY.toLowerCase();
    const sensitive = await searchLikeCli(inspector, lower, { caseSensitive: true });
    await inspector.expectResults(sensitive.matches);
    const insensitive = await searchLikeCli(inspector, lower, { caseSensitive: false });
    expect(insensitive.matches.length).not.toBe(sensitive.matches.length);
    await inspector.expectResults(insensitive.matches);

    const pattern = `${HIDDEN_ONLY.slice(0, 8)}[0-9a-f]+`;
    const literal = await searchLikeCli(inspector, pattern, { regex: false });
    await inspector.expectResults(literal.matches);
    const regex = await searchLikeCli(inspector, pattern, { regex: true });
    expect(regex.matches.length).not.toBe(literal.matches.length);
    await inspector.expectResults(regex.matches);
  });

  test('a new query replaces the results of the previous one', async ({ inspector }) => {
    const many = cliSearch(FILES, SPREAD);
    const one = cliSearch(FILES, HIDDEN_ONLY);
    const oneIds = new Set(one.matches.map((m) => m.reduction_id));
    const onlyFirst = [...new Set(many.matches.map((m) => m.reduction_id))].filter((id) => !oneIds.has(id));
    expect(onlyFirst, 'the first query hits reductions the second does not').not.toEqual([]);
    await inspector.waitLoaded();
    await inspector.openTab('Search');
    // The second query is typed while the first may still be searching.
    await inspector.searchBox.fill(SPREAD);
    await inspector.searchBox.press('Enter');
    await inspector.searchBox.fill(HIDDEN_ONLY);
    await inspector.searchBox.press('Enter');
    await inspector.showAgentJson();
    await expect.poll(() => inspector.readAgentJson()).toEqual(one);
    await inspector.expectResults(one.matches);
    for (const id of onlyFirst) await expect(inspector.result(id)).toHaveCount(0);
    // A late answer to the first query must not come back over the second's.
    await expect.poll(() => inspector.readAgentJson()).toEqual(one);
  });
});
