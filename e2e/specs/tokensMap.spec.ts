/**
 * The context map in tokens (SPEC §15 "The app", docs/tokens.md "In the app") through the HTTP
 * host: the `Tokens`/`Bytes` switch, the text alternative naming tokens and the window, the status
 * bar's `<tokens> / <window> (<pct>)`, the cache-break marks — on a real Claude Code transcript
 * that records usage and has cache breaks, and a SWE-agent trajectory that records none
 * (estimates, `est.`). Every expected figure is read from the files by the CLI. Axe-clean.
 */
import { audit } from '../axe';
import { cliCheck, runCli } from '../cli';
import { expect, test } from '../fixtures';
import { fixture } from '../importedSession';

// Its tests share the worker's page, each with its own host (fixtures.ts, reusePage).
test.use({ reusePage: true });

/** 15 calls with recorded usage; cache reads fall at two of them, one after a persisted output was cut. */
const CACHE_BREAKS = fixture('real/claude-code/cc-2.1.20-persisted-redacted.jsonl');
const SWE_AGENT = fixture('real/swe-agent/sweagenttestrepo-1c2844.traj');
/** 115 calls that record usage, 2.4 MB: the estimates' pass takes seconds, in slices of at most 64 counted calls. */
const LONG_PASS = fixture('real/claude-code/cc-2.1.17-microcompactions-then-compact.jsonl');

/** `view --at N`'s recorded tokens of the call (SPEC §15). */
function viewTokens(file: string, call: number): { context: number; window?: number } {
  const run = runCli(['view', '--at', String(call), file]);
  return (JSON.parse(run.stdout) as { tokens: { context: number; window?: number } }).tokens;
}

const count = (n: number): string => n.toLocaleString('en-US');
const pct = (tokens: number, window: number): string => `${Math.round((tokens / window) * 1000) / 10} %`;

test.describe('a Claude Code transcript that records usage', () => {
  test.use({ sessionFiles: [CACHE_BREAKS] });

  test('tokens by default: the switch flips units, the text alternative names tokens and the window, the status bar says tokens / window (pct), every cache break is marked and leads to its call; axe clean', async ({ inspector }) => {
    // Four CLI runs and two audits: longer than one step on a loaded machine.
    test.slow();
    await inspector.waitLoaded();
    const page = inspector.page;
    const tokens = page.getByRole('button', { name: 'Tokens', exact: true });
    const bytes = page.getByRole('button', { name: 'Bytes', exact: true });
    await expect(tokens).toHaveAttribute('aria-pressed', 'true');
    await expect(bytes).toHaveAttribute('aria-pressed', 'false');

    const calls = Number(await inspector.modelCallSlider.getAttribute('max'));
    const last = viewTokens(CACHE_BREAKS, calls);
    expect(last.window).toBe(200_000);
    const summary = page.locator('#context-map-summary');
    await expect(summary).toContainText(`Context map in tokens of ${calls} model calls: the last call's context was ${count(last.context)} tokens (recorded) of a 200,000-token window (${pct(last.context, 200_000)})`);
    await expect(inspector.status).toContainText(`last call ${count(last.context)} tokens / 200,000 (${pct(last.context, 200_000)})`);

    // Every cache break `check` lists is a mark at its call, and a button to it.
    const breaks = cliCheck([CACHE_BREAKS]).summary.cache_breaks ?? [];
    expect(breaks.length).toBeGreaterThan(0);
    const marks = inspector.contextMap.locator('[data-mark="cache-break"]');
    await expect(marks).toHaveCount(breaks.length);
    const markCalls: number[] = [];
    for (const mark of await marks.all()) markCalls.push(Number(await mark.getAttribute('data-call')));
    expect(markCalls).toEqual(breaks.map((b) => b.call));
    const list = page.getByRole('list', { name: 'Cache breaks' });
    for (const b of breaks) await expect(list).toContainText(`Cache break at call ${b.call}: ${count(b.tokens_rewritten)} tokens rewritten`);
    const first = breaks[0];
    if (!first) throw new Error('no cache break');
    await list.getByRole('button', { name: `Cache break at call ${first.call}`, exact: true }).click();
    await expect(inspector.status).toContainText(`call ${first.call} of ${calls}`);
    const at = viewTokens(CACHE_BREAKS, first.call);
    await expect(inspector.status).toContainText(`${count(at.context)} tokens / 200,000 (${pct(at.context, 200_000)})`);

    const violations = { tokens: await audit(inspector), bytes: [] as Awaited<ReturnType<typeof audit>> };

    // Bytes: the same map in bytes; the switch says so.
    await bytes.click();
    await expect(bytes).toHaveAttribute('aria-pressed', 'true');
    await expect(tokens).toHaveAttribute('aria-pressed', 'false');
    await expect(summary).toContainText(`Context map of ${calls} model calls: the last call was given`);
    await expect(summary).not.toContainText('tokens');
    violations.bytes = await audit(inspector);
    await tokens.click();
    await expect(summary).toContainText('Context map in tokens');
    expect(violations).toEqual({ tokens: [], bytes: [] });
  });
});

