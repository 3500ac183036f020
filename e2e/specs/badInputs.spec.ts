/**
 * The corpus of bad inputs (e2e/fixtures/bad/, its README says what each breaks) opened in the
 * app, plus a directory and a path that does not exist: each shows its findings (the codes `check`
 * prints) or an alert with the error the command line gives, expands what verifies and says why the
 * rest does not, stays usable (the shortcuts dialog opens and closes), and throws nothing uncaught.
 *
 * Over HTTP, a file the folder's listing holds is opened as a user goes from one session of a folder
 * to the next: `serve e2e/fixtures/bad`, one host and page for the worker's tests, each test
 * opening its file by a link (`#file=NAME`). A file the listing leaves out (it is no session: the
 * alerts), a generated one (outside the folder), and every file in the desktop app are opened with
 * `serve <file>` (the app's arguments) in a host of their own.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliOpenError } from '../cli';
import { expect, test } from '../fixtures';
import type { InspectorApp } from '../fixtures';
import type { InspectorPage } from '../inspectorPage';
import { REPO_ROOT } from '../paths';
import { badInputPath } from '../../tools/testing/badCorpus';
import { MAX_REPLY_FINDINGS } from '../../shared/contract';

const BAD = join(REPO_ROOT, 'e2e', 'fixtures', 'bad');

/** One entry of `manifest.json` (written by tools/testing/badCorpus.ts). */
interface BadInput {
  name: string;
  what: string;
  error: string | null;
  findings: string[];
  expand: Record<string, string>;
  /** Made at test time (too large to commit); `finding_counts` then says how many of each code. */
  generated?: true;
  finding_counts?: Record<string, number>;
}

/** Corpus files of the imported formats (SPEC §10.1): `tools/testing/badCorpusFormats.ts` and `badCorpusArchives.ts`. */
const IMPORTED = /^(cc|codex|inspect)-/;

const manifest = (JSON.parse(readFileSync(join(BAD, 'manifest.json'), 'utf8')) as { files: BadInput[] }).files;

/** Text an expanded reduction of a corpus file must show (how the UI renders its odd bytes). */
const SHOWN: Record<string, { id: string; text: string }> = {
  'nul-bytes.sidecar.jsonl': { id: 'r1', text: '␀␀segfault: core dumped␀␀' },
  'lone-surrogates.sidecar.jsonl': { id: 'r1', text: 'high \uFFFD low \uFFFD reversed \uFFFD\uFFFD end' },
  'duplicate-cycle.sidecar.jsonl': { id: 'r2', text: '14 passed, 0 failed' },
};

async function expectUsable(inspector: InspectorPage, app: InspectorApp): Promise<void> {
  await inspector.page.keyboard.press('?');
  await expect(inspector.shortcutsDialog).toBeVisible();
  await inspector.page.keyboard.press('Escape');
  await expect(inspector.shortcutsDialog).toBeHidden();
  expect(app.events.pageErrors, 'uncaught page errors').toEqual([]);
  expect(app.events.consoleErrors, 'console errors').toEqual([]);
  expect(app.events.dialogs).toEqual([]);
}

/** The error the command line gives for the file, shown as the app's alert. */
async function expectAlert(inspector: InspectorPage, files: string[]): Promise<void> {
  const error = cliOpenError(files);
  await expect(inspector.alert).toBeVisible();
  await expect(inspector.alert).toContainText(error.message);
  await expect(inspector.progress).toBeHidden();
}

// Each test opens its own file in its own host; they share the worker's page (fixtures.ts, reusePage):
// a new context and page per test was about a third of a small input's test.
test.use({ reusePage: true });

/** How long making one generated input may take, outside any test's time (80 MB, on a loaded machine). */
const MAKE_TIMEOUT_MS = 5 * 60_000;

