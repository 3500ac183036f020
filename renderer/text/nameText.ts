/**
 * A name from a session file (a file name, session id, model, reduction or tool-call id, tool
 * name) as one line of plain text: every character that could hide, reorder or break the line —
 * C0 and C1 controls (tab and newline included), DEL, bidirectional and zero-width controls, other
 * invisible format characters, line separators and lone surrogates — is shown as the same visible
 * symbol terminal text uses (`␛`, `⟨U+202E⟩`). Escape sequences are not interpreted: a name is
 * not terminal output, so an OSC 52 in it shows as `␛]52;c;…␇`, every byte of it visible.
 */
import { visibleSymbol } from './terminalText';

// eslint-disable-next-line no-control-regex -- control characters are exactly what this looks for
const UNSAFE_IN_NAME = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function nameText(name: string): string {
  return name.replace(UNSAFE_IN_NAME, (c) => (c.length === 2 ? `\u27e8U+${c.codePointAt(0)?.toString(16).toUpperCase()}\u27e9` : visibleSymbol(c.charCodeAt(0))));
}
