/**
 * The session library page (SPEC §14 "The app"): the `Sessions` table of every session the host
 * found, filtered as one types in `Search sessions`, sorted by any column, filled and updated live
 * while the host indexes (rows appear as the host pushes them, in the library's order, with a
 * progress count in a live region); a row's title is a link that opens its session in this tab
 * (`#file=…&root=…`). `Library` in the header comes back here (`#library`), the tab's session kept
 * open on the host. Text from session files is shown through nameText, as every name from disk.
 */
import { useEffect, useMemo, useState } from 'react';
import { byteRangeToIndices } from '../../../shared/format/utf8Offsets';
import { useApp } from '../../store/storeContext';
import { FORMAT_LABELS, countOf, formatBytes, formatCount } from '../../text/format';
import { nameText } from '../../text/nameText';
import type { LibraryRow, Sort, SortKey } from './libraryRows';
import { DEFAULT_SORT, LIBRARY_FRAGMENT, ROWS_PER_PAGE, filterRows, isLibraryFragment, nextSort, progressText, rowFragment, sortRows } from './libraryRows';
import './libraryPage.css';

/** How often the page asks for the listing while a listing runs (the host also pushes rows as they arrive; this catches a page that missed a push). */
const FILLING_MS = 1000;

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const onChange = (): void => setHash(location.hash);
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return hash;
}

/**
 * Whether the library is the page shown: its own fragment, or no fragment and no session (the host
 * started with no FILE). Asks the host once whether it has a library.
 */
export function useLibraryShown(): boolean {
  const host = useApp((s) => s.host);
  const hasLibrary = useApp((s) => s.library !== null);
  const noSession = useApp((s) => s.session === null && s.loading === null);
  const loadLibrary = useApp((s) => s.loadLibrary);
  const hash = useHash();
  useEffect(() => {
    if (host !== null) void loadLibrary();
  }, [host, loadLibrary]);
  return hasLibrary && (isLibraryFragment(hash) || (hash === '' && noSession));
}

/** `Library` in the header, where the host has one. */
export function LibraryLink() {
  const hasLibrary = useApp((s) => s.library !== null);
  if (!hasLibrary) return null;
  return (
    <a className="library-link" href={LIBRARY_FRAGMENT}>
      Library
    </a>
  );
}

const COLUMNS: readonly { key: SortKey; label: string; numeric?: boolean }[] = [
  { key: 'format', label: 'Agent' },
  { key: 'title', label: 'Title' },
  { key: 'project', label: 'Project' },
  { key: 'updated', label: 'Updated' },
  { key: 'calls', label: 'Calls', numeric: true },
  { key: 'compactions', label: 'Compactions', numeric: true },
  { key: 'tokens', label: 'Context tokens', numeric: true },
  { key: 'bytes', label: 'Size', numeric: true },
];

/** A count as the rest of the app writes one (`1,234`); `…` while the session is still to be indexed, nothing when it has none. */
const count = (n: number | null, indexed: boolean): string => (n === null ? (indexed ? '' : '…') : formatCount(n));

function Cells({ row }: { row: LibraryRow }) {
  return (
    <>
      <td>{FORMAT_LABELS[row.format]}</td>
      <td>
        <a href={rowFragment(row)} title={nameText(row.file)}>
          {nameText(row.title ?? row.file)}
        </a>
        {row.live && <span className="library-live"> live</span>}
        {row.error !== undefined && <span className="library-error">{` (not indexed: ${nameText(row.error)})`}</span>}
      </td>
      <td>{nameText(row.project ?? '')}</td>
      <td>
        <time dateTime={row.updated}>{row.updated.slice(0, 16).replace('T', ' ')}</time>
      </td>
      <td className="numeric">{count(row.calls, row.indexed)}</td>
      <td className="numeric">{count(row.compactions, row.indexed)}</td>
      <td className="numeric">{count(row.tokens, row.indexed)}</td>
      <td className="numeric">{formatBytes(row.bytes)}</td>
    </>
  );
}

/**
 * A snippet as one line of visible text with its match marked (the match's byte range turned into
 * string indices; each part made visible on its own, so the mark falls where the match is).
 */
