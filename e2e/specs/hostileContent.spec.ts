/**
 * Hostile content is shown, never run: a session whose messages, tool call and tool outputs
 * (visible, and hidden behind reductions) hold script and image tags, `javascript:` and markdown
 * links, terminal escapes that move the cursor, clear the screen, set the window title and make
 * hyperlinks, bidirectional overrides, zero-width characters and a 100,000-character line.
 * Nothing may open a dialog, navigate, log an error, create an element, or change the title; the
 * text must be visible as text, bidi and zero-width characters as markers (UI-CONTRACT.md).
 */
import { writeFileSync } from 'node:fs';
import { cliSearch } from '../cli';
import { expect, test } from '../fixtures';
import type { InspectorApp } from '../fixtures';
import type { InspectorPage } from '../inspectorPage';
import { BIDI, hostileSession, HYPERLINK, IMG_TAG, SCRIPT_TAG } from '../hostileSession';

const session = hostileSession();
const [truncated, elided] = session.log;
if (truncated?.kind !== 'tool_output_truncated' || elided?.kind !== 'tool_output_elided') throw new Error('the hostile session should mint a truncation and an elision');

test.use({
  // eslint-disable-next-line no-empty-pattern
  sessionFiles: async ({}, use, testInfo) => {
    // The file's name is hostile too: it shows in the header, the status bar and the file list.
    const path = testInfo.outputPath(`${IMG_TAG}.sidecar.jsonl`);
    writeFileSync(path, session.sidecar);
    await use([path]);
  },
});

/** Bidi controls and zero-width characters: each must be shown as a marker, never raw. */
const INVISIBLE = ['\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069', '\u200B', '\u200D', '\uFEFF'];

/** Elements content could have smuggled into the page, anywhere in it. */
const SMUGGLED = 'img, iframe, object, embed, a[href], form, video, audio, svg image, link[rel="import"], base, meta[http-equiv]';

/** A URL without its fragment: the document it names. */
function documentOf(url: string): string {
  return url.split('#')[0] ?? url;
}

/** What the page looked like once the session showed, before the test's actions. */
interface Baseline {
  url: string;
  scripts: number;
  navigations: number;
}

async function baseline(inspector: InspectorPage, app: InspectorApp): Promise<Baseline> {
  await inspector.waitLoaded();
  // Over HTTP the recording starts before the page opens the app: its one navigation to a document
  // is the load. The app then names the open file in the address's fragment (SPEC §14 links), a
  // same-document change of its own.
  if (app.target === 'http') {
    const documents = app.events.navigations.map(documentOf);
    expect(documents.length, 'the load').toBeGreaterThanOrEqual(1);
    expect(documents.filter((d) => d !== documents[0]), 'main-frame navigations to another document while loading').toEqual([]);
  }
  return { url: inspector.page.url(), scripts: await inspector.page.locator('script').count(), navigations: app.events.navigations.length };
}

/** The page after the test's actions: nothing ran, nothing navigated, nothing was created. */
async function expectNothingRan(inspector: InspectorPage, app: InspectorApp, { url, scripts, navigations }: Baseline): Promise<void> {
  const page = inspector.page;
  expect(app.events.dialogs, 'dialogs opened').toEqual([]);
  expect(app.events.pageErrors, 'uncaught page errors').toEqual([]);
  expect(app.events.consoleErrors, 'console errors').toEqual([]);
  // The app keeps the address's fragment current as the user moves (SPEC §12 links): a same-document
  // change of the `#…` part is the app's own. Anything else — another document, path or query — is not.
  expect(app.events.navigations.slice(navigations).map(documentOf).filter((u) => u !== documentOf(url)), 'main-frame navigations after the load').toEqual([]);
  expect(documentOf(page.url())).toBe(documentOf(url));
  await expect(page).toHaveTitle('Session Inspector');
  expect(page.frames()).toHaveLength(1);
  // The app's own module script(s), no more; and no element content could have made.
  await expect(page.locator('script')).toHaveCount(scripts);
  await expect(page.locator(SMUGGLED)).toHaveCount(0);
  await expect(page.locator('[onerror], [onload], [onclick], [style*="javascript:" i], [href^="javascript:" i], [src^="javascript:" i]')).toHaveCount(0);
}

