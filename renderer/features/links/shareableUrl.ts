/**
 * The URL `Copy link` puts on the clipboard (SPEC §12).
 *
 * - HTTP host: the page's address with the fragment (`file=` naming the session's file relative
 *   to a root of the host, SPEC §14) and WITHOUT the access token. The token is a
 *   secret of this run of `serve` (SECURITY.md §4): a link pasted in a chat must not carry it, and
 *   a colleague could not use it anyway (the host listens on this machine's loopback, and a
 *   restarted host draws a new token). Whoever opens the link against a host gets the host's
 *   answer saying how to get a fresh address; the place is the part after `#`, added to it.
 * - Desktop app: `session-inspector://open?file=<path>#…`, which opens the file at the place
 *   (the packaged app is the protocol's handler).
 */
import type { Link } from '../../../shared/links/link';
import { formatLink } from '../../../shared/links/link';
import { protocolUrl } from '../../../shared/links/protocolLink';

export interface PageAddress {
  origin: string;
  pathname: string;
}

export function shareableUrl(host: 'electron' | 'http' | null, page: PageAddress, files: readonly string[], link: Link): string {
  if (host === 'electron' && files.length > 0) {
    // The protocol link names the files by their paths: no root-relative name beside them.
    const { file: _file, root: _root, ...place } = link;
    return protocolUrl(files, place);
  }
  const fragment = formatLink(link);
  return `${page.origin}${page.pathname}${fragment === '#' ? '' : fragment}`;
}
