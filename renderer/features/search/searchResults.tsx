/** The matches of the latest search, virtualized; each one goes to its reduction, expanded around the match. */
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useMemo, useRef } from 'react';
import type { SearchMatch } from '../../store/searchSlice';
import { useApp } from '../../store/storeContext';
import { kindLabel } from '../../text/format';
import { byteRangeToIndices } from '../../text/utf8Offsets';
import { TerminalText } from '../../widgets/terminalText';
import './searchResults.css';

const NO_MATCHES: SearchMatch[] = [];

/** The accessible name of a result (UI contract). */
export function matchLabel(match: SearchMatch): string {
  return `Match in reduction ${match.reduction_id} at byte ${match.offset} of message ${match.index}`;
}

const MatchButton = memo(function MatchButton({ match }: { match: SearchMatch }) {
  const goToMatch = useApp((s) => s.goToMatch);
  const marks = useMemo(() => [byteRangeToIndices(match.snippet, match.snippet_match)] as const, [match]);
  return (
    <button type="button" className="search-match" aria-label={matchLabel(match)} onClick={() => void goToMatch(match)}>
      <span className="search-match-head">
        <span className="search-match-id">{match.reduction_id}</span>
        <span className={`search-match-kind kind-${match.kind}`}>{kindLabel(match.kind)}</span>
        <span className="search-match-where">
          message {match.index} · byte {match.offset}
        </span>
      </span>
      <span className="search-match-snippet">
        <TerminalText text={match.snippet} marks={marks} />
      </span>
    </button>
  );
});

export function SearchResults() {
  const matches = useApp((s) => s.searchResult?.matches ?? NO_MATCHES);
  const scrollerRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: matches.length,
    getScrollElement: () => scrollerRef.current,
    estimateSize: () => 76,
    overscan: 6,
  });
  const items = virtualizer.getVirtualItems();
  return (
    <div ref={scrollerRef} className="search-results" role="list" aria-label="Search results">
      <div className="search-results-sizer" role="none" style={{ height: virtualizer.getTotalSize() }}>
        <div className="search-results-window" role="none" style={{ transform: `translateY(${items[0]?.start ?? 0}px)` }}>
          {items.map((item) => {
            const match = matches[item.index];
            return (
              match && (
                <div
                  key={item.key}
                  ref={virtualizer.measureElement}
                  data-index={item.index}
                  role="listitem"
                  aria-setsize={matches.length}
                  aria-posinset={item.index + 1}
                  className="search-results-item"
                >
                  <MatchButton match={match} />
                </div>
              )
            );
          })}
        </div>
      </div>
    </div>
  );
}
