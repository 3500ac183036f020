/**
 * SPEC §10.1 in the app, over a native sidecar written at test time that carries the new fields:
 * a compaction of two `summarized` runs (one `group`, hashes computed "at import") and a tool
 * output whose original the file does not hold (`ptr.hash: null`). The summary row, its chip, the
 * expansion to the dropped transcript, a slice of it and a search inside it agree with the command
 * line; the unavailable original says so instead of failing.
 */
import { writeFileSync } from 'node:fs';
import type { ChatMessage, Reduction } from '../../shared/format/types';
import { assistant, makeReduction, tool, user } from '../../shared/testing/builders';
import { audit } from '../axe';
import { cliExpand, cliLog, cliSearch } from '../cli';
import { expect, test } from '../fixtures';

const SUMMARY = 'The user asked to fix the build; a missing semicolon was reported.';
const view: ChatMessage[] = [
  user('Fix the build \u2014 it fails on main'),
  assistant('', 'c1'),
  tool('error: missing semicolon at line 12', 'c1'),
  assistant('Patched it.'),
  user('Now run the tests'),
  assistant('', 'c2'),
  tool('PASS 40 tests', 'c2'),
  assistant('', 'c3'),
  tool('[output truncated: 5000 bytes]', 'c3'),
  assistant('All green.'),
];
const imported = { provenance: 'recorded', origin: { line: 7 }, hash_origin: 'import' } as const;
const log: Reduction[] = [
  // Kept: messages 2 and 5–9; dropped: [0, 2) and [3, 5).
  makeReduction(view, { id: 's1', kind: 'summarized', index: 0, end: 2, group: 'g1', summary: SUMMARY }, imported),
  makeReduction(view, { id: 's2', kind: 'summarized', index: 3, end: 5, group: 'g1', summary: '' }, imported),
  makeReduction(view, { id: 'gone', kind: 'tool_output_elided', index: 8, unavailable: true }, { ptr: { index: 8, hash: null, bytes: 5000 }, stub: '[output truncated: 5000 bytes]', provenance: 'derived', origin: { event: 'call-3' } }),
];

