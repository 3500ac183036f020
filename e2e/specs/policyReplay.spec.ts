/**
 * Policy replay in the app (`Replay policy` in Findings) and the what-if policy
 * editor (`What if` tab), each checked against the command line (`check --replay`, `view --policy`).
 */
import { writeFileSync } from 'node:fs';
import type { CheckReport } from '../../shared/contract';
import type { ReductionPolicy, WhatIfDiff } from '../../shared/index';
import { withKeptBytesChanged } from '../../tools/samples/policyMutants';
import { generateSession, sidecarText } from '../../tools/samples/sessionGenerator';
import { audit } from '../axe';
import { runCli } from '../cli';
import { expect, test } from '../fixtures';
import { SESSION_SIDECAR } from '../paths';

// Its tests share the worker's page, each with its own host (fixtures.ts, reusePage).
test.use({ reusePage: true });

function cliJson<T>(args: string[]): T {
  const run = runCli(args);
  return JSON.parse(run.stdout) as T;
}

test.describe('the policy editor (What if)', () => {
  test('a smaller max_tool_result_bytes shows the counts view --policy prints, and a message links to its row', async ({ inspector }, testInfo) => {
    await inspector.waitLoaded();
    await inspector.openTab('What if');
    const editor = inspector.page.getByRole('region', { name: 'Policy editor', exact: true });
    const own = cliJson<{ summary: unknown; replay: { policy: ReductionPolicy } }>(['check', '--replay', SESSION_SIDECAR]).replay.policy;
    const max = editor.getByLabel('max_tool_result_bytes', { exact: true });
    // The form starts from the session's own policy.
    await expect(max).toHaveValue(String(own.max_tool_result_bytes));
    await expect(editor.getByLabel('dedupe', { exact: true })).toBeChecked({ checked: own.dedupe });
    await max.fill('1500');
    await editor.getByRole('button', { name: 'Show what if', exact: true }).click();

    const policyFile = testInfo.outputPath('policy.json');
    writeFileSync(policyFile, JSON.stringify({ ...own, max_tool_result_bytes: 1500 }));
    const { diff } = cliJson<{ diff: WhatIfDiff }>(['view', '--policy', policyFile, SESSION_SIDECAR]);
    expect(diff.counts.added).toBeGreaterThan(0);
    const counts = editor.getByRole('list', { name: 'What-if counts', exact: true }).getByRole('listitem');
    await expect(counts).toHaveText([
      `${diff.counts.added} reductions added`,
      `${diff.counts.removed} reductions removed`,
      `${diff.counts.changed} reductions changed`,
      `${diff.counts.messages} messages shown differently`,
      /^bytes given: /,
    ]);
    const links = editor.getByRole('list', { name: 'Messages shown differently', exact: true }).getByRole('button');
    await expect(links).toHaveText(diff.messages.map((m) => `Go to message ${m.index}`));

    const last = diff.messages[diff.messages.length - 1];
    if (!last) throw new Error('the diff lists a message');
    await links.last().click();
    await expect(inspector.selectedRow).toHaveCount(1);
    await expect(inspector.selectedRow).toHaveAccessibleName(new RegExp(`^Messages? ${last.index}(?!\\d)`));

    expect(await audit(inspector)).toEqual([]);
  });

  test("the session's own policy changes nothing; a negative size is refused in the form", async ({ inspector }) => {
    await inspector.waitLoaded();
    await inspector.openTab('What if');
    const editor = inspector.page.getByRole('region', { name: 'Policy editor', exact: true });
    await editor.getByRole('button', { name: 'Show what if', exact: true }).click();
    const counts = editor.getByRole('list', { name: 'What-if counts', exact: true }).getByRole('listitem');
    await expect(counts.first()).toHaveText('0 reductions added');
    await expect(counts.nth(3)).toHaveText('0 messages shown differently');

    const kept = editor.getByLabel('kept_prefix_bytes', { exact: true });
    await kept.fill('-1');
    await editor.getByRole('button', { name: 'Show what if', exact: true }).click();
    await expect(kept).toHaveAttribute('aria-invalid', 'true');
    await expect(kept).toHaveAccessibleDescription('must be a whole number, 0 or more');
    expect(await audit(inspector)).toEqual([]);
  });
});

test.describe('Replay policy on a mutated sample (one kept_bytes changed)', () => {
  test.use({
    // eslint-disable-next-line no-empty-pattern
    sessionFiles: async ({}, use, testInfo) => {
      const path = testInfo.outputPath('kept.sidecar.jsonl');
      writeFileSync(path, sidecarText(withKeptBytesChanged(generateSession({ seed: 21, messages: 60 })).records));
      await use([path]);
    },
  });

  test('the policy_divergence finding lists like any finding and goes to its reduction', async ({ inspector, sessionFiles }) => {
    const report = cliJson<CheckReport>(['check', '--replay', ...sessionFiles]);
    const divergence = report.findings.find((f) => f.code === 'policy_divergence');
    if (!divergence?.reduction_id) throw new Error('check --replay names the changed reduction');

    await inspector.waitLoaded();
    await inspector.openTab('Findings');
    await expect(inspector.findingItems.filter({ hasText: 'policy_divergence' })).toHaveCount(0);
    const replay = inspector.findings.getByRole('button', { name: 'Replay policy', exact: true });
    await replay.click();
    await expect(inspector.findings.getByRole('status', { name: 'Replay result' })).toContainText('1 divergence');
    // The button stands in line with the panel's notes, not against its edge.
    const [button, note] = await Promise.all([replay.boundingBox(), inspector.findings.getByRole('status', { name: 'Replay result' }).boundingBox()]);
    expect(button?.x).toBe(note?.x);
    await expect(inspector.tab('Findings')).toHaveAccessibleName(`Findings (${report.findings.length})`);
    const item = inspector.findingItems.filter({ hasText: 'policy_divergence' });
    await expect(item).toHaveCount(1);
    await expect(item).toContainText(divergence.message);
    expect(await audit(inspector)).toEqual([]);

    await item.getByRole('button', { name: /^Go to finding / }).click();
    await expect(inspector.page.getByRole('region', { name: `Reduction ${divergence.reduction_id} content`, exact: true })).toBeVisible();
    // The selected row shows the reduction's message (a cleared range's row when one encloses it).
    const name = (await inspector.selectedRow.getAttribute('aria-label')) ?? '';
    const m = /^Messages? (\d+)(?:–(\d+))?/.exec(name);
    expect(m, name).not.toBeNull();
    const [first, last] = [Number(m?.[1]), Number(m?.[2] ?? m?.[1])];
    expect(first <= (divergence.index ?? -1) && (divergence.index ?? -1) <= last, name).toBe(true);
  });
});

test.describe('Replay policy on the sample', () => {
  test('no divergence: the note says the log is what the policy mints', async ({ inspector }) => {
    await inspector.waitLoaded();
    await inspector.openTab('Findings');
    await inspector.findings.getByRole('button', { name: 'Replay policy', exact: true }).click();
    await expect(inspector.findings.getByRole('status', { name: 'Replay result' })).toContainText('the recorded log is exactly what it mints');
    await expect(inspector.findingItems.filter({ hasText: 'policy_divergence' })).toHaveCount(0);
  });
});
