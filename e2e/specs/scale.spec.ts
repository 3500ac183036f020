/**
 * A session too tall for the browser to lay out at real offsets (300,000 rows: ~30M px of rows
 * against Chromium's ~33.5M px cap on an element, and the view's own 15M px scroll height): every
 * row stays reachable by scrolling (keys, scrollbar, wheel) and by navigation, the DOM keeps a few
 * dozen rows. The sidecar is written at test time, once per worker, into a temporary folder.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { stubText } from '../../shared/format/constants';
import { expect, testWithWrittenSidecar } from '../fixtures';
import type { InspectorPage } from '../inspectorPage';
import { recordedTexts, textRecorder } from '../textRecorder';

const ROWS = 300_000;
/** Far under 200 row elements in the page at any scroll position: the list is virtualized. */
const MAX_DOM_ROWS = 200;

const WORDS = ['build', 'test', 'src', 'lint', 'module', 'cache', 'index', 'render', 'worker', 'slice', 'range', 'parser'];
const words = (i: number, n: number): string => Array.from({ length: n }, (_, k) => WORDS[(i * 7 + k * 5) % WORDS.length]).join(' ');

/** View message `i`: user, assistant with a tool call, tool output, in turn (60–150 bytes each). */
function message(i: number): Record<string, unknown> {
  const turn = Math.floor(i / 3);
  if (i % 3 === 0) return { role: 'user', content: `Turn ${turn}: please ${words(i, 3 + (i % 7))}.` };
  if (i % 3 === 1) return { role: 'assistant', content: `Checking ${words(i, 2 + (i % 4))}.`, tool_calls: [{ id: `call_${turn}`, name: 'shell', arguments: '{"cmd":"npm test"}' }] };
  return { role: 'tool', tool_call_id: `call_${turn}`, content: `$ npm test\n${words(i, 4 + (i % 9))}\nexit 0\n` };
}

/** The reductions: tool outputs at the top, in the middle and the very last row. */
const REDUCED = [
  { id: 'r1', index: 2, kind: 'tool_output_elided' },
  { id: 'r2', index: 150_002, kind: 'tool_output_truncated' },
  { id: 'r3', index: ROWS - 1, kind: 'tool_output_elided' },
] as const;

