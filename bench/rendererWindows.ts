/**
 * Windows inside a 200 MB output: the time from a click to the 1 MiB window's text in
 * the DOM (laid out), for `Load more` and for a jump to the middle (`Jump to byte`, `Show window`),
 * and what stays in the DOM after many loads. Targets: ≤ 150 ms each (median), the content's
 * characters ≤ MAX_SHOWN_BYTES (printed PASS/FAIL, never asserted in tests).
 *
 * 1. Writes (or reuses) bench/out/renderer/huge-output-<bytes>.sidecar.jsonl: one tool output of
 *    HUGE_OUTPUT_BYTES (a test log with ANSI colours and multi-byte characters), truncated.
 * 2. Starts the HTTP host on it, opens its URL in Chromium, expands the output (its first window;
 *    the host verifies the whole output's hash then: reported, not a target).
 * 3. Clicks `Load more` LOADS times; each time, in the page, from the click until `Shown range`
 *    names the new end (one React commit with the new chunk), then a forced layout. The windows
 *    grow 64 KiB, 128 KiB … to 1 MiB: the median is over the 1 MiB ones.
 * 4. Types an offset near the middle into `Jump to byte` and clicks `Show window` JUMPS times
 *    (a different, uncached offset each time), timed the same way.
 *
 * Needs dist/ built. Alone: `npx tsx bench/rendererWindows.ts [--runs N]` prints one table.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from '@playwright/test';
import type { Browser, Page } from '@playwright/test';
import type { BenchRow } from './report';
import { formatTable, median } from './report';
import { LOAD_TIMEOUT_MS, REPO_ROOT, chromiumLaunchOptions, startServe, writeHugeOutputSidecar } from './rendererSupport';

/** "≥ 200 MB single output". */
export const HUGE_OUTPUT_BYTES = 210_000_000;
const LOADS = 12;
const JUMPS = 7;
const TARGET_MS = 150;
const MIB = 1024 * 1024;
/** The renderer's bound on what an open reduction shows (MAX_SHOWN_BYTES): characters ≤ bytes. */
const MAX_SHOWN = 4 * MIB;
const STEP_TIMEOUT_MS = 60_000;
const MB = 1e6;

/** The little of the DOM the in-page function uses (this file has no DOM lib; it runs in the page). */
interface PageNode {
  textContent: string | null;
  querySelector(selector: string): PageNode | null;
  querySelectorAll(selector: string): ArrayLike<PageNode>;
  click(): void;
  readonly disabled?: boolean;
  readonly scrollHeight: number;
}
interface PageGlobals {
  document: { querySelector(selector: string): PageNode | null; createTreeWalker(root: PageNode, show: number): { nextNode(): unknown } };
  MutationObserver: new (callback: () => void) => { observe(node: PageNode, options: Record<string, boolean>): void; disconnect(): void };
  performance: { now(): number; getEntriesByType(type: string): ArrayLike<{ name: string; startTime: number; responseEnd: number }> };
  setTimeout(f: () => void, ms: number): number;
}

interface Timed {
  ms: number;
  shown: [number, number];
  /** Characters and text nodes of the content element after the step, and its laid-out height. */
  chars: number;
  height: number;
  /** From the click to the end of the `expand` reply (the host's part, and the network). */
  replyMs: number;
  textNodes: number;
}

/**
 * In the page: clicks the button named `button` in the region named `region`, then waits (on DOM
 * mutations, no polling) until its `Shown range` differs from what it said and is settled (no
 * `Loading…`), forces a layout of the content, and returns the time from the click.
 */
