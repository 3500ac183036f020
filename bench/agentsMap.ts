/**
 * The map in tokens of the agents group's session as a user opens it (docs/tokens.md "How the pass
 * runs"): the HTTP host (`serve FILE`) and its page in Chromium, from the page's first `tokenMap`
 * reply to the one that says the pass is complete, with the replies' count and bytes. What it
 * measures is everything between the worker's slices and the drawn map: the host, the replies'
 * JSON, their validation and merge in the page, and each redraw. Then, the map complete, two
 * searches with no match typed in the page (docs/search.md), from `Enter` to the count shown.
 * Reported, no target.
 */
import { chromium } from '@playwright/test';
import type { Browser, Page } from '@playwright/test';
import { API_ROOT } from '../shared/index';
import { LOAD_TIMEOUT_MS, chromiumLaunchOptions, startServe } from './rendererSupport';

export interface MapInTokens {
  /** From the page's first request to its first `tokenMap` reply (the open, the `calls` reply, the map drawn in bytes' place). */
  firstMs: number;
  /** From the first `tokenMap` reply to the complete one. */
  passMs: number;
  replies: number;
  /** The replies' bodies, in bytes. */
  bytes: number;
  /** Once the map is complete, from `Enter` in the search box to its count shown: the first search, then a second (no match either). */
  searchesMs: number[];
}

/** Texts found nowhere in the session: a search's whole pass, and nothing kept from one for the other. */
const NO_MATCH = ['zq-no-such-text-1', 'zq-no-such-text-2'];

/** The page's document, as far as `searchShown` reads it (the bench is compiled without the DOM's types). */
type PageDocument = { querySelector(selector: string): { textContent: string | null } | null };

/** In the page: the search's count and every match's count are shown (neither still searching nor counting). */
function searchShown(): boolean {
  const doc = (globalThis as unknown as { document: PageDocument }).document;
  const position = doc.querySelector('output[aria-label="Match position"]')?.textContent ?? '';
  const summary = doc.querySelector('.search-summary')?.textContent ?? '';
  return position !== '' && !position.startsWith('Counting') && summary !== '' && !summary.startsWith('Searching');
}

/** Runs `query` in the page's search box; the time from `Enter` until its count and every match's are shown. */
async function searched(page: Page, query: string): Promise<number> {
  const input = page.getByRole('searchbox', { name: 'Search hidden content' });
  await input.fill(query);
  const started = performance.now();
  await input.press('Enter');
  await page.waitForFunction(searchShown, undefined, { timeout: LOAD_TIMEOUT_MS, polling: 10 });
  return performance.now() - started;
}

const TOKEN_MAP_PATH = `${API_ROOT}/tokenMap`;

export async function mapInTokens(file: string): Promise<MapInTokens> {
  const host = await startServe([file], LOAD_TIMEOUT_MS);
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({ ...chromiumLaunchOptions(), args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    let replies = 0;
    let bytes = 0;
    let first = 0;
    let last = 0;
    const complete = new Promise<void>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`the map in tokens was not complete within ${LOAD_TIMEOUT_MS} ms (${replies} replies)`)), LOAD_TIMEOUT_MS);
      page.on('pageerror', (e) => fail(e));
      page.on('response', (response) => {
        if (new URL(response.url()).pathname !== TOKEN_MAP_PATH) return;
        void response.text().then((body) => {
          const now = performance.now();
          replies++;
          bytes += Buffer.byteLength(body);
          if (first === 0) first = now;
          last = now;
          const reply = JSON.parse(body) as { ok: boolean; value?: { progress: unknown } };
          if (!reply.ok) fail(new Error(`tokenMap failed: ${body.slice(0, 300)}`));
          else if (reply.value?.progress === null) {
            clearTimeout(timer);
            done();
          }
        }, fail);
      });
    });
    const opened = performance.now();
    await page.goto(host.url);
    await complete;
    const searchesMs: number[] = [];
    for (const query of NO_MATCH) searchesMs.push(await searched(page, query));
    return { firstMs: first - opened, passMs: last - first, replies, bytes, searchesMs };
  } finally {
    await browser?.close();
    await host.stop();
  }
}
