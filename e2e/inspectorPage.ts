/**
 * The page object of the inspector. Every locator is a role and an accessible name from
 * `e2e/UI-CONTRACT.md` (SPEC §7.1), or an attribute that contract names (`aria-current`,
 * `data-row`, `data-index`, `data-source`, `data-total-bytes`, the `mark` element): never a CSS class.
 * Actions wait web-first on the state they lead to; nothing here sleeps.
 */
import { expect } from '@playwright/test';
import type { Locator, Page } from '@playwright/test';
import type { SidecarSearchMatch } from '../shared/format/types';
import { nameText } from '../renderer/text/nameText';

export type PanelTab = 'Search' | 'Log' | 'Findings' | 'Diff' | 'What if';

export interface SearchOptions {
  regex?: boolean;
  caseSensitive?: boolean;
}

/** `bytes S–E of T`, the shown range of an open reduction. */
export interface ShownRange {
  start: number;
  end: number;
  total: number;
}

export const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Matches an id as a whole word (`r1` never matches `r10`), as the app names it: controls, bidi
 * characters and lone surrogates in an id from the file are shown as visible symbols (nameText).
 */
const idPattern = (id: string): string => `${escapeRegExp(nameText(id))}(?![\\w-])`;

/** The text of `Shown range`: it ends with `bytes S–E of T`. */
export const SHOWN_RANGE = /bytes (\d+)–(\d+) of (\d+)$/;

/** The accessible name of the search result button of `match` (UI-CONTRACT.md). */
export function matchName(match: Pick<SidecarSearchMatch, 'reduction_id' | 'offset' | 'index'>): string {
  return `Match in reduction ${match.reduction_id} at byte ${match.offset} of message ${match.index}`;
}

export class InspectorPage {
  constructor(readonly page: Page) {}

  // ── the projected view ──────────────────────────────────────────────────────────────────────

  get view(): Locator {
    return this.page.getByRole('list', { name: 'Projected view', exact: true });
  }

  get rows(): Locator {
    return this.view.getByRole('listitem');
  }

  /** The row whose first view index is `index` (`Message <index> …` or `Messages <index>–<b> …`). */
  row(index: number): Locator {
    return this.view.getByRole('listitem', { name: new RegExp(`^Messages? ${index}(?!\\d)`) });
  }

  /** The selected row (`aria-current="true"`). */
  get selectedRow(): Locator {
    return this.rows.and(this.page.locator('[aria-current="true"]'));
  }

  /** The stub chip of reduction `id`, closed (`Expand reduction <id>…`) or open (`Collapse reduction <id>…`). */
  stubChip(id: string): Locator {
    return this.view.getByRole('button', { name: new RegExp(`^(Expand|Collapse) reduction ${idPattern(id)}`) });
  }

  /** Any stub chip, closed or open. */
  get stubChips(): Locator {
    return this.view.getByRole('button', { name: /^(Expand|Collapse) reduction / });
  }

  /** The expanded content of reduction `id`; carries `data-source` and `data-total-bytes`. */
  expanded(id: string): Locator {
    return this.page.getByRole('region', { name: `Reduction ${nameText(id)} content`, exact: true });
  }

  rangeStart(id: string): Locator {
    return this.expanded(id).getByRole('spinbutton', { name: 'Range start', exact: true });
  }

  rangeEnd(id: string): Locator {
    return this.expanded(id).getByRole('spinbutton', { name: 'Range end', exact: true });
  }

  rangeStartSlider(id: string): Locator {
    return this.expanded(id).getByRole('slider', { name: 'Range start', exact: true });
  }

  rangeEndSlider(id: string): Locator {
    return this.expanded(id).getByRole('slider', { name: 'Range end', exact: true });
  }

  /** The `Shown range` text of an open reduction (`bytes S–E of T`). */
  shownRange(id: string): Locator {
    return this.expanded(id).getByLabel('Shown range', { exact: true });
  }

