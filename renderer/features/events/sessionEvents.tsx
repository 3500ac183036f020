/**
 * The session's events shown where they happened, between the rows of the
 * `Projected view` — model switches (with the messages whose reasoning artifacts they stripped,
 * §5.5), rewinds (with the branch they abandoned, read back from the file on demand), reductions
 * minted (at `minted_at`). An event at view position p happened before message p was pushed, so it
 * is drawn at the top of the row that shows p (inside a range's row when p falls in the range);
 * events at the end of the view close the last row. They are not list items of their own: each is
 * a `separator` named for what happened inside the row, so the list keeps one item per row
 * (`data-row`/`data-index`) and the virtual scroller measures an event with its row.
 */
import { useEffect, useMemo } from 'react';
import type { SessionEvent } from '../../../shared/contract';
import { useApp } from '../../store/storeContext';
import { EVENT_PAGE_SIZE } from '../../store/storySlice';
import type { EventPage } from '../../store/storySlice';
import { countOf, formatCount, kindLabel } from '../../text/format';
import { utf8Length } from '../../../shared/format/utf8';
import { nameText } from '../../text/nameText';
import { TerminalText } from '../../widgets/terminalText';
import './sessionEvents.css';

/** The accessible name (and visible title) of an event. */
export function eventLabel(e: SessionEvent): string {
  switch (e.kind) {
    case 'model_change':
      return `Model switch from ${nameText(e.from)} to ${nameText(e.to)}`;
    case 'rewind':
      return `Rewind to message ${e.index} (${countOf(e.abandoned, 'message')} abandoned)`;
    case 'minted': {
      const first = e.reductions[0];
      if (e.count === 1 && first) return `Reduction ${nameText(first.id)} minted (${kindLabel(first.kind)})`;
      return `${countOf(e.count, 'reduction')} minted`;
    }
  }
}

/** The events at view positions `[start, end)` among the pages here. */
function eventsIn(pages: ReadonlyMap<number, EventPage>, start: number, end: number): SessionEvent[] {
  const found: SessionEvent[] = [];
  for (let p = Math.floor(start / EVENT_PAGE_SIZE); p <= Math.floor((end - 1) / EVENT_PAGE_SIZE); p++) {
    for (const e of pages.get(p)?.events ?? []) if (e.index >= start && e.index < end) found.push(e);
  }
  return found;
}

function Abandoned({ rewind, count }: { rewind: number; count: number }) {
  const state = useApp((s) => s.abandoned.get(rewind));
  const load = useApp((s) => s.loadAbandoned);
  const result = state?.result;
  return (
    <details
      className="event-abandoned"
      onToggle={(e) => {
        if ((e.currentTarget).open) void load(rewind);
      }}
    >
      <summary>{`Show the ${count === 1 ? 'abandoned message' : `${formatCount(count)} abandoned messages`}`}</summary>
      {state?.status === 'loading' && <p className="event-note">Reading them from the file…</p>}
      {state?.status === 'error' && <p className="event-note is-error">{`They could not be read: ${state.error?.message ?? 'unknown error'}`}</p>}
      {result && (
        // A table, not a list: the view's list items are its rows (UI-CONTRACT), and these are no rows of it.
        <table className="event-abandoned-list" aria-label={`Messages abandoned by the rewind to message ${result.to}`}>
          <thead>
            <tr>
              <th scope="col">Message</th>
              <th scope="col">Role</th>
              <th scope="col">Content</th>
            </tr>
          </thead>
          <tbody>
            {result.messages.map((m) => (
              <tr key={m.index}>
                <td>{m.index}</td>
                <td>{m.missing ? 'could not be read' : `${m.role ?? ''}${m.tool_call_id !== undefined ? ` ${nameText(m.tool_call_id)}` : ''}`}</td>
                <td>
                  {/* Focusable: a scrolled box must be reachable by keyboard. */}
                  <div className="event-abandoned-text" tabIndex={0}>
                    <TerminalText text={m.text} />
                    {m.text_bytes > utf8Length(m.text) && <span className="event-note">{` …(${countOf(m.text_bytes, 'byte')} in all)`}</span>}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {result && result.total > result.messages.length && <p className="event-note">{`…and ${formatCount(result.total - result.messages.length)} more (the sidecar holds them all).`}</p>}
    </details>
  );
}

function EventMark({ e }: { e: SessionEvent }) {
  const label = eventLabel(e);
  return (
    <div className={`session-event is-${e.kind}`}>
      <div role="separator" aria-label={label} className="session-event-rule">
        <span className="session-event-title">{label}</span>
      </div>
      {e.kind === 'model_change' && (
        <p className="event-note">
          {e.stripped_count === null
            ? 'This format does not record which messages’ reasoning artifacts the switch stripped.'
            : `Reasoning artifacts stripped from ${countOf(e.stripped_count, 'message')} (reasoning_artifacts_filtered: ${formatCount(e.reasoning_artifacts_filtered)})${e.stripped.length > 0 ? `: ${e.stripped.join(', ')}${e.stripped_count > e.stripped.length ? ', …' : ''}` : ''}.`}
        </p>
      )}
      {e.kind === 'minted' && e.count > 1 && (
        <p className="event-note">{`${e.reductions.map((r) => `${nameText(r.id)} (${kindLabel(r.kind)})`).join(', ')}${e.count > e.reductions.length ? ', …' : ''}`}</p>
      )}
      {e.kind === 'rewind' && e.abandoned > 0 && <Abandoned rewind={e.rewind} count={e.abandoned} />}
    </div>
  );
}

/**
 * The events of a row: at its top (`place="start"`) those at positions `[index, end)`; at its
 * bottom (`place="end"`, the view's last row only) those at the view's end, after every message.
 */
export function RowEvents({ index, end, place }: { index: number; end: number; place: 'start' | 'end' }) {
  const pages = useApp((s) => s.eventPages);
  const messages = useApp((s) => s.session?.messages ?? 0);
  const wantEvents = useApp((s) => s.wantEvents);
  const last = end >= messages;
  // The row at the top asks for both: the view's end is in the last row's page.
  useEffect(() => {
    if (place === 'start') wantEvents(index, last ? messages : end - 1);
  }, [place, index, end, last, messages, wantEvents]);
  const events = useMemo(() => (place === 'start' ? eventsIn(pages, index, end) : last ? eventsIn(pages, messages, messages + 1) : []), [pages, place, index, end, last, messages]);
  if (events.length === 0) return null;
  return (
    <div className={`row-events is-${place}`}>
      {events.map((e, k) => (
        <EventMark key={k} e={e} />
      ))}
    </div>
  );
}
