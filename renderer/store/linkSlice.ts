/**
 * Links (SPEC §12) in the store: the place the app is at, as a `Link` (what the URL fragment says),
 * and going to the place a link names — the model call, the reduction expanded at its range, the
 * search run with its flags. The window's fragment is read and kept current in
 * `features/links/useLinkSync.ts`; this part knows nothing of `location`.
 */
import type { Link } from '../../shared/links/link';
import { formatLink } from '../../shared/links/link';
import { quotedText } from '../../shared/format/visibleText';
import { baseName, countOf } from '../text/format';
import type { AppState, SliceCreator } from './appState';

export interface LinkSlice {
  /**
   * Goes to `link`'s place, in order: the call (the latest view when it names none), the reduction
   * (collapsed when it names none), the search (cleared when it names no query). Each of
   * `problems` (the parser's sentences) and anything that cannot be reached is an alert; what can
   * be reached still is. Resolves once every part has been asked for.
   */
  goToLink: (link: Link, problems?: readonly string[]) => Promise<void>;
}

/** True when `info` is the session `link` names by its file (a link naming none names whatever is open). */
export function isLinkedSession(info: AppState['session'], link: Link): boolean {
  if (link.file === undefined) return true;
  const named = info?.link_file;
  return named !== undefined && named.path === link.file && (link.root === undefined || named.root === undefined || named.root === link.root);
}

/**
 * Where the app is, as a link. The range is part of it only when the user or a link chose it:
 * the first window an expansion shows is where any expansion starts, not a place.
 */
export function linkOfState(s: Pick<AppState, 'shownCall' | 'openReduction' | 'searchQuery' | 'searchRegex' | 'searchCaseSensitive'> & { session?: AppState['session'] }): Link {
  const open = s.openReduction;
  // The file, as the host names it for a link (SPEC §14); a session the host did not list has none.
  const file = s.session?.link_file;
  return {
    ...(file ? { file: file.path, ...(file.root !== undefined ? { root: file.root } : {}) } : {}),
    ...(s.shownCall !== null ? { call: s.shownCall } : {}),
    ...(open ? { reduction: open.id } : {}),
    ...(open?.userRange && open.requested ? { range: [open.requested[0], open.requested[1]] as const } : {}),
    ...(s.searchQuery !== '' ? { q: s.searchQuery } : {}),
    ...(s.searchQuery !== '' && s.searchRegex ? { regex: true } : {}),
    ...(s.searchQuery !== '' && !s.searchCaseSensitive ? { caseSensitive: false } : {}),
  };
}

/** The session shown, for a link's errors: its file's name, and which of the file's sessions when not the main one. */
function shownSessionName(s: Pick<AppState, 'session'>): string {
  const info = s.session;
  if (!info) return 'no session';
  const files = info.files.map((f) => baseName(f.path)).join(' + ');
  return info.session !== '' ? `${files} (session ${quotedText(info.session, 100)})` : files;
}

/** What to do when a link names a place the session shown does not have: open the session it was copied from, at the link. */
function elsewhereHint(s: Pick<AppState, 'host'>, link: Link): string {
  const fragment = `'${formatLink(link).replace(/'/g, "'\\''")}'`;
  return `The link may be of another session: open the file it was copied from at it, npx session-inspector ${s.host === 'electron' ? 'open' : 'serve'} FILE --link ${fragment}.`;
}

export const createLinkSlice: SliceCreator<LinkSlice> = () => (set, get) => ({
  async goToLink(link, problems = []) {
    for (const p of problems) get().pushAlert(p);
    const epoch = get().epoch;
    const call = link.call ?? null;
    if (call !== get().shownCall) {
      await get().loadContextMap();
      if (get().epoch !== epoch) return;
      const calls = get().contextMap?.calls;
      if (call !== null && calls !== undefined && call > calls) {
        get().pushAlert(`The link names model call ${call}, but ${shownSessionName(get())} has ${countOf(calls, 'model call')}; the view stays where it is.`, elsewhereHint(get(), link));
      } else {
        await get().showCall(call);
        if (get().epoch !== epoch) return;
      }
    }
    if (link.reduction !== undefined) {
      const id = link.reduction;
      await get().loadLog();
      if (get().epoch !== epoch) return;
      const entry = get().logEntries.find((e) => e.reduction.id === id);
      if (!entry) get().pushAlert(`The link names reduction ${quotedText(id, 200)}, which is not in the live log of ${shownSessionName(get())}.`, elsewhereHint(get(), link));
      else await get().goToIndex(entry.reduction.ptr.index, { reductionId: id, ...(link.range ? { range: link.range, pinRange: true } : {}) });
    } else {
      get().collapse();
    }
    if (get().epoch !== epoch) return;
    // No query in the link: no search (the place is exactly what the link says).
    if (link.q === undefined && get().searchQuery === '') return;
    set({
      searchQuery: link.q ?? '',
      searchRegex: link.regex ?? false,
      searchCaseSensitive: link.caseSensitive ?? true,
      ...(link.q !== undefined ? { activeTab: 'search' as const } : {}),
    });
    await get().runSearch();
  },
});
