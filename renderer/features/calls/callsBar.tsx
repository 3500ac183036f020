/**
 * The model calls bar above the Projected view (SPEC §11) — the `Model call`
 * slider (1…C), the `Latest` button, `Export call…` (SPEC §16) and the `Context map`. The slider shows the latest view at C
 * (its value text says "latest view"); moving it shows that call's input.
 */
import { useEffect } from 'react';
import { formatCount } from '../../text/format';
import { useApp } from '../../store/storeContext';
import { ExportCallButton } from '../export/exportCall';
import { ContextMap } from './contextMap';
import './callsBar.css';

/** What the status bar and the slider's value text say of the shown view. */
export function shownCallText(shownCall: number | null, calls: number): string {
  return shownCall === null ? 'latest view' : `call ${formatCount(shownCall)} of ${formatCount(calls)}`;
}

export function CallsBar() {
  const session = useApp((s) => s.session);
  const map = useApp((s) => s.contextMap);
  const status = useApp((s) => s.contextMapStatus);
  const error = useApp((s) => s.contextMapError);
  const shownCall = useApp((s) => s.shownCall);
  const pendingCall = useApp((s) => s.pendingCall);
  const loadContextMap = useApp((s) => s.loadContextMap);
  const showCall = useApp((s) => s.showCall);

  useEffect(() => {
    if (session && !session.provisional && !session.stopped) void loadContextMap();
  }, [session, loadContextMap]);

  if (!session || session.stopped) return null;
  if (status === 'error') return <p className="calls-bar calls-bar-note">Model calls could not be read: {error?.message}</p>;
  if (!map) return null;
  if (map.calls === 0) return <p className="calls-bar calls-bar-note">This session records no model calls.</p>;
  // The slider follows the call asked for, so a held arrow key keeps moving while rows load.
  const call = pendingCall !== undefined ? pendingCall : shownCall;
  return (
    <section className="calls-bar" aria-label="Model calls">
      <div className="calls-bar-controls">
        <label className="calls-bar-label" htmlFor="model-call-slider">
          Model call
        </label>
        <input
          id="model-call-slider"
          type="range"
          min={1}
          max={map.calls}
          step={1}
          value={call ?? map.calls}
          aria-valuetext={shownCallText(call, map.calls)}
          onChange={(e) => void showCall(Number(e.currentTarget.value))}
        />
        <output className="calls-bar-value" htmlFor="model-call-slider">
          {shownCallText(call, map.calls)}
        </output>
        <button type="button" className="calls-bar-latest" disabled={call === null} onClick={() => void showCall(null)}>
          Latest
        </button>
        {/* The latest view is no call: it exports the last one. */}
        <ExportCallButton call={call ?? map.calls} />
      </div>
      <ContextMap map={map} shownCall={call} onSelect={(c) => void showCall(c)} />
    </section>
  );
}
