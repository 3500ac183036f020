import { expect, test } from '../fixtures';
import type { InspectorPage } from '../inspectorPage';
import { SESSION_SIDECAR } from '../paths';
import { liveLog, stubbedReductions } from '../sessionData';

// Its tests share the worker's page, each with its own host (fixtures.ts, reusePage).
test.use({ reusePage: true });

/** The stubs of the projected view, top to bottom: what `n`/`N` step through. */
const stubs = stubbedReductions(liveLog(SESSION_SIDECAR));
const stubIndices = stubs.map((r) => r.ptr.index);

async function selected(inspector: InspectorPage, attribute: 'data-row' | 'data-index'): Promise<number> {
  await expect(inspector.selectedRow).toHaveCount(1);
  return Number(await inspector.selectedRow.getAttribute(attribute));
}

test.describe('keyboard', () => {
  test('j and k move the selected row', async ({ inspector }) => {
    const keys = inspector.page.keyboard;
    await inspector.waitLoaded();
    await keys.press('j');
    const start = await selected(inspector, 'data-row');
    await keys.press('j');
    await expect(inspector.selectedRow).toHaveAttribute('data-row', String(start + 1));
    await keys.press('j');
    await expect(inspector.selectedRow).toHaveAttribute('data-row', String(start + 2));
    await keys.press('k');
    await expect(inspector.selectedRow).toHaveAttribute('data-row', String(start + 1));
    await expect(inspector.selectedRow).toHaveAttribute('aria-current', 'true');
    await expect(inspector.selectedRow).toBeInViewport();
  });

  test('n and N move between stubs', async ({ inspector }) => {
    const keys = inspector.page.keyboard;
    await inspector.waitLoaded();
    await keys.press('n');
    const first = await selected(inspector, 'data-index');
    expect(stubIndices).toContain(first);
    const at = stubIndices.indexOf(first);
    const next = stubIndices[at + 1];
    const afterNext = stubIndices[at + 2];
    if (next === undefined || afterNext === undefined) throw new Error('the sample has too few stubs below the first one');
    await keys.press('n');
    await expect(inspector.selectedRow).toHaveAttribute('data-index', String(next));
    await keys.press('n');
    await expect(inspector.selectedRow).toHaveAttribute('data-index', String(afterNext));
    await expect(inspector.selectedRow).toBeInViewport();
    await keys.press('Shift+N');
    await expect(inspector.selectedRow).toHaveAttribute('data-index', String(next));
  });

  test('Enter expands the selected stub and Esc collapses it', async ({ inspector }) => {
    const keys = inspector.page.keyboard;
    await inspector.waitLoaded();
    // A stub below the first, reached by the keyboard alone (each step waited for: a key pressed
    // before the previous one moved the selection would read the wrong row).
    await keys.press('n');
    const first = await selected(inspector, 'data-index');
    const index = stubIndices[stubIndices.indexOf(first) + 1];
    const stub = stubs.find((r) => r.ptr.index === index);
    if (index === undefined || !stub) throw new Error(`no stub below view index ${first}`);
    await keys.press('n');
    await expect(inspector.selectedRow).toHaveAttribute('data-index', String(index));
    await expect(inspector.selectedRow.getByRole('button', { name: new RegExp(`^Expand reduction ${stub.id}(?!\\d)`) })).toBeVisible();

    await keys.press('Enter');
    await expect(inspector.expanded(stub.id)).toBeVisible();
    await expect(inspector.stubChip(stub.id)).toHaveAccessibleName(new RegExp(`^Collapse reduction ${stub.id}(?!\\d)`));
    await keys.press('Escape');
    await expect(inspector.expanded(stub.id)).toBeHidden();
    await expect(inspector.stubChip(stub.id)).toHaveAccessibleName(new RegExp(`^Expand reduction ${stub.id}(?!\\d)`));
  });

  test('? opens the shortcuts and / focuses the search box', async ({ inspector }) => {
    const keys = inspector.page.keyboard;
    await inspector.waitLoaded();
    await keys.press('?');
    await expect(inspector.shortcutsDialog).toBeVisible();
    await keys.press('Escape');
    await expect(inspector.shortcutsDialog).toBeHidden();

    await keys.press('/');
    await expect(inspector.searchBox).toBeFocused();
    // Typed into the box, a key is text, not a shortcut.
    await keys.type('j?');
    await expect(inspector.searchBox).toHaveValue('j?');
    await expect(inspector.shortcutsDialog).toBeHidden();
  });
});

/** The few DOM members the page function below uses (the specs are typed without the DOM's lib). */
interface Box {
  top: number;
  bottom: number;
  left: number;
}
interface Row {
  getBoundingClientRect(): Box;
  scrollIntoView(options: { block: 'center' }): void;
  contains(other: unknown): boolean;
}
interface Scroller {
  getBoundingClientRect(): Box;
  querySelectorAll(selector: string): Iterable<Row>;
}

test.describe('the browser’s own scrolls', () => {
  // Focus, find and automation (Playwright's click) scroll a row into view with the browser's own
  // scroll and read its box at once: the rows must be there before the list hears of the scroll.
  test('a row scrolled into view by the browser is in view and under the pointer at once', async ({ inspector }) => {
    await inspector.waitLoaded();
    const result = await inspector.view.evaluate((scroller: Scroller) => {
      const doc = (globalThis as unknown as { document: { elementFromPoint(x: number, y: number): unknown } }).document;
      const view = scroller.getBoundingClientRect();
      const below = [...scroller.querySelectorAll('[data-row]')].find((row) => row.getBoundingClientRect().top >= view.bottom);
      if (!below) return null;
      const before = below.getBoundingClientRect().top;
      below.scrollIntoView({ block: 'center' });
      const box = below.getBoundingClientRect();
      const middle = (box.top + box.bottom) / 2;
      const hit = doc.elementFromPoint(box.left + 4, Math.max(view.top, Math.min(view.bottom - 1, middle)));
      return { before, top: box.top, inView: box.top < view.bottom && box.bottom > view.top, hit: hit !== null && below.contains(hit) };
    });
    // The sample's first screen leaves rendered rows below the view.
    expect(result).not.toBeNull();
    expect(result?.inView).toBe(true);
    expect(result?.hit).toBe(true);
    expect(result?.top).toBeLessThan(result?.before ?? 0);
  });
});
