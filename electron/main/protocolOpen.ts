/**
 * Opening a file at a place from outside the window (SPEC §12): a `session-inspector://open?file=…#…`
 * link the OS hands over (macOS `open-url`, a second instance's argument on Windows and Linux) or an
 * `open FILE --link '#…'` switch. The URL is untrusted (a chat, a web page): `parseProtocolUrl`
 * accepts only the one action and absolute paths; here each path must also be an existing regular
 * file before anything opens. The place itself is handed to the renderer as its page's fragment.
 */
import { statSync } from 'node:fs';
import { formatLink, parseLink } from '../../shared/links/link';
import { parseProtocolUrl } from '../../shared/links/protocolLink';
import { quotedText } from '../../shared/format/visibleText';
import { APP_INDEX_URL } from './appProtocol';

export type LinkOpen = { ok: true; files: string[]; fragment: string; problems: string[] } | { ok: false; message: string };

function isRegularFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** A fragment as the canonical `#…` the renderer is started with ('' for none or an unusable one). */
export function canonicalFragment(text: string | undefined): string {
  if (text === undefined) return '';
  const fragment = formatLink(parseLink(text.startsWith('#') ? text : `#${text}`).link);
  return fragment === '#' ? '' : fragment;
}

/** The protocol link `url`, checked: its files exist as regular files, its place as a canonical fragment. */
export function resolveProtocolOpen(url: string, regularFile: (path: string) => boolean = isRegularFile): LinkOpen {
  const opened = parseProtocolUrl(url);
  if (!opened.ok) return opened;
  for (const file of opened.files) {
    if (!regularFile(file)) return { ok: false, message: `This Session Inspector link cannot be opened: ${quotedText(file, 200)} is not a file on this computer.` };
  }
  const fragment = formatLink(opened.link);
  return { ok: true, files: opened.files, fragment: fragment === '#' ? '' : fragment, problems: opened.problems };
}

/** The renderer's page at `fragment` ('' for its plain index). */
export function appUrlAt(fragment: string): string {
  return `${APP_INDEX_URL}${fragment}`;
}
