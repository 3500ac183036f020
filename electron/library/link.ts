/**
 * A link into a listed session (SPEC §14 "Links name their session", extending §12):
 * `#file=ROOT-RELATIVE-PATH&root=ID&call=N&…`. Kept to this one function so that the link
 * building the app uses can replace it in one place.
 */
import type { Link } from '../../shared/links/link';
import { formatLink } from '../../shared/links/link';
import { wellFormed } from '../../shared/format/utf8';

/** Where a listed session is: its path relative to its root (`/` separators) and the root's id (its place in the listing's roots). */
export interface SessionPlace {
  rel: string;
  rootId: string;
}

/** The fragment naming `place` in `session` (`file` and `root` first, then the §12 keys). */
export function sessionLink(place: SessionPlace, link: Link): string {
  const rest = formatLink(link).slice(1);
  const file = `file=${encodeURIComponent(wellFormed(place.rel)).replace(/%2F/g, '/')}&root=${encodeURIComponent(place.rootId)}`;
  return `#${file}${rest === '' ? '' : `&${rest}`}`;
}
