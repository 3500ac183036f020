/**
 * A session whose content attacks whatever shows it: HTML and script tags, `javascript:` and
 * markdown links, terminal escape sequences that move the cursor, clear the screen, set the window
 * title (OSC 0/2) and make hyperlinks (OSC 8), bidirectional overrides and isolates, zero-width
 * characters and a 100,000-character line — in a user message, a tool call's name and arguments,
 * a visible tool output, and tool outputs hidden by reductions (so expanding shows them too).
 * The reductions are minted by the reference projection pass (`mintReductions`), hashes and all.
 */
import type { ChatMessage, Reduction, ReductionPolicy, SidecarHeader } from '../shared/format/types';
import { mintReductions } from '../shared/resolver/mint';

export const SCRIPT_TAG = '<script>alert(1)</script>';
export const IMG_TAG = '<img src=x onerror=alert(1)>';
export const JS_LINK = '<a href="javascript:alert(1)">click</a>';
export const MARKDOWN_LINKS = '[click me](javascript:alert(1)) and ![logo](x" onerror="alert(1)) and <https://example.com/>';
/** Clear the screen, home the cursor, cursor up and to (5,5), hide the cursor, red text, reset. */
export const CURSOR_MOVES = '\u001b[2J\u001b[H\u001b[10A\u001b[5;5H\u001b[?25l\u001b[31mred alert\u001b[0m after';
/** OSC 0 (icon and title) ended by BEL, OSC 2 (title) ended by ST. */
export const TITLE_CHANGES = '\u001b]0;PWNED-TITLE-0\u0007\u001b]2;PWNED-TITLE-2\u001b\\title escapes end';
/** An OSC 8 hyperlink to a javascript: URL around plain text. */
export const HYPERLINK = '\u001b]8;;javascript:alert(1)\u001b\\hyperlink text\u001b]8;;\u001b\\';
/** RIGHT-TO-LEFT OVERRIDE (U+202E) and the isolates U+2066–U+2069. */
export const BIDI = 'invoice\u202Efdp.exe ends \u2066left-to-right isolate\u2069 \u2067right-to-left\u2069 \u2068first strong\u2069';
/** ZERO WIDTH SPACE, ZERO WIDTH JOINER between ASCII letters, a BOM inside text. */
export const ZERO_WIDTH = 'zero\u200Bwidth join\u200Dhere bom\uFEFFinside';
export const LONG_LINE = `${'L'.repeat(99_990)}END-OF-100K`;

/** The hostile lines, one per attack, as a tool might print them. */
export const HOSTILE_LINES = [SCRIPT_TAG, IMG_TAG, JS_LINK, 'javascript:alert(1)', MARKDOWN_LINKS, CURSOR_MOVES, TITLE_CHANGES, HYPERLINK, BIDI, ZERO_WIDTH];

const output = (what: string) => `${what}\n${HOSTILE_LINES.join('\n')}\n${LONG_LINE}\n`;

/** Pass 1 truncates the first output after its first line; pass 2 elides the second whole. */
const truncatePolicy: ReductionPolicy = { protect_last_n_tool_results: 0, max_tool_result_bytes: 256, kept_prefix_bytes: 24, dedupe: false, clear_turns_before: null };
const elidePolicy: ReductionPolicy = { protect_last_n_tool_results: 1, max_tool_result_bytes: 256, kept_prefix_bytes: 0, dedupe: false, clear_turns_before: null };

export interface HostileSession {
  view: ChatMessage[];
  log: Reduction[];
  /** The sidecar's text (JSON Lines). */
  sidecar: string;
}

export function hostileSession(): HostileSession {
  const view: ChatMessage[] = [
    { role: 'user', content: `Fetch the page and tell me what ${SCRIPT_TAG} does. See ${MARKDOWN_LINKS}.` },
    {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'call_1', name: IMG_TAG, arguments: JSON.stringify({ url: 'javascript:alert(1)', cmd: SCRIPT_TAG, note: `${BIDI} ${ZERO_WIDTH}`, ansi: CURSOR_MOVES }) }],
    },
    { role: 'tool', tool_call_id: 'call_1', content: output('fetched page 1 of 3 ok.') },
  ];
  const log = mintReductions(view, truncatePolicy);
  view.push(
    { role: 'assistant', content: '', tool_calls: [{ id: 'call_2', name: 'shell', arguments: '{"cmd":"cat page2.html"}' }] },
    { role: 'tool', tool_call_id: 'call_2', content: output('page 2:') },
    { role: 'assistant', content: '', tool_calls: [{ id: 'call_3', name: 'shell', arguments: '{"cmd":"cat page3.html"}' }] },
    { role: 'tool', tool_call_id: 'call_3', content: output('page 3 (the model still sees this one):') },
  );
  log.push(...mintReductions(view, elidePolicy, log));
  view.push({ role: 'assistant', content: `Done. ${JS_LINK} ${TITLE_CHANGES} ${HYPERLINK}` });

  const header: SidecarHeader = { t: 'header', format: 'supercode-sidecar', version: 1, session_id: `s-${SCRIPT_TAG}`, created_at: '2026-11-30T12:00:00Z', model: IMG_TAG, gate: true, policy: elidePolicy };
  const records: object[] = [header, { t: 'system', msg: { role: 'system', content: `You are supercode. ${SCRIPT_TAG}` } }];
  view.forEach((msg, i) => records.push({ t: 'message', i, msg }));
  for (const r of log) records.push({ t: 'reduction', r });
  return { view, log, sidecar: records.map((r) => `${JSON.stringify(r)}\n`).join('') };
}
