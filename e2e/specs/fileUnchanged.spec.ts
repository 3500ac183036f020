/**
 * The app never changes a session file (SPEC §3): the bytes (SHA-256), size, mtime and ctime of a
 * sidecar and its snapshot, and the folder's listing, are the same before and after a full app
 * session — open, expand, slide, search, log, findings — and after the app is closed. The check
 * after closing runs in the `sessionFiles` fixture's teardown, which comes after the app's.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { expect, test } from '../fixtures';
import { LEGACY_FILES } from '../paths';
import { liveLog, stubbedReductions } from '../sessionData';

interface Fingerprint {
  sha256: string;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

function fingerprint(path: string): Fingerprint {
  const s = statSync(path);
  return { sha256: createHash('sha256').update(readFileSync(path)).digest('hex'), size: s.size, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs };
}

const fingerprints = (paths: readonly string[]) => Object.fromEntries(paths.map((p) => [basename(p), fingerprint(p)]));

test.use({
  // eslint-disable-next-line no-empty-pattern
  sessionFiles: async ({}, use, testInfo) => {
    // Copies, so a failure could never damage the committed samples.
    const dir = testInfo.outputPath('session');
    mkdirSync(dir, { recursive: true });
    const paths = LEGACY_FILES.map((p) => join(dir, basename(p)));
    LEGACY_FILES.forEach((p, k) => copyFileSync(p, paths[k] as string));
    const before = { files: fingerprints(paths), listing: readdirSync(dir).sort() };
    await use(paths);
    // Teardown: the app and its host have exited.
    expect({ files: fingerprints(paths), listing: readdirSync(dir).sort() }, 'the session files after the app closed').toEqual(before);
  },
});

test('a full app session leaves the sidecar and the snapshot byte for byte and time for time as they were', async ({ inspector, inspectorApp, sessionFiles }) => {
  const before = fingerprints(sessionFiles);
  const sidecar = sessionFiles.find((p) => p.endsWith('.sidecar.jsonl'));
  if (!sidecar) throw new Error('the legacy pair has no sidecar');
  const [first] = stubbedReductions(liveLog(sidecar)).filter((r) => r.kind === 'tool_output_truncated');
  if (!first) throw new Error('the legacy sample has no truncated output');

  // Open and expand (the legacy session upgrades to the recorded bytes).
  await inspector.waitLoaded();
  await inspector.expand(first.id);
  await expect(inspector.expanded(first.id)).toHaveAttribute('data-source', 'recorded');
  // Slide: type a range, then step the end slider with the keyboard.
  await inspector.setRange(first.id, 1, 200);
  await inspector.readShownRange(first.id);
  await inspector.rangeEndSlider(first.id).focus();
  await inspector.page.keyboard.press('ArrowRight');
  await inspector.readShownRange(first.id);
  // Search and land on a match.
  await inspector.search('error', { caseSensitive: false });
  await inspector.resultButtons.first().click();
  await expect(inspector.page.locator('mark').first()).toBeVisible();
  // The log, and a jump from it.
  await inspector.openTab('Log');
  await inspector.logGoTo.last().click();
  // The findings.
  await inspector.openTab('Findings');
  await expect(inspector.tab('Findings')).toHaveAccessibleName(/^Findings \(\d+\)$/);

  expect(fingerprints(sessionFiles), 'the session files while the app has them open').toEqual(before);
  expect(inspectorApp.events.pageErrors).toEqual([]);
});