  /** The element (`role="code"`) holding the shown bytes of an open reduction. */
  content(id: string): Locator {
    return this.expanded(id).getByRole('code');
  }

  // ── part C: what the model saw inside an expansion ─────────────────────────────

  /** The part(s) of open reduction `id` hidden from the model (`aria-label="Hidden from the model"`). */
  hiddenPart(id: string): Locator {
    return this.expanded(id).getByRole('group', { name: 'Hidden from the model', exact: true });
  }

  /** The part of open reduction `id` the model saw (a truncation's kept prefix; a duplicate whose canonical it still saw). */
  seenPart(id: string): Locator {
    return this.expanded(id).getByRole('group', { name: 'Seen by the model', exact: true });
  }

  /** The messages of an open cleared or summarized range, as rows (`Message <index> <role>`). */
  messageRows(id: string): Locator {
    return this.expanded(id).getByRole('list', { name: `Messages of reduction ${nameText(id)}`, exact: true }).getByRole('listitem');
  }

  /** The row of message `index` inside open range `id`. */
  messageRow(id: string, index: number): Locator {
    return this.messageRows(id).filter({ has: this.page.getByRole('code').and(this.page.getByLabel(`Message ${index} bytes`, { exact: true })) });
  }

  /** The shown bytes of message `index` inside open range `id` (exact: whitespace kept). */
  async readMessage(id: string, index: number): Promise<string> {
    return (await this.messageRow(id, index).getByRole('code').textContent()) ?? '';
  }

  /** A duplicate's link to its canonical message (`Go to canonical message <index>`). */
  canonicalLink(index: number): Locator {
    return this.view.getByRole('button', { name: `Go to canonical message ${index}`, exact: true });
  }

  loadMore(id: string): Locator {
    return this.expanded(id).getByRole('button', { name: 'Load more', exact: true });
  }

  /** Highlighted matches (`<mark>`) inside an open reduction. */
  marks(id: string): Locator {
    return this.content(id).locator('mark');
  }

  // ── the side panel ─────────────────────────────────────────────────────────────────────────

  get tabs(): Locator {
    return this.page.getByRole('tablist', { name: 'Panels', exact: true });
  }

  /** A panel tab; `Findings` matches `Findings` and `Findings (N)`. */
  tab(name: PanelTab): Locator {
    return this.tabs.getByRole('tab', { name: new RegExp(`^${name}( \\(\\d+\\))?$`) });
  }

  get searchBox(): Locator {
    return this.page.getByRole('searchbox', { name: 'Search hidden content', exact: true });
  }

  get regex(): Locator {
    return this.page.getByRole('checkbox', { name: 'Regex', exact: true });
  }

  get caseSensitive(): Locator {
    return this.page.getByRole('checkbox', { name: 'Case sensitive', exact: true });
  }

  get results(): Locator {
    return this.page.getByRole('list', { name: 'Search results', exact: true });
  }

  /** Every result button (`Match in reduction <id> at byte <offset> of message <index>`). */
  get resultButtons(): Locator {
    return this.results.getByRole('button', { name: /^Match in reduction / });
  }

  /** The result buttons naming reduction `id`, or the one at `offset` of it. */
  result(id: string, offset?: number): Locator {
    const at = offset === undefined ? '' : ` at byte ${offset} `;
    return this.results.getByRole('button', { name: new RegExp(`^Match in reduction ${idPattern(id)}${at}`) });
  }

  get agentJsonToggle(): Locator {
    return this.page.getByRole('button', { name: 'As the agent sees it', exact: true });
  }

  /**
   * The exact bounded SidecarSearchResult, as the agent would receive it: the `role="code"`
   * element named `Search result JSON`. ARIA prohibits naming the `code` role, so Playwright's
   * getByRole computes no name for it; the name is matched as the element's label instead.
   */
  get agentJson(): Locator {
    return this.page.getByRole('code').and(this.page.getByLabel('Search result JSON', { exact: true }));
  }

