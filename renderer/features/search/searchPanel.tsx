/**
 * Search of hidden content, with the agent's own bounds: the query and its options, a summary of
 * what was searched, an inline error for a bad pattern, the matches, and the result exactly as the
 * agent's `sidecar_search` returns it.
 */
import type { ResultOf } from '../../../shared/contract';
import { useEffect, useRef } from 'react';
import { useApp } from '../../store/storeContext';
import { formatBytes, formatCount } from '../../text/format';
import { TerminalText } from '../../widgets/terminalText';
import { SearchResults } from './searchResults';
import './searchPanel.css';

function Summary() {
  const status = useApp((s) => s.searchStatus);
  const result = useApp((s) => s.searchResult);
  const query = useApp((s) => s.searchQuery);
  const progress = useApp((s) => s.searchProgress);
  let text: string;
  if (status === 'running' && progress) {
    text = `Searching… ${formatCount(progress.spans_searched)} of ${formatCount(progress.spans)} hidden spans, ${formatBytes(progress.hidden_bytes_searched)} so far`;
  } else if (status === 'running' || status === 'waiting') text = 'Searching…';
  else if (status === 'done' && result) {
    const matches = result.total_matches === 0 ? 'No matches' : `${formatCount(result.matches.length)} of ${formatCount(result.total_matches)} matches${result.truncated ? ' (truncated)' : ''}`;
    const unavailable = result.reductions_unavailable ? ` · ${formatCount(result.reductions_unavailable)} not searched: original not recorded` : '';
    text = `${matches} · ${formatCount(result.reductions_searched)} reductions, ${formatBytes(result.hidden_bytes_searched)} of hidden content searched${unavailable}`;
  } else if (query === '') text = 'Search what the reductions hide from the model, with the agent’s own bounds.';
  else text = '';
  return (
    <p className="search-summary" aria-live="polite">
      {text}
    </p>
  );
}

/**
 * §5.3's result exactly as the agent receives it: without what the host adds for the view (a
 * range match's `transcript_offset`, issue 12 part C).
 */
export function agentJson(result: ResultOf<'search'>): string {
  return JSON.stringify({ ...result, matches: result.matches.map(({ transcript_offset: _placed, ...match }) => match) });
}

function AgentJson() {
  const show = useApp((s) => s.searchShowJson);
  const result = useApp((s) => s.searchResult);
  const toggle = useApp((s) => s.toggleSearchJson);
  return (
    <>
      <button type="button" className="search-agent-toggle" aria-pressed={show} onClick={toggle}>
        As the agent sees it
      </button>
      {show && (
        <pre className="search-json" role="code" aria-label="Search result JSON" tabIndex={0}>
          {/* Compact JSON, shown as text; invisible and bidi characters made visible. */}
          {result ? <TerminalText text={agentJson(result)} ansi={false} /> : 'No result yet.'}
        </pre>
      )}
    </>
  );
}

export function SearchPanel() {
  const query = useApp((s) => s.searchQuery);
  const regex = useApp((s) => s.searchRegex);
  const caseSensitive = useApp((s) => s.searchCaseSensitive);
  const error = useApp((s) => s.searchError);
  const focusSeq = useApp((s) => s.focusSearchSeq);
  const hasSession = useApp((s) => s.session !== null);
  const setQuery = useApp((s) => s.setSearchQuery);
  const setRegex = useApp((s) => s.setSearchRegex);
  const setCaseSensitive = useApp((s) => s.setSearchCaseSensitive);
  const runSearch = useApp((s) => s.runSearch);
  const inputRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (focusSeq > 0) {
      inputRef.current?.focus();
      inputRef.current?.select();
    }
  }, [focusSeq]);

  return (
    <div className="search-panel">
      <div className="search-controls">
        <input
          ref={inputRef}
          type="search"
          className="search-input"
          aria-label="Search hidden content"
          placeholder="Search hidden content"
          value={query}
          spellCheck={false}
          autoComplete="off"
          disabled={!hasSession}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? 'search-error' : undefined}
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') void runSearch();
          }}
        />
        <div className="search-options">
          <label>
            <input type="checkbox" checked={regex} onChange={(e) => setRegex(e.target.checked)} /> Regex
          </label>
          <label>
            <input type="checkbox" checked={caseSensitive} onChange={(e) => setCaseSensitive(e.target.checked)} /> Case sensitive
          </label>
          <AgentJson />
        </div>
      </div>
      {error && (
        <p id="search-error" className="search-error">
          {error.code === 'invalid_query' ? 'Invalid query: ' : ''}
          {error.message}
        </p>
      )}
      <Summary />
      <SearchResults />
    </div>
  );
}
