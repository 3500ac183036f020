/**
 * Search of hidden content, with the agent's own bounds: the query and its options, a summary of
 * what was searched, an inline error for a bad pattern, the matches, and the result exactly as the
 * agent's `sidecar_search` returns it. The scope (`Search in`: hidden content, or what
 * the model saw) and the human view, `Every match`, stepping through all of them (`n of N`).
 */
import type { ResultOf } from '../../../shared/contract';
import { useEffect, useMemo, useRef } from 'react';
import { useApp, useAppStore } from '../../store/storeContext';
import { countOf, formatBytes, formatCount } from '../../text/format';
import { TerminalText } from '../../widgets/terminalText';
import { SearchResults, matchLabel } from './searchResults';
import type { SearchScope } from '../../store/searchSlice';
import { pagedMatch } from '../../store/searchSlice';
import { byteRangeToIndices } from '../../../shared/format/utf8Offsets';
import './searchPanel.css';

function Summary() {
  const status = useApp((s) => s.searchStatus);
  const result = useApp((s) => s.searchResult);
  const query = useApp((s) => s.searchQuery);
  const progress = useApp((s) => s.searchProgress);
  const paging = useApp((s) => s.searchPaging);
  const scope = useApp((s) => s.searchScope);
  let text: string;
  if (paging?.scope === 'view' && status === 'done') {
    const page = paging.pages.get(0);
    text = `${paging.total === 0 ? 'No matches' : countOf(paging.total, 'match', 'matches')} in what the model saw · ${formatBytes(page?.hidden_bytes_searched ?? 0)} of row text searched`;
  } else if (status === 'running' && progress) {
    text = `Searching… ${formatCount(progress.spans_searched)} of ${countOf(progress.spans, 'hidden span')}, ${formatBytes(progress.hidden_bytes_searched)} so far`;
  } else if (status === 'running' || status === 'waiting') text = 'Searching…';
  else if (status === 'done' && result) {
    const matches = result.total_matches === 0 ? 'No matches' : `${formatCount(result.matches.length)} of ${countOf(result.total_matches, 'match', 'matches')}${result.truncated ? ' (truncated)' : ''}`;
    const unavailable = result.reductions_unavailable ? ` · ${formatCount(result.reductions_unavailable)} not searched: original not recorded` : '';
    text = `${matches} · ${countOf(result.reductions_searched, 'reduction')}, ${formatBytes(result.hidden_bytes_searched)} of hidden content searched${unavailable}`;
  } else if (query === '' && scope === 'view') text = 'Search the text the model saw, row by row, at the model call shown.';
  else if (query === '') text = 'Search what the reductions hide from the model, with the agent’s own bounds.';
  else text = '';
  return (
    <p className="search-summary" aria-live="polite">
      {text}
    </p>
  );
}

/**
 * §5.3's result exactly as the agent receives it: without what the host adds for the view (a
 * range match's `transcript_offset`).
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


function useScope(): SearchScope {
  return useApp((s) => s.searchScope);
}

const SCOPES: readonly { value: SearchScope; label: string }[] = [
  { value: 'hidden', label: 'Hidden content' },
  { value: 'view', label: 'What the model saw' },
];

/** Where the search looks: a radio group named `Search in`. */
function ScopeSwitch({ disabled }: { disabled: boolean }) {
  const scope = useScope();
  const setScope = useApp((s) => s.setSearchScope);
  return (
    <div className="search-scope" role="radiogroup" aria-label="Search in">
      <span className="search-scope-label" aria-hidden="true">
        Search in
      </span>
      {SCOPES.map((s) => (
        <label key={s.value}>
          <input type="radio" name="search-scope" value={s.value} checked={scope === s.value} disabled={disabled} onChange={() => setScope(s.value)} /> {s.label}
        </label>
      ))}
    </div>
  );
}