  get logTable(): Locator {
    return this.page.getByRole('table', { name: 'Reduction log', exact: true });
  }

  /** The `Go to <id>` buttons of the log, one per body row, in display order. */
  get logGoTo(): Locator {
    return this.logTable.getByRole('button', { name: /^Go to / });
  }

  /** The sort button inside a column header of the log. */
  logSort(column: 'Id' | 'Kind' | 'Index' | 'Hidden bytes' | 'Source' | 'Status' | 'Provenance'): Locator {
    return this.logTable.getByRole('columnheader', { name: column, exact: true }).getByRole('button');
  }

  get findings(): Locator {
    return this.page.getByRole('region', { name: 'Findings', exact: true });
  }

  get findingsList(): Locator {
    return this.findings.getByRole('list', { name: 'Findings list', exact: true });
  }

  get findingItems(): Locator {
    return this.findingsList.getByRole('listitem');
  }

  // ── the frame ──────────────────────────────────────────────────────────────────────────────

  get progress(): Locator {
    return this.page.getByRole('progressbar', { name: 'Loading session', exact: true });
  }

  get alert(): Locator {
    return this.page.getByRole('alert');
  }

  get status(): Locator {
    return this.page.getByRole('status', { name: 'Status', exact: true });
  }

  get shortcutsDialog(): Locator {
    return this.page.getByRole('dialog', { name: 'Keyboard shortcuts', exact: true });
  }

  /** The HTTP host's file picker (the desktop app has `Open…` instead). */
  get sessionFile(): Locator {
    return this.page.getByRole('combobox', { name: 'Session file', exact: true });
  }

  /** The format badge of the open file (SPEC §10.1): a `note` named `Format: <agent>` (`Format: Claude Code`…). */
  get formatBadge(): Locator {
    return this.page.getByRole('note', { name: /^Format: / });
  }

  /** The session picker: a `combobox` named `Session`, shown when the open file holds more than one session. */
  get sessionPicker(): Locator {
    return this.page.getByRole('combobox', { name: 'Session', exact: true });
  }

  // ── model calls ──────────────────────────────────────────────────────────

  /** The `Model call` slider (1…C); at C with the value text `latest view` while the latest view is shown. */
  get modelCallSlider(): Locator {
    return this.page.getByRole('slider', { name: 'Model call', exact: true });
  }

  /** The `Latest` button: back to the latest view (disabled while it is shown). */
  get latestButton(): Locator {
    return this.page.getByRole('button', { name: 'Latest', exact: true });
  }

  /** The `Context map` chart (`img`); its figures are the `Context map figures` table. */
  get contextMap(): Locator {
    return this.page.getByRole('img', { name: 'Context map', exact: true });
  }

  get contextMapFigures(): Locator {
    return this.page.getByRole('table', { name: 'Context map figures', exact: true });
  }

  /** Shows call `n`'s input with the keyboard (the slider's Home, then → n - 1 times) and waits for the status bar to say so. */
  async showCall(n: number): Promise<void> {
    await this.modelCallSlider.focus();
    await this.modelCallSlider.press('Home');
    for (let k = 1; k < n; k++) await this.modelCallSlider.press('ArrowRight');
    await expect(this.status).toContainText(new RegExp(`call ${n} of \\d`));
  }

  // ── the diff between calls, session events, the glossary ─────────────────

  /** The `Context diff` table of the `Diff` tab. */
  get diffTable(): Locator {
    return this.page.getByRole('table', { name: 'Context diff', exact: true });
  }

  get fromCall(): Locator {
    return this.page.getByRole('spinbutton', { name: 'From call', exact: true });
  }

  get toCall(): Locator {
    return this.page.getByRole('spinbutton', { name: 'To call', exact: true });
  }

  /** A session event drawn between the rows of the view: a `separator` named for it (`Model switch from a to b`…). */
  event(name: string | RegExp): Locator {
    return this.view.getByRole('separator', { name });
  }

