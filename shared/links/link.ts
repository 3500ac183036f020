/**
 * Links (SPEC §12, §14): a place in a session named by a URL fragment,
 * `#file=PATH&root=ID&call=N&reduction=ID&range=S:E&q=Q&regex=1&case=0` — any subset, in any order.
 * `file` names the session's file relative to one of the host's roots (`root` when it has several);
 * the host resolves it against its own listing only (docs/sessions-and-links.md).
 *
 * Invariants:
 *  - `parseLink` never throws, on any string: a value it cannot use is left out of the link and
 *    named in `problems` (a sentence the app shows), the rest of the link still applies.
 *  - `parseLink(formatLink(link))` gives back `link` with no problems (for every well-formed link).
 *  - Unknown keys are ignored (a later version may add some; an older app still opens the place).
 *  - Values are percent-encoded with `encodeURIComponent` and decoded with `decodeURIComponent`;
 *    `+` is a plus sign, not a space (a query may hold one). A lone surrogate, which no URL can
 *    carry, is written as U+FFFD.
 *  - A problem sentence holds no raw control, bidi or zero-width character: a value it quotes is
 *    shown visibly, wherever the sentence is shown.
 */
import { wellFormed } from '../format/utf8';
import { quotedText } from '../format/visibleText';

/** A place in a session. Absent parts: the latest view, nothing open, no search. */
export interface Link {
  /**
   * The session's file, relative to a root of the host (`/` between folders): a name the host listed,
   * never a path it opens as given. Absent: the session the window has open.
   */
  file?: string;
  /** Which of the host's roots `file` is relative to, when the host has several. */
  root?: string;
  /** The model call whose input is shown (1-based, SPEC §11). */
  call?: number;
  /** The reduction open (expanded) under its stub. */
  reduction?: string;
  /** The byte range `[start, end)` of the open reduction shown. */
  range?: readonly [number, number];
  /** The search query. */
  q?: string;
  /** `regex=1`: the query is a regular expression (`regex=0`: a substring, the default). */
  regex?: boolean;
  /** `case=0`: case-insensitive (`case=1`: case-sensitive, the default). */
  caseSensitive?: boolean;
}

export interface LinkParse {
  link: Link;
  /** One sentence per value that could not be used; empty for a well-formed link. */
  problems: string[];
}

/** The keys a link may carry, in the order `formatLink` writes them. */
export const LINK_KEYS = ['file', 'root', 'call', 'reduction', 'range', 'q', 'regex', 'case'] as const;

