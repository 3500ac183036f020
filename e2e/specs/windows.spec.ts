/**
 * Windows inside a large output. A jump (`Jump to byte`, `Show window`) shows one 1 MiB
 * window at the offset, exactly the bytes `expand --range` gives for it; `Load more` appends
 * windows that grow to 1 MiB while the content holds at most 4 MiB (MAX_SHOWN_BYTES: the earliest
 * windows leave the DOM), and `Show earlier` brings back the bytes before. The sidecar (one output
 * of 12 MiB, multi-byte characters and surrogate pairs in every few lines, so window ends are
 * floored to character boundaries) is written at test time, once per worker, into a temporary folder.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { Locator, Page } from '@playwright/test';
import { audit } from '../axe';
import { cliExpand } from '../cli';
import { expect, testWithWrittenSidecar } from '../fixtures';
import type { InspectorPage, ShownRange } from '../inspectorPage';

const MIB = 1024 * 1024;
const OUTPUT_BYTES = 12 * MIB;
/** The renderer's bound on what an open reduction shows (reductionsSlice MAX_SHOWN_BYTES). */
const MAX_SHOWN_BYTES = 4 * MIB;
const ID = 'r1';

function output(): string {
  const lines: string[] = [];
  let bytes = 0;
  for (let n = 0; bytes < OUTPUT_BYTES; n++) {
    const line = `line ${n} of the build log${n % 3 === 0 ? ' — résumé ✓' : ''}${n % 7 === 0 ? ' 😀' : ''}\n`;
    lines.push(line);
    bytes += Buffer.byteLength(line, 'utf8');
  }
  return lines.join('');
}

function writeSidecar(path: string): void {
  const content = output();
  const total = Buffer.byteLength(content, 'utf8');
  const kept = 5; // "line ": ASCII
  const lines = [
    { t: 'header', format: 'supercode-sidecar', version: 1, session_id: 's-windows', created_at: '2026-12-01T00:00:00Z', model: 'm', gate: true, policy: null },
    { t: 'message', i: 0, msg: { role: 'user', content: 'Build it.' } },
    { t: 'message', i: 1, msg: { role: 'assistant', content: '', tool_calls: [{ id: 'call_0', name: 'shell', arguments: '{"cmd":"make"}' }] } },
    { t: 'message', i: 2, msg: { role: 'tool', tool_call_id: 'call_0', content } },
    {
      t: 'reduction',
      r: {
        id: ID,
        kind: 'tool_output_truncated',
        ptr: { index: 2, hash: `sha256:${createHash('sha256').update(content, 'utf8').digest('hex')}`, bytes: total },
        kept_bytes: kept,
        stub: `⟦reduced⟧ id=${ID} kind=tool_output_truncated hidden_bytes=${total - kept} — expand_reduction("${ID}") restores it`,
        minted_at: 3,
      },
    },
  ];
  writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
}

const test = testWithWrittenSidecar('windows', writeSidecar);

interface PageGlobals {
  location: { hash: string };
  document: { querySelector(s: string): { textContent: string | null; querySelectorAll(s: string): ArrayLike<unknown> } | null; createTreeWalker(root: unknown, show: number): { nextNode(): unknown } };
}

/** Characters and text nodes of the content element (the DOM an open reduction holds). */
function contentSize(page: Page, id: string): Promise<{ chars: number; textNodes: number }> {
  return page.evaluate((name) => {
    const g = globalThis as unknown as PageGlobals;
    const content = g.document.querySelector(`[role="region"][aria-label="${name}"] [role="code"]`);
    if (!content) return { chars: 0, textNodes: 0 };
    const walker = g.document.createTreeWalker(content, 4 /* NodeFilter.SHOW_TEXT */);
    let textNodes = 0;
    while (walker.nextNode()) textNodes++;
    return { chars: content.textContent?.length ?? 0, textNodes };
  }, `Reduction ${id} content`);
}

/**
 * Clicks `button` and waits until `Shown range` differs from what it said and nothing is loading.
 * Clicked again while the range is unchanged and the button enabled: as for the stub chip
 * (InspectorPage.clickUntilExpanded), Playwright scrolls the button into view before clicking and
 * the list places its rows on that scroll's event, so the button can move between the point
 * Playwright reads and its press (a trace showed the press at the button's place of the scroll
 * before, "click action done", and no request). A click that did land disables the button (its
 * window is on its way) or changes the range, so it is never repeated: enabled is read first.
 */
