/**
 * A QA example: how to test Session Inspector with the fixture and the page object.
 *
 * - `test.use({ sessionFiles })` names the files the inspector opens (one sidecar and/or snapshot);
 * - the `inspector` fixture starts the app on them and hands over the page object;
 * - locators are roles and accessible names (e2e/UI-CONTRACT.md), expectations are web-first;
 * - the command line is the oracle: the UI must show what `expand` / `search` / `check` print.
 */
import { cliExpand, cliSearch } from '../cli';
import { expect, test } from '../fixtures';
import { sample } from '../paths';

const demo = sample('demo.sidecar.jsonl');

test.use({ sessionFiles: [demo] });

test('the demo session: expand r1, then find FAIL in its hidden bytes', async ({ inspector }) => {
  await inspector.waitLoaded();
  await expect(inspector.status).toContainText('demo.sidecar.jsonl');

  // Expand the stub: the region shows its source and size, as the CLI reports them.
  const r1 = cliExpand([demo], 'r1');
  await inspector.expand('r1');
  await expect(inspector.expanded('r1')).toHaveAttribute('data-source', r1.source);
  await expect(inspector.expanded('r1')).toHaveAttribute('data-total-bytes', String(r1.total_bytes));

  // Slice bytes 31..41: the em dash at 30..32 floors the start to 30 (SPEC §9).
  await inspector.setRange('r1', 31, 41);
  await inspector.expectShownRange('r1', 30, 41, 67);
  await expect(inspector.content('r1')).toHaveText(cliExpand([demo], 'r1', [31, 41]).content);

  // Search the hidden content: one match, at byte 15 of message 2.
  const fail = cliSearch([demo], 'FAIL');
  await inspector.search('FAIL');
  await inspector.expectResults(fail.matches);
  await inspector.result('r1', 15).click();
  await expect(inspector.marks('r1').first()).toHaveText('FAIL');
});
