/**
 * `Where did it go?` (SPEC §16, §16.1): from a search result, the strip of model calls along the
 * `Model call` slider names the calls that saw the text and the reduction and call that hid it
 * (computed here from the sidecar's raw records), and opens that reduction expanded over the text.
 */
import { readFileSync } from 'node:fs';
import { audit } from '../axe';
import { expect, test } from '../fixtures';
import { SESSION_SIDECAR } from '../paths';

// Its tests share the worker's page, each with its own host (fixtures.ts, reusePage).
test.use({ reusePage: true });

/** A commit hash of the git log that r4 truncated: written once in the whole sidecar, past the kept prefix. */
const HIDDEN_ONLY = 'a2b53e1dcf28a041449fa5b2017c234846c3eb0f';

interface RawRecord {
  t: string;
  i?: number;
  to?: number;
  msg?: { role: string; content: string };
  r?: { id: string; kind: string; ptr: { index: number } };
}

/** From the raw records: the message holding the text, the calls (assistant messages of the final view) and the reduction that hides it. */
function expected(): { seen: [number, number]; hiddenAt: number; reduction: string; kind: string } {
  const records = readFileSync(SESSION_SIDECAR, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as RawRecord);
  const view: { role: string; content: string; line: number }[] = [];
  records.forEach((rec, k) => {
    if (rec.t === 'message' && rec.msg && rec.i !== undefined) view[rec.i] = { ...rec.msg, line: k + 1 };
    if (rec.t === 'rewind' && rec.to !== undefined) view.length = rec.to;
  });
  const index = view.findIndex((m) => m.content.includes(HIDDEN_ONLY));
  const k = records.findIndex((rec) => rec.t === 'reduction' && rec.r?.ptr.index === index);
  const r = records[k]?.r;
  if (!r) throw new Error('no reduction of the message');
  const calls = view.flatMap((m, i) => (m.role === 'assistant' ? [{ index: i, line: m.line }] : []));
  const holding = calls.flatMap((c, n) => (c.index > index ? [{ call: n + 1, line: c.line }] : []));
  const before = holding.filter((c) => c.line < k + 1).map((c) => c.call);
  const after = holding.find((c) => c.line > k + 1)?.call ?? calls.length + 1;
  return { seen: [before[0] ?? 0, before[before.length - 1] ?? 0], hiddenAt: after, reduction: r.id, kind: r.kind };
}

test('Where did it go? from a search result shows the strip and opens the reduction that hid the text', async ({ inspector }) => {
  // axe over the whole page is slow on a shared machine (as in accessibility.spec.ts).
  test.slow();
  const want = expected();
  await inspector.waitLoaded();
  await inspector.search(HIDDEN_ONLY);
  await expect(inspector.resultButtons).toHaveCount(1);
  await inspector.results.getByRole('button', { name: 'Where did it go?', exact: true }).click();

  const panel = inspector.page.getByRole('region', { name: 'Where did it go?', exact: true });
  const strip = panel.getByRole('img');
  const range = want.seen[0] === want.seen[1] ? `call ${want.seen[0]}` : `calls ${want.seen[0]}–${want.seen[1]}`;
  await expect(strip).toHaveAccessibleName(`Visible at ${range}; hidden by ${want.kind} ${want.reduction} at call ${want.hiddenAt}; hidden in the latest view.`);
  expect(await audit(inspector)).toEqual([]);

  await panel.getByRole('button', { name: 'Open the reduction that hid it', exact: true }).click();
  await expect(inspector.expanded(want.reduction)).toBeVisible();
  const mark = inspector.marks(want.reduction).filter({ hasText: HIDDEN_ONLY });
  await expect(mark).toHaveCount(1);
  await expect(mark).toBeInViewport();
});

test('Where did it go? on a text selected in the transcript: a text no reduction touches is visible from its first call to the last', async ({ inspector }) => {
  const text = 'Where is formatAmount used?';
  const sidecar = readFileSync(SESSION_SIDECAR, 'utf8');
  expect(sidecar.split(text).length - 1, 'written once in the sidecar').toBe(1);
  // From the raw records: the message's index, the calls, and that no reduction addresses it.
  const records = sidecar
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as RawRecord & { r?: { end?: number } });
  const view: string[] = [];
  records.forEach((rec) => {
    if (rec.t === 'message' && rec.msg && rec.i !== undefined) view[rec.i] = rec.msg.role;
    if (rec.t === 'rewind' && rec.to !== undefined) view.length = rec.to;
  });
  const index = records.find((rec) => rec.t === 'message' && rec.msg?.content === text)?.i ?? -1;
  expect(records.some((rec) => rec.r && (rec.r.end !== undefined ? rec.r.ptr.index <= index && index < rec.r.end : rec.r.ptr.index === index))).toBe(false);
  const calls = view.flatMap((role, i) => (role === 'assistant' ? [i] : []));
  const first = calls.findIndex((i) => i > index) + 1;

  await inspector.waitLoaded();
  const bar = inspector.page.getByRole('region', { name: 'Model calls', exact: true });
  // Pressed with nothing selected, it says what it follows.
  await bar.getByRole('button', { name: 'Where did it go?', exact: true }).click();
  await expect(bar.getByRole('alert')).toHaveText('Select text in the transcript first');
  const row = inspector.row(index).getByText(text, { exact: true }).first();
  await inspector.scrollUntilVisible(inspector.view, row);
  await row.selectText();
  await bar.getByRole('button', { name: 'Where did it go?', exact: true }).click();
  await expect(bar.getByRole('alert')).toHaveCount(0);
  const strip = inspector.page.getByRole('region', { name: 'Where did it go?', exact: true }).getByRole('img');
  await expect(strip).toHaveAccessibleName(`Visible at calls ${first}–${calls.length}.`);
});
