/**
 * Comparing any two calls (SPEC §16) through the HTTP host, on a real Claude Code session of 149
 * calls with two compactions: the `Diff` tab compares calls 3 and 40 (`From call` / `To call`)
 * and shows the first compaction's summary, the reduced messages' line diff and the tokens each way
 * (the recorded context of both calls, estimates marked `est.`); `Go to call` jumps;
 * the `Model call` slider steps by 1, 10 (PageUp / PageDown) and to its ends (Home / End), and marks
 * each compaction. Expected values are read from the file's raw records. Axe-clean.
 */
import { readFileSync } from 'node:fs';
import { audit } from '../axe';
import { expect, test } from '../fixtures';
import { holdReplies } from '../heldReplies';
import { fixture } from '../importedSession';

// Its tests share the worker's page, each with its own host (fixtures.ts, reusePage).
test.use({ reusePage: true });

const TWO_COMPACTIONS = fixture('real/claude-code/cc-2.1.14-two-compactions.jsonl');

/** From the raw records: how many compact_boundary records, and the first isCompactSummary text. */
function rawCompactions(): { count: number; firstSummary: string } {
  const records = readFileSync(TWO_COMPACTIONS, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { type?: string; subtype?: string; isCompactSummary?: boolean; message?: { content?: unknown } });
  const summary = records.find((r) => r.isCompactSummary === true)?.message?.content;
  return { count: records.filter((r) => r.type === 'system' && r.subtype === 'compact_boundary').length, firstSummary: typeof summary === 'string' ? summary : '' };
}

