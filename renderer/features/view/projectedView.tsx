/**
 * The projected view: what the model saw, one row per message (one per cleared range),
 * virtualized with measured row heights for any number of rows (virtualScroller.ts: a million rows
 * scroll end to end, by wheel, keys or scrollbar). Rows come from the host in pages as the viewport
 * needs them; nothing else of the session is held.
 */
import { useEffect, useLayoutEffect, useReducer, useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import { useApp } from '../../store/storeContext';
import { InstructionsBlock } from './instructionsBlock';
import { ProjectedRow } from './projectedRow';
import { VirtualScroller } from './virtualScroller';
import { DropZone, FolderSessions } from '../frame/openFiles';
import './projectedView.css';

/** Height assumed for a row not measured yet: a message with a line or two of text. */
const ROW_ESTIMATE_PX = 72;
/** Rows rendered above and below the viewport. */
const OVERSCAN = 4;
/** Rows rendered at most, however short they are (the DOM stays small). */
const MAX_RENDERED_ROWS = 120;

function ProjectedList({ rowCount }: { rowCount: number }) {
  const scrollerRef = useRef<HTMLDivElement>(null);
  const sizerRef = useRef<HTMLDivElement>(null);
  const windowRef = useRef<HTMLDivElement>(null);
  const rowsRef = useRef<HTMLDivElement>(null);
  const wantRows = useApp((s) => s.wantRows);
  const scrollRequest = useApp((s) => s.scrollRequest);
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const [list] = useState(
    () =>
      new VirtualScroller({
        count: rowCount,
        estimate: ROW_ESTIMATE_PX,
        overscan: OVERSCAN,
        maxRendered: MAX_RENDERED_ROWS,
        // In a scroll the new rows are rendered before the next paint, as the old ones move.
        onRangeChange: (sync) => (sync ? flushSync(rerender) : rerender()),
      }),
  );

  useLayoutEffect(() => {
    const scroller = scrollerRef.current;
    const sizer = sizerRef.current;
    const rowWindow = windowRef.current;
    const rows = rowsRef.current;
    if (!scroller || !sizer || !rowWindow || !rows) return undefined;
    return list.attach({ scroller, sizer, window: rowWindow, rows });
  }, [list]);

  // A followed session grows under the list. At the bottom the list follows, like a
  // terminal; anywhere else it stays where the user is.
  const shownCount = useRef(rowCount);
  useLayoutEffect(() => {
    const was = shownCount.current;
    const followed = was > 0 && list.range.visibleEnd >= was;
    shownCount.current = rowCount;
    list.setCount(rowCount);
    if (followed && rowCount > was) list.scrollToRow(rowCount - 1, 'end');
  }, [list, rowCount]);

  const { start, end, visibleStart, visibleEnd } = list.range;
  const setAtBottom = useApp((s) => s.setAtBottom);
  useEffect(() => setAtBottom(rowCount > 0 && visibleEnd >= rowCount), [visibleEnd, rowCount, setAtBottom]);
  // After every render: the rendered rows are placed where the list stands.
  useLayoutEffect(() => list.didRender(start));

  useEffect(() => {
    if (rowCount > 0) wantRows(visibleStart, Math.max(visibleStart + 1, visibleEnd));
  }, [visibleStart, visibleEnd, rowCount, wantRows]);

  useEffect(() => {
    if (scrollRequest && scrollRequest.row < rowCount) list.scrollToRow(scrollRequest.row, scrollRequest.align);
  }, [scrollRequest, rowCount, list]);

  const rows = [];
  for (let row = start; row < end; row++) rows.push(<ProjectedRow key={row} row={row} measureRef={list.observeRow} />);

  return (
    <div ref={scrollerRef} className="projected-view" role="list" aria-label="Projected view" tabIndex={0}>
      <div ref={sizerRef} className="projected-view-sizer" role="none">
        <div ref={windowRef} className="projected-view-window" role="none">
          <div ref={rowsRef} className="projected-view-rows" role="none">
            {rows}
          </div>
        </div>
      </div>
    </div>
  );
}

/** `Jump to latest (N new)` while messages arrived below the rows shown, and a reopen/deleted notice. */
function LiveControls() {
  const liveNew = useApp((s) => s.liveNew);
  const atBottom = useApp((s) => s.atBottom);
  const notice = useApp((s) => s.liveNotice);
  const jumpToLatest = useApp((s) => s.jumpToLatest);
  return (
    <>
      {notice !== null ? (
        <p className="projected-view-live-notice" role="status">
          {notice}
        </p>
      ) : null}
      {liveNew > 0 && !atBottom ? (
        <button type="button" className="projected-view-jump" onClick={jumpToLatest}>
          Jump to latest ({liveNew} new)
        </button>
      ) : null}
    </>
  );
}

export function ProjectedView() {
  const session = useApp((s) => s.session);
  const rowCount = useApp((s) => s.rowCount);
  const listEpoch = useApp((s) => s.listEpoch);
  const shownCall = useApp((s) => s.shownCall);
  const host = useApp((s) => s.host);

  if (!session) {
    return (
      <div className="projected-view-empty">
        <h2>No session open</h2>
        <p>
          {host === 'http'
            ? 'Open a session file with Open file… or drop one on this page, or choose one of the files this host offers in the Session file list above.'
            : 'Open a session file with Open…, or drop one on this window: a sidecar (.sidecar.jsonl) or snapshot (.session.json), a Claude Code transcript or Codex rollout (.jsonl), a SWE-agent or mini-swe-agent trajectory (.traj), an Inspect AI log (.eval, .json) or an OpenHands trajectory (.json, or the base_state.json of a V1 conversation).'}
        </p>
        {host === 'http' && <DropZone />}
        {host === 'http' && <FolderSessions />}
      </div>
    );
  }
  if (session.stopped || rowCount === 0) {
    return (
      <div className="projected-view-empty">
        <h2>{session.stopped ? 'Nothing of this session was read' : 'This session has no messages'}</h2>
        <p>{session.stopped ? 'A file is newer than this Session Inspector supports; the Findings tab says which one.' : 'Its view is empty: there is nothing the model saw.'}</p>
      </div>
    );
  }
  // A new session, or another call's input, is a new list: measurements and scroll
  // position start over. A followed session's growth keeps the list (listEpoch).
  return (
    <div className="projected-view-live">
      <InstructionsBlock />
      <ProjectedList key={`${listEpoch}/${shownCall ?? 'latest'}`} rowCount={rowCount} />
      <LiveControls />
    </div>
  );
}
