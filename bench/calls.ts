/**
 * Model calls at scale: 1,000,000 messages and 100,000 model calls in the app (HTTP host +
 * Chromium, as bench/renderer.ts), each figure a ratio against a baseline measured in the same run.
 *
 * - choosing a call (the `Model call` slider set to N) → its first rows shown, against the baseline
 *   `Latest` → the latest view's first rows shown (the same path without a call: rows of a view
 *   the worker has laid out already). Target: ≤ CHOOSE_TARGET× the baseline — a call's input is
 *   laid out once on first choice (one pass over up to 1,000,000 messages), the latest view's is not.
 * - the Context map: page load → the map shown, against page load → the session loaded (the
 *   progress bar gone: the map needs the whole session, while the first rows come from a preview
 *   long before). Target: ≤ MAP_TARGET× — past the load, the map waits for its figures (one sweep
 *   over the calls and reductions in the worker, a columnar reply) and draws a few paths.
 * - the `calls` reply's JSON size (reported; its shape is columnar for this).
 *
 * The file: turns of ten messages (user, assistant with a tool call, eight tool outputs), a
 * reduction of an earlier turn's output logged every 100 turns, so calls' inputs differ in rows
 * and live reductions. Written once under bench/out/calls/ and reused.
 * `npx tsx bench/calls.ts` runs it alone.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from '@playwright/test';
import type { Browser, Page } from '@playwright/test';
import { stubText } from '../shared/format/constants';
import type { BenchRow } from './report';
import { formatTable, median } from './report';
import { LOAD_TIMEOUT_MS, REPO_ROOT, chromiumLaunchOptions, startServe } from './rendererSupport';
import { SessionService } from '../electron/worker/service';

export const CALLS_BENCH_MESSAGES = 1_000_000;
const TURN = 10;
const REDUCE_EVERY_TURNS = 100;
const CHOOSE_TARGET = 3;
const MAP_TARGET = 3;
const CHOICES = 5;
const STEP_TIMEOUT_MS = 60_000;

function messageAt(i: number): object {
  const turn = Math.floor(i / TURN);
  const k = i % TURN;
  if (k === 0) return { role: 'user', content: `Turn ${turn}: run the next check.` };
  if (k === 1) return { role: 'assistant', content: `Checking turn ${turn}.`, tool_calls: [{ id: `call_${turn}`, name: 'shell', arguments: '{"cmd":"make check"}' }] };
  return { role: 'tool', tool_call_id: `call_${turn}`, content: `$ make check\nturn ${turn} part ${k}: ${'ok '.repeat(8 + (i % 13))}\nexit 0\n` };
}

/** Writes (or reuses) the fixture: `count` messages, a reduction every REDUCE_EVERY_TURNS turns. */
export function writeCallsSidecar(path: string, count: number): { path: string; bytes: number; reused: boolean } {
  const stampPath = `${path}.json`;
  const stamp = JSON.stringify({ generator: 1, count, TURN, REDUCE_EVERY_TURNS });
  if (existsSync(path) && existsSync(stampPath) && readFileSync(stampPath, 'utf8') === stamp) return { path, bytes: statSync(path).size, reused: true };
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.partial`;
  const fd = openSync(tmp, 'w');
  let chunk = '';
  const write = (line: string): void => {
    chunk += line;
    if (chunk.length > 4 * 1024 * 1024) {
      writeSync(fd, chunk);
      chunk = '';
    }
  };
  try {
    write(`${JSON.stringify({ t: 'header', format: 'supercode-sidecar', version: 1, session_id: 's-calls-bench', created_at: '2026-12-01T00:00:00Z', model: 'bench-model', gate: true, policy: null })}\n`);
    let id = 0;
    for (let i = 0; i < count; i++) {
      write(`${JSON.stringify({ t: 'message', i, msg: messageAt(i) })}\n`);
      const turn = Math.floor(i / TURN);
      // After the last message of every REDUCE_EVERY_TURNS-th turn: elide a tool output of the turn before.
      if (i % TURN === TURN - 1 && turn > 0 && turn % REDUCE_EVERY_TURNS === 0) {
        const index = (turn - 1) * TURN + 2;
        const content = (messageAt(index) as { content: string }).content;
        const bytes = Buffer.byteLength(content);
        const rid = `r${++id}`;
        const r = { id: rid, kind: 'tool_output_elided', ptr: { index, hash: `sha256:${createHash('sha256').update(content).digest('hex')}`, bytes }, stub: stubText(rid, 'tool_output_elided', bytes), minted_at: i + 1 };
        write(`${JSON.stringify({ t: 'reduction', r })}\n`);
      }
    }
    writeSync(fd, chunk);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  writeFileSync(stampPath, stamp);
  return { path, bytes: statSync(path).size, reused: false };
}

const VIEW = '[role="list"][aria-label="Projected view"]';

/** Waits until the status bar says `shown` and the view shows a loaded row (a placeholder has no data-index). */
async function waitShown(page: Page, shown: string): Promise<void> {
  await page.waitForFunction(
    ([view, text]) => {
      const doc = (globalThis as unknown as { document: { querySelector(s: string): { textContent: string | null } | null } }).document;
      const status = doc.querySelector('[role="status"][aria-label="Status"]')?.textContent ?? '';
      return status.includes(text as string) && doc.querySelector(`${view as string} [data-index]`) !== null;
    },
    [VIEW, shown],
    { timeout: STEP_TIMEOUT_MS, polling: 'raf' },
  );
}

export async function runCallsBench(options: { messages?: number; log?: (line: string) => void } = {}): Promise<BenchRow[]> {
  const count = options.messages ?? CALLS_BENCH_MESSAGES;
  const log = options.log ?? ((line: string) => process.stderr.write(`[calls] ${line}\n`));
  const group = 'calls';
  const file = writeCallsSidecar(join(REPO_ROOT, 'bench', 'out', 'calls', `calls-${count}.sidecar.jsonl`), count);
  log(`${file.reused ? 'reused' : 'wrote'} ${file.path} (${(file.bytes / 1e6).toFixed(0)} MB)`);

  // The reply's size and the worker's time for it, straight from the worker's service.
  const service = new SessionService();
  const opened = await service.open({ paths: [file.path], generation: 1 });
  if (!opened.ok) throw new Error(opened.error.message);
  const t0 = performance.now();
  const reply = service.handle('calls', {});
  const sweepMs = performance.now() - t0;
  if (!reply.ok) throw new Error(reply.error.message);
  const calls = reply.value.calls;
  const replyBytes = Buffer.byteLength(JSON.stringify(reply));
  service.close();
  log(`${calls} calls; calls reply ${(replyBytes / 1e6).toFixed(2)} MB, computed in ${sweepMs.toFixed(0)} ms`);

  const host = await startServe([file.path], LOAD_TIMEOUT_MS);
  let browser: Browser | undefined;
  const rows: BenchRow[] = [];
  try {
    browser = await chromium.launch({ ...chromiumLaunchOptions(), args: ['--no-sandbox', '--disable-gpu'] });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    const loadStart = performance.now();
    await page.goto(host.url);
    const firstRows = page.locator(`${VIEW} [data-index]`).first().waitFor({ timeout: LOAD_TIMEOUT_MS }).then(() => performance.now() - loadStart);
    const mapShown = page.getByRole('img', { name: 'Context map', exact: true }).waitFor({ timeout: LOAD_TIMEOUT_MS }).then(() => performance.now() - loadStart);
    // The progress bar is hidden before the page has started loading too: only once rows are shown
    // (the preview comes while the bar is up) does its absence mean the session is loaded.
    const loaded = firstRows
      .then(() => page.getByRole('progressbar', { name: 'Loading session', exact: true }).waitFor({ state: 'hidden', timeout: LOAD_TIMEOUT_MS }))
      .then(() => performance.now() - loadStart);
    const [firstRowsMs, loadedMs, mapMs] = await Promise.all([firstRows, loaded, mapShown]);
    log(`page load → first rows ${firstRowsMs.toFixed(0)} ms, → loaded ${loadedMs.toFixed(0)} ms, → context map ${mapMs.toFixed(0)} ms`);

    const slider = page.getByRole('slider', { name: 'Model call', exact: true });
    const latest = page.getByRole('button', { name: 'Latest', exact: true });
    const chooseMs: number[] = [];
    const latestMs: number[] = [];
    for (let k = 0; k < CHOICES; k++) {
      // Calls spread over the session, each new (its layout is made on this choice).
      const call = Math.max(1, Math.round(((k + 0.5) / CHOICES) * calls));
      let t = performance.now();
      await slider.fill(String(call));
      await waitShown(page, `call ${call.toLocaleString('en-US')} of`);
      chooseMs.push(performance.now() - t);
      t = performance.now();
      await latest.click();
      await waitShown(page, 'latest view');
      latestMs.push(performance.now() - t);
      log(`call ${call}: ${chooseMs.at(-1)?.toFixed(0)} ms; Latest: ${latestMs.at(-1)?.toFixed(0)} ms`);
    }
    const choose = median(chooseMs);
    const base = median(latestMs);
    rows.push(
      { group, metric: `calls in a ${count.toLocaleString('en-US')}-message session`, value: calls, unit: 'calls' },
      { group, metric: '`calls` reply (JSON)', value: replyBytes / 1e6, unit: 'MB', note: `columnar arrays; computed by the worker in ${sweepMs.toFixed(0)} ms (one sweep)` },
      {
        group,
        metric: `choose a call → its rows shown (median of ${CHOICES})`,
        value: choose,
        unit: 'ms',
        baseline: { name: 'Latest → latest rows shown', value: base },
        ratio: base / choose,
        target: `≥ ${(1 / CHOOSE_TARGET).toFixed(2)}× (≤ ${CHOOSE_TARGET}× its time)`,
        pass: choose <= CHOOSE_TARGET * base,
        note: `each call chosen for the first time: the worker lays its input out once (max ${Math.max(...chooseMs).toFixed(0)} ms)`,
      },
      {
        group,
        metric: 'page load → Context map shown',
        value: mapMs,
        unit: 'ms',
        baseline: { name: 'page load → session loaded', value: loadedMs },
        ratio: loadedMs / mapMs,
        target: `≥ ${(1 / MAP_TARGET).toFixed(2)}× (≤ ${MAP_TARGET}× its time)`,
        pass: mapMs <= MAP_TARGET * loadedMs,
        note: `first rows (a preview while the file is indexed) after ${firstRowsMs.toFixed(0)} ms`,
      },
      { group, metric: 'page errors', value: pageErrors.length, unit: '', target: '= 0', pass: pageErrors.length === 0 },
    );
  } finally {
    await browser?.close();
    await host.stop();
  }
  return rows;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await runCallsBench();
  console.log(formatTable(rows));
  if (rows.some((r) => r.pass === false)) process.exitCode = 1;
}
