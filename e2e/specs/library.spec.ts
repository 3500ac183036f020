/**
 * The session library (SPEC §14 "The app"), through the HTTP host in Chromium: `serve` with no FILE
 * and a temporary HOME holding real sessions of Claude Code and Codex shows the `Sessions` table;
 * typing filters it; Enter searches every session's text (what a compaction hid too); a row opens
 * its session in this tab and the fragment names its file; `Library` in the header goes back (a
 * reload keeps the library, or the session); axe finds nothing to fix.
 */
import { appendFileSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { audit } from '../axe';
import { expect, test } from '../fixtures';
import { REPO_ROOT } from '../paths';
import { recordedTexts, textRecorder } from '../textRecorder';

const REAL = join(REPO_ROOT, 'e2e', 'fixtures', 'real');
/** Titles the agents gave the sessions (their first prompts), as the library shows them. */
const COMPACTED_TITLE = /^for the change in cmd\/entire\/cli\/hooks_claudecode_handlers/;
const CODEX_TITLE = /^Evaluate @packages\/services/;

/** Claude Code records of exchanges `from` to `to` (exclusive) of one session: a prompt each, answered once. */
function exchanges(from: number, to: number): string {
  const id = '00000000-0000-4000-8000-00000000live';
  const lines: string[] = [];
  for (let t = from; t < to; t++) {
    const time = new Date(Date.UTC(2026, 5, 1, 12, 0, t)).toISOString();
    const parent = t === 0 ? null : `a${t - 1}`;
    lines.push(JSON.stringify({ type: 'user', sessionId: id, cwd: '/work/live', timestamp: time, uuid: `u${t}`, parentUuid: parent, isSidechain: false, message: { role: 'user', content: `new prompt ${t}` } }));
    lines.push(JSON.stringify({ type: 'assistant', sessionId: id, cwd: '/work/live', timestamp: time, uuid: `a${t}`, parentUuid: `u${t}`, isSidechain: false, message: { id: `msg_${t}`, role: 'assistant', model: 'claude-test-1', content: [{ type: 'text', text: `answer ${t}` }] } }));
  }
  return `${lines.join('\n')}\n`;
}

interface PageGlobals {
  location: { hash: string };
}
const hash = (page: Page): Promise<string> => page.evaluate(() => (globalThis as unknown as PageGlobals).location.hash);

/** The host's environment: Claude Code and Codex under `home`, no other agent's folder, the cache under `base`. */
function libraryEnv(base: string, home: string): Record<string, string> {
  const none = join(base, 'none');
  return {
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    CODEX_HOME: join(home, '.codex'),
    INSPECT_LOG_DIR: none,
    SWE_AGENT_TRAJECTORY_DIR: none,
    MSWEA_GLOBAL_CONFIG_DIR: none,
    OPENHANDS_CONVERSATIONS_DIR: none,
    XDG_CACHE_HOME: join(base, 'cache'),
    SESSION_INSPECTOR_CACHE_DIR: join(base, 'cache', 'library'),
  };
}

test.beforeEach(({ target }) => {
  test.skip(target !== 'http', 'the library page is served by the HTTP host here; the desktop app opens its files');
});

test.describe('the app opens on the session library', () => {
  test.use({
    sessionFiles: [],
    // eslint-disable-next-line no-empty-pattern
    serveEnv: async ({}, use, testInfo) => {
      const base = testInfo.outputPath('library');
      const home = join(base, 'home');
      const project = join(home, '.claude', 'projects', '-Users-soph-Work-entire');
      const codex = join(home, '.codex', 'sessions', '2025', '09', '25');
      mkdirSync(project, { recursive: true });
      mkdirSync(codex, { recursive: true });
      copyFileSync(join(REAL, 'claude-code', 'cc-2.0.76-compact-boundary.jsonl'), join(project, 'compacted.jsonl'));
      copyFileSync(join(REAL, 'claude-code', 'cc-2.1.42-rewind.jsonl'), join(project, 'rewind.jsonl'));
      copyFileSync(join(REAL, 'codex', 'rollout-0.40.0-vscode-unmodified.jsonl'), join(codex, 'rollout-2025-09-25T23-12-14.jsonl'));
      await use(libraryEnv(base, home));
    },
  });

  test('Sessions lists every session; typing filters; a row opens in this tab; Library goes back; reload keeps the place', async ({ inspector }) => {
    const page = inspector.page;
    const table = page.getByRole('table', { name: 'Sessions', exact: true });
    await expect(table).toBeVisible();
    const rows = table.locator('tbody tr');
    await expect(rows).toHaveCount(3);
    // Counts arrive as the host indexes: the compacted session's compaction is counted.
    const compacted = rows.filter({ has: page.getByRole('link', { name: COMPACTED_TITLE }) });
    await expect(compacted.locator('td').nth(5)).toHaveText('1');
    await expect(compacted.locator('td').nth(0)).toHaveText('Claude Code');
    // Its context tokens (some 67 thousand) are written as the rest of the app writes counts.
    await expect(compacted.locator('td').nth(6)).toHaveText(/^\d{1,3}(,\d{3})+$/);

    // Sorting by a column says so (aria-sort) and orders the rows.
    const calls = table.getByRole('columnheader', { name: 'Calls' });
    await calls.getByRole('button').click();
    await expect(calls).toHaveAttribute('aria-sort', 'descending');
    await expect(rows.first().getByRole('link')).toHaveText(CODEX_TITLE);
    await calls.getByRole('button').click();
    await expect(calls).toHaveAttribute('aria-sort', 'ascending');
    await expect(rows.last().getByRole('link')).toHaveText(CODEX_TITLE);

    // Filter as one types: a project's words, then a title's.
    const search = page.getByRole('searchbox', { name: 'Search sessions' });
    await search.fill('spectora');
    await expect(rows).toHaveCount(1);
    await expect(rows.first().getByRole('link')).toHaveText(CODEX_TITLE);
    await search.fill('hooks_claudecode');
    await expect(rows).toHaveCount(1);

    // The row opens its session here, by keyboard; the fragment names its file and root.
    await rows.first().getByRole('link').focus();
    await page.keyboard.press('Enter');
    await inspector.waitLoaded();
    await expect(table).toBeHidden();
    await expect.poll(() => hash(page)).toMatch(/^#file=-Users-soph-Work-entire\/compacted\.jsonl&root=0(&|$)/);
    const sessionHash = await hash(page);

    // A reload keeps the session.
    await page.reload();
    await inspector.waitLoaded();
    await expect.poll(() => hash(page)).toBe(sessionHash);

    // Library goes back; a reload keeps the library; the session is still the tab's.
    await page.getByRole('link', { name: 'Library', exact: true }).click();
    await expect(table).toBeVisible();
    expect(await hash(page)).toBe('#library');
    await page.reload();
    await expect(table).toBeVisible();
    await expect(rows).toHaveCount(3);
    expect(await hash(page)).toBe('#library');
    await page.goBack();
    await inspector.waitLoaded();
  });

  test('Enter searches every session: text a compaction hid is found (axe-clean), and its snippet opens the session at it', async ({ inspector }) => {
    const page = inspector.page;
    await expect(page.getByRole('table', { name: 'Sessions', exact: true }).locator('tbody tr')).toHaveCount(3);
    const search = page.getByRole('searchbox', { name: 'Search sessions' });
    await search.fill('fail to open the repository in that case');
    await search.press('Enter');
    const results = page.getByRole('region', { name: 'Search results' });
    await expect(results.getByRole('heading')).toHaveText(/^1 session hold/);
    await expect(results).toContainText(/\d+ hidden/);
    expect(await audit(inspector)).toEqual([]);
    const hidden = results.getByRole('link', { name: /^Hidden: .*fail to open the repository in that case/i }).first();
    // Its match is marked in the snippet, as a session's own search marks it.
    await expect(hidden.locator('mark')).toHaveText(/^fail to open the repository in that case$/i);
    await hidden.click();
    await inspector.waitLoaded();
    await expect.poll(() => hash(page)).toMatch(/^#file=-Users-soph-Work-entire\/compacted\.jsonl&root=0&.*reduction=cc-compact-L31/);
  });

  test('a session that appears, then grows, while the page is open shows up and its counts and live mark follow', async ({ inspector }) => {
    const page = inspector.page;
    const table = page.getByRole('table', { name: 'Sessions', exact: true });
    const rows = table.locator('tbody tr');
    await expect(rows).toHaveCount(3);
    await expect(page.getByRole('status').filter({ hasText: 'indexing' })).toHaveCount(0);
    // A new project folder and session, written by an agent while the page is open: two exchanges.
    const folder = join(test.info().outputPath('library'), 'home', '.claude', 'projects', '-work-live');
    mkdirSync(folder);
    const file = join(folder, 'live.jsonl');
    writeFileSync(file, exchanges(0, 2));
    const row = rows.filter({ has: page.getByRole('link', { name: /^new prompt 0/ }) });
    await expect(row).toHaveCount(1);
    await expect(row.locator('td').nth(4)).toHaveText('2');
    await expect(row.getByText('live', { exact: true })).toBeVisible();
    // It grows: a third exchange appended, and its row says so.
    appendFileSync(file, exchanges(2, 3));
    await expect(row.locator('td').nth(4)).toHaveText('3');
    await expect(rows).toHaveCount(4);
  });

  test('the library page passes axe-core', async ({ inspector }) => {
    const table = inspector.page.getByRole('table', { name: 'Sessions', exact: true });
    await expect(table.locator('tbody tr')).toHaveCount(3);
    await expect(inspector.page.getByRole('status').filter({ hasText: 'indexing' })).toHaveCount(0);
    expect(await audit(inspector)).toEqual([]);
  });
});

/** Every text the library's progress count shows, from the page's first paint. */
const PROGRESS_RECORDER = textRecorder('.library-progress', 'libraryProgressSaid');

test.describe('a large library streams into the table', () => {
  const SESSIONS = 600;
  test.use({
    sessionFiles: [],
    pageInitScript: PROGRESS_RECORDER,
    // eslint-disable-next-line no-empty-pattern
    serveEnv: async ({}, use, testInfo) => {
      const base = testInfo.outputPath('library-large');
      const home = join(base, 'home');
      for (let k = 0; k < SESSIONS; k++) {
        const project = join(home, '.claude', 'projects', `-work-p${Math.floor(k / 50)}`);
        if (k % 50 === 0) mkdirSync(project, { recursive: true });
        const id = `00000000-0000-4000-8000-${String(k).padStart(12, '0')}`;
        const time = new Date(Date.UTC(2026, 0, 1) + k * 60_000).toISOString();
        const lines = [
          { type: 'user', sessionId: id, cwd: `/work/p${k % 7}`, timestamp: time, uuid: `${id}-u`, parentUuid: null, isSidechain: false, message: { role: 'user', content: `prompt of session ${k}` } },
          { type: 'assistant', sessionId: id, cwd: `/work/p${k % 7}`, timestamp: time, uuid: `${id}-a`, parentUuid: `${id}-u`, isSidechain: false, message: { id: `msg_${k}`, role: 'assistant', model: 'claude-test-1', content: [{ type: 'text', text: `answer ${k}` }] } },
        ];
        writeFileSync(join(project, `${id}.jsonl`), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
      }
      await use(libraryEnv(base, home));
    },
  });

  test('rows appear as they are listed, with a progress count in a live region; axe finds nothing to fix', async ({ inspector }) => {
    // 600 files indexed on one thread of a loaded two-core machine.
    test.setTimeout(240_000);
    const page = inspector.page;
    const progress = page.locator('.library-progress');
    await expect(progress).toHaveAttribute('role', 'status');
    await expect(progress).toHaveAttribute('aria-live', 'polite');
    // Every row, newest first, and the count says no more.
    const rows = page.getByRole('table', { name: 'Sessions', exact: true }).locator('tbody tr');
    await expect(progress).toHaveText(`${SESSIONS.toLocaleString('en-US')} sessions`, { timeout: 120_000 });
    await expect(rows).toHaveCount(200);
    await expect(rows.first().getByRole('link')).toHaveText(`prompt of session ${SESSIONS - 1}`);
    // Before that, while the host listed (the page's first ask starts the listing, so its answer
    // is always partial): the count said how many were indexed of those found so far, never less
    // than it said before. Recorded from the page's start (PROGRESS_RECORDER), however fast the listing.
    const said = await recordedTexts(page, 'libraryProgressSaid');
    const partial = said.slice(0, -1);
    expect(partial.length).toBeGreaterThan(0);
    const counts = partial.map((text) => {
      const match = /^(\d[\d,]*) sessions? so far: (\d+) of (\d+) indexed…$/.exec(text);
      expect(match, `progress said ${JSON.stringify(text)}`).not.toBeNull();
      return { shown: Number(match![1]!.replace(/,/g, '')), indexed: Number(match![2]), found: Number(match![3]) };
    });
    for (const [k, now] of counts.entries()) {
      expect(now.indexed).toBeLessThanOrEqual(now.found);
      if (k > 0) expect(now.indexed).toBeGreaterThanOrEqual(counts[k - 1]!.indexed);
    }
    expect(said.at(-1)).toBe(`${SESSIONS.toLocaleString('en-US')} sessions`);
    expect(await audit(inspector)).toEqual([]);
  });
});
