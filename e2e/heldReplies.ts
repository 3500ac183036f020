/**
 * The HTTP host's replies to one method, held until the test lets them go: a reply then lands at
 * the moment the test chooses (under a selection, after a keystroke), where the suite's timing
 * would land it only sometimes.
 */
import type { Page, Route } from '@playwright/test';
import type { Method } from '../shared/contract';
import { apiPath } from '../shared/contract';

export interface HeldReplies {
  /** How many requests of the method the page has sent since the hold began. */
  asked(): number;
  /** Lets every held reply, and every later one, go. */
  release(): void;
  /** Releases, and stops holding. */
  stop(): Promise<void>;
}

/** Holds `page`'s requests of `method` until `release()`. */
export async function holdReplies(page: Page, method: Method): Promise<HeldReplies> {
  let release = (): void => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  let asked = 0;
  const url = `**${apiPath(method)}`;
  const hold = async (route: Route): Promise<void> => {
    asked++;
    await released;
    await route.continue();
  };
  await page.route(url, hold);
  return {
    asked: () => asked,
    release: () => release(),
    stop: async () => {
      release();
      await page.unroute(url, hold);
    },
  };
}
