/**
 * One session per tab, and links that name their file (SPEC §14), through the HTTP host in
 * Chromium: two tabs of one browser hold two sessions of a `serve DIR`, and neither disturbs the
 * other; a reload keeps the tab's session and its place; the fragment names the file relative to
 * the folder, so a link opens it in a new tab; a link to a file the host does not list says which
 * file and how to serve it (axe-clean).
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { audit } from '../axe';
import { runCli } from '../cli';
import { expect, test } from '../fixtures';
import { InspectorPage } from '../inspectorPage';
import { REPO_ROOT, SESSION_SIDECAR } from '../paths';

const DEMO = join(REPO_ROOT, 'samples', 'demo.sidecar.jsonl');

/** The page's globals this spec reads (the e2e project compiles without the DOM library). */
interface PageGlobals {
  location: { hash: string };
}

const hash = (page: Page): Promise<string> => page.evaluate(() => (globalThis as unknown as PageGlobals).location.hash);

/** Opens `name` from the folder's listing, as a user picks it, and waits for its rows. */
async function pick(inspector: InspectorPage, name: string): Promise<void> {
  const table = inspector.page.getByRole('table', { name: 'Sessions in folder', exact: true });
  await table.getByRole('button', { name, exact: true }).click();
  await inspector.waitLoaded();
  await expect(inspector.status).toContainText(name);
}

/** Model calls of the sample, as the CLI counts them. */
function callsOf(file: string): number {
  return (JSON.parse(runCli(['view', file]).stdout) as { calls: number }).calls;
}

test.beforeEach(({ target }) => {
  test.skip(target !== 'http', 'tabs and served folders are the HTTP host’s; the desktop app keeps one session per window');
});

test.describe('one session per tab, links that name their file', () => {
  test.use({
    // eslint-disable-next-line no-empty-pattern
    sessionFiles: async ({}, use, testInfo) => {
      const dir = testInfo.outputPath('sessions');
      mkdirSync(dir, { recursive: true });
      copyFileSync(DEMO, join(dir, 'demo.sidecar.jsonl'));
      copyFileSync(SESSION_SIDECAR, join(dir, 'session.sidecar.jsonl'));
      await use([dir]);
    },
  });

  test('two tabs hold two sessions of serve DIR, and neither disturbs the other; each fragment names its file', async ({ inspector, inspectorApp }) => {
    await pick(inspector, 'demo.sidecar.jsonl');
    const other = new InspectorPage(await inspectorApp.page.context().newPage());
    await other.page.goto(inspectorApp.url ?? '');
    await pick(other, 'session.sidecar.jsonl');
    await expect.poll(() => hash(other.page)).toBe('#file=session.sidecar.jsonl');

    // The first tab still shows its own session, and its requests answer from it.
    await expect(inspector.status).toContainText('demo.sidecar.jsonl');
    await expect(inspector.status).not.toContainText('session.sidecar.jsonl');
    await expect.poll(() => hash(inspector.page)).toBe('#file=demo.sidecar.jsonl');
    await inspector.page.reload();
    await inspector.waitLoaded();
    await expect(inspector.status).toContainText('demo.sidecar.jsonl');
    // …and the second tab still shows its own.
    await expect(other.status).toContainText('session.sidecar.jsonl');
    await other.page.reload();
    await other.waitLoaded();
    await expect(other.status).toContainText('session.sidecar.jsonl');
  });

  test('a reload keeps the tab’s session open on the host, and its place', async ({ inspector, inspectorApp }) => {
    await pick(inspector, 'session.sidecar.jsonl');
    const calls = callsOf(SESSION_SIDECAR);
    await inspector.showCall(2);
    await expect.poll(() => hash(inspector.page)).toBe('#file=session.sidecar.jsonl&call=2');
    const opens: string[] = [];
    inspector.page.on('request', (r) => {
      const path = new URL(r.url()).pathname;
      if (path === '/api/openFile' || path === '/api/openLink' || path === '/api/handle') opens.push(path);
    });
    await inspector.page.reload();
    await expect(inspector.status).toContainText(`call 2 of ${calls}`);
    await expect(inspector.status).toContainText('session.sidecar.jsonl');
    await inspector.waitLoaded();
    // The tab's session was still open: nothing was opened again, and no new handle was drawn.
    expect(opens).toEqual([]);
    expect(await hash(inspector.page)).toBe('#file=session.sidecar.jsonl&call=2');
    expect(new URL(inspectorApp.page.url()).searchParams.get('token')).toBe(new URL(inspectorApp.url ?? '').searchParams.get('token'));
  });

  test('a link that names a file opens it in a new tab at its place', async ({ inspector, inspectorApp }) => {
    await pick(inspector, 'demo.sidecar.jsonl');
    const calls = callsOf(SESSION_SIDECAR);
    const linked = new InspectorPage(await inspectorApp.page.context().newPage());
    await linked.page.goto(`${inspectorApp.url ?? ''}#file=session.sidecar.jsonl&call=2`);
    await expect(linked.status).toContainText(`call 2 of ${calls}`);
    await expect(linked.status).toContainText('session.sidecar.jsonl');
    // The tab that was open keeps its own session.
    await expect(inspector.status).toContainText('demo.sidecar.jsonl');
  });

  test('a link to a file the host does not list says which file, and the command that would serve it', async ({ inspectorApp }) => {
    const page = await inspectorApp.page.context().newPage();
    await page.goto(`${inspectorApp.url ?? ''}#file=elsewhere/other.sidecar.jsonl&call=3`);
    const inspector = new InspectorPage(page);
    const alert = inspector.alert.filter({ hasText: 'This link names the session file "elsewhere/other.sidecar.jsonl"' });
    await expect(alert).toBeVisible();
    await expect(alert).toContainText('npx session-inspector serve DIR');
    // The folder's own listing is still there to pick from.
    await expect(page.getByRole('table', { name: 'Sessions in folder', exact: true })).toBeVisible();
    expect(await audit(inspector)).toEqual([]);

    // A path out of the folder is refused before the host is asked.
    const asked: string[] = [];
    const out = await inspectorApp.page.context().newPage();
    out.on('request', (r) => {
      if (new URL(r.url()).pathname === '/api/openLink') asked.push(r.url());
    });
    await out.goto(`${inspectorApp.url ?? ''}#file=..%2Foutside%2Fsecret.sidecar.jsonl`);
    const refused = new InspectorPage(out);
    await expect(refused.alert.filter({ hasText: 'has an empty, . or .. part' })).toBeVisible();
    await expect(refused.rows).toHaveCount(0);
    expect(asked).toEqual([]);
  });
});
