/** The status bar: file name(s) and size, messages, rows, reductions by kind, findings. */
import { useApp } from '../../store/storeContext';
import './statusBar.css';
import { findingsTotal } from '../../store/findingsSlice';
import { statusParts } from './statusParts';

export function StatusBar() {
  const session = useApp((s) => s.session);
  const checkStatus = useApp((s) => s.checkStatus);
  const findings = useApp((s) => findingsTotal(s.checkReport));
  const shownCall = useApp((s) => s.shownCall);
  const contextMap = useApp((s) => s.contextMap);
  const tokenMap = useApp((s) => s.tokenMap);
  const rowCount = useApp((s) => s.rowCount);
  const parts = statusParts({ session, shownCall, contextMap, tokenMap, rowCount, checkStatus, findings });
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
