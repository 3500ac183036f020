/**
 * `serve` on a session file that a child process is still writing. Rows appear as they
 * are written; away from the bottom the view stays put and `Jump to latest (N new)` counts what
 * arrived; an open expansion stays open; at the bottom the view follows. The file is never written
 * by the app (SHA-256 of what the writer wrote = the file).
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { liveSessionText, liveSessionViewLength } from '../../tools/testing/liveSession';
import { appendSteps, startWriter } from '../../tools/testing/writer';
import { audit } from '../axe';
import { expect, test } from '../fixtures';

const TEXT = liveSessionText(24);
const LINES = TEXT.split(/(?<=\n)/);
/** Enough turns for a view taller than the window, reduction e1 among them. */
const FIRST_LINES = 30;

test.use({
  // eslint-disable-next-line no-empty-pattern
  sessionFiles: async ({}, use, testInfo) => {
    const path = testInfo.outputPath('live.sidecar.jsonl');
    writeFileSync(path, LINES.slice(0, FIRST_LINES).join(''));
    await use([path]);
  },
});

test('rows appear as a writer appends them; Jump to latest; the open expansion stays open', async ({ inspector, sessionFiles }) => {
  const [path] = sessionFiles;
  if (!path) throw new Error('no session file');
  await inspector.waitLoaded();
  const expansion = await inspector.expand('e1');
  await expect(inspector.page.getByText('the build passes now')).toHaveCount(0);

  // One record every 10 ms, one of them torn and completed by the next write.
  const writer = startWriter(path, appendSteps(LINES.slice(FIRST_LINES).join(''), 4));
  let writerSha: string;
  try {
    writerSha = await writer.done;
  } finally {
    writer.kill();
  }
  expect(createHash('sha256').update(readFileSync(path)).digest('hex')).toBe(writerSha);

  // The view was not at its bottom: it stayed, and counts what arrived.
  const jump = inspector.page.getByRole('button', { name: /^Jump to latest \(\d+ new\)$/ });
  await expect(jump).toBeVisible();
  await expect(expansion).toBeVisible();
  await expect(inspector.stubChip('e1')).toHaveAccessibleName(/^Collapse reduction e1/);
  expect(await audit(inspector)).toEqual([]);

  await jump.click();
  await expect(inspector.page.getByText('the build passes now')).toBeVisible();
  await expect(jump).toBeHidden();

  // At the bottom the view follows: a message written now shows without a click.
  const more = startWriter(path, [{ append: `${JSON.stringify({ t: 'message', i: liveSessionViewLength(24), msg: { role: 'user', content: 'one more message, written while watched' } })}\n` }]);
  try {
    await more.done;
  } finally {
    more.kill();
  }
  await expect(inspector.page.getByText('one more message, written while watched')).toBeVisible();
});
