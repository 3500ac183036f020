import type { Request } from '@playwright/test';
import { cliExpand } from '../cli';
import { expect, test } from '../fixtures';
import type { InspectorPage } from '../inspectorPage';
import { LEGACY_FILES, SESSION_SIDECAR } from '../paths';
import { displaysVerbatim, liveLog, stubbedReductions } from '../sessionData';

/**
 * A reduction with a stub chip of its own whose original bytes the content element shows verbatim
 * (no ANSI, no control characters: UI-CONTRACT.md), so the shown text can be compared byte for byte.
 */
function verbatimReduction(files: string[]): string {
  for (const r of stubbedReductions(liveLog(files[0] ?? ''))) {
    if (r.kind !== 'tool_output_truncated' && r.kind !== 'tool_output_elided') continue;
    if (displaysVerbatim(cliExpand(files, r.id).content)) return r.id;
  }
  throw new Error(`no truncated or elided reduction of ${files.join(' + ')} is free of control characters`);
}

/** Asserts the open reduction shows exactly what `expand --range S:E` prints for its shown range. */
async function expectShownBytesMatchCli(inspector: InspectorPage, files: string[], id: string): Promise<string> {
  const shown = await inspector.readShownRange(id);
  const cli = cliExpand(files, id, [shown.start, shown.end]);
  expect(cli.range, 'the shown range is already on character boundaries').toEqual([shown.start, shown.end]);
  expect(shown.total).toBe(cli.total_bytes);
  await expect(inspector.expanded(id)).toHaveAttribute('data-total-bytes', String(cli.total_bytes));
  await expect(inspector.expanded(id)).toHaveAttribute('data-source', cli.source);
  await expect.poll(() => inspector.readContent(id)).toBe(cli.content);
  return cli.content;
}

test.describe('expanding a stub', () => {
  test('shows the bytes the CLI expands, with their source and total size', async ({ inspector }) => {
    const files = [SESSION_SIDECAR];
    const id = verbatimReduction(files);
    await inspector.waitLoaded();
    await inspector.expand(id);
    await expect(inspector.expanded(id)).toContainText('verified');
    const content = await expectShownBytesMatchCli(inspector, files, id);
    expect(content.length).toBeGreaterThan(0);
  });

  test('collapsing and expanding again shows the same bytes without fetching them again', async ({ inspector, inspectorApp }) => {
    const files = [SESSION_SIDECAR];
    const id = verbatimReduction(files);
    const expandRequests: Request[] = [];
    inspector.page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/expand' && (request.postDataJSON() as { id?: unknown } | null)?.id === id) expandRequests.push(request);
    });
    await inspector.waitLoaded();
    await inspector.expand(id);
    const first = await expectShownBytesMatchCli(inspector, files, id);
    const shown = await inspector.readShownRange(id);
    const fetched = expandRequests.length;

    await inspector.collapse(id);
    await inspector.expand(id);
    await inspector.expectShownRange(id, shown.start, shown.end, shown.total);
    await expect.poll(() => inspector.readContent(id)).toBe(first);

    // Requests are observable on the HTTP host only (Electron's IPC is not a network request).
    if (inspectorApp.target === 'http') {
      expect(fetched, 'the first expansion fetched its bytes over /api/expand').toBeGreaterThan(0);
      expect(expandRequests.length, 're-expanding fetched the same bytes again').toBe(fetched);
    }
  });
});

test.describe('expanding a legacy session', () => {
  test.use({ sessionFiles: LEGACY_FILES });

  test('an output the agent saw capped is upgraded to its recorded bytes', async ({ inspector }) => {
    const upgraded = stubbedReductions(liveLog(LEGACY_FILES[0] ?? '')).find(
      (r) => r.kind === 'tool_output_truncated' && cliExpand(LEGACY_FILES, r.id, [0, 0]).source === 'recorded',
    );
    if (!upgraded) throw new Error('the legacy sample has no truncated output that expands from the recorded copy');
    const cli = cliExpand(LEGACY_FILES, upgraded.id, [0, 0]);
    await inspector.waitLoaded();
    await inspector.expand(upgraded.id);
    await expect(inspector.expanded(upgraded.id)).toHaveAttribute('data-source', 'recorded');
    await expect(inspector.expanded(upgraded.id)).toHaveAttribute('data-total-bytes', String(cli.total_bytes));
    await expect(inspector.expanded(upgraded.id)).toContainText('recorded');
  });
});
