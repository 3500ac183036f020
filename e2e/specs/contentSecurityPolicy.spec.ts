import { expect, test } from '../fixtures';
import { liveLog, stubbedReductions } from '../sessionData';
import { SESSION_SIDECAR } from '../paths';

/**
 * The page runs under a strict CSP (`script-src 'self'`, no `unsafe-eval`: SECURITY.md §2). Code
 * that merely probes for eval (zod's JIT checks `new Function('')` once, catching the throw) still
 * makes the browser report a violation on every load: noise that hides a real attack in the reports.
 * Every reply is validated with zod, so one load, one expansion and one search exercise it.
 */
test.describe('the content security policy', () => {
  test('is never violated while the page loads, expands a stub and searches', async ({ inspector, inspectorApp }) => {
    const { page } = inspectorApp;
    // Recorded from the first script on: the listener is in place before the app's own bundle runs.
    await page.addInitScript(() => {
      // e2e has no DOM types: the page's globals, as far as this script uses them.
      type Violation = { effectiveDirective: string; blockedURI: string };
      const page = globalThis as unknown as {
        __cspViolations: string[];
        document: { addEventListener(type: 'securitypolicyviolation', listener: (e: Violation) => void): void };
      };
      const seen: string[] = [];
      page.__cspViolations = seen;
      page.document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.effectiveDirective} ${e.blockedURI}`));
    });
    const consoleReports: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|unsafe-eval/i.test(message.text())) consoleReports.push(message.text());
    });
    await page.reload();
    await inspector.waitLoaded();

    const id = stubbedReductions(liveLog(SESSION_SIDECAR))[0]?.id;
    if (id === undefined) throw new Error('the sample has no stubbed reduction');
    await inspector.expand(id);
    await expect(inspector.expanded(id)).toContainText('verified');
    await inspector.search('error');
    await expect(inspector.resultButtons.first()).toBeVisible();

    const violations = await page.evaluate(() => (globalThis as unknown as { __cspViolations?: string[] }).__cspViolations);
    expect(violations, 'the init script ran in the reloaded page').toBeDefined();
    expect(violations).toEqual([]);
    expect(consoleReports).toEqual([]);
  });
});
