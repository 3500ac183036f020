/** Load progress and alerts, between the banner and the session. */
import { useApp } from '../../store/storeContext';
import { loadedText } from '../../text/format';
import './notices.css';

export function LoadProgress() {
  const loading = useApp((s) => s.loading);
  const preview = useApp((s) => s.session?.provisional === true);
  if (!loading) return null;
  const { percent, text } = loadedText(loading.bytesRead, loading.totalBytes);
  return (
    <div className="load-progress">
      <div
        className="load-progress-bar"
        role="progressbar"
        aria-label="Loading session"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={text}
      >
        <div className="load-progress-fill" style={{ width: `${percent}%` }} />
      </div>
      <span className="load-progress-text">
        Loading session: {text}
        {preview ? ' — showing the rows read so far; search and check wait for the rest' : ''}
      </span>
    </div>
  );
}

/** The message as a sentence, so the hint after it reads as the next one. */
function sentence(message: string): string {
  const s = message.trim();
  return /[.!?…)]$/.test(s) ? s : `${s}.`;
}

export function AlertList() {
  const alerts = useApp((s) => s.alerts);
  const dismiss = useApp((s) => s.dismissAlert);
  if (alerts.length === 0) return null;
  return (
    <div className="alerts">
      {alerts.map((a) => (
        <div key={a.id} className="alert">
          {/* The alert's text is exactly the message and what to do; the dismiss button sits beside it. */}
          <p className="alert-text" role="alert">
            <span className="alert-message">{sentence(a.message)}</span>
            {a.hint !== undefined && <span className="alert-hint"> {a.hint}</span>}
          </p>
          <button type="button" className="alert-dismiss" aria-label="Dismiss" onClick={() => dismiss(a.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