  /** Compares call `from` with call `to` (null: the latest view) in the `Diff` tab. */
  async compareCalls(from: number | null, to: number | null): Promise<void> {
    await this.openTab('Diff');
    // The tab first shows its default diff: waited for, so the Compare below is the last ask (the typed calls are kept either way).
    await expect(this.page.getByRole('region', { name: 'Diff between calls', exact: true }).getByText('Comparing…')).toHaveCount(0);
    await this.fromCall.fill(from === null ? '' : String(from));
    await this.toCall.fill(to === null ? '' : String(to));
    await this.page.getByRole('button', { name: 'Compare', exact: true }).click();
  }

  // ── actions ────────────────────────────────────────────────────────────────────────────────

  /** Waits until a session is shown: rows listed, the progress bar gone. */
  /**
   * Waits until the first rows show and loading has ended. A large sidecar shows rows under the
   * progress bar while it is indexed: `timeout` gives its indexing room on a busy machine.
   */
  async waitLoaded(timeout?: number): Promise<void> {
    await expect(this.rows.first()).toBeVisible(timeout !== undefined ? { timeout } : {});
    await expect(this.progress).toBeHidden(timeout !== undefined ? { timeout } : {});
  }

  /**
   * Brings the stub chip of `id` into view. The view is virtualized: a row far down is not in the
   * page until the list scrolls to it, so this scrolls the view (wheel) until the chip is visible.
   */
  async revealStub(id: string): Promise<Locator> {
    const chip = this.stubChip(id);
    await this.scrollUntilVisible(this.view, chip);
    return chip;
  }

  /** Expands reduction `id` with its stub chip and waits for its content. */
  async expand(id: string): Promise<Locator> {
    const chip = await this.revealStub(id);
    await this.clickUntilExpanded(chip, true);
    await expect(chip).toHaveAccessibleName(new RegExp(`^Collapse reduction ${idPattern(id)}`));
    // A range shows one content element per message: the first stands for them.
    await expect(this.content(id).first()).toBeVisible();
    return this.expanded(id);
  }

  /** Collapses reduction `id` with its stub chip. */
  async collapse(id: string): Promise<void> {
    const chip = this.stubChip(id);
    await this.clickUntilExpanded(chip, false);
    await expect(chip).toHaveAccessibleName(new RegExp(`^Expand reduction ${idPattern(id)}`));
    await expect(this.expanded(id)).toBeHidden();
  }

  /**
   * Clicks a stub chip until its `aria-expanded` is `expanded`. Why not one click: Playwright
   * scrolls the chip into view before clicking, and the virtual scroller re-places its rows on that
   * scroll (rows measured for the first time change height); when the chip moves between the mouse
   * press and release the browser fires no `click` at all (CI traces show the pointer landing on the
   * chip at a new place, "click action done", and no toggle). The state is read before each click,
   * so a click that did land is never undone; React applies a click's state in the same task.
   */
  private async clickUntilExpanded(chip: Locator, expanded: boolean): Promise<void> {
    const want = String(expanded);
    await expect(async () => {
      if ((await chip.getAttribute('aria-expanded')) !== want) await chip.click();
      await expect(chip).toHaveAttribute('aria-expanded', want, { timeout: 2_000 });
    }).toPass({ timeout: 20_000 });
  }

  /** Waits until open reduction `id` shows the range `[start, end)` of `total` bytes. */
  async expectShownRange(id: string, start: number, end: number, total: number): Promise<void> {
    await expect(this.shownRange(id)).toHaveText(new RegExp(`(^|\\s)bytes ${start}–${end} of ${total}$`));
  }

