/**
 * The model calls bar above the Projected view (SPEC §11) — the `Model call`
 * slider (1…C), the `Go to call` number box, the `Latest` button, `Export call…` (SPEC §16), and the `Context map`. The slider
 * shows the latest view at C (its value text says "latest view"); moving it shows that call's input.
 * So that 600 calls are reachable without pixel hunting (SPEC §16), the slider steps by 1 with the
 * arrows, by 10 with PageUp / PageDown, to the first and last call with Home / End, and marks the
 * calls that first saw a compaction (tick marks, and a line saying which).
 */
import type { KeyboardEvent } from 'react';
import { useEffect, useRef, useState } from 'react';
import { formatCount } from '../../text/format';
import { useApp } from '../../store/storeContext';
import { ExportCallButton } from '../export/exportCall';
import { ContextMap } from './contextMap';
import { TracePanel } from '../trace/tracePanel';
import './callsBar.css';

/** What the status bar and the slider's value text say of the shown view. */
export function shownCallText(shownCall: number | null, calls: number): string {
  return shownCall === null ? 'latest view' : `call ${formatCount(shownCall)} of ${formatCount(calls)}`;
}

/** PageUp / PageDown move the slider this many calls. */
export const CALL_PAGE_STEP = 10;

/** The call a key moves the slider to from `call` (1…calls), or undefined for a key the slider leaves to the browser. */
export function callForKey(key: string, call: number, calls: number): number | undefined {
  const clamp = (n: number): number => Math.max(1, Math.min(calls, n));
  switch (key) {
    case 'PageUp':
      return clamp(call + CALL_PAGE_STEP);
    case 'PageDown':
      return clamp(call - CALL_PAGE_STEP);
    case 'Home':
      return 1;
    case 'End':
      return calls;
    default:
      return undefined;
  }
}

/** `Go to call`: a number box and its button; a call out of 1…calls is said, not shown. */
function GoToCall({ calls, onGo }: { calls: number; onGo: (call: number) => void }) {
  const [text, setText] = useState('');
  const [invalid, setInvalid] = useState(false);
  // Not a <form>: the hostile-content specs hold that no form element is on the session's page.
  const go = (): void => {
    const n = Number(text);
    if (text.trim() === '' || !Number.isInteger(n) || n < 1 || n > calls) {
      setInvalid(true);
      return;
    }
    setInvalid(false);
    onGo(n);
  };
  return (
    <span className="calls-bar-goto">
      <label>
        Go to call
        <input
          type="number"
          min={1}
          max={calls}
          step={1}
          value={text}
          aria-invalid={invalid || undefined}
          onChange={(e) => setText(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') go();
          }}
        />
      </label>
      <button type="button" onClick={go}>
        Go
      </button>
      {invalid && (
        <span className="calls-bar-invalid" role="alert">
          {`A call from 1 to ${formatCount(calls)}`}
        </span>
      )}
    </span>
  );
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
  const runTrace = useApp((s) => s.runTrace);
  // The text selected when the button was pressed (a click may move the selection).
  const selected = useRef('');
  // Pressed with no text selected: it says what it follows instead of doing nothing.
  const [askSelection, setAskSelection] = useState(false);

  useEffect(() => {
    if (session && !session.provisional && !session.stopped) void loadContextMap();
  }, [session, loadContextMap]);

  if (!session || session.stopped) return null;
  if (status === 'error') return <p className="calls-bar calls-bar-note">Model calls could not be read: {error?.message}</p>;
  if (!map) return null;
  if (map.calls === 0) return <p className="calls-bar calls-bar-note">This session records no model calls.</p>;
  // The slider follows the call asked for, so a held arrow key keeps moving while rows load.
  const call = pendingCall !== undefined ? pendingCall : shownCall;
  const compactions = map.compactions ?? [];
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>): void => {
    const to = callForKey(e.key, call ?? map.calls, map.calls);
    if (to === undefined) return;
    e.preventDefault();
    void showCall(to);
  };
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
          {...(compactions.length > 0 ? { list: 'model-call-compactions' } : {})}
          onKeyDown={onKeyDown}
          onChange={(e) => void showCall(Number(e.currentTarget.value))}
        />
        {compactions.length > 0 && (
          <datalist id="model-call-compactions">
            {compactions.map((c) => (
              <option key={c} value={c} label={`compaction at call ${c}`} />
            ))}
          </datalist>
        )}
        <output className="calls-bar-value" htmlFor="model-call-slider">
          {shownCallText(call, map.calls)}
        </output>
        <button type="button" className="calls-bar-latest" disabled={call === null} onClick={() => void showCall(null)}>
          Latest
        </button>
        <GoToCall calls={map.calls} onGo={(c) => void showCall(c)} />
        <button
          type="button"
          className="calls-bar-trace"
          title="Follow the text selected in the transcript through the calls"
          onMouseDown={() => (selected.current = globalThis.getSelection?.()?.toString() ?? '')}
          onClick={() => {
            const text = (selected.current || globalThis.getSelection?.()?.toString() || '').trim();
            selected.current = '';
            setAskSelection(text === '');
            if (text !== '') void runTrace({ query: text, mode: 'substring', case_sensitive: true });
          }}
        >
          Where did it go?
        </button>
        {askSelection && (
          <span className="calls-bar-hint" role="alert">
            Select text in the transcript first
          </span>
        )}
        {/* The latest view is no call: it exports the last one. */}
        <ExportCallButton call={call ?? map.calls} />
      </div>
      {compactions.length > 0 && <p className="calls-bar-marks">{`Compactions first seen at ${compactions.length === 1 ? 'call' : 'calls'} ${compactions.map((c) => formatCount(c)).join(', ')}`}</p>}
      <ContextMap map={map} shownCall={call} onSelect={(c) => void showCall(c)} />
      <TracePanel />
    </section>
  );
}
