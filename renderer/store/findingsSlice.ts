/** Integrity findings: `check` runs once after a session opens (SPEC §5.6). */
import type { CheckReport, HostError } from '../../shared/contract';
import type { SliceCreator } from './appState';
import { freshPolicy } from './policySlice';
import { freshTrace } from './traceSlice';

export interface FindingsSlice {
  checkStatus: 'idle' | 'running' | 'done' | 'error';
  checkReport: CheckReport | null;
  checkError: HostError | null;
  runCheck: () => Promise<void>;
}

/** How many findings the check found: a reply lists at most MAX_REPLY_FINDINGS and counts the rest. */
export function findingsTotal(report: CheckReport | null): number | null {
  return report ? report.findings.length + (report.findings_omitted ?? 0) : null;
}

export function freshFindings(): Pick<FindingsSlice, 'checkStatus' | 'checkReport' | 'checkError'> & ReturnType<typeof freshPolicy> & ReturnType<typeof freshTrace> {
  // A replay and a what-if belong to the session, like its check.
  return { checkStatus: 'idle', checkReport: null, checkError: null, ...freshPolicy(), ...freshTrace() };
}


export const createFindingsSlice: SliceCreator<FindingsSlice> = (deps) => (set, get) => ({
  checkStatus: 'idle',
  checkReport: null,
  checkError: null,

  async runCheck() {
    const epoch = get().epoch;
    if (!get().session || get().checkStatus === 'running') return;
    set({ checkStatus: 'running', checkError: null });
    const reply = await deps.api.check({});
    if (get().epoch !== epoch) return;
    if (reply.ok) set({ checkStatus: 'done', checkReport: reply.value });
    else set({ checkStatus: 'error', checkError: reply.error });
  },
});
