/** The status bar: file name(s) and size, messages, rows, reductions by kind, findings. */
import { REDUCTION_KINDS } from '../../../shared/format/types';
import { useApp } from '../../store/storeContext';
import { baseName, formatBytes, formatCount, kindLabel } from '../../text/format';
import './statusBar.css';
import { nameText } from '../../text/nameText';
import { findingsTotal } from '../../store/findingsSlice';
import { shownCallText } from '../calls/callsBar';

export function StatusBar() {
  const session = useApp((s) => s.session);
  const checkStatus = useApp((s) => s.checkStatus);
  const findings = useApp((s) => findingsTotal(s.checkReport));
  const shownCall = useApp((s) => s.shownCall);
  const contextMap = useApp((s) => s.contextMap);
  const calls = contextMap?.calls ?? 0;
  const rowCount = useApp((s) => s.rowCount);
  const parts: string[] = [];
  if (session) {
    const bytes = session.files.reduce((n, f) => n + f.bytes, 0);
    parts.push(`${session.files.map((f) => baseName(f.path)).join(' + ')} (${formatBytes(bytes)})`);
    parts.push(shownCallText(shownCall, calls));
    const at = shownCall !== null && contextMap ? shownCall - 1 : -1;
    if (at >= 0 && contextMap && at < contextMap.calls) {
      // A past call: what that call was given (its input is the messages before its answer), not the latest view's counts.
      parts.push(`${formatCount(contextMap.index[at] ?? 0)} messages given`);
      parts.push(`${formatCount(rowCount)} rows`);
      parts.push(`${formatBytes(contextMap.given[at] ?? 0)} given, ${formatBytes(contextMap.hidden[at] ?? 0)} hidden`);
    } else {
      parts.push(`${formatCount(session.messages)} messages`);
      parts.push(`${formatCount(session.rows)} rows`);
    }
    const kinds = REDUCTION_KINDS.map((k) => [k, session.reductions_by_kind[k] ?? 0] as const)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${formatCount(n)} ${kindLabel(k)}`);
    parts.push(`${at >= 0 ? 'latest view: ' : ''}${formatCount(session.reductions)} reductions${kinds.length > 0 ? ` (${kinds.join(', ')})` : ''}`);
    parts.push(checkStatus === 'done' && findings !== null ? `${formatCount(findings)} ${findings === 1 ? 'finding' : 'findings'}` : checkStatus === 'running' ? 'checking integrity…' : 'not checked');
    if (session.model) parts.push(`model ${nameText(session.model)}`);
    if (session.gate !== null) parts.push(session.gate ? 'gate on' : 'gate off');
  } else {
    parts.push('No session open');
  }
  return (
    // `status` is not a role <footer> may take (ARIA in HTML): the live region is inside it.
    <footer className="status-bar">
      <div className="status-bar-parts" role="status" aria-label="Status">
      {parts.map((p, k) => (
        <span key={k} className="status-bar-part">
          {k > 0 && (
            <span className="status-bar-sep" aria-hidden="true">
              {' · '}
            </span>
          )}
          {p}
        </span>
      ))}
      </div>
    </footer>
  );
}
