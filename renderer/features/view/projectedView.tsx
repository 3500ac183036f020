/**
 * The projected view: what the model saw, one row per message (one per cleared range),
 * virtualized with measured row heights. Rows come from the host in pages as the viewport needs
 * them; nothing else of the session is held.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import { useApp } from '../../store/storeContext';
import { ProjectedRow } from './projectedRow';
import './projectedView.css';

/**
 * Browsers cap an element's height (Chromium near 33.5 million px): the row estimate shrinks for
 * huge sessions so that the unmeasured rows still fit.
 */
const MAX_ESTIMATED_TOTAL_PX = 30_000_000;

function ProjectedList({ rowCount }: { rowCount: number }) {
  const scrollerRef = useRef<HTMLDivElement>(null);
  const wantRows = useApp((s) => s.wantRows);
  const scrollRequest = useApp((s) => s.scrollRequest);
  const estimate = Math.max(24, Math.min(96, Math.floor(MAX_ESTIMATED_TOTAL_PX / Math.max(1, rowCount))));

  const virtualizer = useVirtualizer({
    count: rowCount,
    getScrollElement: () => scrollerRef.current,
    estimateSize: () => estimate,
    overscan: 4,
    // `data-index` is the row's first view index (UI contract); the virtualizer reads `data-row`.
    indexAttribute: 'data-row',
  });

  const items = virtualizer.getVirtualItems();
  const visible = virtualizer.range;
  const start = visible?.startIndex ?? items[0]?.index ?? 0;
  const end = (visible?.endIndex ?? items[items.length - 1]?.index ?? -1) + 1;

  useEffect(() => {
    if (rowCount > 0) wantRows(start, Math.max(start + 1, end));
  }, [start, end, rowCount, wantRows]);

  useEffect(() => {
    if (scrollRequest && scrollRequest.row < rowCount) virtualizer.scrollToIndex(scrollRequest.row, { align: scrollRequest.align });
  }, [scrollRequest, rowCount, virtualizer]);

  return (
    <div ref={scrollerRef} className="projected-view" role="list" aria-label="Projected view" tabIndex={0}>
      <div className="projected-view-sizer" role="none" style={{ height: virtualizer.getTotalSize() }}>
        <div className="projected-view-window" role="none" style={{ transform: `translateY(${items[0]?.start ?? 0}px)` }}>
          {items.map((item) => (
            <ProjectedRow key={item.key} row={item.index} measureRef={virtualizer.measureElement} />
          ))}
        </div>
      </div>
    </div>
  );
}

export function ProjectedView() {
  const session = useApp((s) => s.session);
  const rowCount = useApp((s) => s.rowCount);
  const epoch = useApp((s) => s.epoch);
  const host = useApp((s) => s.host);

  if (!session) {
    return (
      <div className="projected-view-empty">
        <h2>No session open</h2>
        <p>
          {host === 'http'
            ? 'Choose one of the files this host offers in the Session file list above, or start the host with a file: npx session-inspector serve FILE.'
            : 'Open a sidecar (.sidecar.jsonl) or session snapshot (.session.json) with Open…, or drop one on this window.'}
        </p>
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
  // A new session is a new list: measurements and scroll position start over.
  return <ProjectedList key={epoch} rowCount={rowCount} />;
}
