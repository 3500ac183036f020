/**
 * Renderer at scale: with 1,000,000 rows, scrolling the projected view end to end keeps
 * the DOM under 200 row elements and the JS heap under 200 MB, measured through Chromium's CDP
 * session; the last row is reachable by scrolling and the first one again on the way back.
 *
 * 1. Writes (or reuses) a 1,000,000-message sidecar under bench/out/renderer/.
 * 2. Starts the HTTP host on it (`serve FILE --port 0`) and opens its URL in Chromium (Debian's at
 *    /usr/bin/chromium when present, else Playwright's own); waits until rows show and loading is over.
 * 3. Sets the view's scrollTop in SCROLL_STEPS steps from top to bottom (the scroller's own
 *    scroll range, as dragging the scrollbar would), each time waiting until the rows in the
 *    viewport are rendered and loaded, and records the row elements in the DOM and JSHeapUsedSize.
 * 4. Back to the top, a forced GC, the heap again.
 *
 * Needs dist/ built (`npm run build`): the host serves dist/renderer. Run alone:
 * `npx tsx bench/renderer.ts [--verbose]` prints one table (exit status 1 when a target fails);
 * `runRendererBench()` returns the rows for bench/run.ts.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from '@playwright/test';
import type { Browser, CDPSession, Page } from '@playwright/test';
import type { BenchRow } from './report';
import { formatTable, median } from './report';
import { LOAD_TIMEOUT_MS, REPO_ROOT, chromiumLaunchOptions, startServe, writeLargeSidecar } from './rendererSupport';
import { runWindowBench } from './rendererWindows';

export const RENDERER_ROWS = 1_000_000;
const SCROLL_STEPS = 200;
const MAX_DOM_ROWS = 200;
const MAX_HEAP_MB = 200;
const STEP_TIMEOUT_MS = 30_000;
const MB = 1e6;

const VIEW = '[role="list"][aria-label="Projected view"]';

/**
 * The little of the DOM the in-page functions use, typed here so this file needs no DOM lib (the
 * functions run in the page: Playwright sends their source, so they reference nothing outside).
 */
interface PageElement {
  getBoundingClientRect(): { top: number; bottom: number };
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  querySelectorAll(selector: string): ArrayLike<PageElement>;
  scrollTop: number;
  readonly scrollHeight: number;
  readonly clientHeight: number;
}
interface PageGlobals {
  document: { querySelector(selector: string): PageElement | null };
  __rendererBenchLast?: string;
}

export interface RendererBenchOptions {
  rows?: number;
  steps?: number;
  /** Progress lines (default: stderr). */
  log?: (line: string) => void;
  /** A progress line at every scroll step, not every 50th. */
  verbose?: boolean;
}

/** What the viewport of the projected view shows, read in the page. */
interface ViewportRows {
  /** `data-row` of the first and last row element intersecting the viewport. */
  first: number;
  last: number;
  /** `data-index` of the last row fully inside the viewport, -1 if none. */
  lastFullIndex: number;
  /** `data-index` of the first row fully inside the viewport, -1 if none. */
  firstFullIndex: number;
  /** Row elements (`listitem`) in the DOM. */
  domRows: number;
}

/**
 * In the page: what the viewport shows once it is settled, else null. Settled: every row
 * intersecting the viewport is loaded (a placeholder row has no `data-index`), the rows cover the
 * viewport (or end at the last row), the first row differs from `previous` (its `data-row`), and
 * the same rows stood at the same places at the previous poll (one animation frame earlier).
 */
