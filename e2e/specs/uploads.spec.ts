/**
 * Files opened from the browser. Over the HTTP host a file picked with `Open file…` or
 * dropped on the page is uploaded and opened (its bytes expand as the command line expands the
 * original); `serve DIR` lists the folder's session files in `Sessions in folder`, each opened by
 * picking it, a file added later offered after `Refresh`. The desktop app keeps its native dialog.
 */
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { audit } from '../axe';
import { cliExpand } from '../cli';
import { expect, test } from '../fixtures';
import type { InspectorPage } from '../inspectorPage';
import { REPO_ROOT, SESSION_SIDECAR } from '../paths';
import { displaysVerbatim, liveLog, stubbedReductions } from '../sessionData';

const DEMO = join(REPO_ROOT, 'samples', 'demo.sidecar.jsonl');

test.beforeEach(({ target }) => {
  test.skip(target !== 'http', 'uploads and folders are the HTTP host’s; the desktop app opens files with its native dialog');
});

/** A reduction of `file` whose original the page shows verbatim, so it can be compared with the CLI's. */
function verbatimReduction(file: string): string {
  // One message's output (a range reduction shows one content element per message).
  const found = stubbedReductions(liveLog(file)).find((r) => (r.kind === 'tool_output_truncated' || r.kind === 'tool_output_elided') && displaysVerbatim(cliExpand([file], r.id).content));
  if (!found) throw new Error(`no reduction of ${file} is shown verbatim`);
  return found.id;
}

/** Expands `id` and checks the page shows what `expand` prints for `file` (the original on disk). */
async function expectExpandsLikeCli(inspector: InspectorPage, file: string, id: string): Promise<void> {
  await inspector.expand(id);
  await expect(inspector.expanded(id)).toContainText('verified');
  const shown = await inspector.readShownRange(id);
  const cli = cliExpand([file], id, [shown.start, shown.end]);
  expect(shown.total).toBe(cli.total_bytes);
  await expect.poll(() => inspector.readContent(id)).toBe(cli.content);
}

/** Drops files made in the page from `files` (name and text) on it, as a drag from the desktop does. */
async function dropFiles(inspector: InspectorPage, files: { name: string; text: string }[]): Promise<void> {
  // The page's DOM types, as far as used here (this project's TypeScript has no DOM library).
  interface PageGlobals {
    DataTransfer: new () => { items: { add(file: unknown): void } };
    File: new (parts: string[], name: string) => unknown;
    DragEvent: new (type: string, init: { dataTransfer: unknown; bubbles: boolean; cancelable: boolean }) => unknown;
    document: { body: { dispatchEvent(event: unknown): boolean } };
  }
  await inspector.page.evaluate((list) => {
    const g = globalThis as unknown as PageGlobals;
    const data = new g.DataTransfer();
    for (const f of list) data.items.add(new g.File([f.text], f.name));
    for (const type of ['dragenter', 'dragover', 'drop']) g.document.body.dispatchEvent(new g.DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }));
  }, files);
}

test.describe('uploads', () => {
  test.use({ sessionFiles: [DEMO] });

  test('Open file… uploads the picked file and opens it; its stubs expand to the bytes the CLI expands', async ({ inspector }) => {
    await inspector.waitLoaded();
    await expect(inspector.status).toContainText('demo.sidecar.jsonl');
    await expect(inspector.page.getByRole('button', { name: 'Open file…', exact: true })).toBeVisible();
    await inspector.page.getByLabel('Session file to open').setInputFiles(SESSION_SIDECAR);
    await expect(inspector.status).toContainText('session.sidecar.jsonl');
    await inspector.waitLoaded();
    // The file list names the upload by its label, and it is the one shown.
    await expect(inspector.sessionFile).toHaveValue(/^file-\d+$/);
    await expect(inspector.sessionFile.locator('option:checked')).toHaveText('session.sidecar.jsonl');
    await expectExpandsLikeCli(inspector, SESSION_SIDECAR, verbatimReduction(SESSION_SIDECAR));
    expect(await audit(inspector)).toEqual([]);
  });

  test('a file dropped on the page is uploaded and opened under its name', async ({ inspector }) => {
    await inspector.waitLoaded();
    await inspector.page.getByLabel('Session file to open').setInputFiles(SESSION_SIDECAR);
    await expect(inspector.status).toContainText('session.sidecar.jsonl');
    await dropFiles(inspector, [{ name: 'dropped demo.sidecar.jsonl', text: readFileSync(DEMO, 'utf8') }]);
    await expect(inspector.status).toContainText('dropped demo.sidecar.jsonl');
    await inspector.waitLoaded();
    await expectExpandsLikeCli(inspector, DEMO, verbatimReduction(DEMO));
  });

  test('several files dropped at once open nothing and say to open one at a time', async ({ inspector }) => {
    await inspector.waitLoaded();
    const uploads: string[] = [];
    inspector.page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/api/upload') uploads.push(r.url());
    });
    const demo = readFileSync(DEMO, 'utf8');
    await dropFiles(inspector, [
      { name: 'a.sidecar.jsonl', text: demo },
      { name: 'b.sidecar.jsonl', text: demo },
    ]);
    await expect(inspector.alert).toContainText('2 files were given at once; nothing was opened.');
    await expect(inspector.alert).toContainText('Open one file at a time.');
    await expect(inspector.status).toContainText('demo.sidecar.jsonl');
    expect(uploads).toEqual([]);
  });

  test('a file that is no session is refused with an alert, and the app keeps working', async ({ inspector }) => {
    await inspector.waitLoaded();
    await dropFiles(inspector, [{ name: 'notes.txt', text: 'just some notes\n' }]);
    await expect(inspector.alert).toContainText('notes.txt is neither a sidecar');
    // Named by its label: the temporary file's name is never shown.
    await expect(inspector.alert).not.toContainText('upload-');
    await inspector.page.getByLabel('Session file to open').setInputFiles(DEMO);
    await inspector.waitLoaded();
    await expectExpandsLikeCli(inspector, DEMO, verbatimReduction(DEMO));
  });

  test('a file that is no session leaves the open session open with the error shown; the next file opened takes the error away', async ({ inspector }) => {
    await inspector.waitLoaded();
    await expect(inspector.status).toContainText('demo.sidecar.jsonl');
    await inspector.page.getByLabel('Session file to open').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('just some notes\n') });
    await expect(inspector.alert).toContainText('notes.txt is neither a sidecar');
    await expect(inspector.status).toContainText('demo.sidecar.jsonl');
    await inspector.waitLoaded();
    await expect(inspector.rows).toHaveCount(4);
    await expect(inspector.alert).toContainText('notes.txt is neither a sidecar');
    await inspector.page.getByLabel('Session file to open').setInputFiles(SESSION_SIDECAR);
    await expect(inspector.status).toContainText('session.sidecar.jsonl');
    await inspector.waitLoaded();
    await expect(inspector.alert).toHaveCount(0);
  });
});

