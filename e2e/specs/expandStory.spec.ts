/**
 * Through the HTTP host: inside every expanded reduction the bytes the model saw
 * and the bytes hidden from it are told apart (the hidden part is the group named "Hidden from the
 * model"); a truncation shows its kept prefix once; a cleared range expands into its messages as
 * rows; a duplicate's chip leads to its canonical and says whether the model could still see it; a
 * search match inside a range lands in its message's row. Every expectation comes from the
 * command line over the same file.
 */
import { audit } from '../axe';
import { cliExpand, cliLog, cliSearch } from '../cli';
import { expect, test } from '../fixtures';
import { SESSION_SIDECAR, sample } from '../paths';
import type { InspectorPage } from '../inspectorPage';
import { liveLog } from '../sessionData';

// Its tests share the worker's page, each with its own host (fixtures.ts, reusePage).
test.use({ reusePage: true });

const DEMO = sample('demo.sidecar.jsonl');
const bytesOf = (text: string) => new TextEncoder().encode(text);
const textOf = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/**
 * How the seen run of an open reduction is marked on the page, not only named: the run's own
 * underline, or, for a window cut in pieces (blocks the inline run's underline does not reach),
 * each piece's.
 */
async function seenMarking(inspector: InspectorPage, id: string): Promise<{ pieces: number; marked: boolean }> {
  interface Box {
    querySelectorAll(selector: string): ArrayLike<Box>;
  }
  return inspector
    .seenPart(id)
    .first()
    .evaluate((el: Box) => {
      const style = (e: Box) => (globalThis as unknown as { getComputedStyle(e: Box): { boxShadow: string; textDecorationLine: string } }).getComputedStyle(e);
      const pieces = Array.from(el.querySelectorAll('.content-piece'));
      const marked = pieces.length === 0 ? style(el).boxShadow !== 'none' : pieces.every((p) => style(p).textDecorationLine.includes('underline'));
      return { pieces: pieces.length, marked };
    });
}

test.describe('the §9 demo', () => {
  test.use({ sessionFiles: [DEMO] });

  test('expanding r1 shows the kept prefix once, marked as seen, and the rest inside "Hidden from the model"', async ({ inspector }) => {
    const r1 = liveLog(DEMO).find((r) => r.id === 'r1');
    const whole = cliExpand([DEMO], 'r1');
    const kept = textOf(bytesOf(whole.content).subarray(0, r1?.kept_bytes ?? 0));
    expect(kept).toBe('PASS a.test.ts\n');
    await inspector.waitLoaded();
    const row = inspector.row(2);
    await expect(row).toContainText('PASS a.test.ts');
    await inspector.expand('r1');
    await expect(inspector.seenPart('r1')).toHaveText(kept);
    await expect(inspector.hiddenPart('r1')).toHaveText(whole.content.slice(kept.length));
    await expect(inspector.expanded('r1')).toContainText('Seen by the model');
    expect(await seenMarking(inspector, 'r1')).toEqual({ pieces: 0, marked: true });
    // Once on the page: the row no longer repeats the prefix above its open region.
    await expect.poll(async () => ((await row.textContent()) ?? '').split('PASS a.test.ts').length - 1).toBe(1);

    // A window straddling kept_bytes keeps the marking at the boundary.
    const slice = cliExpand([DEMO], 'r1', [10, 30]);
    await inspector.setRange('r1', 10, 30);
    await inspector.expectShownRange('r1', slice.range[0], slice.range[1], whole.total_bytes);
    await expect(inspector.seenPart('r1')).toHaveText(textOf(bytesOf(whole.content).subarray(slice.range[0], 15)));
    await expect(inspector.hiddenPart('r1')).toHaveText(textOf(bytesOf(whole.content).subarray(15, slice.range[1])));
    // And a window past it is all hidden.
    await inspector.setRange('r1', 20, 40);
    await expect(inspector.seenPart('r1')).toHaveCount(0);
    await expect(inspector.hiddenPart('r1')).toHaveText(cliExpand([DEMO], 'r1', [20, 40]).content);
    // The region no longer shows the prefix: the row does again, once.
    await expect.poll(async () => ((await row.textContent()) ?? '').split('PASS a.test.ts').length - 1).toBe(1);
    await expect(inspector.expanded('r1')).not.toContainText('PASS a.test.ts');

    expect(await audit(inspector)).toEqual([]);
    await inspector.toggleTheme();
    expect(await audit(inspector)).toEqual([]);
  });
});

