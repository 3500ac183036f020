/**
 * SPEC §10–11 in the app for the research agents' formats, through the HTTP host. SWE-agent: the
 * real trajectory whose steps record their inputs — its badge, a derived elision expanding to the
 * bytes `expand` prints ("hashed at import"), and the `Model call` slider showing, at the first call
 * given the elision, what `view --at N` prints (the row count, the stub) and at the call before it
 * the original. OpenHands: the real trajectories hold no condensation, so a synthetic V0 one (two
 * forgotten runs, one summary) — its summary chip expanding to the forgotten events' transcript
 * (= `expand`), a search for a word only a forgotten event holds — and a V1 conversation opened
 * from its base_state.json. Every expected value is read from the files by the CLI; axe passes in
 * both themes.
 */
import type { ViewEntry } from '../../shared/calls/calls';
import type { TraceResult } from '../../shared/calls/trace';
import { audit } from '../axe';
import { cliCheck, cliExpand, cliLog, runCli } from '../cli';
import { expect, test } from '../fixtures';
import { expectFormat, fixture, searchHiddenWord } from '../importedSession';

// Its tests share the worker's page, each with its own host (fixtures.ts, reusePage).
test.use({ reusePage: true });

const SWE = fixture('real/swe-agent/marshmallow-1867-function-calling-replace-from-source.traj');
const OPENHANDS = fixture('synthetic/openhands/v0-condensed.json');
const OPENHANDS_V1 = fixture('synthetic/openhands/v1-conversation/base_state.json');

/** `trace --query Q FILE` (docs/trace.md): each match, and the call that first no longer saw it. */
function cliTrace(file: string, query: string): TraceResult {
  const run = runCli(['trace', '--query', query, file]);
  if (run.status !== 0) throw new Error(`trace ${file} exited ${run.status}: ${run.stderr}`);
  return JSON.parse(run.stdout) as TraceResult;
}

/** `view [--at N] FILE` (SPEC §11). */
function cliView(file: string, at?: number): { call: number | null; calls: number; messages: ViewEntry[] } {
  const run = runCli(['view', ...(at === undefined ? [] : ['--at', String(at)]), file]);
  if (run.status !== 0) throw new Error(`view ${at ?? ''} ${file} exited ${run.status}: ${run.stderr}`);
  return JSON.parse(run.stdout) as { call: number | null; calls: number; messages: ViewEntry[] };
}

test.describe('a real SWE-agent trajectory', () => {
  test.use({ sessionFiles: [SWE] });

  test('says it is SWE-agent; a derived elision expands to the history text, hashed at import; the Model call slider shows what view --at N prints', async ({ inspector }) => {
    // Five CLI processes give the expected values.
    test.slow();
    await inspector.waitLoaded();
    await expectFormat(inspector, 'SWE-agent');
    const elision = cliLog([SWE]).find((r) => r.kind === 'tool_output_elided');
    if (!elision) throw new Error(`${SWE} holds no elision`);
    expect([elision.status, elision.hash_origin, elision.provenance]).toEqual(['verified', 'import', 'derived']);

    const chip = await inspector.revealStub(elision.id);
    await expect(chip).toHaveAccessibleName(new RegExp(`^Expand reduction ${elision.id}\\b.*derived.*hashed at import$`));
    const whole = cliExpand([SWE], elision.id);
    const region = await inspector.expand(elision.id);
    await expect(region).toHaveAttribute('data-total-bytes', String(whole.total_bytes));
    await expect(region).toContainText('hashed at import');
    await expect(inspector.content(elision.id).first()).toContainText(whole.content.split('\n')[0] ?? '');
    expect(await audit(inspector)).toEqual([]);
    await inspector.collapse(elision.id);

    // The first call given the elision, as `trace` names it for a line of the original: its row
    // count and the stub are what view --at N prints, and the call before it was given the original.
    const firstLine = whole.content.split('\n')[0] ?? '';
    const hiding = cliTrace(SWE, firstLine).occurrences.find((o) => o.hidden_by?.reduction === elision.id)?.hidden_by;
    if (!hiding) throw new Error(`trace of ${JSON.stringify(firstLine)} in ${SWE} names no call hiding it by ${elision.id}`);
    const n = hiding.call;
    expect(n).toBeGreaterThan(1);
    const before = cliView(SWE, n - 1);
    const at = cliView(SWE, n);
    const { calls } = at;
    if (!at.messages.some((m) => m.reductions.includes(elision.id))) throw new Error(`call ${n} of ${SWE} is not given ${elision.id}`);
    await inspector.showCall(n);
    await expect(inspector.status).toContainText(`call ${n} of ${calls}`);
    await expect(inspector.status).toContainText(`${at.messages.length} rows`);
    const shown = at.messages.find((m) => m.index === elision.ptr.index);
    expect(shown?.content).toBe(elision.stub);
    // The view stays scrolled where the latest view's chip was, below this call's last row: scroll up.
    await inspector.scrollUntilVisible(inspector.view, inspector.row(elision.ptr.index), -600);
    await expect(inspector.row(elision.ptr.index)).toContainText(elision.stub);
    await expect(inspector.stubChip(elision.id)).toBeVisible();

    // The call before it was given the observation whole: no stub, the original's first line.
    await inspector.modelCallSlider.press('ArrowLeft');
    await expect(inspector.status).toContainText(`call ${n - 1} of ${calls}`);
    await expect(inspector.status).toContainText(`${before.messages.length} rows`);
    expect(before.messages.find((m) => m.index === elision.ptr.index)?.content).toBe(whole.content);
    await inspector.scrollUntilVisible(inspector.view, inspector.row(elision.ptr.index), -600);
    await expect(inspector.row(elision.ptr.index)).toContainText(whole.content.split('\n')[0] ?? '');
    await expect(inspector.stubChip(elision.id)).toHaveCount(0);
    await inspector.toggleTheme();
    expect(await audit(inspector)).toEqual([]);
  });
});

