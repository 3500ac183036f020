import { cliCheck } from '../cli';
import { expect, test } from '../fixtures';
import { SESSION_SIDECAR } from '../paths';
import { liveLog } from '../sessionData';

// Its tests share the worker's page, each with its own host (fixtures.ts, reusePage).
test.use({ reusePage: true });

test.describe('the reduction log', () => {
  test('lists every live reduction', async ({ inspector }) => {
    const { reductions } = cliCheck([SESSION_SIDECAR]).summary;
    const live = liveLog(SESSION_SIDECAR);
    expect(live).toHaveLength(reductions);
    await inspector.waitLoaded();
    await inspector.openTab('Log');
    await expect(inspector.logTable).toBeVisible();
    await expect(inspector.logGoTo).toHaveCount(reductions);
    for (const r of live) await expect(inspector.logTable.getByRole('button', { name: `Go to ${r.id}`, exact: true })).toHaveCount(1);
    for (const column of ['Id', 'Kind', 'Index', 'Hidden bytes', 'Source', 'Status', 'Provenance'] as const) {
      await expect(inspector.logSort(column)).toBeVisible();
    }
  });

  test('sorting by a column reorders the rows', async ({ inspector }) => {
    const live = liveLog(SESSION_SIDECAR);
    const byIndex = [...live].sort((a, b) => a.ptr.index - b.ptr.index).map((r) => `Go to ${r.id}`);
    const logOrder = live.map((r) => `Go to ${r.id}`);
    expect(byIndex, 'sorting by index changes the log order of this sample').not.toEqual(logOrder);
    await inspector.waitLoaded();
    await inspector.openTab('Log');
    await expect(inspector.logGoTo).toHaveCount(live.length);

    // The accessible names of the `Go to` buttons, in display order, from the accessibility tree.
    const order = async (): Promise<string[]> => [...(await inspector.logTable.ariaSnapshot()).matchAll(/button "(Go to [^"]+)"/g)].map((m) => m[1] ?? '');
    const direction = async (): Promise<string> => {
      const names = await order();
      if (names.join() === byIndex.join()) return 'ascending';
      if (names.join() === [...byIndex].reverse().join()) return 'descending';
      return `unsorted: ${names.join(', ')}`;
    };
    await inspector.logSort('Index').click();
    // The first click sorts one way, the second the other.
    await expect.poll(direction).toMatch(/^(ascending|descending)$/);
    const first = await direction();
    await inspector.logSort('Index').click();
    await expect.poll(direction).toBe(first === 'ascending' ? 'descending' : 'ascending');
  });

  test('"Go to" scrolls to that reduction and expands it', async ({ inspector }) => {
    // The last live reduction: the furthest down the projected view.
    const target = [...liveLog(SESSION_SIDECAR)].sort((a, b) => b.ptr.index - a.ptr.index)[0];
    if (!target) throw new Error('the sample has no reductions');
    await inspector.waitLoaded();
    await inspector.openTab('Log');
    await inspector.logTable.getByRole('button', { name: `Go to ${target.id}`, exact: true }).click();
    await expect(inspector.expanded(target.id)).toBeVisible();
    await expect(inspector.expanded(target.id)).toBeInViewport();
    await expect(inspector.stubChip(target.id)).toHaveAccessibleName(new RegExp(`^Collapse reduction ${target.id}(?!\\d)`));
    await expect(inspector.row(target.ptr.index)).toHaveAttribute('data-index', String(target.ptr.index));
  });
});