function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** A whole number written in decimal digits that fits a safe integer, else undefined. */
function wholeNumber(text: string): number | undefined {
  if (!/^\d{1,16}$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

function flag(text: string): boolean | undefined {
  return text === '1' ? true : text === '0' ? false : undefined;
}

/**
 * Shown in a problem sentence: short, quoted, every control, bidi and zero-width character a
 * visible symbol (`quotedText`), so a link cannot make the app's own sentence say something else.
 */
function quoted(text: string): string {
  return quotedText(text, 40);
}

/** Longest root-relative path a link may name, in characters. */
export const MAX_LINK_PATH_CHARS = 1024;
/** Longest root id a link may name. */
export const MAX_LINK_ROOT_CHARS = 200;

/**
 * Why `path` cannot be a link's root-relative file path, as a sentence; undefined when it can. A
 * path that passes is still only a name to look up in the host's listing, never opened as given:
 * this check refuses early, and says why, what no listing could hold (absolute, drive and UNC
 * paths, `.` and `..` segments, backslashes, empty segments, control characters).
 */
export function linkPathProblem(path: string): string | undefined {
  if (path === '') return 'The link names an empty file path; no file is opened.';
  if (path.length > MAX_LINK_PATH_CHARS) return `The link's file path is longer than ${MAX_LINK_PATH_CHARS} characters; no file is opened.`;
  const shown = quotedText(path, 120);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(path)) return `The link's file path ${shown} holds a control character; no file is opened.`;
  if (path.includes('\\')) return `The link's file path ${shown} holds a backslash: a link names a file relative to a root of the host, with / between folders; no file is opened.`;
  if (path.startsWith('/')) return `The link's file path ${shown} is absolute: a link names a file relative to a root of the host; no file is opened.`;
  if (/^[A-Za-z]:/.test(path)) return `The link's file path ${shown} names a drive: a link names a file relative to a root of the host; no file is opened.`;
  if (path.split('/').some((seg) => seg === '' || seg === '.' || seg === '..')) return `The link's file path ${shown} has an empty, . or .. part: a link names a file inside a root of the host; no file is opened.`;
  return undefined;
}

/** Reads a fragment (with or without its leading `#`; a whole URL's fragment is taken after its first `#`). */
export function parseLink(fragment: string): LinkParse {
  const link: Link = {};
  const problems: string[] = [];
  const hash = fragment.indexOf('#');
  const body = hash === -1 ? fragment : fragment.slice(hash + 1);
  const seen = new Set<string>();
  for (const part of body.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const rawKey = eq === -1 ? part : part.slice(0, eq);
    const rawValue = eq === -1 ? '' : part.slice(eq + 1);
    const key = decode(rawKey);
    if (key === undefined || !(LINK_KEYS as readonly string[]).includes(key)) continue;
    const value = decode(rawValue);
    if (value === undefined) {
      problems.push(`The link's ${key} is not valid percent-encoding (${quoted(rawValue)}); it is ignored.`);
      continue;
    }
    if (seen.has(key)) {
      problems.push(`The link names ${key} more than once; the first one is used.`);
      continue;
    }
    seen.add(key);
    switch (key) {
      case 'file': {
        const problem = linkPathProblem(value);
        if (problem !== undefined) problems.push(problem);
        else link.file = value;
        break;
      }
      case 'root':
        // eslint-disable-next-line no-control-regex
        if (value === '' || value.length > MAX_LINK_ROOT_CHARS || /[\u0000-\u001f\u007f-\u009f]/.test(value)) problems.push(`The link's root must name one of the host's roots, not ${quoted(value)}; the host's first root is used.`);
        else link.root = value;
        break;
      case 'call': {
        const n = wholeNumber(value);
        if (n === undefined || n < 1) problems.push(`The link's call must be a model call number from 1, not ${quoted(value)}; the latest view is shown.`);
        else link.call = n;
        break;
      }
      case 'reduction':
        if (value === '') problems.push('The link names an empty reduction id; no reduction is opened.');
        else link.reduction = value;
        break;
      case 'range': {
        const m = /^(\d+):(\d+)$/.exec(value);
        const s = m ? wholeNumber(m[1] as string) : undefined;
        const e = m ? wholeNumber(m[2] as string) : undefined;
        if (s === undefined || e === undefined) problems.push(`The link's range must be S:E in bytes, not ${quoted(value)}; the reduction is shown from its start.`);
        else if (s > e) problems.push(`The link's range starts after it ends (${s}:${e}); the reduction is shown from its start.`);
        else link.range = [s, e];
        break;
      }
      case 'q':
        link.q = value;
        break;
      case 'regex': {
        const b = flag(value);
        if (b === undefined) problems.push(`The link's regex must be 1 or 0, not ${quoted(value)}; a substring search is run.`);
        else link.regex = b;
        break;
      }
      case 'case': {
        const b = flag(value);
        if (b === undefined) problems.push(`The link's case must be 1 or 0, not ${quoted(value)}; the search is case-sensitive.`);
        else link.caseSensitive = b;
        break;
      }
    }
  }
  return { link, problems };
}

/** Writes `link` as a fragment with its leading `#` (just `#` for an empty link), keys in LINK_KEYS order. */
export function formatLink(link: Link): string {
  const parts: string[] = [];
  const put = (key: string, value: string): void => void parts.push(`${key}=${encodeURIComponent(wellFormed(value))}`);
  // `/` is left readable in a path: encodeURIComponent would write it as %2F.
  if (link.file !== undefined) parts.push(`file=${encodeURIComponent(wellFormed(link.file)).replace(/%2F/g, '/')}`);
  if (link.root !== undefined) put('root', link.root);
  if (link.call !== undefined) put('call', String(link.call));
  if (link.reduction !== undefined) put('reduction', link.reduction);
  // `:` is left readable: encodeURIComponent would write it as %3A.
  if (link.range !== undefined) parts.push(`range=${link.range[0]}:${link.range[1]}`);
  if (link.q !== undefined) put('q', link.q);
  if (link.regex !== undefined) put('regex', link.regex ? '1' : '0');
  if (link.caseSensitive !== undefined) put('case', link.caseSensitive ? '1' : '0');
  return `#${parts.join('&')}`;
}

/** True when the link names no place at all. */
export function isEmptyLink(link: Link): boolean {
  return Object.values(link).every((v) => v === undefined);
}