  /** The parsed `bytes S–E of T` of an open reduction, once it shows one. */
  async readShownRange(id: string): Promise<ShownRange> {
    await expect(this.shownRange(id)).toHaveText(SHOWN_RANGE);
    const text = (await this.shownRange(id).textContent()) ?? '';
    const m = SHOWN_RANGE.exec(text);
    if (!m) throw new Error(`Shown range of ${id} is not "bytes S–E of T": ${JSON.stringify(text)}`);
    return { start: Number(m[1]), end: Number(m[2]), total: Number(m[3]) };
  }

  /** The text of an open reduction's content element (exact: whitespace kept). */
  async readContent(id: string): Promise<string> {
    return (await this.content(id).textContent()) ?? '';
  }

  /**
   * Types a byte range into the spinbuttons of open reduction `id` and commits each with Enter.
   * The end moves first when the new start would pass the current end, so the pair never inverts.
   */
  async setRange(id: string, start: number, end: number): Promise<void> {
    // As a user does: once the expansion has its size. Typed before, a value is held to 0 (the
    // inputs' max until the reply lands); under the suite's load the reply came after the typing.
    await expect(this.rangeEnd(id)).not.toHaveAttribute('max', '0');
    const currentEnd = Number(await this.rangeEnd(id).inputValue());
    const fill = async (input: Locator, value: number): Promise<void> => {
      await input.fill(String(value));
      await input.press('Enter');
    };
    if (start >= currentEnd) {
      await fill(this.rangeEnd(id), end);
      await fill(this.rangeStart(id), start);
    } else {
      await fill(this.rangeStart(id), start);
      await fill(this.rangeEnd(id), end);
    }
  }

  /**
   * Opens `name`, a session file of the folder the host serves (`serve DIR`), by a link that names it
   * (`#file=NAME`, docs/sessions-and-links.md) given to the page as a user pastes one, and waits until
   * the status names it.
   */
  async openLinkedFile(name: string): Promise<void> {
    await this.page.evaluate((fragment) => {
      (globalThis as unknown as { location: { hash: string } }).location.hash = fragment;
    }, `#file=${encodeURIComponent(name)}`);
    await expect(this.status).toContainText(name);
  }

  /**
   * Selects a side-panel tab. Clicked again until it is selected: the host opens its files while the
   * page loads, and the progress bar leaving can shift the layout under a click in flight.
   */
  async openTab(name: PanelTab): Promise<void> {
    const tab = this.tab(name);
    await expect(async () => {
      if ((await tab.getAttribute('aria-selected')) !== 'true') await tab.click();
      await expect(tab).toHaveAttribute('aria-selected', 'true', { timeout: 1_000 });
    }).toPass({ timeout: 10_000 });
  }

  /** Sets the toggles, then searches `query` (typed, committed with Enter). */
  async search(query: string, options: SearchOptions = {}): Promise<void> {
    await this.openTab('Search');
    await this.regex.setChecked(options.regex ?? false);
    await this.caseSensitive.setChecked(options.caseSensitive ?? true);
    await this.searchBox.fill(query);
    await this.searchBox.press('Enter');
  }

  /**
   * Opens a file the HTTP host offers, by its name in the `Session file` combobox (a native
   * `<select>` is chosen with selectOption, any other combobox by clicking its option).
   */
  async openOffered(name: RegExp): Promise<void> {
    const box = this.sessionFile;
    await expect(box).toBeEnabled();
    const native = await box.evaluate((element: { tagName: string }) => element.tagName === 'SELECT');
    if (native) {
      const label = (await box.getByRole('option', { name }).first().textContent())?.trim() ?? '';
      await box.selectOption({ label });
    } else {
      await box.click();
      await this.page.getByRole('option', { name }).first().click();
    }
  }

  /** Reopens the file on another of its sessions, by the text of its option in the `Session` picker (a native `<select>`). */
  async chooseSession(name: RegExp): Promise<void> {
    const box = this.sessionPicker;
    await expect(box).toBeEnabled();
    const label = (await box.getByRole('option', { name }).first().textContent())?.trim() ?? '';
    await box.selectOption({ label });
  }