test.describe('the sample session', () => {
  test('a long kept prefix, cut in pieces, is underlined on every piece (in windows)', async ({ inspector }) => {
    // The truncation keeping the most: its prefix runs over many lines.
    const long = liveLog(SESSION_SIDECAR)
      .filter((r) => r.kind === 'tool_output_truncated')
      .sort((a, b) => (b.kept_bytes ?? 0) - (a.kept_bytes ?? 0))[0];
    if (!long) throw new Error('the sample has no truncation');
    await inspector.waitLoaded();
    await inspector.expand(long.id);
    await expect(inspector.seenPart(long.id)).not.toHaveCount(0);
    await expect.poll(async () => (await seenMarking(inspector, long.id)).pieces).toBeGreaterThan(0);
    expect(await seenMarking(inspector, long.id)).toMatchObject({ marked: true });
  });

  test('a kept prefix in terminal colours stays readable where it is marked seen by the model (axe, both themes)', async ({ inspector }) => {
    // A truncation whose kept prefix holds colour escapes: its seen part is drawn in the ANSI palette.
    const coloured = liveLog(SESSION_SIDECAR).find((r) => r.kind === 'tool_output_truncated' && (r.kept_bytes ?? 0) > 0 && cliExpand([SESSION_SIDECAR], r.id, [0, r.kept_bytes ?? 0]).content.includes('\u001b['));
    if (!coloured) throw new Error('the sample has no truncation with colour escapes in its kept prefix');
    await inspector.waitLoaded();
    await inspector.expand(coloured.id);
    await expect(inspector.seenPart(coloured.id)).not.toHaveCount(0);
    expect(await audit(inspector)).toEqual([]);
    await inspector.toggleTheme();
    expect(await audit(inspector)).toEqual([]);
  });

  test('a cleared range expands into its messages as rows, with role and index; one message can be shown alone', async ({ inspector }) => {
    const cleared = liveLog(SESSION_SIDECAR).find((r) => r.kind === 'turns_cleared' && r.id === 'r10');
    if (!cleared?.end) throw new Error('the sample has no cleared range r10');
    const whole = cliExpand([SESSION_SIDECAR], cleared.id);
    await inspector.waitLoaded();
    await inspector.expand(cleared.id);
    const rows = inspector.messageRows(cleared.id);
    // The first window of 64 KiB holds the whole transcript of this range.
    await expect(rows).toHaveCount(cleared.end - cleared.ptr.index);
    await expect(inspector.hiddenPart(cleared.id)).toHaveCount(1);
    for (let i = cleared.ptr.index; i < cleared.end; i++) {
      // Each row's content is exactly what the transcript holds after that message's header.
      const row = inspector.messageRow(cleared.id, i);
      await expect(row).toHaveAccessibleName(new RegExp(`^Message ${i} (user|assistant|tool|system)$`));
      const role = (await row.getAttribute('aria-label'))?.split(' ')[2] ?? '';
      const content = await inspector.readMessage(cleared.id, i);
      expect(whole.content).toContain(`\u27E9\n${content}\n`);
      expect(whole.content).toContain(`\u27E8${role}`);
    }
    // One message alone: the slice is that message's content, as `expand --range` prints it.
    const last = cleared.end - 1;
    await inspector.messageRow(cleared.id, last).getByRole('button', { name: `Show only message ${last}`, exact: true }).click();
    await expect(rows).toHaveCount(1);
    const shown = await inspector.readShownRange(cleared.id);
    await expect.poll(() => inspector.readMessage(cleared.id, last)).toBe(cliExpand([SESSION_SIDECAR], cleared.id, [shown.start, shown.end]).content);

    expect(await audit(inspector)).toEqual([]);
    await inspector.toggleTheme();
    expect(await audit(inspector)).toEqual([]);
  });

  test("a duplicate's chip leads to its canonical and says whether the model could still see it", async ({ inspector }) => {
    const reports = cliLog([SESSION_SIDECAR]);
    const duplicates = liveLog(SESSION_SIDECAR).filter((r) => r.kind === 'duplicate_output' && r.canonical);
    expect(duplicates.length).toBeGreaterThan(0);
    await inspector.waitLoaded();
    for (const dup of duplicates) {
      const canonical = dup.canonical?.index ?? -1;
      // The log's hidden bytes: 0 exactly when the canonical is still visible (SPEC §3.5).
      const visible = reports.find((r) => r.id === dup.id)?.hidden_bytes === 0;
      await inspector.revealStub(dup.id);
      const link = inspector.canonicalLink(canonical);
      await expect(link).toBeVisible();
      await expect(link.locator('xpath=..')).toContainText(visible ? 'the model still saw the canonical' : 'this duplicate hid real content');
    }
    const first = duplicates[0];
    const canonical = first?.canonical?.index ?? -1;
    await inspector.revealStub(first?.id ?? '');
    await inspector.canonicalLink(canonical).click();
    // The row holding the canonical (a cleared range may hold it) is selected and on screen.
    await expect(inspector.selectedRow).toBeInViewport();
    const [from, to] = ((await inspector.selectedRow.getAttribute('aria-label')) ?? '').match(/\d+/g)?.map(Number) ?? [];
    expect(from).toBeLessThanOrEqual(canonical);
    expect(to ?? from).toBeGreaterThanOrEqual(canonical);
  });

  test('a search match inside a cleared range lands in the row of its message, highlighted', async ({ inspector }) => {
    const found = cliSearch([SESSION_SIDECAR], 'error');
    const starts = new Map(liveLog(SESSION_SIDECAR).map((r) => [r.id, r.ptr.index]));
    // One past its range's first message: the page has to place it after earlier messages.
    const match = found.matches.find((m) => m.kind === 'turns_cleared' && m.index > (starts.get(m.reduction_id) ?? m.index));
    if (!match) throw new Error('no match of "error" inside a cleared range of the sample');
    await inspector.waitLoaded();
    await inspector.search('error');
    const button = inspector.page.getByRole('button', { name: `Match in reduction ${match.reduction_id} at byte ${match.offset} of message ${match.index}`, exact: true });
    await inspector.scrollUntilVisible(inspector.results, button);
    await button.click();
    const matched = textOf(bytesOf(match.snippet).subarray(match.snippet_match[0], match.snippet_match[1]));
    // The row of the match holds it marked; every other hit of the query in the open reduction is
    // marked too (the search's pages mark all they hold), each exactly the query's text.
    await expect(inspector.messageRow(match.reduction_id, match.index).locator('mark').first()).toHaveText(matched);
    const marks = inspector.marks(match.reduction_id);
    await expect(marks.first()).toBeVisible();
    for (const text of await marks.allTextContents()) expect(text).toBe(matched);
  });
});
