/**
 * A session file rewritten on disk while the app has it open: the bytes are not shown
 * as verified, and an alert names the file and says to open it again.
 */
import { closeSync, copyFileSync, openSync, readFileSync, statSync, utimesSync, writeSync } from 'node:fs';
import { expect, test } from '../fixtures';
import { sample } from '../paths';

test.use({
  // eslint-disable-next-line no-empty-pattern
  sessionFiles: async ({}, use, testInfo) => {
    // A copy: the committed sample is never touched.
    const path = testInfo.outputPath('demo.sidecar.jsonl');
    copyFileSync(sample('demo.sidecar.jsonl'), path);
    // Not followed: a followed file rewritten in place is reopened instead (liveSession.spec.ts).
    await use([path, '--no-follow']);
  },
});

/** Rewrites the hidden "FAIL" in place with as many other bytes, and sets the modification time back. */
function rewriteHiddenOutput(path: string): void {
  const { atime, mtime } = statSync(path);
  const at = readFileSync(path).indexOf('FAIL b.test.ts');
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, Buffer.from('PASS'), 0, 4, at);
  } finally {
    closeSync(fd);
  }
  utimesSync(path, atime, mtime);
}

test('an alert names the changed file and the rewritten bytes are never shown', async ({ inspector, sessionFiles }) => {
  const [path] = sessionFiles;
  if (!path) throw new Error('no session file');
  await inspector.waitLoaded();
  // The rows and the chip's status arrive after loading ends: rewrite only once they are shown
  // (rewritten earlier, the rows themselves answer file_changed and there is no chip to click).
  await expect(inspector.stubChip('r1')).toContainText('verified');
  rewriteHiddenOutput(path);
  await inspector.stubChip('r1').click();
  const notice = inspector.alert.filter({ hasText: 'Open the file again' });
  await expect(notice).toBeVisible();
  await expect(notice).toContainText('demo.sidecar.jsonl changed on disk since it was opened');
  // The expansion answers the error instead of the bytes.
  await expect(inspector.alert.filter({ hasText: 'expand:' })).toContainText('changed on disk');
  await expect(inspector.page.getByText('PASS b.test.ts')).toHaveCount(0);
  // The chip, verified when the session opened, no longer says so.
  await expect(inspector.stubChip('r1')).not.toContainText('verified');
});