export function settledViewport(args: { selector: string; previous: number | null; count: number }): ViewportRows | null {
  const page = globalThis as unknown as PageGlobals;
  const view = page.document.querySelector(args.selector);
  if (!view) return null;
  const box = view.getBoundingClientRect();
  const items = Array.from(view.querySelectorAll('[role="listitem"]'));
  const inView = items
    .map((el) => ({ el, r: el.getBoundingClientRect(), row: Number(el.getAttribute('data-row')) }))
    .filter(({ r }) => r.bottom > box.top + 0.5 && r.top < box.bottom - 0.5);
  if (inView.length === 0 || inView.some(({ el }) => !el.hasAttribute('data-index'))) return null;
  const first = Math.min(...inView.map((x) => x.row));
  const last = Math.max(...inView.map((x) => x.row));
  const covered = Math.min(...inView.map((x) => x.r.top)) <= box.top + 0.5 && (Math.max(...inView.map((x) => x.r.bottom)) >= box.bottom - 0.5 || last === args.count - 1);
  if (!covered || (args.previous !== null && first === args.previous)) return null;
  const fingerprint = inView.map(({ row, r }) => `${row}:${r.top.toFixed(1)}`).join(' ');
  const stable = page.__rendererBenchLast === fingerprint;
  page.__rendererBenchLast = fingerprint;
  if (!stable) return null;
  const fullIndices = inView.filter(({ r }) => r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5).map(({ el }) => Number(el.getAttribute('data-index')));
  return {
    first,
    last,
    firstFullIndex: fullIndices.length > 0 ? Math.min(...fullIndices) : -1,
    lastFullIndex: fullIndices.length > 0 ? Math.max(...fullIndices) : -1,
    domRows: items.length,
  };
}

async function heapUsed(cdp: CDPSession): Promise<number> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? Number.NaN;
}

/** The JS heap plus ArrayBuffer backing stores (off the heap: the list's row heights live there). */
async function heapAndBuffers(cdp: CDPSession): Promise<number> {
  const usage = await cdp.send('Runtime.getHeapUsage');
  return usage.usedSize + usage.backingStorageSize;
}

async function setScroll(page: Page, fraction: number): Promise<void> {
  await page.evaluate(
    ({ selector, fraction }) => {
      const view = (globalThis as unknown as PageGlobals).document.querySelector(selector);
      if (!view) throw new Error('no projected view');
      view.scrollTop = Math.round(fraction * (view.scrollHeight - view.clientHeight));
    },
    { selector: VIEW, fraction },
  );
}

/** In the page: the rows in the DOM (`data-row`, `?` for a placeholder, top–bottom in the viewport) and the scroll state. */
function describeViewport(selector: string): string {
  const view = (globalThis as unknown as PageGlobals).document.querySelector(selector);
  if (!view) return 'no projected view';
  const box = view.getBoundingClientRect();
  const rows = Array.from(view.querySelectorAll('[role="listitem"]')).map((el) => {
    const r = el.getBoundingClientRect();
    return `${el.getAttribute('data-row')}${el.hasAttribute('data-index') ? '' : '?'}:${Math.round(r.top - box.top)}–${Math.round(r.bottom - box.top)}`;
  });
  return `scrollTop ${view.scrollTop} of ${view.scrollHeight - view.clientHeight}, viewport ${view.clientHeight}; rows ${rows.join(' ')}`;
}

async function waitViewport(page: Page, previous: number | null, count: number): Promise<ViewportRows> {
  try {
    const handle = await page.waitForFunction(settledViewport, { selector: VIEW, previous, count }, { polling: 'raf', timeout: STEP_TIMEOUT_MS });
    return (await handle.jsonValue()) as ViewportRows;
  } catch (e) {
    const state = await page.evaluate(describeViewport, VIEW).catch(() => 'unknown');
    throw new Error(`the view did not settle (previous first row ${previous}): ${state}`, { cause: e });
  }
}

/** Files under `dir` (recursively) changed after `since` (ms): whether dist/renderer is older than its sources. */
function newerThan(dir: string, since: number): string | undefined {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const found = newerThan(path, since);
      if (found) return found;
    } else if (statSync(path).mtimeMs > since) {
      return path;
    }
  }
  return undefined;
}

