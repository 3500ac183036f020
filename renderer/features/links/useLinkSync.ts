/**
 * The window's URL fragment and the store, kept in step (SPEC §12):
 *  - once the first session is ready, the fragment the page was opened with is gone to;
 *  - from then on, every move (call, reduction, range, query, flags) rewrites the fragment with
 *    `history.replaceState` — no history entry per keystroke, and no `hashchange` of our own;
 *  - a `hashchange` (the user edits the address, the desktop shell hands over a protocol link)
 *    goes to the new place. A link that arrives while a session is (re)opening waits for it;
 *  - a link that names a file (`file=`, SPEC §14) the window does not have open opens it first
 *    (the host looks it up in its own listing), once; a reload whose session is still open on the
 *    host keeps it, and goes to the place only (docs/sessions-and-links.md).
 */
import { useEffect } from 'react';
import { formatLink, parseLink } from '../../../shared/links/link';
import { isLinkedSession, linkOfState } from '../../store/linkSlice';
import { isLibraryFragment } from '../library/libraryRows';
import type { AppStore } from '../../store/store';
import type { AppState } from '../../store/appState';

function ready(s: AppState): boolean {
  return s.session !== null && !s.session.provisional && !s.session.stopped;
}

/** The fragment as `location.hash` spells it: '' for none. */
function fragmentOf(s: AppState): string {
  const f = formatLink(linkOfState(s));
  return f === '#' ? '' : f;
}

export function useLinkSync(store: AppStore): void {
  useEffect(() => {
    /** A fragment still to go to, and whether a go is under way (the state is half there: no writes). */
    // The library's own fragment is no place in a session: it is neither gone to nor overwritten.
    let pending: string | null = isLibraryFragment(location.hash) ? null : location.hash;
    let going = false;
    /** The fragment whose file was asked for (asked once, whatever the answer), and the one whose file opened. */
    let fileAsked: string | null = null;
    let fileOpened: string | null = null;

    const write = (): void => {
      if (going || pending !== null || isLibraryFragment(location.hash)) return;
      const s = store.getState();
      if (!ready(s)) return;
      const hash = fragmentOf(s);
      if (hash === location.hash) return;
      history.replaceState(history.state, '', `${location.pathname}${location.search}${hash}`);
    };

    /** Opens the file `link` names when it is not the one open; true while that is under way (or was refused: the link is dropped). */
    const openFileOf = (fragment: string, link: ReturnType<typeof parseLink>['link']): boolean => {
      const s = store.getState();
      if (link.file === undefined || fileOpened === fragment || isLinkedSession(s.session, link)) return false;
      // Not before the host's state answered, nor while an open is in flight (it may be this very file).
      if (s.host === null || s.loading !== null || fileAsked === fragment) return true;
      fileAsked = fragment;
      going = true;
      void s.openLinkFile(link.file, link.root).then((opened) => {
        going = false;
        if (opened) fileOpened = fragment;
        // Refused: the alert says which file and how to serve it; the rest of the link waits for no session.
        else if (pending === fragment) pending = null;
        if (pending !== null) go();
      });
      return true;
    };

    const go = (): void => {
      const s = store.getState();
      if (going || pending === null) return;
      const fragment = pending;
      const { link, problems } = parseLink(fragment);
      if (openFileOf(fragment, link)) return;
      if (!ready(s)) {
        // With no session to go to, what the link got wrong is said now (a refused file= path, say); pushAlert drops repeats.
        if (s.host !== null && s.session === null && s.loading === null) for (const p of problems) s.pushAlert(p);
        return;
      }
      const epoch = s.epoch;
      going = true;
      void s.goToLink(link, problems).finally(() => {
        going = false;
        // A session that changed under the go (a file opened by a protocol link) gets the link again.
        if (store.getState().epoch === epoch && pending === fragment) pending = null;
        if (pending !== null) go();
        else write();
      });
    };

    // The fragment navigated to is the event's, not `location.hash`: a write of the state's own
    // fragment (replaceState, above) can land between the navigation and this event, and
    // `location.hash` would then name the old place, dropping the link (seen in e2e runs).
    const onHashChange = (event: HashChangeEvent): void => {
      const hash = new URL(event.newURL).hash;
      if (isLibraryFragment(hash)) return;
      pending = hash;
      go();
    };
    const unsubscribe = store.subscribe(() => {
      if (pending !== null) go();
      else write();
    });
    window.addEventListener('hashchange', onHashChange);
    go();
    return () => {
      unsubscribe();
      window.removeEventListener('hashchange', onHashChange);
    };
  }, [store]);
}
