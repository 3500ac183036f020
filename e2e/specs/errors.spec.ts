import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliOpenError } from '../cli';
import { expect, test } from '../fixtures';
import type { InspectorPage } from '../inspectorPage';
import { REPO_ROOT, sample } from '../paths';

// Its tests share the worker's page, each with its own host (fixtures.ts, reusePage).
test.use({ reusePage: true });

const readme = join(REPO_ROOT, 'README.md');
const demo = sample('demo.sidecar.jsonl');

/** The error is shown with the message the CLI gives for the same files. */
async function expectAlert(inspector: InspectorPage, files: string[]): Promise<void> {
  const error = cliOpenError(files);
  await expect(inspector.alert).toBeVisible();
  await expect(inspector.alert).toContainText(error.message);
  await expect(inspector.progress).toBeHidden();
}

/** The window still answers: the shortcuts dialog opens and closes. */
async function expectUsable(inspector: InspectorPage): Promise<void> {
  await inspector.page.keyboard.press('?');
  await expect(inspector.shortcutsDialog).toBeVisible();
  await inspector.page.keyboard.press('Escape');
  await expect(inspector.shortcutsDialog).toBeHidden();
}

test.describe('a file that is not a session, named at start', () => {
  test.use({ sessionFiles: [readme] });

  test('shows an alert naming the problem', async ({ inspector }) => {
    await expectAlert(inspector, [readme]);
    await expectUsable(inspector);
  });
});

test.describe('a plain text file, named at start', () => {
  test.use({
    // Playwright reads the fixtures a function needs from its first parameter's pattern.
    // eslint-disable-next-line no-empty-pattern
    sessionFiles: async ({}, use, testInfo) => {
      const notes = testInfo.outputPath('notes.txt');
      writeFileSync(notes, 'Meeting notes\n- nothing here is JSON\n');
      await use([notes]);
    },
  });

  test('shows an alert naming the problem', async ({ inspector, sessionFiles }) => {
    await expectAlert(inspector, sessionFiles);
    await expectUsable(inspector);
  });
});

test.describe('a pair with a file that is not a session, named at start', () => {
  test.use({ sessionFiles: [demo, readme] });

  test('shows an alert naming the problem', async ({ inspector }) => {
    await expectAlert(inspector, [demo, readme]);
    await expectUsable(inspector);
  });
});

test.describe('choosing a file that is not a session', () => {
  // Offered one by one in the host's `Session file` list.
  test.use({ sessionFiles: [readme, demo] });

  test('shows an alert, and a good file opens after it', async ({ inspector, inspectorApp }) => {
    test.skip(inspectorApp.target !== 'http', 'the Session file list is the HTTP host’s; the desktop app opens files with its native dialog');
    await inspector.openOffered(/^README\.md\b/);
    await expectAlert(inspector, [readme]);
    await expectUsable(inspector);

    await inspector.openOffered(/^demo\.sidecar\.jsonl\b/);
    await inspector.waitLoaded();
    await expect(inspector.status).toContainText('demo.sidecar.jsonl');
    await expect(inspector.stubChip('r1')).toBeVisible();
  });
});
