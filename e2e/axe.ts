/** axe-core over the app's page, as the accessibility specs run it. */
import AxeBuilder from '@axe-core/playwright';
import type { InspectorPage } from './inspectorPage';

export interface Violation {
  rule: string;
  element: string;
  detail: string;
}

/** axe-core's violations on the whole page (every WCAG 2.0/2.1 A and AA rule and axe's best practices), one entry per rule and element. */
export async function audit(inspector: InspectorPage): Promise<Violation[]> {
  const result = await new AxeBuilder({ page: inspector.page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  return result.violations.flatMap((v) => v.nodes.map((n) => ({ rule: v.id, element: n.target.join(' '), detail: n.failureSummary ?? v.help })));
}
