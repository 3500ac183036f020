/**
 * Links (SPEC §12) through the HTTP host: a link opens at its place (model call, reduction
 * expanded at its byte range, search with its flags), moving keeps the fragment current without
 * adding history entries, the fragment names the session's file first (`file=`, SPEC §14),
 * `Copy link` round-trips (and leaves the token out), and `Copy bytes` /
 * `Download range` give exactly the bytes the CLI's `expand --range` prints — escape bytes included.
 * Every value comes from the CLI on the same file. Axe-clean with the copy buttons shown.
 */
import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { audit } from '../axe';
import { cliExpand, cliSearch, runCli } from '../cli';
import { expect, test } from '../fixtures';
import { InspectorPage } from '../inspectorPage';
import { SESSION_SIDECAR } from '../paths';
import { utf8 } from '../sessionData';

const FILES = [SESSION_SIDECAR];
/** A truncated output of the sample whose hidden bytes hold terminal escapes (checked below). */
const ID = 'r6';

interface Place {
  call: number;
  calls: number;
  range: [number, number];
  total: number;
  bytes: string;
  query: string;
}

let cached: Place | undefined;

/** The place the specs link to, every value from the CLI (worked out once per worker). */
function place(): Place {
  cached ??= findPlace();
  return cached;
}

function findPlace(): Place {
  const whole = cliExpand(FILES, ID);
  const escape = utf8(whole.content).indexOf(0x1b);
  expect(escape, `${ID} holds an escape byte after its first`).toBeGreaterThan(0);
  // 200 bytes from just before the first escape byte: the CLI floors both ends to character boundaries.
  const from = Math.max(1, escape - 40);
  const asked: [number, number] = [from, from + 200];
  const slice = cliExpand(FILES, ID, asked);
  expect(slice.content).toContain('\u001b');
  // A model call before the last whose input shows the stub of ID (`view --at N`).
  const latest = JSON.parse(runCli(['view', ...FILES]).stdout) as { calls: number };
  let call = 0;
  for (const n of [Math.ceil((latest.calls * 2) / 3), latest.calls - 1, latest.calls]) {
    if (call !== 0) break;
    const view = JSON.parse(runCli(['view', '--at', String(n), ...FILES]).stdout) as { messages: { content: unknown }[] };
    if (view.messages.some((m) => typeof m.content === 'string' && m.content.includes(`id=${ID} `))) call = n;
  }
  expect(call, `a model call shows ${ID}'s stub`).toBeGreaterThan(0);
  // A word of the hidden bytes, searched as a case-insensitive regex.
  const word = /[A-Za-z]{5,}/.exec(whole.content.slice(2000))?.[0] ?? '';
  const query = `${word.toUpperCase()}|zzzz`;
  expect(cliSearch(FILES, query, { regex: true, caseSensitive: false }).matches.some((m) => m.reduction_id === ID)).toBe(true);
  return { call, calls: latest.calls, range: slice.range, total: slice.total_bytes, bytes: slice.content, query };
}

function fragmentOf(p: Place): string {
  return `#call=${p.call}&reduction=${ID}&range=${p.range[0]}:${p.range[1]}&q=${encodeURIComponent(p.query)}&regex=1&case=0`;
}

/** How the fragment names the session's file (SPEC §14): `serve FILE` names it by its file name. */
const FILE_PART = 'file=session.sidecar.jsonl';

/** The fragment the app writes for `p`: its file first, then the place. */
function canonicalOf(p: Place): string {
  return `#${FILE_PART}&${fragmentOf(p).slice(1)}`;
}

async function expectAtPlace(inspector: InspectorPage, p: Place): Promise<void> {
  await expect(inspector.status).toContainText(`call ${p.call} of ${p.calls}`);
  await inspector.expectShownRange(ID, p.range[0], p.range[1], p.total);
  await expect(inspector.rangeStart(ID)).toHaveValue(String(p.range[0]));
  await expect(inspector.searchBox).toHaveValue(p.query);
  await expect(inspector.regex).toBeChecked();
  await expect(inspector.caseSensitive).not.toBeChecked();
  // The search runs over every hidden span: on a loaded machine that takes a while.
  await expect(inspector.result(ID).first()).toBeVisible({ timeout: 60_000 });
}

