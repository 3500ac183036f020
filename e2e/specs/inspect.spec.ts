/**
 * SPEC §10 in the app, on an Inspect AI `.eval` through the HTTP host: the format badge, the
 * `Session` picker over the log's samples (each sample's messages counted after the open), a summary compaction expanded to the transcript it
 * replaced ("hashed at import"), and a search for a word only that transcript holds. The synthetic
 * log is used because no committed real log holds a compaction (e2e/fixtures/real/inspect/README.md).
 * Every expected value is read from the file by the CLI.
 */
import { audit } from '../axe';
import { cliCheck, cliExpand, cliLog, cliSearch } from '../cli';
import { expect, test } from '../fixtures';
import type { InspectorPage } from '../inspectorPage';
import { escapeRegExp } from '../inspectorPage';
import { expectFormat, fixture } from '../importedSession';

const LOG = fixture('synthetic/inspect/compact.eval');
const SESSION = 'compact_epoch_1';

test.describe('an Inspect AI .eval log', () => {
  test.use({ sessionFiles: [LOG] });

  test('says it is Inspect AI, lists its samples, and a chosen sample`s summary expands and is searched; axe passes', async ({ inspector }) => {
    await inspector.waitLoaded();
    await expectFormat(inspector, 'Inspect AI');
    const { sessions } = cliCheck([LOG]).summary;
    await expect(inspector.sessionPicker.getByRole('option')).toHaveCount(sessions.length);
    // Every sample's messages are counted after the open (`check` counts them all): the picker fills them in as they arrive.
    // Each is named a sample, the first too (a log has no main session).
    await expect(inspector.sessionPicker.getByRole('option')).toHaveText(sessions.map((s) => new RegExp(`^Sample ${escapeRegExp(s.id)}\\b.*\\(${s.messages} messages?\\)$`)));

    await inspector.chooseSession(new RegExp(SESSION));
    const files = ['--session', SESSION, LOG];
    const { summary } = cliCheck(files);
    await expect(inspector.status).toContainText(`${summary.messages} messages`);
    const run = cliLog(files).find((r) => r.kind === 'summarized');
    if (!run) throw new Error(`${LOG} ${SESSION} holds no summary`);
    expect([run.status, run.hash_origin, run.provenance]).toEqual(['verified', 'import', 'recorded']);
    await expect(inspector.row(run.ptr.index)).toContainText(run.stub.split('\n')[0] ?? '');
    const whole = cliExpand(files, run.id);
    const region = await inspector.expand(run.id);
    await expect(region).toHaveAttribute('data-total-bytes', String(whole.total_bytes));
    await expect(region).toContainText('hashed at import');
    expect(await audit(inspector)).toEqual([]);
    await inspector.collapse(run.id);

    // `src/module_12.py` stands only in the listing the summary replaced (the later listing is upper case).
    const found = cliSearch(files, 'src/module_12.py');
    expect(found.matches.length).toBeGreaterThan(0);
    expect(found.matches.filter((m) => m.reduction_id !== run.id)).toEqual([]);
    await inspector.search('src/module_12.py');
    await inspector.expectResults(found.matches);
  });
});

/** A box of the page, as Playwright measures it. */
interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

const overlaps = (a: Box, b: Box): boolean => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** The width the `Session` picker takes when it holds only its chosen option and nothing limits it: what its label needs to be seen whole. */
async function labelWidth(inspector: InspectorPage): Promise<number> {
  // The page's DOM, as far as used here (this project's TypeScript has no DOM library).
  interface Select {
    value: string;
    selectedIndex: number;
    options: { text: string }[];
    parentElement: { appendChild(e: unknown): void };
  }
  interface Probe {
    style: { cssText: string };
    append(e: unknown): void;
    remove(): void;
    getBoundingClientRect(): { width: number };
  }
  interface Doc {
    createElement(tag: 'select'): Probe;
    createElement(tag: 'option'): { text: string };
  }
  return inspector.sessionPicker.evaluate((el: Select) => {
    const doc = (globalThis as unknown as { document: Doc }).document;
    const probe = doc.createElement('select');
    const option = doc.createElement('option');
    option.text = el.options[el.selectedIndex]?.text ?? '';
    probe.append(option);
    // Beside the picker, so the header's rules style it the same; out of the flow and unseen.
    probe.style.cssText = 'position: absolute; visibility: hidden; max-width: none; width: auto; flex: none';
    el.parentElement.appendChild(probe);
    const width = probe.getBoundingClientRect().width;
    probe.remove();
    return width;
  });
}

test.describe('the header between 1280 and 1400 px wide', () => {
  test.use({ sessionFiles: [LOG] });

  test('the Session picker is seen whole: inside the window, its label not cut, and no other control over it', async ({ inspector }) => {
    await inspector.waitLoaded();
    await expect(inspector.sessionPicker).toBeVisible();
    const header = inspector.page.getByRole('banner');
    const others = [
      header.getByRole('heading'),
      header.getByRole('note'),
      header.getByRole('button'),
      header.getByRole('checkbox'),
      header.getByRole('combobox', { name: 'Session file', exact: true }),
    ];
    for (const width of [1280, 1340, 1400]) {
      await inspector.page.setViewportSize({ width, height: 800 });
      const picker = await inspector.sessionPicker.boundingBox();
      if (!picker) throw new Error('the Session picker has no box');
      expect(picker.x, `${width} px`).toBeGreaterThanOrEqual(0);
      expect(picker.x + picker.width, `${width} px`).toBeLessThanOrEqual(width);
      expect(picker.width + 0.5, `${width} px: the label needs ${await labelWidth(inspector)} px`).toBeGreaterThanOrEqual(await labelWidth(inspector));
      for (const locator of others) {
        for (const control of await locator.all()) {
          const box = await control.boundingBox();
          if (box && overlaps(picker, box)) throw new Error(`${width} px: ${(await control.getAttribute('aria-label')) ?? (await control.textContent())} lies over the Session picker (${JSON.stringify(box)} over ${JSON.stringify(picker)})`);
        }
      }
    }
  });
});

test.describe('a narrow window', () => {
  test.use({ sessionFiles: [LOG] });

  test('at 1024 and 800 px nothing runs past the window, and every panel tab opens its panel', async ({ inspector }) => {
    await inspector.waitLoaded();
    const page = inspector.page;
    const tabs = page.getByRole('tablist').first().getByRole('tab');
    for (const width of [1024, 800]) {
      await page.setViewportSize({ width, height: 700 });
      const [scroll, client] = await page.evaluate(() => {
        const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
        return [root.scrollWidth, root.clientWidth];
      });
      expect(scroll, `${width} px`).toBeLessThanOrEqual(client);
      for (const tab of await tabs.all()) {
        await tab.click();
        await expect(tab, `${width} px`).toHaveAttribute('aria-selected', 'true');
        const box = await tab.boundingBox();
        // Within a pixel: the strip scrolled to its end puts the last tab's edge on a fraction of one.
        expect(box && box.x >= 0 && box.x + box.width <= width + 1, `${width} px: ${(await tab.textContent()) ?? ''} inside the window`).toBe(true);
      }
    }
  });
});