/** The human view: where the match shown is among all of them, stepping on with wrap-around. */
function EveryMatch() {
  const paging = useApp((s) => s.searchPaging);
  const step = useApp((s) => s.stepMatch);
  if (!paging) return null;
  let position: string;
  if (paging.status === 'loading') position = 'Counting every match…';
  else if (paging.status === 'error') position = `Could not page through every match: ${paging.error?.message ?? 'unknown error'}`;
  else if (paging.total === 0) position = 'No matches';
  else if (paging.current === null) position = countOf(paging.total, 'match', 'matches');
  else position = `${formatCount(paging.current + 1)} of ${formatCount(paging.total)}`;
  const paged = paging.status === 'ready' && paging.pageable < paging.total ? ` (the first ${formatCount(paging.pageable)} can be paged)` : '';
  const disabled = paging.status !== 'ready' || paging.pageable === 0;
  const current = paging.current !== null ? pagedMatch(paging, paging.current) : undefined;
  return (
    <section className="search-every" aria-labelledby="search-every-title">
      <div className="search-every-bar">
        <h2 id="search-every-title">Every match</h2>
        <output className="search-position" aria-label="Match position" aria-live="polite">
          {position}
          {paged}
        </output>
        <button type="button" disabled={disabled} onClick={() => void step(-1)} title="Shift+Enter in the search box">
          Previous match
        </button>
        <button type="button" disabled={disabled} onClick={() => void step(1)} title="Enter in the search box">
          Next match
        </button>
      </div>
      {current && <CurrentMatch match={current} />}
    </section>
  );
}

/** Where the match shown is, and its snippet with the match marked. */
function CurrentMatch({ match }: { match: NonNullable<ReturnType<typeof pagedMatch>> }) {
  const m = 'hidden' in match ? match.hidden : match.view;
  const marks = useMemo(() => [byteRangeToIndices(m.snippet, m.snippet_match)] as const, [m]);
  return (
    <p className="search-current">
      <span className="search-current-where">{'hidden' in match ? matchLabel(match.hidden) : `Match in row ${match.view.row} at byte ${match.view.offset} of message ${match.view.index}`}</span>
      <span className="search-match-snippet">
        <TerminalText text={m.snippet} marks={marks} />
      </span>
    </p>
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
  const stepMatch = useApp((s) => s.stepMatch);
  const scope = useScope();
  // The agent's results stand under their heading once a search is asked (not before, nor over an error).
  const asked = useApp((s) => s.searchStatus !== 'idle' && s.searchStatus !== 'error');
  const store = useAppStore();
  const inputRef = useRef<HTMLInputElement>(null);
  /** The search (query, flags, scope) the last Enter committed. */
  const committed = useRef<string | null>(null);

  // What the model saw depends on the model call shown: a search of it follows the slider.
  const shownCall = useApp((s) => s.shownCall);
  const pagedCall = useApp((s) => (s.searchPaging?.scope === 'view' ? s.searchPaging.call : undefined));
  useEffect(() => {
    if (scope === 'view' && pagedCall !== undefined && pagedCall !== shownCall && query !== '') void runSearch();
  }, [scope, pagedCall, shownCall, query, runSearch]);

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
            if (e.key !== 'Enter') return;
            e.preventDefault();
            // The first Enter commits what is typed (runs it now); once that search has answered,
            // Enter and Shift+Enter step through every match. So Enter never jumps to a match of a
            // search the user has not committed, however fast the typing's own search answered.
            const { searchStatus, searchPaging, searchQuery, searchRegex, searchCaseSensitive, searchScope } = store.getState();
            const asked = JSON.stringify([searchQuery, searchRegex, searchCaseSensitive, searchScope]);
            if (committed.current === asked && searchStatus === 'done' && searchPaging?.status === 'ready') {
              void stepMatch(e.shiftKey ? -1 : 1);
              return;
            }
            committed.current = asked;
            void runSearch();
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
        <ScopeSwitch disabled={!hasSession} />
      </div>
      {error && (
        <p id="search-error" className="search-error">
          {error.code === 'invalid_query' ? 'Invalid query: ' : ''}
          {error.message}
        </p>
      )}
      <Summary />
      <EveryMatch />
      {scope === 'hidden' && asked && (
        <section className="search-agent" aria-labelledby="search-agent-title">
          <h2 id="search-agent-title" className="search-agent-title">
            As the agent sees it
          </h2>
          <SearchResults />
        </section>
      )}
    </div>
  );
}
