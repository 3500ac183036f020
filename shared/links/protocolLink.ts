/**
 * The desktop app's protocol link (SPEC §12): `session-inspector://open?file=<path>#<link>` opens a
 * file at a place. The OS hands such a URL to the app (macOS `open-url`, Windows and Linux an
 * argument of a second instance); it comes from anywhere — a chat, a web page — so it is untrusted:
 * only the one action, only absolute paths on a local drive (no network share, no device), nothing
 * of another scheme; every sentence quotes the link visibly (`quotedText`). Whether the file
 * exists is the shell's check (electron/main/protocolOpen.ts); this module is pure.
 */
import { formatLink, parseLink } from './link';
import type { Link } from './link';
import { wellFormed } from '../format/utf8';
import { quotedText } from '../format/visibleText';

export const PROTOCOL_SCHEME = 'session-inspector';
/** The one action a protocol link may name. */
export const PROTOCOL_ACTION = 'open';
/** A sidecar and/or a snapshot, as on the command line. */
const MAX_FILES = 2;
/** Longer is not a link someone pasted; refused before it is read. */
export const MAX_PROTOCOL_URL_LENGTH = 64 * 1024;

export type ProtocolOpen =
  | { ok: true; files: string[]; link: Link; problems: string[] }
  | { ok: false; message: string };

/** True for a path absolute on POSIX (`/…`) or on a Windows drive (`C:\…`, `C:/…`). */
export function isAbsolutePath(path: string): boolean {
  return path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path);
}

/**
 * True for a path that names, by Windows rules, a network share or a device rather than a file on
 * a local drive: two separators at its start in any mix (`\\host\share`, `//host/share`,
 * `/\host`, and the device and verbatim prefixes `\\.\`, `\\?\`, `\\?\UNC\`), or the NT object
 * prefix `\??\`, which Windows passes through untouched. Opening such a path on Windows connects to
 * the host over SMB and can send the user's NTLM hash. A link is data from anywhere, so this is
 * refused on every platform (on POSIX, `//x` is only a stranger spelling of `/x`).
 */
export function isNetworkOrDevicePath(path: string): boolean {
  if (/^[\\/]{2}/.test(path)) return true;
  if (!/^[\\/]/.test(path)) return false;
  // `\??\` also once Windows has resolved the `.` and `..` segments (`/a/../??\` is `\??\`).
  const kept: string[] = [];
  for (const segment of path.slice(1).split(/[\\/]+/)) {
    if (segment === '..') kept.pop();
    else if (segment !== '.' && segment !== '') kept.push(segment);
  }
  return kept[0] === '??';
}

/** True when `text` is a protocol link (its scheme; the rest is for `parseProtocolUrl` to judge). */
export function isProtocolUrl(text: string): boolean {
  return text.slice(0, PROTOCOL_SCHEME.length + 1).toLowerCase() === `${PROTOCOL_SCHEME}:`;
}

/** `session-inspector://open?file=…[&file=…]#…` for `files` at `link`. */
export function protocolUrl(files: readonly string[], link: Link): string {
  const query = files.map((f) => `file=${encodeURIComponent(wellFormed(f))}`).join('&');
  const fragment = formatLink(link);
  return `${PROTOCOL_SCHEME}://${PROTOCOL_ACTION}?${query}${fragment === '#' ? '' : fragment}`;
}

function refuse(message: string): ProtocolOpen {
  return { ok: false, message: `This Session Inspector link cannot be opened: ${message}` };
}

/** Reads a protocol link; never throws. */
export function parseProtocolUrl(text: string): ProtocolOpen {
  if (text.length > MAX_PROTOCOL_URL_LENGTH) return refuse(`it is longer than ${MAX_PROTOCOL_URL_LENGTH} characters.`);
  if (!isProtocolUrl(text)) return refuse(`it does not start with ${PROTOCOL_SCHEME}://.`);
  const hash = text.indexOf('#');
  const beforeHash = hash === -1 ? text : text.slice(0, hash);
  const fragment = hash === -1 ? '' : text.slice(hash);
  const rest = beforeHash.slice(PROTOCOL_SCHEME.length + 1);
  const q = rest.indexOf('?');
  const target = q === -1 ? rest : rest.slice(0, q);
  const query = q === -1 ? '' : rest.slice(q + 1);
  // `//open`, `//open/` (some OSes add the slash), or `open`.
  const action = target.replace(/^\/\//, '').replace(/\/$/, '');
  if (action.toLowerCase() !== PROTOCOL_ACTION) return refuse(`it names ${quotedText(action, 40)}; the only action is ${PROTOCOL_ACTION}.`);
  const files: string[] = [];
  for (const part of query.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const key = eq === -1 ? part : part.slice(0, eq);
    if (key !== 'file') continue;
    let path: string;
    try {
      path = decodeURIComponent(part.slice(eq + 1));
    } catch {
      return refuse('a file path is not valid percent-encoding.');
    }
    // No network share or device (checked on the decoded path, so `%5C%5C` is `\\` too).
    if (isNetworkOrDevicePath(path)) return refuse(`the file ${quotedText(path, 200)} is on a network share or a device; a link opens only a file on this computer's own drives.`);
    // No other scheme (file:, http:…) and no relative path: a link cannot say what it is relative to.
    if (path.includes('\0') || !isAbsolutePath(path)) return refuse(`the file ${quotedText(path, 200)} is not an absolute path.`);
    files.push(path);
  }
  if (files.length === 0) return refuse('it names no file (file=<absolute path>).');
  if (files.length > MAX_FILES) return refuse(`it names ${files.length} files; at most ${MAX_FILES} (a sidecar and/or a session snapshot).`);
  const parsed = parseLink(fragment);
  return { ok: true, files, link: parsed.link, problems: parsed.problems };
}