function timedClick(args: { region: string; button: string; timeoutMs: number }): Promise<Timed> {
  const g = globalThis as unknown as PageGlobals;
  const region = g.document.querySelector(`[role="region"][aria-label="${args.region}"]`);
  if (!region) throw new Error(`no region ${args.region}`);
  const output = (): PageNode | null => region.querySelector('output[aria-label="Shown range"]');
  const before = output()?.textContent ?? '';
  const button = Array.from(region.querySelectorAll('button')).find((b) => b.textContent === args.button);
  if (!button || button.disabled === true) throw new Error(`no enabled button ${args.button}`);
  return new Promise<Timed>((done, fail) => {
    let t0 = 0;
    const check = (): boolean => {
      const text = output()?.textContent ?? '';
      const m = /bytes (\d+)–(\d+) of (\d+)$/.exec(text);
      if (text === before || !m || region.querySelector('.reduction-loading')) return false;
      const content = region.querySelector('[role="code"]');
      // Reading the height forces the layout of what was added: part of the time.
      const height = content?.scrollHeight ?? 0;
      const ms = g.performance.now() - t0;
      observer.disconnect();
      let textNodes = 0;
      if (content) {
        const walker = g.document.createTreeWalker(content, 4 /* NodeFilter.SHOW_TEXT */);
        while (walker.nextNode()) textNodes++;
      }
      const reply = Array.from(g.performance.getEntriesByType('resource')).filter((e) => e.name.endsWith('/api/expand') && e.startTime >= t0);
      const replyMs = reply.length > 0 ? Math.max(...reply.map((e) => e.responseEnd)) - t0 : Number.NaN;
      done({ ms, height, replyMs, shown: [Number(m[1]), Number(m[2])], chars: content?.textContent?.length ?? 0, textNodes });
      return true;
    };
    const observer = new g.MutationObserver(() => void check());
    observer.observe(region, { childList: true, subtree: true, characterData: true, attributes: true });
    g.setTimeout(() => {
      observer.disconnect();
      fail(new Error(`no new window within ${args.timeoutMs} ms after ${args.button}; Shown range: ${output()?.textContent ?? ''}`));
    }, args.timeoutMs);
    t0 = g.performance.now();
    button.click();
  });
}

/** In the page: resolves when the page is next idle (the previous window's colours are parsed then). */
function nextIdle(): Promise<void> {
  const g = globalThis as unknown as { requestIdleCallback(f: () => void, o: { timeout: number }): number };
  return new Promise((done) => g.requestIdleCallback(() => done(), { timeout: 5000 }));
}

/** A click timed from an app at rest (as a user's next click finds it), not while the last window's colours are parsed. */
async function timed(page: Page, region: string, button: string): Promise<Timed> {
  await page.evaluate(nextIdle);
  return page.evaluate(timedClick, { region, button, timeoutMs: STEP_TIMEOUT_MS });
}

export interface WindowBenchOptions {
  /** Jumps to time (default JUMPS). */
  runs?: number;
  log?: (line: string) => void;
}