async function clickForNewWindow(inspector: InspectorPage, button: Locator): Promise<ShownRange> {
  // The window shown before the click, once there is one: a region just opened may still be on its
  // way to its first window, which is not the new window the click asks for.
  await inspector.readShownRange(ID);
  const before = (await inspector.shownRange(ID).textContent()) ?? '';
  await expect(async () => {
    if ((await button.isEnabled()) && (await inspector.shownRange(ID).textContent()) === before) await button.click();
    await expect(inspector.shownRange(ID)).not.toHaveText(before, { timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  await expect(inspector.expanded(ID).getByRole('button', { name: 'Load more', exact: true })).toBeEnabled();
  return inspector.readShownRange(ID);
}

/** The open reduction's content is exactly what the CLI prints for its shown range. */
async function expectCliBytes(inspector: InspectorPage, files: readonly string[], shown: ShownRange): Promise<void> {
  const cli = cliExpand(files, ID, [shown.start, shown.end]);
  expect(cli.range).toEqual([shown.start, shown.end]);
  expect(await inspector.readContent(ID)).toBe(cli.content);
}

test.describe('windows inside a 12 MiB output', () => {
  test('a jump shows the one window at the offset: the bytes expand --range gives, and the link names it', async ({ inspector, sessionFiles }) => {
    test.slow();
    await inspector.waitLoaded(60_000);
    const region = await inspector.expand(ID);
    // One byte into a multi-byte character near the middle: the host floors the start.
    const text = output();
    const mid = Buffer.byteLength(text.slice(0, text.indexOf('—', text.length / 2)), 'utf8') + 1;
    await region.getByRole('spinbutton', { name: 'Jump to byte', exact: true }).fill(String(mid));
    const shown = await clickForNewWindow(inspector, region.getByRole('button', { name: 'Show window', exact: true }));
    const cli = cliExpand(sessionFiles, ID, [mid, mid + MIB]);
    expect(cli.range[0], 'the CLI floors the start too').toBe(mid - 1);
    expect([shown.start, shown.end, shown.total]).toEqual([cli.range[0], cli.range[1], cli.total_bytes]);
    expect(await inspector.readContent(ID)).toBe(cli.content);
    // The window is the range chosen: the link names it (SPEC §12).
    const hash = await inspector.page.evaluate(() => (globalThis as unknown as PageGlobals).location.hash);
    expect(hash).toContain(`reduction=${ID}&range=${mid}:${mid + MIB}`);
    expect(await audit(inspector)).toEqual([]);
  });

  test('Load more keeps at most 4 MiB in the DOM, and Show earlier brings the bytes before back', async ({ inspector, inspectorApp, sessionFiles }) => {
    test.slow();
    await inspector.waitLoaded(60_000);
    const region = await inspector.expand(ID);
    const loadMore = region.getByRole('button', { name: 'Load more', exact: true });
    // The copy buttons stay while a window is on its way (disabled, not removed): removed, they
    // moved the content and `Load more` up by their height and back at every click.
    const copy = region.getByRole('button', { name: 'Copy bytes', exact: true });
    await expect(copy).toBeEnabled();
    const copyNode = await copy.elementHandle();
    let shown = await inspector.readShownRange(ID);
    const added: number[] = [];
    for (let k = 0; k < 9; k++) {
      const next = await clickForNewWindow(inspector, loadMore);
      added.push(next.end - shown.end);
      expect(next.end - next.start, 'at most MAX_SHOWN_BYTES shown').toBeLessThanOrEqual(MAX_SHOWN_BYTES);
      shown = next;
    }
    // As much again as is shown, up to 1 MiB (ends floored by at most 3 bytes to a character).
    expect(added.slice(0, 5).map((b) => Math.round(b / 1024))).toEqual([64, 128, 256, 512, 1024]);
    for (const b of added.slice(5)) expect(b).toBeGreaterThan(MIB - 4);
    expect(shown.start, 'the earliest windows left').toBeGreaterThan(0);
    expect(await copyNode?.evaluate((node) => (node as unknown as { isConnected: boolean }).isConnected), 'the same Copy bytes button throughout').toBe(true);
    const size = await contentSize(inspectorApp.page, ID);
    expect(size.chars).toBeLessThanOrEqual(MAX_SHOWN_BYTES);
    // Pieces of about 4 KiB, one text node each until styled (and a few styled in sight).
    expect(size.textNodes).toBeLessThan(MAX_SHOWN_BYTES / 1024);
    await expectCliBytes(inspector, sessionFiles, shown);

    const earlier = await clickForNewWindow(inspector, region.getByRole('button', { name: 'Show earlier', exact: true }));
    expect(earlier.start).toBeLessThan(shown.start);
    expect(earlier.end - earlier.start).toBeLessThanOrEqual(MAX_SHOWN_BYTES);
    await expectCliBytes(inspector, sessionFiles, earlier);
    expect(await audit(inspector)).toEqual([]);
  });
});
