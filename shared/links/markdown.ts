/**
 * Quoting for text that leaves the app as Markdown or HTML (a repro bundle's README, exports):
 * a string from a session file or a link is data, never markup. In Markdown it is always inside a
 * code span or a fenced code block whose fence is longer than any run of backticks in it, with
 * every control, bidi, zero-width and line-breaking character shown as a visible symbol
 * (`nameText`), so nothing in it can end the code, start a line or reorder what the reader sees.
 * Inside code, CommonMark interprets nothing: no heading, link, image, HTML or emphasis.
 */
import { wellFormed } from '../format/utf8';
import { nameText } from '../format/visibleText';

/** The longest run of backticks in `text` (0 for none). */
function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}

/**
 * `text` as one inline code span (CommonMark §6.1) on one line: its fence is one backtick longer
 * than any run inside, and a space pads each side when the content starts or ends with a backtick
 * or a space (CommonMark strips exactly one such space from each side). The empty string is a
 * span holding one space (a code span cannot be empty).
 */
export function codeSpan(text: string): string {
  const shown = nameText(text);
  if (shown === '') return '` `';
  const fence = '`'.repeat(longestBacktickRun(shown) + 1);
  const pad = /^[` ]|[` ]$/.test(shown) && /[^ ]/.test(shown) ? ' ' : '';
  return `${fence}${pad}${shown}${pad}${fence}`;
}

/**
 * `text` as a fenced code block (CommonMark §4.5), its lines split at `\n` and each shown visibly
 * (a carriage return, tab or other control in a line is a symbol, never a line break). The fence
 * is at least three backticks and longer than any run inside, so no line of `text` closes it.
 * `info` (a language name such as `sh`) keeps only letters, digits, `+`, `-` and `_`.
 */
export function codeBlock(text: string, info = ''): string {
  const lines = text === '' ? [] : text.split('\n').map(nameText);
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(lines.join('\n')) + 1));
  return [`${fence}${info.replace(/[^A-Za-z0-9+_-]/g, '')}`, ...lines, fence].join('\n');
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * `text` as HTML character data, safe in an element and in a quoted attribute value: `&`, `<`,
 * `>`, `"` and `'` become entities, and a lone surrogate (which no HTML file can hold) becomes
 * U+FFFD. Line breaks and other characters stay as they are: pass a name through `nameText` first.
 */
export function htmlText(text: string): string {
  return wellFormed(text).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}