for (const input of manifest) {
  test.describe(`bad input ${input.name}`, () => {
    // Made before the test, outside its time, once for every suite (tools/testing/generatedCache.ts):
    // made by the `sessionFiles` fixture, an 80 MB input took the whole test timeout on a loaded
    // machine before the test's body (and its test.slow()) had started.
    if (input.generated) {
      test.beforeAll(() => {
        test.setTimeout(MAKE_TIMEOUT_MS);
        badInputPath(input.name);
      });
    }
    // A file of the folder that opens (no alert), over HTTP: opened by a link in the worker's host of the folder.
    const byLink = (target: string): boolean => target === 'http' && input.generated !== true && input.error === null;
    test.use({
      shareHost: async ({ target }, use) => {
        await use(byLink(target));
      },
      sessionFiles: async ({ target }, use) => {
        await use([byLink(target) ? BAD : input.generated ? badInputPath(input.name) : join(BAD, input.name)]);
      },
    });

    const outcome = input.error ? `an alert: ${input.error}` : input.findings.length > 0 ? `findings ${input.findings.join(', ')}` : 'no findings';
    test(`shows ${outcome}`, async ({ inspector, inspectorApp, sessionFiles }) => {
      test.info().annotations.push({ type: 'input', description: input.what });
      if (input.generated) test.slow();
      if (byLink(inspectorApp.target)) await inspector.openLinkedFile(input.name);
      if (input.error) {
        await expectAlert(inspector, sessionFiles);
        await expectUsable(inspector, inspectorApp);
        return;
      }
      // The findings, as many and of the codes `check` reports. A session over the automatic
      // check's size (the 80 MB of tool-call arguments) is checked when asked.
      await inspector.openTab('Findings');
      const runCheck = inspector.page.getByRole('button', { name: 'Run the integrity check', exact: true });
      // A generated input is large: its check (130,000 findings) takes seconds more on a loaded machine.
      await expect(inspector.tab('Findings').filter({ hasText: /\(\d+\)/ }).or(runCheck)).toBeVisible({ timeout: input.generated ? 60_000 : undefined });
      // A preview (the file still being indexed) offers the button too, and the whole session that
      // replaces it may check itself: decide only once the open is over, or the click can wait on a
      // button the automatic check has taken away.
      await expect(inspector.progress).toBeHidden({ timeout: input.generated ? 60_000 : undefined });
      if (await runCheck.isVisible()) await runCheck.click();
      if (input.finding_counts) {
        // Thousands: all are counted, the first MAX_REPLY_FINDINGS listed, and the rest said.
        const total = Object.values(input.finding_counts).reduce((n, k) => n + k, 0);
        // The check asked for just above may still be running over the whole file.
        await expect(inspector.tab('Findings')).toHaveAccessibleName(`Findings (${total})`, { timeout: 60_000 });
        await expect(inspector.findingItems).toHaveCount(Math.min(total, MAX_REPLY_FINDINGS));
        await expect(inspector.page.getByRole('region', { name: 'Findings' })).toContainText(`and ${(total - MAX_REPLY_FINDINGS).toLocaleString('en-US')} more`);
        for (const code of input.findings) await expect(inspector.findingItems.filter({ hasText: code }).first()).toBeVisible();
      } else {
        await expect(inspector.tab('Findings')).toHaveAccessibleName(`Findings (${input.findings.length})`, { timeout: input.generated ? 60_000 : undefined });
        await expect(inspector.findingItems).toHaveCount(input.findings.length);
        for (const code of new Set(input.findings)) {
          await expect(inspector.findingItems.filter({ hasText: code })).toHaveCount(input.findings.filter((c) => c === code).length);
        }
      }
      await expect(inspector.progress).toBeHidden();

      // Each reduction with a chip: what verifies expands, what does not says why. The rows of a
      // small file arrive in one page: once the first is there, every chip is.
      if (Object.values(input.expand).some((v) => v !== 'unsupported_version')) await expect(inspector.row(0)).toBeVisible();
      const expanded: string[] = [];
      for (const [id, expected] of Object.entries(input.expand)) {
        if (expected === 'unsupported_version' || (await inspector.stubChip(id).count()) === 0) continue;
        expanded.push(id);
        await inspector.stubChip(id).click();
        const region = inspector.expanded(id);
        await expect(region).toBeVisible();
        if (expected === 'ok') {
          // A range (summarized, turns cleared) opens as one code element per message.
          await expect(inspector.content(id).first()).toBeVisible();
          await expect(region).toHaveAttribute('data-source', 'minted');
          // A reduction an agent recorded (Claude Code, Codex) was hashed when the file was imported.
          await expect(region).toContainText(IMPORTED.test(input.name) ? 'hashed at import' : 'hash verified');
          if (SHOWN[input.name]?.id === id) await expect(region).toContainText(SHOWN[input.name]?.text ?? '');
        } else {
          await expect(region).toContainText(`hash status: ${expected.replace(/_/g, ' ')}`);
        }
        // Collapsed as the page object does (clicked until it says so): a plain click could land while
        // the virtual scroller re-placed the row, and the region stayed open (seen at load 7).
        await inspector.collapse(id);
      }
      const shown = SHOWN[input.name];
      if (shown) expect(expanded).toContain(shown.id);
      await expectUsable(inspector, inspectorApp);
    });
  });
}

test.describe('bad input: a directory', () => {
  test.use({
    // eslint-disable-next-line no-empty-pattern
    sessionFiles: async ({}, use, testInfo) => {
      const dir = testInfo.outputPath('a-directory.sidecar.jsonl');
      mkdirSync(dir, { recursive: true });
      await use([dir]);
    },
  });

  test('shows an alert: unreadable_file, it is a directory (over HTTP, serve DIR: an empty folder listing)', async ({ inspector, inspectorApp, sessionFiles }) => {
    if (inspectorApp.target === 'http') {
      // `serve DIR` lists the session files of a folder; this one holds none, and says so.
      await expect(inspector.page.getByText('No session file in this folder yet: add one, then Refresh.')).toBeVisible();
      await expect(inspector.alert).toHaveCount(0);
    } else {
      await expectAlert(inspector, sessionFiles);
      await expect(inspector.alert).toContainText('EISDIR');
    }
    await expectUsable(inspector, inspectorApp);
  });
});

test.describe('bad input: a path that does not exist', () => {
  test.use({
    // eslint-disable-next-line no-empty-pattern
    sessionFiles: async ({}, use, testInfo) => {
      await use([testInfo.outputPath('does-not-exist.sidecar.jsonl')]);
    },
  });

  test('shows an alert: unreadable_file, no such file', async ({ inspector, inspectorApp, sessionFiles }) => {
    await expectAlert(inspector, sessionFiles);
    await expect(inspector.alert).toContainText('ENOENT');
    await expectUsable(inspector, inspectorApp);
  });
});
