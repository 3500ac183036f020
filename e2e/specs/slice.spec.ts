import { cliExpand } from '../cli';
import { expect, test } from '../fixtures';
import { holdReplies } from '../heldReplies';
import type { InspectorPage } from '../inspectorPage';
import { SESSION_SIDECAR } from '../paths';
import { displaysVerbatim, liveLog, multiByteOffsets, stubbedReductions, utf8 } from '../sessionData';

// Its tests share the worker's page, each with its own host (fixtures.ts, reusePage).
test.use({ reusePage: true });

const FILES = [SESSION_SIDECAR];

/** A truncated output with a chip, shown verbatim, with multi-byte characters in its hidden span. */
function sliceable(): { id: string; content: string; kept: number } {
  for (const r of stubbedReductions(liveLog(SESSION_SIDECAR))) {
    if (r.kind !== 'tool_output_truncated' || r.kept_bytes === undefined) continue;
    const { content } = cliExpand(FILES, r.id);
    if (displaysVerbatim(content) && multiByteOffsets(content, r.kept_bytes).length >= 2) return { id: r.id, content, kept: r.kept_bytes };
  }
  throw new Error('no truncated output of the sample has multi-byte characters in its hidden span');
}

/** The shown range and content equal what the CLI prints for the sliders' values. */
async function expectSlidersMatchCli(inspector: InspectorPage, id: string): Promise<[number, number]> {
  const start = Number(await inspector.rangeStartSlider(id).getAttribute('aria-valuenow'));
  const end = Number(await inspector.rangeEndSlider(id).getAttribute('aria-valuenow'));
  const cli = cliExpand(FILES, id, [start, end]);
  await inspector.expectShownRange(id, cli.range[0], cli.range[1], cli.total_bytes);
  await expect.poll(() => inspector.readContent(id)).toBe(cli.content);
  return [start, end];
}

test.describe('slicing a byte range', () => {
  test('typed ends are floored to character boundaries, as the CLI does', async ({ inspector }) => {
    const { id, content, kept } = sliceable();
    // Both ends one byte into a multi-byte character, so both visibly floor.
    const offsets = multiByteOffsets(content, kept + 1);
    const first = offsets[0] ?? 0;
    const second = offsets.find((o) => o > first + 40) ?? offsets[offsets.length - 1] ?? 0;
    const typed: [number, number] = [first + 1, second + 1];
    const cli = cliExpand(FILES, id, typed);
    expect(cli.range, 'the CLI floors both ends').toEqual([first, second]);
    expect(cli.content).toBe(utf8(content).subarray(first, second).toString('utf8'));

    await inspector.waitLoaded();
    await inspector.expand(id);
    await inspector.setRange(id, typed[0], typed[1]);
    await inspector.expectShownRange(id, first, second, cli.total_bytes);
    await expect.poll(() => inspector.readContent(id)).toBe(cli.content);
  });

  test('keyboard steps on the sliders move the range', async ({ inspector }) => {
    const { id, content, kept } = sliceable();
    const total = utf8(content).length;
    await inspector.waitLoaded();
    await inspector.expand(id);
    // A window well inside the content, so both thumbs can move both ways.
    await inspector.setRange(id, kept + 100, Math.min(total, kept + 900));
    const [start0, end0] = await expectSlidersMatchCli(inspector, id);

    const startSlider = inspector.rangeStartSlider(id);
    await startSlider.focus();
    await startSlider.press('ArrowRight');
    await expect.poll(async () => Number(await startSlider.getAttribute('aria-valuenow'))).toBeGreaterThan(start0);
    const [start1] = await expectSlidersMatchCli(inspector, id);

    const endSlider = inspector.rangeEndSlider(id);
    await endSlider.focus();
    await endSlider.press('ArrowLeft');
    await expect.poll(async () => Number(await endSlider.getAttribute('aria-valuenow'))).toBeLessThan(end0);
    await expectSlidersMatchCli(inspector, id);

    await startSlider.focus();
    await startSlider.press('Home');
    await expect.poll(async () => Number(await startSlider.getAttribute('aria-valuenow'))).toBeLessThan(start1);
    await expect(startSlider).toHaveAttribute('aria-valuenow', '0');
    await expectSlidersMatchCli(inspector, id);
  });

  test('what is typed into a range box is kept when the first window lands under it', async ({ inspector }) => {
    const { id } = sliceable();
    await inspector.waitLoaded();
    // The first window's reply is held until the End box has focus and its text is selected (what
    // a fill does before it types): the window then lands under the selection.
    const held = await holdReplies(inspector.page, 'expand');
    try {
      await inspector.expand(id);
      const end = inspector.rangeEnd(id);
      // The boxes show once the reduction's size is known (its status), before any window.
      await expect(end).not.toHaveAttribute('max', '0');
      await expect.poll(() => held.asked()).toBe(1);
      await end.focus();
      await end.selectText();
      const before = await end.inputValue();
      held.release();
      await expect(inspector.shownRange(id)).toHaveText(/bytes \d+–\d+ of \d+$/);
      // The window landed: the box still shows what it showed when focused, its text still selected.
      await expect(end).toHaveValue(before);
      await inspector.page.keyboard.insertText('40');
      await expect(end).toHaveValue('40');
      const cli = cliExpand(FILES, id, [0, 40]);
      await inspector.expectShownRange(id, cli.range[0], cli.range[1], cli.total_bytes);
      await expect.poll(() => inspector.readContent(id)).toBe(cli.content);
    } finally {
      await held.stop();
    }
  });
});