test.describe('a condensed OpenHands trajectory (V0)', () => {
  test.use({ sessionFiles: [OPENHANDS] });

  test('says it is OpenHands; the summary chip expands to the forgotten events` transcript; a word only a forgotten event holds is found there; axe passes in both themes', async ({ inspector }) => {
    // Five CLI processes give the expected values.
    test.slow();
    await inspector.waitLoaded();
    await expectFormat(inspector, 'OpenHands');
    const runs = cliLog([OPENHANDS]).filter((r) => r.kind === 'summarized');
    const [run] = runs;
    if (!run) throw new Error(`${OPENHANDS} holds no condensation`);
    expect([run.status, run.hash_origin, run.provenance]).toEqual(['verified', 'import', 'recorded']);
    expect(new Set(runs.map((r) => r.group))).toEqual(new Set([run.group]));

    const last = (run.end ?? run.ptr.index + 1) - 1;
    const row = inspector.row(run.ptr.index);
    await expect(row).toHaveAccessibleName(new RegExp(`^Messages ${run.ptr.index}–${last} summarized`));
    await expect(row).toContainText(run.stub);
    await expect(inspector.stubChip(run.id)).toHaveAccessibleName(new RegExp(`^Expand reduction ${run.id}\\b.*recorded by the agent.*hashed at import$`));

    const whole = cliExpand([OPENHANDS], run.id);
    const region = await inspector.expand(run.id);
    await expect(region).toHaveAttribute('data-total-bytes', String(whole.total_bytes));
    await expect(region).toContainText('hashed at import');
    const rows = await inspector.messageRows(run.id).count();
    expect(rows).toBe(last - run.ptr.index + 1);
    for (let index = run.ptr.index; index <= last; index++) expect(whole.content).toContain(`\u27E9\n${await inspector.readMessage(run.id, index)}\n`);
    expect(await audit(inspector)).toEqual([]);
    await inspector.collapse(run.id);

    // A word of the forgotten transcript that nothing the latest view shows holds.
    const latest = JSON.stringify(cliView(OPENHANDS).messages);
    const word = (whole.content.match(/[A-Za-z]{8,}/g) ?? []).find((w) => !latest.includes(w));
    if (!word) throw new Error('the forgotten transcript holds no word the latest view lacks');
    await searchHiddenWord(inspector, OPENHANDS, word, run.group);
  });
});

test.describe('an OpenHands V1 conversation', () => {
  test.use({ sessionFiles: [OPENHANDS_V1] });

  test('opened from its base_state.json: the format, its message count, its condensation`s summary row', async ({ inspector }) => {
    await inspector.waitLoaded();
    await expectFormat(inspector, 'OpenHands');
    const { summary } = cliCheck([OPENHANDS_V1]);
    await expect(inspector.status).toContainText(`${summary.messages} messages`);
    const run = cliLog([OPENHANDS_V1]).find((r) => r.kind === 'summarized');
    if (!run) throw new Error(`${OPENHANDS_V1} holds no condensation`);
    await expect(inspector.row(run.ptr.index)).toContainText(run.stub);
    await expect(inspector.stubChip(run.id)).toBeVisible();
    expect(await audit(inspector)).toEqual([]);
  });
});
