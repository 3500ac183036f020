/**
 * `Export session…` (SPEC §16, §16.1): the dialog in the session's header writes the open session
 * as one document and downloads it; with `Redact secrets` on, a secret planted in the session is
 * not in the file; the dialog passes axe.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { audit } from '../axe';
import { expect, test } from '../fixtures';

const SECRET = 'ghp_PlantedForTheExportSpec0123456789abcdef';
const dir = mkdtempSync(join(tmpdir(), 'session-inspector-export-e2e-'));
const sidecar = join(dir, 'planted.sidecar.jsonl');
writeFileSync(
  sidecar,
  [
    { t: 'header', format: 'supercode-sidecar', version: 1, session_id: 's-export', created_at: '2026-11-30T12:00:00Z', model: 'model-a', gate: true, policy: null },
    { t: 'message', i: 0, msg: { role: 'user', content: `Use the token ${SECRET} and show <script>alert(1)</script>` } },
    { t: 'message', i: 1, msg: { role: 'assistant', content: 'First answer.' } },
    { t: 'message', i: 2, msg: { role: 'user', content: 'And again?' } },
    { t: 'message', i: 3, msg: { role: 'assistant', content: 'Second answer.' } },
  ]
    .map((r) => `${JSON.stringify(r)}\n`)
    .join(''),
);

test.describe('Export session…', () => {
  test.use({ sessionFiles: [sidecar] });
  test.afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('downloads the session as HTML with secrets redacted, and as Markdown; the dialog passes axe', async ({ inspector, inspectorApp }) => {
    test.skip(inspectorApp.target !== 'http', 'Playwright sees downloads of a browser page; the desktop window takes the same blob download path');
    const page = inspector.page;
    // The app's dialogs share one frame: this one is drawn as Export call…'s is.
    await page.getByRole('button', { name: 'Export call…', exact: true }).click();
    const callDialog = page.getByRole('dialog', { name: /^Export call/ });
    await expect(callDialog).toBeVisible();
    // Runs in the page: its computed border, background, shadow and padding.
    const frame = (el: unknown): string[] => {
      const style = (globalThis as unknown as { getComputedStyle(e: unknown): { getPropertyValue(name: string): string } }).getComputedStyle(el);
      return ['border-radius', 'border-top-width', 'border-top-color', 'background-color', 'box-shadow', 'padding-top', 'padding-left'].map((name) => style.getPropertyValue(name));
    };
    const callFrame = await callDialog.evaluate(frame);
    await callDialog.getByRole('button', { name: 'Close', exact: true }).click();
    await page.getByRole('button', { name: 'Export session…', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Export session' });
    await expect(dialog).toBeVisible();
    expect(await dialog.evaluate(frame)).toEqual(callFrame);
    expect(await audit(inspector)).toEqual([]);

    await expect(dialog.getByRole('radio', { name: 'HTML' })).toBeChecked();
    await expect(dialog.getByRole('checkbox', { name: /Redact secrets/ })).toBeChecked();
    let downloading = page.waitForEvent('download');
    await dialog.getByRole('button', { name: 'Download', exact: true }).click();
    let download = await downloading;
    expect(download.suggestedFilename()).toBe('planted.html');
    const html = readFileSync((await download.path()), 'utf8');
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain('<h2>Call 1</h2>');
    expect(html).toContain('<h2>Call 2</h2>');
    expect(html).not.toContain(SECRET);
    expect(html).toContain('[REDACTED:github_token]');
    expect(html).not.toContain('<script>');
    await expect(dialog.getByRole('status')).toContainText('Downloaded planted.html');
    await expect(dialog.getByRole('status')).toContainText('1 github_token');

    await dialog.getByRole('radio', { name: 'Markdown' }).check();
    await dialog.getByRole('checkbox', { name: /Redact secrets/ }).uncheck();
    await dialog.getByRole('spinbutton', { name: 'First call' }).fill('2');
    await dialog.getByRole('spinbutton', { name: 'Last call' }).fill('2');
    downloading = page.waitForEvent('download');
    await dialog.getByRole('button', { name: 'Download', exact: true }).click();
    download = await downloading;
    expect(download.suggestedFilename()).toBe('planted.md');
    const markdown = readFileSync((await download.path()), 'utf8');
    expect(markdown.split('\n').filter((l) => l.startsWith('## '))).toEqual(['## Call 2']);

    await dialog.getByRole('button', { name: 'Close', exact: true }).click();
    await expect(dialog).toBeHidden();
  });
});