test.describe('comparing any two calls', () => {
  test.use({ sessionFiles: [TWO_COMPACTIONS] });
  // Each call shown loads its input's rows (tens of KiB each); axe then walks the whole page.
  test.setTimeout(180_000);

  test('the Diff tab compares calls 3 and 40: the compaction between them, its summary, the reduced messages with their line diff', async ({ inspector }) => {
    const raw = rawCompactions();
    expect(raw.count).toBe(2);
    await inspector.waitLoaded();
    await inspector.compareCalls(3, 40);
    const region = inspector.page.getByRole('region', { name: 'Diff between calls', exact: true });
    await expect(region.getByText(/^From call 3 to call 40: /)).toBeVisible();
    await expect(inspector.fromCall).toHaveValue('3');
    await expect(inspector.toCall).toHaveValue('40');
    // The summary is shown as text, its first line as the file holds it.
    const firstLine = raw.firstSummary.split('\n')[0] ?? '';
    expect(firstLine.length).toBeGreaterThan(10);
    const summary = region.getByRole('region', { name: /^Compaction / }).getByLabel('Summary given instead', { exact: true });
    await expect(summary).toContainText(firstLine);
    const runs = region.getByRole('list', { name: 'Messages reduced or restored', exact: true });
    await expect(runs.getByRole('listitem').first()).toContainText('reduced by');
    await expect(runs.getByLabel(/^Line diff of message/).first()).toBeVisible();
    // Tokens each way: both calls record their context (no est.), what changed is estimated.
    const tokens = region.getByRole('table', { name: 'Tokens each way', exact: true });
    const context = tokens.getByRole('row', { name: /^Context / });
    await expect(context.getByRole('cell').nth(0)).toHaveText(/^[\d,]+ tokens$/);
    await expect(context.getByRole('cell').nth(1)).toHaveText(/^[\d,]+ tokens$/);
    await expect(tokens.getByRole('row', { name: /^Messages added / }).getByRole('cell').nth(1)).toHaveText(/^[\d,]+ tokens est\.$/);
    await expect(region.getByText(/^From call 3 to call 40: .* [\d,]+ tokens → [\d,]+ tokens\.$/)).toBeVisible();
    expect(await audit(inspector)).toEqual([]);
  });

  test("from the last call to the latest view: the view's context is the call's recorded one and the estimated change, not a fall", async ({ inspector }) => {
    await inspector.waitLoaded();
    const last = Number(await inspector.modelCallSlider.getAttribute('max'));
    await inspector.compareCalls(last, null);
    const region = inspector.page.getByRole('region', { name: 'Diff between calls', exact: true });
    const line = region.getByText(new RegExp(`^From call ${last} to the latest view: `));
    // One full stop after `est.`.
    await expect(line).toHaveText(/ [\d,]+ tokens → [\d,]+ tokens est\.$/);
    const text = (await line.textContent()) ?? '';
    // Nothing left the context here: the latest view holds the call's input and more.
    expect(text).toContain('0 reductions left the context');
    const [from, to] = [...text.matchAll(/([\d,]+) tokens/g)].map((m) => Number((m[1] ?? '').replaceAll(',', '')));
    expect(to).toBeGreaterThanOrEqual(from ?? Number.POSITIVE_INFINITY);
    // The table of changes keeps to the panel: its added message's bytes and tokens break onto two lines rather than run past the edge.
    const changes = region.getByRole('table', { name: 'Context diff', exact: true });
    await expect(changes.getByRole('row', { name: /^Added / })).toContainText(/[\d.]+ (bytes|KiB|MiB), [\d,]+ tokens est\./);
    const overflow = await changes.evaluate((t: { scrollWidth: number; parentElement: { clientWidth: number } | null }) => t.scrollWidth - (t.parentElement?.clientWidth ?? 0));
    expect(overflow).toBeLessThanOrEqual(0);
    const context = region.getByRole('table', { name: 'Tokens each way', exact: true }).getByRole('row', { name: /^Context / });
    await expect(context).toContainText(`est. as call ${last}'s recorded ${(from ?? 0).toLocaleString('en-US')} tokens and the estimated change between the calls`);
  });

  test('Go to call jumps to a call; the slider steps by 1, by 10 with PageUp / PageDown, to its ends with Home / End; compactions are marked', async ({ inspector }) => {
    const raw = rawCompactions();
    await inspector.waitLoaded();
    const slider = inspector.modelCallSlider;
    await expect(slider).toHaveAttribute('max', '149');
    const goTo = inspector.page.getByRole('spinbutton', { name: 'Go to call', exact: true });
    await goTo.fill('100');
    await goTo.press('Enter');
    await expect(inspector.status).toContainText('call 100 of 149');
    await expect(slider).toHaveAttribute('aria-valuetext', 'call 100 of 149');

    await slider.focus();
    await slider.press('PageUp');
    await expect(inspector.status).toContainText('call 110 of 149');
    await slider.press('PageDown');
    await slider.press('PageDown');
    await expect(inspector.status).toContainText('call 90 of 149');
    await slider.press('ArrowLeft');
    await expect(inspector.status).toContainText('call 89 of 149');
    await slider.press('Home');
    await expect(inspector.status).toContainText('call 1 of 149');
    await slider.press('End');
    await expect(inspector.status).toContainText('call 149 of 149');

    // A call out of range is said, not shown.
    await goTo.fill('150');
    await goTo.press('Enter');
    await expect(inspector.page.getByRole('alert').filter({ hasText: 'A call from 1 to 149' })).toBeVisible();
    await expect(inspector.status).toContainText('call 149 of 149');

    // One mark per compaction of the file.
    await expect(inspector.page.locator('#model-call-compactions option')).toHaveCount(raw.count);
    await expect(inspector.page.getByText(/^Compactions first seen at calls \d+, \d+$/)).toBeVisible();
    expect(await audit(inspector)).toEqual([]);
  });

  test('a call typed before the default diff lands is kept, the field left alone shows the default; choosing another call shows its default', async ({ inspector }) => {
    await inspector.waitLoaded();
    // The default diff's replies are held until a call is typed into `From call`.
    const held = await holdReplies(inspector.page, 'callDiff');
    try {
      await inspector.openTab('Diff');
      await expect.poll(() => held.asked()).toBeGreaterThan(0);
      await inspector.fromCall.fill('3');
      held.release();
      const region = inspector.page.getByRole('region', { name: 'Diff between calls', exact: true });
      // The default (the last call against the latest view) lands: the summary names it.
      await expect(region.getByText(/^From call \d+ to the latest view/)).toBeVisible();
      await expect(inspector.fromCall).toHaveValue('3');
      await expect(inspector.toCall).toHaveValue('');
      await inspector.page.getByRole('button', { name: 'Compare', exact: true }).click();
      await expect(region.getByText(/^From call 3 to the latest view/)).toBeVisible();
      // Typed again, then another call chosen: its default (the call before it, and it) replaces what was typed.
      await inspector.fromCall.fill('7');
      await inspector.showCall(5);
      await expect(region.getByText(/^From call 4 to call 5: /)).toBeVisible();
      await expect(inspector.fromCall).toHaveValue('4');
      await expect(inspector.toCall).toHaveValue('5');
    } finally {
      await held.stop();
    }
  });
});