test.describe('a SWE-agent trajectory that records no usage', () => {
  test.use({ sessionFiles: [SWE_AGENT] });

  test('the map and the status bar show estimated tokens, marked est.; the figures table says so per call', async ({ inspector }) => {
    // The worker loads the tokenizer at the first estimate: seconds on a loaded machine.
    test.slow();
    await inspector.waitLoaded();
    // A file that records no usage opens in bytes (estimates are counted only when asked for); Tokens asks.
    const tokens = inspector.page.getByRole('button', { name: 'Tokens', exact: true });
    await expect(inspector.page.getByRole('button', { name: 'Bytes', exact: true })).toHaveAttribute('aria-pressed', 'true');
    await tokens.click();
    await expect(tokens).toHaveAttribute('aria-pressed', 'true');
    const summary = inspector.page.locator('#context-map-summary');
    await expect(summary).toContainText(/the last call's context was est\. [\d,]+ tokens/, { timeout: 90_000 });
    await expect(summary).toContainText('calls estimated');
    await expect(inspector.status).toContainText(/last call est\. [\d,]+ tokens/);
    await inspector.page.getByText('Figures per call').click();
    await expect(inspector.contextMapFigures.getByRole('row', { name: /^call 1 / })).toContainText(/est\. [\d,]+ tokens/);
    expect(await audit(inspector)).toEqual([]);
  });
});

test.describe('a long Claude Code transcript: the estimates come in slices', () => {
  test.use({ sessionFiles: [LONG_PASS] });

  test('the map says how far the estimates have got (estimating… N of M calls), then the calibrated figures; axe clean', async ({ inspector }) => {
    // The tokenizer's load and a pass of seconds on a loaded machine.
    test.slow();
    await inspector.waitLoaded();
    const calls = Number(await inspector.modelCallSlider.getAttribute('max'));
    const tokens = inspector.page.getByRole('button', { name: 'Tokens', exact: true });
    await expect(tokens).toHaveAttribute('aria-pressed', 'true');
    // The pass runs in slices, each answering with how far it has got: the calibration's walk over the recorded calls first.
    const progress = inspector.page.locator('.context-map-progress[role="status"]');
    await expect(progress).toContainText(new RegExp(`^estimating… calibrating on the recorded usage, [\\d,]+ of ${calls} calls$`), { timeout: 60_000 });
    // Then complete: the progress says nothing, the text alternative names the calibration fitted on this file.
    await expect(progress).toHaveText('', { timeout: 90_000 });
    const summary = inspector.page.locator('#context-map-summary');
    await expect(summary).toContainText(/estimates calibrated ×[\d.]+ \(±[\d.]+ %, fitted on this file\)/);
    await expect(summary).not.toContainText('estimating…');
    expect(await audit(inspector)).toEqual([]);
  });
});