test.describe('hostile content', () => {
  test('is shown as text in rows, tool calls and expanded reductions, and nothing runs', async ({ inspector, inspectorApp }) => {
    const page = inspector.page;
    const before = await baseline(inspector, inspectorApp);

    // The file name, as text, in the banner and the status bar.
    await expect(inspector.status).toContainText(`${IMG_TAG}.sidecar.jsonl`);
    await expect(page.getByRole('banner')).toContainText(`${IMG_TAG}.sidecar.jsonl`);
    // The user's message, as text.
    await expect(inspector.row(0)).toContainText(SCRIPT_TAG);
    // The tool call: its name (an img tag) and arguments, as text.
    const call = inspector.row(1).getByRole('group', { name: `Tool call ${IMG_TAG}`, exact: true });
    await expect(call).toBeVisible();
    await expect(call).toContainText(IMG_TAG);
    await expect(call).toContainText('javascript:alert(1)');

    // The output the model still sees (view index 6): every attack as text; escapes gone, bidi and
    // zero-width characters as markers; the 100,000-character line shown (cut, with Show more).
    const visible = inspector.row(6);
    await inspector.scrollUntilVisible(inspector.view, visible);
    for (const text of [SCRIPT_TAG, IMG_TAG, '<a href="javascript:alert(1)">click</a>', '[click me](javascript:alert(1))', 'red alert after', 'title escapes end', 'hyperlink text']) {
      await expect(visible).toContainText(text);
    }
    for (const marker of ['⟨U+202E⟩', '⟨U+2066⟩', '⟨U+2067⟩', '⟨U+2068⟩', '⟨U+2069⟩', '⟨U+200B⟩', '⟨U+200D⟩', '⟨U+FEFF⟩']) await expect(visible).toContainText(marker);
    const visibleText = (await visible.textContent()) ?? '';
    expect(visibleText).not.toContain('\u001b');
    expect(visibleText).not.toContain('PWNED-TITLE');
    for (const raw of INVISIBLE) expect(visibleText, `U+${raw.charCodeAt(0).toString(16)} shown raw`).not.toContain(raw);
    expect(visibleText).toContain('L'.repeat(1000));
    await expect(visible.getByRole('button', { name: 'Show more', exact: true })).toBeVisible();

    // The hidden outputs, expanded: the same, as text, inside the region.
    for (const r of [truncated, elided]) {
      await inspector.expand(r.id);
      const content = inspector.content(r.id);
      await expect(content).toContainText(SCRIPT_TAG);
      await expect(content).toContainText(IMG_TAG);
      await expect(content).toContainText('hyperlink text');
      await expect(content).toContainText('⟨U+202E⟩');
      await expect(inspector.expanded(r.id)).toHaveAttribute('data-source', 'minted');
      const contentText = (await content.textContent()) ?? '';
      for (const raw of ['\u001b', ...INVISIBLE]) expect(contentText, `U+${raw.charCodeAt(0).toString(16)} shown raw`).not.toContain(raw);
      await expect(content.locator(SMUGGLED)).toHaveCount(0);
      await inspector.collapse(r.id);
    }
    // The last message's link and escapes, as text.
    const last = inspector.row(7);
    await inspector.scrollUntilVisible(inspector.view, last);
    await expect(last).toContainText('<a href="javascript:alert(1)">click</a>');
    await expect(last).toContainText('hyperlink text');
    expect(HYPERLINK).toContain('javascript:');
    expect(BIDI).toContain('\u202E');

    await expectNothingRan(inspector, inspectorApp, before);
  });

  test('searching for <script> lands on the highlighted match, shown as text', async ({ inspector, inspectorApp, sessionFiles }) => {
    const before = await baseline(inspector, inspectorApp);

    const expected = cliSearch(sessionFiles, '<script>');
    // Both hidden outputs hold it; the visible one is never searched.
    expect(expected.matches.map((m) => m.reduction_id)).toEqual([truncated.id, elided.id]);
    await inspector.search('<script>');
    await inspector.expectResults(expected.matches);
    const first = expected.matches[0];
    if (!first) throw new Error('no match');
    await inspector.result(first.reduction_id, first.offset).click();
    await expect(inspector.expanded(first.reduction_id)).toBeVisible();
    const mark = inspector.marks(first.reduction_id).first();
    await expect(mark).toHaveText('<script>');
    await expect(mark).toBeInViewport();
    await expect(inspector.content(first.reduction_id)).toContainText(SCRIPT_TAG);

    // The agent's JSON view shows the same characters as text too.
    await inspector.showAgentJson();
    await expect(inspector.agentJson).toContainText('<script>');

    await expectNothingRan(inspector, inspectorApp, before);
  });
});
