/** Integrity findings of the open session (`check`, SPEC §5.6): severity, code, message, line; each one with an address goes there. */
import type { Finding } from '../../../shared/format/types';
import { useApp } from '../../store/storeContext';
import { countOf, formatCount } from '../../text/format';
import { TerminalText } from '../../widgets/terminalText';
import './findingsPanel.css';
import { nameText } from '../../text/nameText';
import { ReproBundleButton } from '../bundle/reproBundle';

/** More findings than this (a file of garbage lines) are counted, not listed. */
const MAX_LISTED = 2000;

function FindingItem({ finding, n }: { finding: Finding; n: number }) {
  const goToFinding = useApp((s) => s.goToFinding);
  const addressed = finding.reduction_id !== undefined || finding.index !== undefined;
  return (
    <li className={`finding is-${finding.severity}`}>
      <div className="finding-head">
        <span className={`finding-severity is-${finding.severity}`}>{finding.severity}</span>
        <code className="finding-code">{finding.code}</code>
        {finding.line !== undefined && <span className="finding-where">line {finding.line}</span>}
        {finding.reduction_id !== undefined && <span className="finding-where">{nameText(finding.reduction_id)}</span>}
        {finding.index !== undefined && <span className="finding-where">message {finding.index}</span>}
        {addressed && (
          <button type="button" className="finding-go" aria-label={`Go to finding ${n}`} onClick={() => void goToFinding(finding)}>
            Go to
          </button>
        )}
      </div>
      <p className="finding-message">
        <TerminalText text={finding.message} ansi={false} />
      </p>
      <ReproBundleButton codes={[finding.code]} />
    </li>
  );
}

/** `Replay policy` re-runs the header's policy over the recorded messages (what `check --replay` does). */
function ReplayControl() {
  const status = useApp((s) => s.replayStatus);
  const result = useApp((s) => s.replayResult);
  const error = useApp((s) => s.replayError);
  const runReplay = useApp((s) => s.runReplay);
  let note: string | null = null;
  if (status === 'running') note = 'Replaying the policy…';
  else if (status === 'error') note = `The replay could not run: ${error?.message ?? 'unknown error'}`;
  else if (status === 'done' && result) {
    if (!result.replayed) note = result.note ?? 'Replay is not possible for this session.';
    else if (result.divergences === 0) note = `Policy replayed over ${countOf(result.passes, 'pass', 'passes')}: the recorded log is exactly what it mints.`;
    else note = `Policy replayed over ${countOf(result.passes, 'pass', 'passes')}: ${countOf(result.divergences, 'divergence')} (policy_divergence, listed below).`;
  }
  return (
    <div className="findings-replay">
      <button type="button" onClick={() => void runReplay()} disabled={status === 'running'}>
        Replay policy
      </button>
      {note !== null && (
        <p className={`panel-note${status === 'error' ? ' is-error' : ''}`} role="status" aria-label="Replay result">
          <TerminalText text={note} ansi={false} />
        </p>
      )}
    </div>
  );
}

export function FindingsPanel() {
  const status = useApp((s) => s.checkStatus);
  const report = useApp((s) => s.checkReport);
  const error = useApp((s) => s.checkError);
  const hasSession = useApp((s) => s.session !== null);
  const runCheck = useApp((s) => s.runCheck);
  // A replay's divergences list after the check's, like any finding.
  const replayed = useApp((s) => (s.replayStatus === 'done' ? s.replayResult : null));
  const findings = [...(report?.findings ?? []), ...(replayed?.findings ?? [])];
  // The summary counts every finding; a reply lists at most MAX_REPLY_FINDINGS of them.
  const errors = report?.summary.errors ?? 0;
  const warnings = (report?.summary.warnings ?? 0) + (replayed?.divergences ?? 0);
  const unlisted = Math.max(0, findings.length - MAX_LISTED) + (report?.findings_omitted ?? 0);

  let summary: string;
  if (!hasSession) summary = 'No session open.';
  else if (status === 'running') summary = 'Checking the session’s integrity…';
  else if (status === 'idle') summary = 'This session is large: its integrity check holds the resolver for a while, so it runs when you ask.';
  else if (status === 'error') summary = `The check could not run: ${error?.message ?? 'unknown error'}`;
  else if (errors + warnings === 0) summary = 'No findings: every reduction verified and every line read.';
  else summary = `${countOf(errors, 'error')}, ${countOf(warnings, 'warning')}`;

  return (
    <section className="findings-panel" role="region" aria-label="Findings" aria-busy={status === 'running' || undefined}>
      <p className={`panel-note${status === 'error' ? ' is-error' : ''}`} aria-live="polite">
        {status === 'running' && <span className="spinner" aria-hidden="true" />}
        {summary}
      </p>
      {hasSession && status === 'idle' && (
        <p className="panel-note">
          <button type="button" onClick={() => void runCheck()}>
            Run the integrity check
          </button>
        </p>
      )}
      {hasSession && <ReplayControl />}
      {status === 'done' && (
        <ol className="findings-list" role="list" aria-label="Findings list">
          {findings.slice(0, MAX_LISTED).map((f, k) => (
            <FindingItem key={k} finding={f} n={k + 1} />
          ))}
        </ol>
      )}
      {status === 'done' && unlisted > 0 && <p className="panel-note">{`…and ${formatCount(unlisted)} more (run check on the command line for all of them).`}</p>}
    </section>
  );
}
