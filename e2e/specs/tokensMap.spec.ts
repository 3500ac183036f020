/**
 * The context map in tokens (SPEC §15 "The app", docs/tokens.md "In the app") through the HTTP
 * host: the `Tokens`/`Bytes` switch, the text alternative naming tokens and the window, the status
 * bar's `<tokens> / <window> (<pct>)`, the cache-break marks — on a real Claude Code transcript
 * that records usage and has cache breaks, and a SWE-agent trajectory that records none
 * (estimates, `est.`). Every expected figure is read from the files by the CLI. Axe-clean.
 */
import { audit } from '../axe';
import { cliCheck, runCli } from '../cli';
import { writeFileSync } from 'node:fs';
import { expect, test, testWithWrittenFile } from '../fixtures';
import { fixture } from '../importedSession';
import { recordedTexts, textRecorder } from '../textRecorder';

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

/** Every text the map's progress note shows, from the page's first paint: a slice's note may last less than a poll. */
const PROGRESS_RECORDER = textRecorder('.context-map-progress', 'mapProgressSaid');

test.describe('a long Claude Code transcript: the estimates come in slices', () => {
  test.use({ sessionFiles: [LONG_PASS], pageInitScript: PROGRESS_RECORDER });

  test('the map says how far the estimates have got (estimating… N of M calls), then the calibrated figures; axe clean', async ({ inspector }) => {
    // The tokenizer's load and a pass of seconds on a loaded machine.
    test.slow();
    await inspector.waitLoaded();
    const calls = Number(await inspector.modelCallSlider.getAttribute('max'));
    const tokens = inspector.page.getByRole('button', { name: 'Tokens', exact: true });
    await expect(tokens).toHaveAttribute('aria-pressed', 'true');
    // The pass runs in slices, each answering with how far it has got: the calibration's walk over the recorded calls first.
    const progress = inspector.page.locator('.context-map-progress[role="status"]');
    // Then complete: the text alternative names the calibration fitted on this file, the progress says nothing.
    const summary = inspector.page.locator('#context-map-summary');
    await expect(summary).toContainText(/estimates calibrated ×[\d.]+ \(±[\d.]+ %, fitted on this file\)/, { timeout: 90_000 });
    await expect(summary).not.toContainText('estimating…');
    await expect(progress).toHaveText('');
    // Said on the way, however briefly (the page's recorder saw every text the note took).
    const said = await recordedTexts(inspector.page, 'mapProgressSaid');
    expect(said.some((text) => new RegExp(`^estimating… calibrating on the recorded usage, [\\d,]+ of ${calls} calls$`).test(text)), said.join(' | ')).toBe(true);
    expect(await audit(inspector)).toEqual([]);
  });
});

/** Calls of the written session: more than the chart's buckets (600), so some bucket holds several breaks. */
const MANY_CALLS = 1_400;

/**
 * A Claude Code session of MANY_CALLS prompts and answers whose cache reads fall at every other
 * call (from 40,000 to 30,000 tokens and more: a cache break each time), as a session whose cache
 * expires at every pause records them.
 */
function writeManyBreaks(path: string): void {
  const lines: string[] = [];
  let parent: string | null = null;
  let n = 0;
  const add = (fields: Record<string, unknown>): void => {
    n++;
    const uuid = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    lines.push(JSON.stringify({ parentUuid: parent, isSidechain: false, userType: 'external', cwd: '/work/demo', sessionId: '21111111-2222-4333-8444-555555555555', version: '2.1.17', ...fields, uuid, timestamp: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString() }));
    parent = uuid;
  };
  for (let call = 1; call <= MANY_CALLS; call++) {
    add({ type: 'user', message: { role: 'user', content: `Question ${call}: what changed?` } });
    const cacheRead = (call % 2 === 1 ? 40_000 : 30_000) + 7 * call;
    const usage = { input_tokens: 100, cache_read_input_tokens: cacheRead, cache_creation_input_tokens: 500 + (call % 97) * 30, output_tokens: 20 };
    add({ type: 'assistant', requestId: `req_${call}`, message: { id: `msg_${call}`, model: 'claude-sonnet-4-5', role: 'assistant', type: 'message', content: [{ type: 'text', text: `Answer ${call}.` }], stop_reason: 'end_turn', usage } });
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}

const manyBreaks = testWithWrittenFile('tokens-map-breaks', 'many-breaks.jsonl', writeManyBreaks);

manyBreaks.describe('a long session whose cache falls at every other call', () => {
  manyBreaks('the chart marks each bucket holding breaks once, the list shows them a hundred at a time, the text alternative counts them and names the largest; axe clean', async ({ inspector, writtenFile }) => {
    // A CLI run, a session of 1,400 calls and an audit: longer than one step on a loaded machine.
    manyBreaks.slow();
    await inspector.waitLoaded();
    const page = inspector.page;
    const breaks = cliCheck([writtenFile]).summary.cache_breaks ?? [];
    expect(breaks.length).toBe(MANY_CALLS / 2);
    await expect(page.getByRole('button', { name: 'Tokens', exact: true })).toHaveAttribute('aria-pressed', 'true');

    // One mark per bucket holding breaks, at its first break, counting them all between them.
    const marks = inspector.contextMap.locator('[data-mark="cache-break"]');
    await expect(marks.first()).toBeAttached();
    const marked = await marks.evaluateAll((els: { getAttribute(name: string): string | null }[]) => els.map((e) => ({ call: Number(e.getAttribute('data-call')), count: Number(e.getAttribute('data-breaks')) })));
    expect(marked.length).toBeLessThan(breaks.length);
    expect(marked.reduce((sum, m) => sum + m.count, 0)).toBe(breaks.length);
    const calls = new Set(breaks.map((b) => b.call));
    expect(marked.every((m) => calls.has(m.call))).toBe(true);

    // The list: the first hundred in call order, a hundred more at each ask.
    const list = page.getByRole('list', { name: 'Cache breaks' });
    const items = list.getByRole('listitem');
    await expect(items).toHaveCount(100);
    await expect(items.last()).toContainText(`Cache break at call ${count(breaks[99]?.call ?? 0)}: ${count(breaks[99]?.tokens_rewritten ?? 0)} tokens rewritten`);
    await page.getByRole('button', { name: `Show 100 more cache breaks (${count(breaks.length - 100)} not shown)`, exact: true }).click();
    await expect(items).toHaveCount(200);
    await expect(items.last()).toContainText(`Cache break at call ${count(breaks[199]?.call ?? 0)}:`);

    // The text alternative: how many, and the five that rewrote the most (the earlier among equals), in call order.
    const largest = breaks
      .map((b, k) => ({ b, k }))
      .sort((x, y) => y.b.tokens_rewritten - x.b.tokens_rewritten || x.k - y.k)
      .slice(0, 5)
      .sort((x, y) => x.k - y.k)
      .map(({ b }) => `call ${count(b.call)}, ${count(b.tokens_rewritten)} tokens rewritten`);
    await expect(page.locator('#context-map-summary')).toContainText(`${count(breaks.length)} cache breaks (the 5 largest: ${largest.join('; ')})`);
    expect(await audit(inspector)).toEqual([]);
  });
});
