/**
 * `Export call…` (SPEC §16, §16.1) through the HTTP host on a real Claude Code session: the
 * button in the model calls bar opens a dialog (axe-clean) that downloads the shown call's input
 * as a provider request; the file's JSON is the body `export --call N --as PROVIDER` prints —
 * the call's messages, tool calls paired with their results — and the dialog names what the file
 * does not record.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { audit } from '../axe';
import { runCli } from '../cli';
import { expect, test } from '../fixtures';
import { REPO_ROOT } from '../paths';

const CLAUDE = join(REPO_ROOT, 'e2e/fixtures/real/claude-code/cc-2.1.7-parallel-results.jsonl');

interface AnthropicBody {
  model: string;
  messages: { role: string; content: string | { type: string; id?: string; tool_use_id?: string }[] }[];
}

test.describe('Export call…', () => {
  test.use({ sessionFiles: [CLAUDE] });

  test('downloads call 2 as an Anthropic request: the call’s messages, as the command line exports them; the dialog is axe-clean', async ({ inspector, inspectorApp }) => {
    test.skip(inspectorApp.target !== 'http', 'Playwright sees downloads of a browser page; the desktop window takes the same blob download path');
    const page = inspector.page;
    await inspector.waitLoaded();
    await inspector.showCall(2);
    await expect(inspector.status).toContainText('call 2 of 3');

    await page.getByRole('button', { name: 'Export call…', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Export call 2', exact: true });
    await expect(dialog).toBeVisible();
    await dialog.getByRole('radio', { name: 'Anthropic Messages', exact: true }).check();
    expect(await audit(inspector)).toEqual([]);

    const downloading = page.waitForEvent('download');
    await dialog.getByRole('button', { name: 'Download .json', exact: true }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('call-2-anthropic.json');
    const path = await download.path();
    const body = JSON.parse(readFileSync(path, 'utf8')) as AnthropicBody;

    const cli = runCli(['export', '--call', '2', '--as', 'anthropic', CLAUDE]);
    expect(cli.status).toBe(0);
    expect(body).toEqual(JSON.parse(cli.stdout));
    // The call's messages: the user's prompt first, and each tool call answered in the next turn.
    expect(body.model).toBe('claude-opus-4-5-20251101');
    expect(body.messages[0]).toEqual({ role: 'user', content: 'can you review the changes in this branch by two competing agents?' });
    const calls = body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content.filter((b) => b.type === 'tool_use').map((b) => b.id) : []));
    const results = body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id) : []));
    expect(calls.length).toBeGreaterThan(0);
    expect(results.sort()).toEqual(calls.sort());

    await expect(dialog.getByRole('status')).toContainText('Downloaded call-2-anthropic.json');
    await expect(dialog.getByRole('region', { name: 'Not recorded' })).toContainText('max_tokens');
    expect(await audit(inspector)).toEqual([]);

    await dialog.getByRole('button', { name: 'Close', exact: true }).click();
    await expect(dialog).toHaveCount(0);
  });
});