function MarkedSnippet({ snippet, match }: { snippet: string; match: readonly [number, number] }) {
  const [start, end] = byteRangeToIndices(snippet, match);
  return (
    <>
      {nameText(snippet.slice(0, start))}
      <mark>{nameText(snippet.slice(start, end))}</mark>
      {nameText(snippet.slice(end))}
    </>
  );
}

/** What `Enter` found: per session, its matches visible and hidden, and the first snippets, each opening at its place. */
function SearchResults() {
  const found = useApp((s) => s.librarySearch);
  const searching = useApp((s) => s.librarySearching);
  if (searching !== null) return <p role="status">{`Searching every session for ${nameText(searching)}…`}</p>;
  if (!found) return null;
  return (
    <section className="library-search" aria-label="Search results">
      <h3>{`${countOf(found.sessions.length, 'session')} hold ${nameText(found.query)}${found.truncated ? ' (the search stopped there)' : ''}`}</h3>
      <ul>
        {found.sessions.map((hit) => (
          <li key={`${hit.root}/${hit.file}`}>
            <a href={rowFragment(hit)}>{nameText(hit.title ?? hit.file)}</a>
            <span className="library-counts">{` ${countOf(hit.visible, 'match', 'matches')} visible, ${hit.hidden} hidden`}</span>
            <ul>
              {hit.first.map((m, k) => (
                <li key={k}>
                  <a href={m.link}>
                    {m.hidden ? 'Hidden: ' : ''}
                    <MarkedSnippet snippet={m.snippet} match={m.snippet_match} />
                  </a>
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function LibraryPage() {
  const library = useApp((s) => s.library);
  const loadLibrary = useApp((s) => s.loadLibrary);
  const searchLibrary = useApp((s) => s.searchLibrary);
  const clearSearch = useApp((s) => s.clearLibrarySearch);
  const [text, setText] = useState('');
  const [sort, setSort] = useState<Sort>(DEFAULT_SORT);
  const [shown, setShown] = useState(ROWS_PER_PAGE);
  const complete = library?.complete ?? false;
  useEffect(() => {
    if (complete) return undefined;
    const timer = setInterval(() => void loadLibrary(), FILLING_MS);
    return () => clearInterval(timer);
  }, [complete, loadLibrary]);
  const rows = useMemo(() => sortRows(filterRows(library?.sessions ?? [], text), sort), [library, text, sort]);
  if (!library) return null;
  const missing = library.roots.filter((r) => !r.exists);
  return (
    <main className="library-page" aria-labelledby="library-title">
      <h2 id="library-title">Sessions on this machine</h2>
      <div className="library-tools">
        <input
          type="search"
          aria-label="Search sessions"
          placeholder="Filter by title or project; Enter searches the text"
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            setShown(ROWS_PER_PAGE);
            clearSearch();
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter') void searchLibrary(text.trim());
          }}
        />
        <span role="status" aria-live="polite" className="library-progress">
          {`${countOf(rows.length, 'session')}${text.trim() === '' ? '' : ` of ${library.sessions.length}`}${progressText(library.progress, library.complete)}`}
        </span>
      </div>
      <SearchResults />
      {library.samples && (
        <p>{`No agent folder was found, so the bundled samples are shown. Looked in: ${missing.map((r) => nameText(r.path)).join(', ')}.`}</p>
      )}
      {library.more > 0 && <p>{`${countOf(library.more, 'older session')} not listed here (list them with session-inspector sessions).`}</p>}
      <table aria-label="Sessions" className="library-table">
        <thead>
          <tr>
            {COLUMNS.map((c) => (
              <th key={c.key} scope="col" className={c.numeric === true ? 'numeric' : undefined} aria-sort={sort.key === c.key ? (sort.descending ? 'descending' : 'ascending') : 'none'}>
                <button type="button" className="library-sort" onClick={() => setSort(nextSort(sort, c.key))}>
                  {c.label}
                </button>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.slice(0, shown).map((row) => (
            <tr key={`${row.root}/${row.file}`}>
              <Cells row={row} />
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length > shown && (
        <button type="button" onClick={() => setShown(shown + ROWS_PER_PAGE)}>
          {`Show ${Math.min(ROWS_PER_PAGE, rows.length - shown)} more (${rows.length - shown} not shown)`}
        </button>
      )}
    </main>
  );
}
