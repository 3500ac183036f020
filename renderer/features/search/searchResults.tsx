/** The matches of the latest search, virtualized; each one goes to its reduction, expanded around the match. */
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useMemo, useRef } from 'react';
import type { SearchMatch } from '../../store/searchSlice';
import { useApp } from '../../store/storeContext';
import { kindLabel } from '../../text/format';
import { byteRangeToIndices } from '../../../shared/format/utf8Offsets';
import { TerminalText } from '../../widgets/terminalText';
import './searchResults.css';
import { nameText } from '../../text/nameText';
import { tokensNote, tokensText } from '../../text/tokens';
import { figuresOf } from '../../store/tokensSlice';

const NO_MATCHES: SearchMatch[] = [];

/** The accessible name of a result (UI contract). */
export function matchLabel(match: SearchMatch): string {
  return `Match in reduction ${nameText(match.reduction_id)} at byte ${match.offset} of message ${match.index}`;
}

/**
 * One result: a card whose button is named by the UI contract and shows the words of that name
 * (WCAG 2.5.3, Label in Name: `r4 at byte 120 of message 7` inside `Match in reduction r4 at
 * byte 120 of message 7`); the kind and the snippet sit beside it in the card, which a pointer can
 * click as a whole. Keyboard users reach the button.
 */
const MatchButton = memo(function MatchButton({ match }: { match: SearchMatch }) {
  const goToMatch = useApp((s) => s.goToMatch);
  const runTrace = useApp((s) => s.runTrace);
  const searched = useApp((s) => s.searchResult);
  // The tokens of the original the match is in (SPEC §16.1), once the worker has counted them.
  const original = useApp((s) => figuresOf(s, match.reduction_id)?.original);
  const marks = useMemo(() => [byteRangeToIndices(match.snippet, match.snippet_match)] as const, [match]);
  return (
    // The button is the control; a click elsewhere on the card is the same action for a pointer.
    <div className="search-match" onClick={() => void goToMatch(match)}>
      <span className="search-match-head">
        <button
          type="button"
          className="search-match-button"
          aria-label={matchLabel(match)}
          onClick={(e) => {
            e.stopPropagation();
            void goToMatch(match);
          }}
        >
          <span className="search-match-id">{nameText(match.reduction_id)}</span> <span className="search-match-where">at byte {match.offset} of message {match.index}</span>
        </button>
        <span className={`search-match-kind kind-${match.kind}`}>{kindLabel(match.kind)}</span>
        {original && (
          <span className="search-match-tokens" title={tokensNote(original)}>
            {tokensText(original)}
          </span>
        )}
        {searched && (
          <button
            type="button"
            className="search-match-trace"
            onClick={(e) => {
              e.stopPropagation();
              void runTrace({ query: searched.query, mode: searched.mode, case_sensitive: searched.case_sensitive, focus: { index: match.index, offset: match.offset } });
            }}
          >
            Where did it go?
          </button>
        )}
      </span>
      <span className="search-match-snippet">
        <TerminalText text={match.snippet} marks={marks} />
      </span>
    </div>
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
  const requestHiddenTokens = useApp((s) => s.requestHiddenTokens);
  const onScreen = items.map((item) => matches[item.index]?.reduction_id ?? '').join('\u0000');
  // The figures of the results on screen, asked after they show.
  useEffect(() => {
    if (onScreen !== '') requestHiddenTokens([...new Set(onScreen.split('\u0000'))]);
  }, [onScreen, requestHiddenTokens]);
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
