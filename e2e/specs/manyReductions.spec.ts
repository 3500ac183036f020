/**
 * One message carrying 100,000 reductions (100,000 chips in one row froze the page, 18 s
 * long tasks, a click unanswered for 120 s). The file is wrong — two live reductions on one message
 * are `overlapping_reductions` (SPEC §5.6) — but the app must stay responsive: the row shows a few
 * chips and one `N more reductions` button opening a virtualized list of the rest, each item still
 * a `button` named `Expand reduction <id>…` (SPEC §7.1). The sidecar is written at test time, once
 * per worker, into a temporary folder.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { stubText } from '../../shared/format/constants';
import { expect, testWithWrittenSidecar } from '../fixtures';

const REDUCTIONS = 100_000;
/** The view index every reduction addresses. */
const INDEX = 2;
const OUTPUT = '$ npm test\nPASS a.test.ts\nFAIL b.test.ts: expected 3, got 4\nPASS c.test.ts\n';
const BUILD_LOG = Array.from({ length: 80_000 }, (_, k) => `[build] compiled module ${k} of 80000 in 12 ms\n`).join('');
/** Chips in the row before the list opens: the applied stub's and eight others. */
const CHIPS_IN_ROW = 9;
/** Chips the DOM may hold with the list open: the row's, the list's viewport and its overscan, and slack. */
const MAX_CHIP_BUTTONS = 60;
/** The failure was 18 s long tasks; this bounds what is left with a wide margin for a busy machine. */
const MAX_LONG_TASK_MS = 2_000;

const id = (k: number): string => `r${k + 1}`;

function writeSidecar(path: string): void {
  const bytes = Buffer.byteLength(OUTPUT);
  const ptr = { index: INDEX, hash: `sha256:${createHash('sha256').update(OUTPUT).digest('hex')}`, bytes };
  const lines = [
    JSON.stringify({ t: 'header', format: 'supercode-sidecar', version: 1, session_id: 's-many', created_at: '2026-12-01T00:00:00Z', model: 'm', gate: true, policy: null }),
    JSON.stringify({ t: 'message', i: 0, msg: { role: 'user', content: 'Run the tests.' } }),
    JSON.stringify({ t: 'message', i: 1, msg: { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', name: 'shell', arguments: '{"cmd":"npm test"}' }] } }),
    JSON.stringify({ t: 'message', i: INDEX, msg: { role: 'tool', tool_call_id: 'call_1', content: OUTPUT } }),
    JSON.stringify({ t: 'message', i: 3, msg: { role: 'assistant', content: 'One test fails.', tool_calls: [{ id: 'call_2', name: 'shell', arguments: '{"cmd":"cat build.log"}' }] } }),
    // Takes the file past AUTO_CHECK_MAX_BYTES, so the integrity check (99,999 overlapping_reductions,
    // a 16 MB reply, seconds of the worker) waits to be asked and this test is about the view.
    JSON.stringify({ t: 'message', i: 4, msg: { role: 'tool', tool_call_id: 'call_2', content: BUILD_LOG } }),
  ];
  for (let k = 0; k < REDUCTIONS; k++) {
    lines.push(JSON.stringify({ t: 'reduction', r: { id: id(k), kind: 'tool_output_elided', ptr, stub: stubText(id(k), 'tool_output_elided', bytes), minted_at: 5 } }));
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}

const test = testWithWrittenSidecar('many', writeSidecar);

test.describe('a message carrying 100,000 reductions', () => {
  test('shows a few chips and a virtualized list of the rest, whose chips expand; the page never freezes', async ({ inspector, inspectorApp }) => {
    test.slow();
    const { page } = inspectorApp;
    // Long tasks from the first script on (the init script runs before the app's bundle).
    await page.addInitScript(() => {
      const g = globalThis as unknown as {
        __longTasks: number[];
        PerformanceObserver: new (cb: (list: { getEntries(): { duration: number }[] }) => void) => { observe(o: { type: string; buffered: boolean }): void };
      };
      g.__longTasks = [];
      new g.PerformanceObserver((list) => {
        for (const entry of list.getEntries()) g.__longTasks.push(entry.duration);
      }).observe({ type: 'longtask', buffered: true });
    });
    await page.reload();
    await inspector.waitLoaded(60_000);

    const row = inspector.row(INDEX);
    const rest = REDUCTIONS - CHIPS_IN_ROW;
    const more = row.getByRole('button', { name: `${rest.toLocaleString('en-US')} more reductions`, exact: true });
    await expect(more).toBeVisible();
    await expect(row.getByRole('button', { name: /^(Expand|Collapse) reduction / })).toHaveCount(CHIPS_IN_ROW);
    await expect(inspector.stubChip(id(0))).toBeVisible();
    await expect(inspector.stubChip(id(CHIPS_IN_ROW - 1))).toBeVisible();

    // Open the list: a group of chips, only those near its viewport in the DOM.
    await more.click();
    await expect(more).toHaveAttribute('aria-expanded', 'true');
    const list = row.getByRole('group', { name: /^More reductions of Message 2 tool$/ });
    await expect(list.getByRole('button', { name: /^Expand reduction / }).first()).toBeVisible();
    expect(await inspector.stubChips.count()).toBeLessThanOrEqual(MAX_CHIP_BUTTONS);

    // A chip from the middle, reached by scrolling the list, expands to the verified original.
    await list.evaluate((el: { scrollTop: number; scrollHeight: number }) => {
      el.scrollTop = el.scrollHeight / 2;
    });
    const middle = list.getByRole('button', { name: /^Expand reduction r5\d{4}\b/ }).first();
    await expect(middle).toBeVisible();
    const middleId = /^Expand reduction (r\d+)/.exec((await middle.getAttribute('aria-label')) ?? '')?.[1];
    if (middleId === undefined) throw new Error('the chip in the middle of the list has no id in its name');
    await middle.click();
    await expect(inspector.stubChip(middleId)).toHaveAccessibleName(new RegExp(`^Collapse reduction ${middleId}\\b`));
    await expect(inspector.expanded(middleId)).toContainText('verified');
    await expect(inspector.content(middleId)).toHaveText(OUTPUT);

    // The keyboard reaches every chip: End moves focus to the very last one, Enter expands it.
    await inspector.stubChip(middleId).focus();
    await page.keyboard.press('End');
    const last = inspector.stubChip(id(REDUCTIONS - 1));
    await expect(last).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(inspector.expanded(id(REDUCTIONS - 1))).toContainText('verified');
    await expect(inspector.content(id(REDUCTIONS - 1))).toHaveText(OUTPUT);

    expect(await inspector.stubChips.count()).toBeLessThanOrEqual(MAX_CHIP_BUTTONS);
    const longTasks = await page.evaluate(() => (globalThis as unknown as { __longTasks?: number[] }).__longTasks);
    expect(longTasks, 'the long task observer ran in the reloaded page').toBeDefined();
    const longest = Math.max(0, ...(longTasks ?? []));
    test.info().annotations.push({ type: 'longest task', description: `${Math.round(longest)} ms of ${longTasks?.length ?? 0} long tasks` });
    expect(longest).toBeLessThan(MAX_LONG_TASK_MS);
  });
});
