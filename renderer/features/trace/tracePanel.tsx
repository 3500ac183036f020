/**
 * `Where did it go?` (SPEC §16): the strip of model calls along the `Model call` slider — the
 * calls whose input showed the text, the call at which a reduction hid it, the calls where it came
 * back — with a text alternative naming the same, and a button that opens the reduction that
 * hides it now in the expand view (the reduction and byte range of the trace's `bytes_at`).
 */
import { useApp } from '../../store/storeContext';
import type { TraceOccurrence } from '../../store/traceSlice';
import { focusedOccurrence } from '../../store/traceSlice';
import { nameText } from '../../text/nameText';
import './tracePanel.css';

const rangeText = ([from, to]: readonly [number, number]): string => (from === to ? `call ${from}` : `calls ${from}–${to}`);

/** The strip's text alternative: where the text was visible, what hid it, whether it came back. */
export function traceSummary(o: TraceOccurrence, calls: number): string {
  const parts: string[] = [];
  parts.push(o.visible_calls.length > 0 ? `Visible at ${o.visible_calls.map(rangeText).join(', ')}` : 'Never visible to a model call');
  for (const h of o.hidings) parts.push(`hidden by ${h.kind} ${nameText(h.reduction)} ${h.call > calls ? 'after the last call' : `at call ${h.call}`}`);
  if (o.hidings.length > 0 && o.visible_now) parts.push('visible again in the latest view');
  else if (!o.visible_now) parts.push('hidden in the latest view');
  return `${parts.join('; ')}.`;
}

function cellState(o: TraceOccurrence, call: number): 'absent' | 'visible' | 'hidden' {
  if (call < o.first_call) return 'absent';
  return o.visible_calls.some(([from, to]) => from <= call && call <= to) ? 'visible' : 'hidden';
}

export function TracePanel() {
  const status = useApp((s) => s.traceStatus);
  const ask = useApp((s) => s.traceAsk);
  const result = useApp((s) => s.traceResult);
  const error = useApp((s) => s.traceError);
  const closeTrace = useApp((s) => s.closeTrace);
  const showCall = useApp((s) => s.showCall);
  const goToMatch = useApp((s) => s.goToMatch);
  if (status === 'idle' || !ask) return null;
  const occurrence = result ? focusedOccurrence(result, ask) : undefined;
  const hidingCalls = new Set(occurrence?.hidings.map((h) => h.call));
  const bytes = occurrence?.bytes_at;
  return (
    <section className="trace-panel" aria-label="Where did it go?">
      <div className="trace-panel-head">
        <span className="trace-panel-query">
          Where did <q>{ask.query}</q> go?
        </span>
        <button type="button" onClick={closeTrace}>
          Close
        </button>
      </div>
      {status === 'running' && <p role="status">Following the text through the calls…</p>}
      {status === 'error' && <p role="alert">The text could not be followed: {error?.message}</p>}
      {status === 'done' && result && !occurrence && <p role="status">The text is in no message of this session.</p>}
      {status === 'done' && result && occurrence && (
        <>
          <div className="trace-strip" role="img" aria-label={traceSummary(occurrence, result.calls)}>
            {Array.from({ length: result.calls }, (_, k) => k + 1).map((call) => (
              <span key={call} className={`trace-cell trace-${cellState(occurrence, call)}${hidingCalls.has(call) ? ' trace-hid' : ''}`} title={`call ${call}: ${cellState(occurrence, call)}`} />
            ))}
          </div>
          <p className="trace-summary">
            Message {occurrence.message_index}, byte {occurrence.offset}: {traceSummary(occurrence, result.calls)}
            {result.occurrences.length > 1 && ` (${result.occurrences.length}${result.truncated ? '+' : ''} occurrences; this one shown.)`}
          </p>
          {occurrence.hidden_by && (
            <button type="button" onClick={() => void showCall(occurrence.hidden_by?.call !== undefined && occurrence.hidden_by.call <= result.calls ? occurrence.hidden_by.call : null)}>
              Show the call that hid it
            </button>
          )}
          {bytes && (
            <button
              type="button"
              onClick={() => {
                void (async () => {
                  await showCall(null);
                  const ranged = bytes.kind === 'turns_cleared' || bytes.kind === 'summarized';
                  await goToMatch({
                    reduction_id: bytes.reduction,
                    kind: bytes.kind,
                    index: occurrence.message_index,
                    offset: occurrence.offset,
                    length: occurrence.length,
                    snippet: occurrence.snippet,
                    snippet_match: occurrence.snippet_match,
                    ...(ranged && bytes.range ? { transcript_offset: bytes.range[0] } : {}),
                  });
                })();
              }}
            >
              Open the reduction that hid it
            </button>
          )}
          {bytes && <p className="trace-bytes">Its bytes are in {nameText(bytes.reduction)} ({bytes.original.verified ? 'verified' : `not verified: ${bytes.original.error}`}).</p>}
        </>
      )}
    </section>
  );
}
