/**
 * axe-core over the app's page, as the accessibility specs run it.
 *
 * axe-core is put into the page once and run there with `axe.run`, as `@axe-core/playwright`'s
 * AxeBuilder does in its legacy mode, with the same rules and the same results (docs/testing.md).
 * AxeBuilder's default mode evaluates the 0.5 MB axe-core source in the page at every audit, then
 * opens a second page in the test's context, evaluates the source there as well and finishes the
 * run in it: on the two-core machine that cost 31–37 s of an audit whose `axe.run` took 7 s. The
 * second page is there for results gathered across frames of other origins; the app has no frames,
 * and a page that has some is still audited by AxeBuilder.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import type { AxeResults } from 'axe-core';
import type { InspectorPage } from './inspectorPage';

export interface Violation {
  rule: string;
  element: string;
  detail: string;
}

/** Every WCAG 2.0/2.1 A and AA rule, and axe's best practices. */
export const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

const require = createRequire(import.meta.url);
let axeSource: string | undefined;

/**
 * axe-core's results on the page, or on the elements `include` selects (a CSS selector), for the
 * rules of AXE_TAGS. The page keeps axe-core until it navigates; the next audit puts it back.
 */
export async function axeResults(page: Page, include?: string): Promise<AxeResults> {
  if (page.frames().length > 1) {
    const builder = new AxeBuilder({ page }).withTags(AXE_TAGS);
    return (include === undefined ? builder : builder.include(include)).analyze();
  }
  if (!(await page.evaluate('typeof window.axe === "object" && typeof window.axe.run === "function"'))) {
    // Evaluated over the DevTools protocol, as AxeBuilder does: the page's script-src does not apply.
    axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
    await page.evaluate(axeSource);
  }
  return page.evaluate(
    ({ selector, tags }) => {
      const axe = (globalThis as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<AxeResults> } }).axe;
      return axe.run(selector === undefined ? { exclude: [], include: [] } : { exclude: [], include: [selector] }, { runOnly: { type: 'tag', values: tags } });
    },
    { selector: include, tags: AXE_TAGS },
  );
}

/** axe-core's violations on the whole page (every WCAG 2.0/2.1 A and AA rule and axe's best practices), one entry per rule and element. */
export async function audit(inspector: InspectorPage): Promise<Violation[]> {
  const result = await axeResults(inspector.page);
  return result.violations.flatMap((v) => v.nodes.map((n) => ({ rule: v.id, element: n.target.join(' '), detail: n.failureSummary ?? v.help })));
}