function sidecarText(): string {
  const header = { t: 'header', format: 'supercode-sidecar', version: 1, session_id: 's-compacted', created_at: '2026-12-01T12:00:00Z', model: 'model-a', gate: true, policy: null };
  const lines = [header, ...view.map((msg, i) => ({ t: 'message', i, msg })), ...log.map((r) => ({ t: 'reduction', r }))];
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

let file = '';
test.use({
  // eslint-disable-next-line no-empty-pattern
  sessionFiles: async ({}, use, testInfo) => {
    file = testInfo.outputPath('compacted.sidecar.jsonl');
    writeFileSync(file, sidecarText());
    await use([file]);
  },
});

test('a compaction: the summary row, its chip, the dropped transcript, a slice, a search; an original not recorded', async ({ inspector }) => {
  await inspector.waitLoaded();
  const reports = cliLog([file]);
  expect(reports.map((r) => [r.id, r.status, r.hash_origin, r.provenance])).toEqual([
    ['s1', 'verified', 'import', 'recorded'],
    ['s2', 'verified', 'import', 'recorded'],
    ['gone', 'original_unavailable', null, 'derived'],
  ]);

  // The summary row: what the model was given, then its chip; the hash is not called "verified".
  const first = inspector.row(0);
  await expect(first).toHaveAccessibleName(/^Messages 0–1 summarized/);
  await expect(first).toContainText('Summary of compaction g1');
  await expect(first).toContainText(SUMMARY);
  const chip = inspector.stubChip('s1');
  await expect(chip).toHaveAccessibleName(/^Expand reduction s1 summarized .*recorded by the agent ✓ hashed at import$/);
  // The other run of the compaction: a row of its own, no text, pointing at the summary.
  const second = inspector.row(3);
  await expect(second).toHaveAccessibleName(/^Messages 3–4 summarized/);
  await expect(second).toContainText('Part of compaction g1');
  await expect(second).not.toContainText(SUMMARY);
  // A kept message between the runs shows as it was.
  await expect(inspector.row(2)).toContainText('error: missing semicolon at line 12');

  // Expanding shows the dropped transcript, as the command line prints it.
  const whole = cliExpand([file], 's1');
  const region = await inspector.expand('s1');
  await expect(region).toHaveAttribute('data-total-bytes', String(whole.total_bytes));
  await expect(region).toHaveAttribute('data-source', 'minted');
  await expect(region).toContainText('hashed at import');
  // …as rows, one per dropped message, each with its role, index and exact content,
  // all of it hidden from the model; together they are the transcript the command line prints.
  await expect(inspector.messageRows('s1')).toHaveCount(2);
  await expect(inspector.hiddenPart('s1')).toHaveCount(1);
  await expect.poll(() => inspector.readMessage('s1', 0)).toBe(view[0]?.content);
  await expect.poll(() => inspector.readMessage('s1', 1)).toBe(view[1]?.content);
  expect(whole.content).toBe(`\u27E8user\u27E9\n${view[0]?.content}\n\u27E8assistant\u27E9\n${view[1]?.content}\n`);

  // A slice that starts inside the em dash (bytes 28–30 of the transcript) floors to it.
  const dash = new TextEncoder().encode(whole.content.slice(0, whole.content.indexOf('\u2014'))).length;
  const slice = cliExpand([file], 's1', [dash + 1, dash + 12]);
  expect(slice.range).toEqual([dash, dash + 12]);
  await inspector.setRange('s1', dash + 1, dash + 12);
  await inspector.expectShownRange('s1', dash, dash + 12, whole.total_bytes);
  await expect(inspector.messageRows('s1')).toHaveCount(1);
  await expect.poll(() => inspector.readMessage('s1', 0)).toBe(slice.content);
  // axe-core: the summary row, the compaction notes and the open chip pass.
  expect(await audit(inspector)).toEqual([]);
  await inspector.collapse('s1');

  // Search finds text of the dropped messages (never of the kept ones), under the run that holds it.
  const found = cliSearch([file], 'tests');
  expect(found.matches.map((m) => [m.reduction_id, m.index])).toEqual([['s2', 4]]);
  expect(found.reductions_unavailable).toBe(1);
  await inspector.search('tests');
  await inspector.expectResults(found.matches);
  await expect(inspector.page.getByText('1 not searched: original not recorded')).toBeVisible();
  await inspector.result('s2', found.matches[0]?.offset).click();
  await expect(inspector.marks('s2').first()).toHaveText('tests');
  await inspector.collapse('s2');

  // The original the file does not hold: the chip and the region say so, with the stated size.
  const goneChip = await inspector.revealStub('gone');
  await expect(goneChip).toHaveAccessibleName(/^Expand reduction gone elided 5,000 bytes hidden derived original not recorded$/);
  await goneChip.click();
  const goneRegion = inspector.expanded('gone');
  await expect(goneRegion).toContainText('original not recorded');
  await expect(goneRegion.getByRole('alert')).toContainText('does not record the original bytes');
  await expect(goneRegion).not.toContainText('verified');
  expect(await audit(inspector)).toEqual([]);

  // The log says it too.
  await inspector.openTab('Log');
  const goneRow = inspector.logTable.getByRole('row').filter({ has: inspector.page.getByRole('button', { name: 'Go to gone', exact: true }) });
  await expect(goneRow).toContainText('original not recorded');
  await expect(goneRow).toContainText('derived');
  const s1Row = inspector.logTable.getByRole('row').filter({ has: inspector.page.getByRole('button', { name: 'Go to s1', exact: true }) });
  await expect(s1Row).toContainText('hashed at import');
  await expect(s1Row).toContainText('0–1');
  expect(await audit(inspector)).toEqual([]);
});
