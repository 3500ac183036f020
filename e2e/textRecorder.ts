/**
 * What a live region said, however briefly: an init script (the fixtures' `pageInitScript`) that
 * records every text the first element matching a selector shows, from the page's first paint, and
 * the read of that record. A poll can miss a text that lasts less than one poll (a slice's progress
 * note, a fast listing's count).
 */
import type { Page } from '@playwright/test';

/** The init script recording each new text of the first `selector` in `window[name]`. */
export function textRecorder(selector: string, name: string): string {
  return `
  window[${JSON.stringify(name)}] = [];
  new MutationObserver(() => {
    const text = document.querySelector(${JSON.stringify(selector)})?.textContent;
    const said = window[${JSON.stringify(name)}];
    if (text != null && said[said.length - 1] !== text) said.push(text);
  }).observe(document, { subtree: true, childList: true, characterData: true });
`;
}

/** Every text `textRecorder(…, name)` recorded in the page, in order. */
export function recordedTexts(page: Page, name: string): Promise<string[]> {
  return page.evaluate((key) => (globalThis as unknown as Record<string, string[]>)[key] ?? [], name);
}