export async function runWindowBench(options: WindowBenchOptions = {}): Promise<BenchRow[]> {
  const log = options.log ?? ((line: string) => process.stderr.write(`[renderer windows] ${line}\n`));
  const jumps = options.runs ?? JUMPS;
  const group = 'renderer';
  const written = performance.now();
  const sidecar = writeHugeOutputSidecar(join(REPO_ROOT, 'bench', 'out', 'renderer', `huge-output-${HUGE_OUTPUT_BYTES}.sidecar.jsonl`), HUGE_OUTPUT_BYTES);
  log(`${sidecar.reused ? 'reused' : 'wrote'} ${sidecar.path} (one output of ${(sidecar.outputBytes / MB).toFixed(1)} MB) in ${((performance.now() - written) / 1000).toFixed(1)} s`);
  const host = await startServe([sidecar.path]);
  let browser: Browser | undefined;
  const rows: BenchRow[] = [];
  try {
    browser = await chromium.launch({ ...chromiumLaunchOptions(), args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    // tsx keeps function names with a helper (`__name`) the in-page function's source then calls.
    await context.addInitScript('globalThis.__name ??= (f) => f;');
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(host.url);
    const view = page.getByRole('list', { name: 'Projected view', exact: true });
    const chip = view.getByRole('button', { name: new RegExp(`^Expand reduction ${sidecar.id}(?!\\w)`) });
    await chip.waitFor({ timeout: LOAD_TIMEOUT_MS });
    const regionName = `Reduction ${sidecar.id} content`;
    const region = page.getByRole('region', { name: regionName, exact: true });
    const shown = region.getByLabel('Shown range', { exact: true });
    const expandStart = performance.now();
    await chip.click();
    await shown.filter({ hasText: new RegExp(`bytes 0–\\d+ of ${sidecar.outputBytes}$`) }).waitFor({ timeout: LOAD_TIMEOUT_MS });
    const firstExpandMs = performance.now() - expandStart;
    log(`first expand (the host verifies ${(sidecar.outputBytes / MB).toFixed(0)} MB) ${firstExpandMs.toFixed(0)} ms`);

    const loads: Timed[] = [];
    let previous = 0;
    for (let k = 0; k < LOADS; k++) {
      const step = await timed(page, regionName, 'Load more');
      const added = step.shown[1] - previous;
      previous = step.shown[1];
      loads.push(step);
      log(`Load more ${k + 1}: shown ${step.shown[0]}–${step.shown[1]} (+${(added / 1024).toFixed(0)} KiB) in ${step.ms.toFixed(0)} ms (reply after ${step.replyMs.toFixed(0)} ms); ${step.chars} characters, ${step.textNodes} text nodes in the content`);
    }
    // Windows of 1 MiB (the host floors an end by at most 3 bytes to a character boundary).
    const fullLoads = loads.filter((s, k) => s.shown[1] - (k === 0 ? 0 : (loads[k - 1]?.shown[1] ?? 0)) >= MIB - 3);
    const last = loads[loads.length - 1];

    const jumpInput = region.getByRole('spinbutton', { name: 'Jump to byte', exact: true });
    const jumpTimes: number[] = [];
    const jumpReplies: number[] = [];
    let jumpsRight = true;
    for (let k = 0; k < jumps; k++) {
      const offset = Math.floor(sidecar.outputBytes / 2) + (k - Math.floor(jumps / 2)) * 8 * MIB + 1;
      await jumpInput.fill(String(offset));
      const step = await timed(page, regionName, 'Show window');
      jumpTimes.push(step.ms);
      if (!(step.shown[0] <= offset && step.shown[0] >= offset - 3 && step.shown[1] >= step.shown[0] + MIB - 3)) jumpsRight = false;
      jumpReplies.push(step.replyMs);
      log(`jump to ${offset}: shown ${step.shown[0]}–${step.shown[1]} in ${step.ms.toFixed(0)} ms (reply after ${step.replyMs.toFixed(0)} ms)`);
    }
    if (pageErrors.length > 0) log(`page errors: ${pageErrors.join('; ')}`);

    const loadMedian = median(fullLoads.map((s) => s.ms));
    const jumpMedian = median(jumpTimes);
    rows.push(
      { group, metric: `one output of ${(sidecar.outputBytes / MB).toFixed(0)} MB: first expand (hash verified) → first window shown`, value: firstExpandMs, unit: 'ms', note: `sidecar ${(sidecar.bytes / MB).toFixed(0)} MB, ${sidecar.reused ? 'reused' : 'written'}` },
      { group, metric: `Load more of 1 MiB → window in the DOM (median of ${fullLoads.length})`, value: loadMedian, unit: 'ms', target: `≤ ${TARGET_MS} ms`, pass: fullLoads.length > 0 && loadMedian <= TARGET_MS, note: `max ${Math.max(...fullLoads.map((s) => s.ms)).toFixed(0)} ms; the host's reply in ${median(fullLoads.map((s) => s.replyMs)).toFixed(0)} ms (median); windows grew 64 KiB → 1 MiB over the first loads` },
      { group, metric: `jump to the middle → 1 MiB window in the DOM (median of ${jumpTimes.length})`, value: jumpMedian, unit: 'ms', target: `≤ ${TARGET_MS} ms`, pass: jumpsRight && jumpMedian <= TARGET_MS, note: `max ${Math.max(...jumpTimes).toFixed(0)} ms; the host's reply in ${median(jumpReplies).toFixed(0)} ms (median); each window starts at the offset asked (floored to a character)${jumpsRight ? '' : ': NOT every time'}` },
      { group, metric: `content characters in the DOM after ${LOADS} loads`, value: last?.chars ?? Number.NaN, unit: 'chars', target: `≤ ${MAX_SHOWN}`, pass: last !== undefined && last.chars <= MAX_SHOWN, note: `${last?.textNodes ?? 0} text nodes; shown bytes ${last ? `${last.shown[0]}–${last.shown[1]}` : '?'}` },
      { group, metric: 'page errors (windows)', value: pageErrors.length, unit: '', target: '= 0', pass: pageErrors.length === 0 },
    );
    await context.close();
  } finally {
    await browser?.close();
    await host.stop();
  }
  return rows;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf('--runs');
  const rows = await runWindowBench(at > 0 ? { runs: Number(process.argv[at + 1]) } : {});
  console.log(formatTable(rows));
  if (rows.some((r) => r.pass === false)) process.exitCode = 1;
}
