/**
 * The full-text search of one listed session (SPEC §14 `sessions --query`): in what the model was
 * given at its latest view (the projected rows' text, shared/search/viewSearch.ts, as the app's view
 * search) and in what was hidden from it (the resolver's search of hidden content, §5.3, as the
 * `search` command). Both with the engine's bounds; each side stops at `maxMatches` while counting
 * every match. Each match listed comes with a link that opens the session at the latest call, with
 * the reduction that hid it open and the query run.
 */
import type { LoadedSession, Result } from '../../shared/index';
import { arrayList, projectionLayout } from '../../shared/index';
import type { ViewSearchResult } from '../../shared/search/viewSearch';
import { viewSearchSteps } from '../../shared/search/viewSearch';
import type { SessionPlace } from './link';
import { sessionLink } from './link';

export interface LibraryQuery {
  query: string;
  regex: boolean;
  ignoreCase: boolean;
}

/** Matches listed per session (`first`), and kept per side while every match is counted. */
export const FIRST_MATCHES = 3;
/** A side's search stops listing after this many matches (all are counted). */
export const MAX_MATCHES_PER_SESSION = 100;

export interface SessionMatch {
  call: number | null;
  reduction?: string;
  snippet: string;
  /** The match's UTF-8 byte range in `snippet` (as a session search's `snippet_match`). */
  snippet_match: [number, number];
  link: string;
}

export interface SessionMatches {
  visible: number;
  hidden: number;
  first: SessionMatch[];
}

function runSteps<T>(steps: Generator<void, Result<T, { message: string }>>): Result<T, { message: string }> {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** Why `q` cannot run (an invalid or too large pattern), checked once before any session is read; undefined when it can. */
export function queryProblem(q: LibraryQuery): { code: string; message: string } | undefined {
  const checked = runSteps(viewSearchSteps(arrayList([]), [], projectionLayout(0, []), q.query, { mode: q.regex ? 'regex' : 'substring', case_sensitive: !q.ignoreCase }));
  return checked.ok ? undefined : { code: (checked.error as { code?: string }).code ?? 'invalid_query', message: checked.error.message };
}

/** The matches of `q` in `session` (see the header); an error names why the query cannot run (an invalid pattern). */
export function searchSession(session: LoadedSession, q: LibraryQuery, place: SessionPlace, signal?: { readonly aborted: boolean }): { ok: true; matches: SessionMatches } | { ok: false; message: string } {
  const options = { mode: q.regex ? ('regex' as const) : ('substring' as const), case_sensitive: !q.ignoreCase, max_matches: MAX_MATCHES_PER_SESSION, ...(signal ? { signal } : {}) };
  const call = session.calls.length > 0 ? session.calls.length : null;
  const place_ = (reduction?: string): string => sessionLink(place, { ...(call !== null ? { call } : {}), ...(reduction !== undefined ? { reduction } : {}), q: q.query, ...(q.regex ? { regex: true } : {}), ...(q.ignoreCase ? { caseSensitive: false } : {}) });
  const visible: Result<ViewSearchResult, { message: string }> = runSteps(viewSearchSteps(session.minted, session.log, projectionLayout(session.minted.length, session.log), q.query, options));
  if (!visible.ok) return { ok: false, message: visible.error.message };
  const hidden = session.stopped ? undefined : session.search(q.query, options);
  if (hidden && !hidden.ok) return { ok: false, message: hidden.error.message };
  const first: SessionMatch[] = [];
  for (const m of hidden?.value.matches ?? []) {
    if (first.length >= FIRST_MATCHES) break;
    first.push({ call, reduction: m.reduction_id, snippet: m.snippet, snippet_match: m.snippet_match, link: place_(m.reduction_id) });
  }
  for (const m of visible.value.matches) {
    if (first.length >= FIRST_MATCHES) break;
    first.push({ call, snippet: m.snippet, snippet_match: m.snippet_match, link: place_() });
  }
  return { ok: true, matches: { visible: visible.value.total_matches, hidden: hidden?.value.total_matches ?? 0, first } };
}
