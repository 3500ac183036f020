/**
 * Links (SPEC §12) in the store: the place the app is at, as a `Link` (what the URL fragment says),
 * and going to the place a link names — the model call, the reduction expanded at its range, the
 * search run with its flags. The window's fragment is read and kept current in
 * `features/links/useLinkSync.ts`; this part knows nothing of `location`.
 */
import type { Link } from '../../shared/links/link';
import { quotedText } from '../../shared/format/visibleText';
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

/**
 * Where the app is, as a link. The range is part of it only when the user or a link chose it:
 * the first window an expansion shows is where any expansion starts, not a place.
 */
export function linkOfState(s: Pick<AppState, 'shownCall' | 'openReduction' | 'searchQuery' | 'searchRegex' | 'searchCaseSensitive'>): Link {
  const open = s.openReduction;
  return {
    ...(s.shownCall !== null ? { call: s.shownCall } : {}),
    ...(open ? { reduction: open.id } : {}),
    ...(open?.userRange && open.requested ? { range: [open.requested[0], open.requested[1]] as const } : {}),
    ...(s.searchQuery !== '' ? { q: s.searchQuery } : {}),
    ...(s.searchQuery !== '' && s.searchRegex ? { regex: true } : {}),
    ...(s.searchQuery !== '' && !s.searchCaseSensitive ? { caseSensitive: false } : {}),
  };
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
        get().pushAlert(`The link names model call ${call}, but this session has ${calls} model calls; the view stays where it is.`);
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
      if (!entry) get().pushAlert(`The link names reduction ${quotedText(id, 200)}, which is not in the live log.`);
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
