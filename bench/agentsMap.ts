/**
 * The map in tokens of the agents group's session as a user opens it (docs/tokens.md "How the pass
 * runs"): the HTTP host (`serve FILE`) and its page in Chromium, from the page's first `tokenMap`
 * reply to the one that says the pass is complete, with the replies' count and bytes. What it
 * measures is everything between the worker's slices and the drawn map: the host, the replies'
 * JSON, their validation and merge in the page, and each redraw. Reported, no target.
 */
import { chromium } from '@playwright/test';
import type { Browser } from '@playwright/test';
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
    return { firstMs: first - opened, passMs: last - first, replies, bytes };
  } finally {
    await browser?.close();
    await host.stop();
  }
}
