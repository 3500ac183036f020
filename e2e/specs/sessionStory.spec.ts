/**
 * Through the HTTP host: the session's events where they happened (the sample
 * session's model switch and its rewind with the abandoned branch read back from the file), the
 * diff between two model calls (the §9 demo: from call 2 to the latest view, r1 left the context),
 * and the glossary of the help dialog, by keyboard. Every expected value is read from the files.
 */
import { readFileSync } from 'node:fs';
import type { LooseRecord } from '../../shared/testing/looseRecords';
import { looseRecords } from '../../shared/testing/looseRecords';
import { REDUCTION_KINDS } from '../../shared/format/types';
import { audit } from '../axe';
import { expect, test } from '../fixtures';
import type { InspectorPage } from '../inspectorPage';
import { sample, SESSION_SIDECAR } from '../paths';

type Rec = LooseRecord;
function records(path: string): Rec[] {
  return looseRecords(readFileSync(path, 'utf8')).map((x) => x.rec);
}

/**
 * axe-core finds nothing in the light theme and in the dark one. The theme follows the system's
 * (no choice made), so it is switched by emulating it: the toggle button is behind a modal dialog.
 */
async function auditBothThemes(inspector: InspectorPage): Promise<void> {
  const html = inspector.page.locator('html');
  for (const scheme of ['light', 'dark'] as const) {
    await inspector.page.emulateMedia({ colorScheme: scheme });
    await expect(html).toHaveAttribute('data-theme', scheme);
    expect(await audit(inspector)).toEqual([]);
  }
}

test.describe('the sample session’s events', () => {
  test('the model switch and the rewind stand between the rows where they happened, the abandoned branch readable', async ({ inspector }) => {
    await inspector.waitLoaded();
    const recs = records(SESSION_SIDECAR);

    // The rewind (before the switch in the view: the list is scrolled down only): where the view was cut back to, and how many messages it abandoned.
    const at = recs.findIndex((r) => r.t === 'rewind');
    const to = Number(recs[at]?.to);
    const abandoned = new Map<number, Rec['msg']>();
    for (const r of recs.slice(0, at)) if (r.t === 'message' && r.i !== undefined) abandoned.set(r.i, r.msg);
    const count = abandoned.size - to;
    expect(count).toBeGreaterThan(0);
    const rewindMark = inspector.event(`Rewind to message ${to} (${count} messages abandoned)`);
    await inspector.scrollUntilVisible(inspector.view, rewindMark);
    await expect(inspector.row(to).getByRole('separator', { name: /^Rewind/ })).toBeVisible();
    // The rows keep their contract: one list item per row, the event inside it.
    await expect(inspector.row(to)).toHaveAttribute('data-index', String(to));

    // The abandoned branch, read back from the file: each message by index and role, its text.
    await inspector.row(to).getByText(`Show the ${count} abandoned messages`).click();
    const table = inspector.view.getByRole('table', { name: `Messages abandoned by the rewind to message ${to}` });
    const rows = table.getByRole('row');
    // A header row, then one per abandoned message.
    await expect(rows).toHaveCount(count + 1);
    const first = abandoned.get(to);
    await expect(rows.nth(1).getByRole('cell').nth(0)).toHaveText(String(to));
    await expect(rows.nth(1).getByRole('cell').nth(1)).toHaveText(first?.role ?? '');
    await expect(rows.nth(1).getByRole('cell').nth(2)).toContainText((first?.content ?? '').slice(0, 40));
    // The model switch, at the row of the message pushed after it.
    const change = recs.find((r) => r.t === 'model_change');
    if (change?.at === undefined) throw new Error('the sample has no model switch');
    const switchMark = inspector.event(`Model switch from ${change.from} to ${String(change.to)}`);
    await inspector.scrollUntilVisible(inspector.view, switchMark);
    await expect(inspector.row(change.at).getByRole('separator', { name: /^Model switch/ })).toBeVisible();
    await expect(inspector.row(change.at)).toContainText(`(reasoning_artifacts_filtered: ${change.reasoning_artifacts_filtered})`);

    await auditBothThemes(inspector);
  });
});

test.describe('the §9 demo’s diff', () => {
  const DEMO = sample('demo.sidecar.jsonl');
  test.use({ sessionFiles: [DEMO] });

  test('from call 2 to the latest view, r1 left the context hiding the bytes its record states; its id goes there', async ({ inspector }) => {
    await inspector.waitLoaded();
    const r1 = records(DEMO).find((r) => r.t === 'reduction' && r.r?.id === 'r1')?.r;
    if (!r1) throw new Error('the demo has no r1');
    const hidden = r1.ptr.bytes - (r1.kept_bytes ?? 0);

    // Where r1 was minted: at the top of the row of message minted_at, or after the last row when
    // the view held every message then.
    const messages = records(DEMO).filter((r) => r.t === 'message').length;
    const mintedRow = inspector.row(Math.min(r1.minted_at, messages - 1));
    await expect(mintedRow.getByRole('separator', { name: 'Reduction r1 minted (truncated)', exact: true })).toBeVisible();

    await inspector.compareCalls(2, null);
    const left = inspector.diffTable.getByRole('row').filter({ hasText: /^Left the context/ }).filter({ has: inspector.page.getByRole('button', { name: 'r1', exact: true }) });
    await expect(left).toHaveCount(1);
    await expect(left.getByRole('cell').nth(1)).toHaveText(String(r1.ptr.index));
    await expect(left.getByRole('cell').last()).toHaveText(`${hidden} bytes`);
    await expect(inspector.diffTable.getByRole('rowheader', { name: 'Left the context: 1' })).toBeVisible();
    await auditBothThemes(inspector);

    await left.getByRole('button', { name: 'r1', exact: true }).click();
    await expect(inspector.expanded('r1')).toBeVisible();
    await expect(inspector.selectedRow).toHaveAttribute('data-index', String(r1.ptr.index));
  });

  test('a call that is none says so', async ({ inspector }) => {
    await inspector.waitLoaded();
    await inspector.compareCalls(99, null);
    await expect(inspector.page.getByRole('region', { name: 'Diff between calls' })).toContainText('call 99 is no model call of this session');
  });
});

test.describe('the glossary', () => {
  test('is reached from the help dialog by keyboard and names every reduction kind', async ({ inspector }) => {
    await inspector.waitLoaded();
    const keys = inspector.page.keyboard;
    await keys.press('?');
    await expect(inspector.shortcutsDialog).toBeVisible();
    const summary = inspector.shortcutsDialog.getByText('Glossary', { exact: true });
    // Tab moves through the dialog until the disclosure has focus.
    await expect(async () => {
      await keys.press('Tab');
      await expect(summary).toBeFocused({ timeout: 100 });
    }).toPass({ timeout: 10_000 });
    await keys.press('Enter');
    for (const kind of REDUCTION_KINDS) await expect(inspector.shortcutsDialog.getByRole('term').filter({ hasText: kind })).toHaveCount(1);
    await expect(inspector.shortcutsDialog).toContainText('original not recorded');
    await expect(inspector.shortcutsDialog).toContainText('hash_origin');
    await auditBothThemes(inspector);
  });
});
