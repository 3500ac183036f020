/**
 * The window's URL fragment and the store, kept in step (SPEC §12):
 *  - once the first session is ready, the fragment the page was opened with is gone to;
 *  - from then on, every move (call, reduction, range, query, flags) rewrites the fragment with
 *    `history.replaceState` — no history entry per keystroke, and no `hashchange` of our own;
 *  - a `hashchange` (the user edits the address, the desktop shell hands over a protocol link)
 *    goes to the new place. A link that arrives while a session is (re)opening waits for it.
 */
import { useEffect } from 'react';
import { formatLink, parseLink } from '../../../shared/links/link';
import { linkOfState } from '../../store/linkSlice';
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
    let pending: string | null = location.hash;
    let going = false;

    const write = (): void => {
      if (going || pending !== null) return;
      const s = store.getState();
      if (!ready(s)) return;
      const hash = fragmentOf(s);
      if (hash === location.hash) return;
      history.replaceState(history.state, '', `${location.pathname}${location.search}${hash}`);
    };

    const go = (): void => {
      const s = store.getState();
      if (going || pending === null || !ready(s)) return;
      const fragment = pending;
      const epoch = s.epoch;
      going = true;
      const { link, problems } = parseLink(fragment);
      void s.goToLink(link, problems).finally(() => {
        going = false;
        // A session that changed under the go (a file opened by a protocol link) gets the link again.
        if (store.getState().epoch === epoch && pending === fragment) pending = null;
        if (pending !== null) go();
        else write();
      });
    };

    const onHashChange = (): void => {
      pending = location.hash;
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
