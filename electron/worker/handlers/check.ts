/** `check` (docs/worker.md): the load findings plus the integrity check (SPEC §5.6) with the summary — what the `check` command prints. */
import type { CheckReport, FindingCode } from '../../../shared/index';
import { MAX_REPLY_FINDINGS } from '../../../shared/index';
import { ok } from '../replies';
import type { Handler } from './handler';

/**
 * A check report with at most MAX_REPLY_FINDINGS findings (the first ones, in the report's order:
 * by line, then index), the rest counted: a reply must stay small enough to cross a process
 * boundary and be shown, however many lines a file has. The summary's counts stay whole.
 */
export function capFindings(report: CheckReport): CheckReport {
  if (report.findings.length <= MAX_REPLY_FINDINGS) return report;
  const byCode: Partial<Record<FindingCode, number>> = {};
  for (const f of report.findings) byCode[f.code] = (byCode[f.code] ?? 0) + 1;
  return {
    findings: report.findings.slice(0, MAX_REPLY_FINDINGS),
    summary: report.summary,
    findings_omitted: report.findings.length - MAX_REPLY_FINDINGS,
    findings_by_code: byCode,
  };
}

export const check: Handler<'check'> = (_request, state) => state.withSession('check', ({ session }) => ok(capFindings(session.check())));