/** The page's globals this spec reads (the e2e project compiles without the DOM library). */
interface PageGlobals {
  navigator: { clipboard: { readText(): Promise<string> } };
  location: { hash: string; pathname: string; search: string };
  history: { length: number; state: unknown; replaceState(state: unknown, unused: string, url: string): void };
}

async function clipboard(page: Page): Promise<string> {
  return page.evaluate(() => (globalThis as unknown as PageGlobals).navigator.clipboard.readText());
}

const hash = (page: Page): Promise<string> => page.evaluate(() => (globalThis as unknown as PageGlobals).location.hash);
const historyLength = (page: Page): Promise<number> => page.evaluate(() => (globalThis as unknown as PageGlobals).history.length);

test.describe('links', () => {
  // Each test opens a second page of the app and runs a search over every hidden span.
  test.slow();
  test('a link opens at its place: the call, the reduction expanded at the range, the search run', async ({ inspectorApp }) => {
    const p = place();
    const page = await inspectorApp.page.context().newPage();
    await page.goto(`${inspectorApp.url}${fragmentOf(p)}`);
    const inspector = new InspectorPage(page);
    await expectAtPlace(inspector, p);
    // The fragment now says where the app is, canonically (its file first), and the token stays in the address.
    await expect.poll(() => hash(page)).toBe(canonicalOf(p));
    expect(new URL(page.url()).searchParams.get('token')).toBe(new URL(inspectorApp.url ?? '').searchParams.get('token'));
    expect(await audit(inspector)).toEqual([]);
  });

  test('moving keeps the fragment current, without a history entry per move; a changed fragment goes there', async ({ inspector, inspectorApp }) => {
    const p = place();
    const page = inspectorApp.page;
    await inspector.waitLoaded();
    const entries = await historyLength(page);
    await inspector.expand(ID);
    await expect.poll(() => hash(page)).toBe(`#${FILE_PART}&reduction=${ID}`);
    await inspector.setRange(ID, p.range[0], p.range[1]);
    await expect.poll(() => hash(page)).toBe(`#${FILE_PART}&reduction=${ID}&range=${p.range[0]}:${p.range[1]}`);
    await inspector.search('abc', { caseSensitive: false });
    await expect.poll(() => hash(page)).toBe(`#${FILE_PART}&reduction=${ID}&range=${p.range[0]}:${p.range[1]}&q=abc&case=0`);
    await inspector.collapse(ID);
    await expect.poll(() => hash(page)).toBe(`#${FILE_PART}&q=abc&case=0`);
    expect(await historyLength(page)).toBe(entries);

    // Editing the address (a hashchange) goes to the new place, even when the app writes its own
    // fragment (a state update landing) between the navigation and its hashchange event: done here
    // at once after the edit, as the app's write does (replaceState), so the address names the old
    // place by the time the event comes.
    await page.evaluate((f) => {
      const { location, history } = globalThis as unknown as PageGlobals;
      const before = location.hash;
      location.hash = f;
      history.replaceState(history.state, '', `${location.pathname}${location.search}${before}`);
    }, fragmentOf(p));
    await expectAtPlace(inspector, p);
  });

  test('Copy link round-trips, and leaves the access token out', async ({ inspectorApp }) => {
    const p = place();
    const context = inspectorApp.page.context();
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const first = await context.newPage();
    await first.goto(`${inspectorApp.url}${fragmentOf(p)}`);
    await expectAtPlace(new InspectorPage(first), p);
    await first.getByRole('button', { name: 'Copy link', exact: true }).click();
    await expect(first.getByRole('status').filter({ hasText: 'Copied the link.' })).toBeVisible();
    const copied = await clipboard(first);
    const served = new URL(inspectorApp.url ?? '');
    expect(copied).toBe(`${served.origin}/${canonicalOf(p)}`);
    expect(copied).not.toContain(served.searchParams.get('token') ?? '-');

    // The copied place, opened with this host's address, is the same place.
    const second = await context.newPage();
    await second.goto(`${inspectorApp.url}${new URL(copied).hash}`);
    await expectAtPlace(new InspectorPage(second), p);
  });

  test('Copy bytes puts exactly the CLI’s bytes on the clipboard, escape bytes included, nothing added', async ({ inspectorApp }) => {
    const p = place();
    const context = inspectorApp.page.context();
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const page = await context.newPage();
    await page.goto(`${inspectorApp.url}#reduction=${ID}&range=${p.range[0]}:${p.range[1]}`);
    const inspector = new InspectorPage(page);
    await inspector.expectShownRange(ID, p.range[0], p.range[1], p.total);
    await inspector.expanded(ID).getByRole('button', { name: 'Copy bytes', exact: true }).click();
    await expect(inspector.expanded(ID).getByRole('status').filter({ hasText: `Copied ${p.range[1] - p.range[0]} bytes.` })).toBeVisible();
    const text = await clipboard(page);
    expect(text).toBe(p.bytes);
    expect(text).toContain('\u001b');
    expect(utf8(text).length).toBe(p.range[1] - p.range[0]);
  });

  test('Download range saves a file of exactly those bytes, named <id>-<start>-<end>.bin', async ({ inspectorApp }) => {
    const p = place();
    const page = await inspectorApp.page.context().newPage();
    await page.goto(`${inspectorApp.url}#reduction=${ID}&range=${p.range[0]}:${p.range[1]}`);
    const inspector = new InspectorPage(page);
    await inspector.expectShownRange(ID, p.range[0], p.range[1], p.total);
    const [download] = await Promise.all([page.waitForEvent('download'), inspector.expanded(ID).getByRole('button', { name: 'Download range', exact: true }).click()]);
    expect(download.suggestedFilename()).toBe(`${ID}-${p.range[0]}-${p.range[1]}.bin`);
    const path = await download.path();
    expect(readFileSync(path).equals(utf8(p.bytes))).toBe(true);
    expect(await audit(inspector)).toEqual([]);
  });

  test('each message row of a cleared range copies exactly its shown bytes, which the CLI gives at their offset', async ({ inspectorApp }) => {
    const range = 'r3';
    const whole = utf8(cliExpand(FILES, range).content);
    const context = inspectorApp.page.context();
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const page = await context.newPage();
    await page.goto(`${inspectorApp.url}#reduction=${range}`);
    const inspector = new InspectorPage(page);
    const row = inspector.messageRows(range).first();
    await expect(row).toBeVisible();
    const index = Number(/^Message (\d+)/.exec((await row.getAttribute('aria-label')) ?? '')?.[1]);
    await row.getByRole('button', { name: `Copy bytes of message ${index}`, exact: true }).click();
    await expect(row.getByRole('status').filter({ hasText: /^Copied \d+ bytes\.$/ })).toBeVisible();
    const copied = utf8(await clipboard(page));
    expect(copied.length).toBeGreaterThan(0);
    const at = whole.indexOf(copied);
    expect(at).toBeGreaterThanOrEqual(0);
    expect(utf8(cliExpand(FILES, range, [at, at + copied.length]).content).equals(copied)).toBe(true);
  });

  test('a link that cannot be followed says why, in which file, and what to do, and goes to the rest', async ({ inspectorApp }) => {
    const page = await inspectorApp.page.context().newPage();
    await page.goto(`${inspectorApp.url}#reduction=nope&range=9:1&q=abc`);
    const inspector = new InspectorPage(page);
    await expect(inspector.alert.filter({ hasText: "The link's range starts after it ends (9:1)" })).toBeVisible();
    const notHere = inspector.alert.filter({ hasText: 'The link names reduction "nope", which is not in the live log of session.sidecar.jsonl.' });
    await expect(notHere).toBeVisible();
    await expect(notHere).toContainText("npx session-inspector serve FILE --link '#reduction=nope&q=abc'");
    await expect(inspector.searchBox).toHaveValue('abc');
  });
});