function writeSidecar(path: string): void {
  const lines = [
    JSON.stringify({ t: 'header', format: 'supercode-sidecar', version: 1, session_id: 's-scale', created_at: '2026-12-01T00:00:00Z', model: 'm', gate: true, policy: null }),
  ];
  for (let i = 0; i < ROWS; i++) lines.push(JSON.stringify({ t: 'message', i, msg: message(i) }));
  for (const r of REDUCED) {
    const content = message(r.index).content as string;
    const bytes = Buffer.byteLength(content);
    const kept = r.kind === 'tool_output_truncated' ? 11 : 0;
    const ptr = { index: r.index, hash: `sha256:${createHash('sha256').update(content).digest('hex')}`, bytes };
    lines.push(JSON.stringify({ t: 'reduction', r: { id: r.id, kind: r.kind, ptr, ...(kept ? { kept_bytes: kept } : {}), stub: stubText(r.id, r.kind, bytes - kept), minted_at: ROWS } }));
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}

const test = testWithWrittenSidecar('scale', writeSidecar);

/** The `data-row` of the first row in the view's viewport and the row elements in the DOM. */
async function viewport(inspector: InspectorPage): Promise<{ first: number; domRows: number }> {
  return inspector.view.evaluate((view: { getBoundingClientRect(): { top: number }; querySelectorAll(s: string): ArrayLike<{ getBoundingClientRect(): { bottom: number }; getAttribute(n: string): string | null }> }) => {
    const top = view.getBoundingClientRect().top;
    const rows = Array.from(view.querySelectorAll('[role="listitem"]'));
    const first = rows.find((row) => row.getBoundingClientRect().bottom > top + 1);
    return { first: Number(first?.getAttribute('data-row') ?? -1), domRows: rows.length };
  });
}

test.describe('a session of 300,000 rows', () => {
  // Every text the load's progress showed, however briefly.
  test.use({ pageInitScript: textRecorder('.load-progress-text', 'loadSaid') });

  test.beforeEach(async ({ inspector }) => {
    // 44 MiB to index, under the progress bar (the first rows show before): minutes are not
    // expected, but a loaded CI machine can take more than the default ten seconds.
    test.slow();
    await inspector.waitLoaded(60_000);
    await expect(inspector.status).toContainText('300,000 rows');
  });

  test('scrolls end to end with the keys, the scroll position and the wheel; the DOM stays small', async ({ inspector }) => {
    const { page, view } = inspector;
    // While it was indexed, the progress said how far in sizes a person reads (the file is some 44 MiB).
    const said = await recordedTexts(page, 'loadSaid');
    expect(said.some((text) => /^Loading session: [\d.]+ (bytes|KiB|MiB) of 4\d\.\d MiB \(\d{1,2} %\)/.test(text)), said.join(' | ')).toBe(true);
    const last = inspector.row(ROWS - 1);

    // Keyboard: End and Home on the focused view (the browser's own scrolling), once it holds the
    // focus (focus() does not wait for it).
    await view.focus();
    await expect(view).toBeFocused();
    await page.keyboard.press('End');
    await expect(last).toBeInViewport({ ratio: 1 });
    await page.keyboard.press('Home');
    await expect(inspector.row(0)).toBeInViewport({ ratio: 1 });

    // The scrollbar (hidden in headless Chromium, so its effect): scrollTop from the top to the bottom in steps.
    let previous = -1;
    for (let step = 1; step <= 10; step++) {
      await view.evaluate((el: { scrollTop: number; scrollHeight: number; clientHeight: number }, t) => {
        el.scrollTop = t * (el.scrollHeight - el.clientHeight);
      }, step / 10);
      await expect.poll(async () => (await viewport(inspector)).first).toBeGreaterThan(previous);
      const now = await viewport(inspector);
      expect(now.domRows).toBeLessThan(MAX_DOM_ROWS);
      previous = now.first;
    }
    await expect(last).toBeInViewport({ ratio: 1 });
    await expect(last).toHaveAccessibleName(/^Message 299999 tool/);

    // The wheel and Page Up move it back up a few rows, pixel for pixel, not thousands of rows.
    await view.hover();
    const before = (await viewport(inspector)).first;
    await page.mouse.wheel(0, -600);
    await expect.poll(async () => (await viewport(inspector)).first).toBeLessThan(before);
    const wheeled = (await viewport(inspector)).first;
    expect(before - wheeled).toBeLessThan(30);
    await view.focus();
    await expect(view).toBeFocused();
    await page.keyboard.press('PageUp');
    await expect.poll(async () => (await viewport(inspector)).first).toBeLessThan(wheeled);
    expect(wheeled - (await viewport(inspector)).first).toBeLessThan(30);
    expect((await viewport(inspector)).domRows).toBeLessThan(MAX_DOM_ROWS);
  });

  test('navigation lands exactly on rows far down: go to, j/k, n/N, a search match', async ({ inspector }) => {
    const { page } = inspector;
    // The log's Go to: the middle reduction, then the very last row.
    await inspector.openTab('Log');
    await inspector.logTable.getByRole('button', { name: 'Go to r2', exact: true }).click();
    await expect(inspector.selectedRow).toHaveAttribute('data-index', '150002');
    await expect(inspector.selectedRow).toBeInViewport();
    await expect(inspector.expanded('r2')).toBeVisible();
    await inspector.logTable.getByRole('button', { name: 'Go to r3', exact: true }).click();
    await expect(inspector.selectedRow).toHaveAttribute('data-index', String(ROWS - 1));
    await expect(inspector.row(ROWS - 1)).toBeInViewport();
    await expect(inspector.expanded('r3')).toBeInViewport();

    // j/k from the last rows, N back to the middle stub, n to the last one.
    await inspector.view.focus();
    await page.keyboard.press('k');
    await expect(inspector.selectedRow).toHaveAttribute('data-index', String(ROWS - 2));
    await expect(inspector.selectedRow).toBeInViewport({ ratio: 1 });
    await page.keyboard.press('Shift+N');
    await expect(inspector.selectedRow).toHaveAttribute('data-index', '150002');
    await expect(inspector.selectedRow).toBeInViewport();
    await page.keyboard.press('j');
    await expect(inspector.selectedRow).toHaveAttribute('data-index', '150003');
    await expect(inspector.selectedRow).toBeInViewport({ ratio: 1 });
    await page.keyboard.press('n');
    await expect(inspector.selectedRow).toHaveAttribute('data-index', String(ROWS - 1));
    await expect(inspector.selectedRow).toBeInViewport();

    // A search match in the middle reduction: its row, expanded, the match highlighted.
    await inspector.search('exit 0');
    const hit = inspector.result('r2');
    await expect(hit).toHaveCount(1);
    await hit.click();
    await expect(inspector.selectedRow).toHaveAttribute('data-index', '150002');
    await expect(inspector.marks('r2').first()).toBeInViewport();
  });
});