  /** Switches to the other theme and waits until the page has it; returns the theme now shown. */
  async toggleTheme(): Promise<string> {
    const html = this.page.locator('html');
    const before = await html.getAttribute('data-theme');
    await this.page.getByRole('button', { name: 'Toggle theme', exact: true }).click();
    await expect.poll(() => html.getAttribute('data-theme')).not.toBe(before);
    return (await html.getAttribute('data-theme')) ?? '';
  }

  /**
   * Waits until the results list shows exactly `matches`, in order. The list may be virtualized
   * (only the buttons near its viewport are in the page), so it checks the first button, scrolls
   * to the end, and checks that the last button is the last match.
   */
  async expectResults(matches: readonly SidecarSearchMatch[]): Promise<void> {
    const [first] = matches;
    const last = matches[matches.length - 1];
    if (!first || !last) {
      await expect(this.resultButtons).toHaveCount(0);
      return;
    }
    await expect(this.resultButtons.first()).toHaveAccessibleName(matchName(first));
    // The last match is the list's last item: one long wheel reaches it.
    await this.scrollUntilVisible(this.results, this.results.getByRole('button', { name: matchName(last), exact: true }), 100_000);
    await expect(this.resultButtons.last()).toHaveAccessibleName(matchName(last));
  }

  /**
   * Scrolls `scroller` down with the mouse wheel, `step` pixels at a time, until `target` is in
   * its viewport: a virtualized list has only the items near its viewport in the page.
   *
   * Being in the page is not being in view, and may not last: a virtual list also renders items
   * beyond its viewport (clipped, yet "visible" to Playwright), and the first render lays them out
   * with estimated heights, then drops the ones the measured heights push out. So an item found is
   * scrolled into view and must end up in the viewport; one that went away meanwhile is looked for
   * again (by more wheel if it is still not in the page, from the top again once the list's end is
   * reached: the wheel can pass an item while the list is still rendering).
   */
  async scrollUntilVisible(scroller: Locator, target: Locator, step = 600): Promise<void> {
    await expect(async () => {
      if ((await target.count()) > 0) {
        await target.scrollIntoViewIfNeeded({ timeout: 2_000 });
        await expect(target).toBeInViewport({ timeout: 2_000 });
        return;
      }
      // At the end of the list and still not in the page: the wheel went past it while the list was
      // rendering (a busy machine), so the look starts again from the top.
      type Scrolled = { scrollHeight: number; clientHeight: number; scrollTop: number; parentElement: Scrolled | null };
      const wrapped = await scroller.evaluate((el: Scrolled) => {
        const style = (globalThis as unknown as { getComputedStyle: (e: Scrolled) => { overflowY: string } }).getComputedStyle;
        for (let e: Scrolled | null = el; e; e = e.parentElement) {
          if (e.scrollHeight > e.clientHeight + 1 && /auto|scroll/.test(style(e).overflowY)) {
            if (e.scrollTop + e.clientHeight < e.scrollHeight - 2) return false;
            e.scrollTop = 0;
            return true;
          }
        }
        return false;
      });
      if (!wrapped) {
        await scroller.hover();
        await this.page.mouse.wheel(0, step);
      }
      throw new Error('not in the page yet');
    }).toPass({ intervals: [100], timeout: 15_000 });
    await expect(target).toBeVisible();
  }

  /** Presses `As the agent sees it` on (it is an aria-pressed toggle). */
  async showAgentJson(): Promise<void> {
    if ((await this.agentJsonToggle.getAttribute('aria-pressed')) !== 'true') await this.agentJsonToggle.click();
    await expect(this.agentJsonToggle).toHaveAttribute('aria-pressed', 'true');
    await expect(this.agentJson).toBeVisible();
  }

  /** The `Search result JSON` parsed, or null while it is not (yet) JSON: poll it with `expect.poll`. */
  async readAgentJson(): Promise<unknown> {
    const text = (await this.agentJson.textContent()) ?? '';
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return null;
    }
  }
}