test.describe('uploads, one after another', () => {
  test.use({ sessionFiles: [DEMO] });

  test('a second file dropped before the first has opened is the one shown, read from its own copy; no temporary path is shown', async ({ inspector }) => {
    await inspector.waitLoaded();
    const answers: Promise<string>[] = [];
    inspector.page.on('response', (r) => {
      if (new URL(r.url()).pathname.startsWith('/api/')) answers.push(r.text().catch(() => ''));
    });
    // The second drop is sent while the first upload is still being opened.
    await dropFiles(inspector, [{ name: 'first.sidecar.jsonl', text: readFileSync(SESSION_SIDECAR, 'utf8') }]);
    await dropFiles(inspector, [{ name: 'second demo.sidecar.jsonl', text: readFileSync(DEMO, 'utf8') }]);
    await expect(inspector.status).toContainText('second demo.sidecar.jsonl');
    await inspector.waitLoaded();
    // The name shows as the open starts; the first file's rows (hundreds) can stay a moment after it
    // on a busy machine, until the second's four replace them.
    await expect(inspector.rows).toHaveCount(4);
    await expectExpandsLikeCli(inspector, DEMO, verbatimReduction(DEMO));
    await expect(inspector.alert).toHaveCount(0);
    await expect(inspector.page.locator('body')).not.toContainText(/upload-[0-9a-f]{24}|session-inspector-upload-/);
    for (const body of await Promise.all(answers)) expect(body).not.toMatch(/upload-[0-9a-f]{24}|session-inspector-upload-/);
  });
});

test.describe('serve DIR', () => {
  test.use({
    // eslint-disable-next-line no-empty-pattern
    sessionFiles: async ({}, use, testInfo) => {
      const dir = testInfo.outputPath('runs');
      const outside = testInfo.outputPath('outside');
      mkdirSync(dir, { recursive: true });
      mkdirSync(outside, { recursive: true });
      copyFileSync(DEMO, join(dir, 'demo.sidecar.jsonl'));
      writeFileSync(join(dir, 'notes.txt'), 'not a session\n');
      copyFileSync(DEMO, join(outside, 'secret.sidecar.jsonl'));
      symlinkSync(join(outside, 'secret.sidecar.jsonl'), join(dir, 'link.sidecar.jsonl'));
      await use([dir]);
    },
  });

  test('lists the folder’s session files; one opens by picking it, one added later after Refresh', async ({ inspector, sessionFiles }) => {
    const table = inspector.page.getByRole('table', { name: 'Sessions in folder', exact: true });
    await expect(table).toBeVisible();
    const rows = table.getByRole('row');
    // The header, the session file, the refused link; not the text file.
    await expect(rows).toHaveCount(3);
    await expect(rows.nth(1)).toHaveText(/demo\.sidecar\.jsonl\s*Supercode\s*1,120 bytes/);
    await expect(rows.nth(2)).toContainText('link.sidecar.jsonl');
    await expect(rows.nth(2)).toContainText('Refused: a symbolic link: not followed');
    await expect(rows.nth(2).getByRole('button')).toHaveCount(0);
    await expect(table).not.toContainText('notes.txt');
    expect(await audit(inspector)).toEqual([]);

    await table.getByRole('button', { name: 'demo.sidecar.jsonl', exact: true }).click();
    await inspector.waitLoaded();
    await expect(inspector.status).toContainText('demo.sidecar.jsonl');

    // A file that appears later: offered once the listing is read again.
    copyFileSync(SESSION_SIDECAR, join(sessionFiles[0] ?? '', 'later.sidecar.jsonl'));
    await inspector.page.getByRole('button', { name: 'Folder…', exact: true }).click();
    const dialog = inspector.page.getByRole('dialog', { name: 'Folder', exact: true });
    await dialog.getByRole('button', { name: 'Refresh', exact: true }).click();
    await dialog.getByRole('button', { name: 'later.sidecar.jsonl', exact: true }).click();
    await expect(dialog).toBeHidden();
    await expect(inspector.status).toContainText('later.sidecar.jsonl');
    await inspector.waitLoaded();
    await expectExpandsLikeCli(inspector, SESSION_SIDECAR, verbatimReduction(SESSION_SIDECAR));
  });
});
