/**
 * Text from a session file or a link (a file name, session id, model, reduction or tool-call id,
 * tool name, a link's value) as one line of plain text: every character that could hide, reorder
 * or break the line — C0 and C1 controls (tab and newline included), DEL, bidirectional and
 * zero-width controls, other invisible format characters, line separators and lone surrogates —
 * is shown as a visible symbol (`␛`, `⟨U+202E⟩`), the same symbol terminal text uses. Escape
 * sequences are not interpreted: a name is not terminal output, so an OSC 52 in it shows as
 * `␛]52;c;…␇`, every byte of it visible.
 *
 * Pure, so every layer that makes a sentence quoting such text (the link parsers, the renderer's
 * alerts, generated Markdown) escapes it where the sentence is made.
 */

// eslint-disable-next-line no-control-regex -- control characters are exactly what this looks for
const UNSAFE_IN_LINE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** What a special character looks like on screen: a control picture for C0 and DEL, else `⟨U+XXXX⟩`. */
export function visibleSymbol(code: number): string {
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  return `\u27e8U+${code.toString(16).toUpperCase().padStart(4, '0')}\u27e9`;
}

/** `text` with each character `nameText` would change replaced by `replace(character)` (one or two UTF-16 units). */
export function replaceInvisible(text: string, replace: (character: string) => string): string {
  return text.replace(UNSAFE_IN_LINE, replace);
}

/** `name` as one line of visible text (see the file comment). */
export function nameText(name: string): string {
  return replaceInvisible(name, (c) => visibleSymbol(c.codePointAt(0) ?? 0));
}

/**
 * `text` for a sentence: visible (`nameText`), cut to `max` characters with `…`, in double quotes
 * (JSON-style, so a quote or backslash in it cannot end the quotation).
 */
export function quotedText(text: string, max = 40): string {
  const points = Array.from(text);
  const cut = points.length > max ? `${points.slice(0, max).join('')}…` : text;
  return JSON.stringify(nameText(cut));
}