/** The HTTP host serves dist/renderer: it must exist (and is said to be stale when a source is newer). */
function checkBuild(log: (line: string) => void): void {
  const index = join(REPO_ROOT, 'dist', 'renderer', 'index.html');
  if (!existsSync(index) || !existsSync(join(REPO_ROOT, 'dist', 'cli.cjs'))) throw new Error('dist/ is not built: run `npm run build` first');
  const stale = newerThan(join(REPO_ROOT, 'renderer'), statSync(index).mtimeMs);
  if (stale) log(`warning: ${stale} is newer than dist/renderer: run \`npm run build\` to measure the current renderer`);
}

export async function runRendererBench(options: RendererBenchOptions = {}): Promise<BenchRow[]> {
  const count = options.rows ?? RENDERER_ROWS;
  const steps = options.steps ?? SCROLL_STEPS;
  const log = options.log ?? ((line: string) => process.stderr.write(`[renderer] ${line}\n`));
  const group = 'renderer';
  const rows: BenchRow[] = [];
  const benchStart = performance.now();
  checkBuild(log);

  const written = performance.now();
  const sidecar = writeLargeSidecar(join(REPO_ROOT, 'bench', 'out', 'renderer', `bench-${count}.sidecar.jsonl`), count);
  const writtenMs = performance.now() - written;
  log(`${sidecar.reused ? 'reused' : 'wrote'} ${sidecar.path} (${(sidecar.bytes / MB).toFixed(1)} MB) in ${writtenMs.toFixed(0)} ms`);

  const host = await startServe([sidecar.path]);
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({
      ...chromiumLaunchOptions(),
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));

    const view = page.getByRole('list', { name: 'Projected view', exact: true });
    const loadStart = performance.now();
    await page.goto(host.url);
    await view.getByRole('listitem', { name: /^Messages? \d/ }).first().waitFor({ state: 'visible', timeout: LOAD_TIMEOUT_MS });
    const firstRowsMs = performance.now() - loadStart;
    await page.getByRole('progressbar', { name: 'Loading session', exact: true }).waitFor({ state: 'hidden', timeout: LOAD_TIMEOUT_MS });
    const loadedMs = performance.now() - loadStart;
    const status = page.getByRole('status', { name: 'Status', exact: true });
    await status.filter({ hasText: / rows/ }).waitFor({ timeout: LOAD_TIMEOUT_MS });
    const statusText = (await status.textContent()) ?? '';
    const viewRows = Number(/([\d,]+) rows/.exec(statusText)?.[1]?.replace(/,/g, '') ?? Number.NaN);
    log(`host listening after ${host.startMs.toFixed(0)} ms; first rows ${firstRowsMs.toFixed(0)} ms after page load, loaded after ${loadedMs.toFixed(0)} ms; ${viewRows} rows`);

    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    let viewport = await waitViewport(page, null, count);
    let maxDom = viewport.domRows;
    let maxHeap = await heapUsed(cdp);
    let maxWithBuffers = await heapAndBuffers(cdp);
    const heapStart = maxHeap;
    const stepMs: number[] = [];
    let monotonic = true;
    const scrollStart = performance.now();
    for (let step = 1; step <= steps; step++) {
      const t = performance.now();
      await setScroll(page, step / steps);
      const next = await waitViewport(page, viewport.first, count);
      stepMs.push(performance.now() - t);
      if (next.first <= viewport.first) monotonic = false;
      viewport = next;
      maxDom = Math.max(maxDom, next.domRows);
      maxHeap = Math.max(maxHeap, await heapUsed(cdp));
      maxWithBuffers = Math.max(maxWithBuffers, await heapAndBuffers(cdp));
      if (options.verbose === true || step % 50 === 0) log(`step ${step}/${steps}: rows ${next.first}–${next.last}, ${next.domRows} in the DOM, heap ${(maxHeap / MB).toFixed(1)} MB max`);
    }
    const scrollMs = performance.now() - scrollStart;
    const lastReached = viewport.lastFullIndex === count - 1;

    await setScroll(page, 0);
    const top = await waitViewport(page, viewport.first, count);
    const firstReached = top.firstFullIndex === 0;
    maxDom = Math.max(maxDom, top.domRows);
    maxHeap = Math.max(maxHeap, await heapUsed(cdp));
    await cdp.send('HeapProfiler.enable');
    await cdp.send('HeapProfiler.collectGarbage');
    const heapAfterGc = await heapUsed(cdp);
    if (pageErrors.length > 0) log(`page errors: ${pageErrors.join('; ')}`);

    rows.push(
      { group, metric: 'rows in the view (status bar)', value: viewRows, unit: 'rows', target: `= ${count.toLocaleString('en-US')}`, pass: viewRows === count },
      { group, metric: `sidecar of ${count.toLocaleString('en-US')} messages`, value: sidecar.bytes / MB, unit: 'MB', note: sidecar.reused ? 'reused from an earlier run' : `written in ${(writtenMs / 1000).toFixed(1)} s` },
      { group, metric: 'host start incl. indexing (spawn → listening line)', value: host.startMs, unit: 'ms', note: '`serve` indexes the file before it listens' },
      { group, metric: 'page load → first rows shown', value: firstRowsMs, unit: 'ms' },
      { group, metric: 'page load → session loaded (no progress bar)', value: loadedMs, unit: 'ms' },
      { group, metric: `scroll end to end: steps`, value: steps, unit: 'steps', note: `${(scrollMs / 1000).toFixed(1)} s` },
      { group, metric: 'scroll step → viewport rows loaded (median)', value: median(stepMs), unit: 'ms' },
      { group, metric: 'scroll step → viewport rows loaded (max)', value: Math.max(...stepMs), unit: 'ms' },
      { group, metric: 'first visible row moved down at every step', value: monotonic ? 1 : 0, unit: '', target: 'yes', pass: monotonic },
      { group, metric: `last row (${count - 1}) fully visible at the end`, value: viewport.lastFullIndex, unit: 'index', target: `= ${count - 1}`, pass: lastReached },
      { group, metric: 'first row (0) fully visible back at the top', value: top.firstFullIndex, unit: 'index', target: '= 0', pass: firstReached },
      { group, metric: 'max row elements in the DOM while scrolling', value: maxDom, unit: 'rows', target: `< ${MAX_DOM_ROWS}`, pass: maxDom < MAX_DOM_ROWS },
      { group, metric: 'JS heap used before scrolling', value: heapStart / MB, unit: 'MB' },
      { group, metric: 'max JS heap used while scrolling', value: maxHeap / MB, unit: 'MB', target: `< ${MAX_HEAP_MB} MB`, pass: maxHeap < MAX_HEAP_MB * MB },
      { group, metric: 'max JS heap + ArrayBuffers while scrolling', value: maxWithBuffers / MB, unit: 'MB', target: `< ${MAX_HEAP_MB} MB`, pass: maxWithBuffers < MAX_HEAP_MB * MB, note: 'Runtime.getHeapUsage: usedSize + backingStorageSize' },
      { group, metric: 'JS heap used after scrolling and GC', value: heapAfterGc / MB, unit: 'MB', target: `< ${MAX_HEAP_MB} MB`, pass: heapAfterGc < MAX_HEAP_MB * MB },
      { group, metric: 'page errors', value: pageErrors.length, unit: '', target: '= 0', pass: pageErrors.length === 0 },
    );
    await context.close();
  } finally {
    await browser?.close();
    await host.stop();
  }
  // Windows inside a 200 MB output (its own sidecar, host and browser).
  rows.push(...(await runWindowBench({ log })));
  log(`done in ${((performance.now() - benchStart) / 1000).toFixed(1)} s`);
  return rows;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await runRendererBench({ verbose: process.argv.includes('--verbose') });
  console.log(formatTable(rows));
  if (rows.some((r) => r.pass === false)) process.exitCode = 1;
}
