/** Constants of SPEC §4. */

/** Every stub contains this text; original content containing it means a reduction was minted over a stub. */
export const REDUCTION_SENTINEL = '\u27E6reduced\u27E7';

/** Starts every cap notice a runtime appended to a capped tool output (legacy, gate off). */
export const CAP_NOTICE_MARKER = '\n\u27E6capped\u27E7';

export const MAX_MATCHES = 50;
export const SNIPPET_MAX_BYTES = 256;
/** Bound on the UTF-8 bytes of a search result's compact JSON serialization. */
export const MAX_RESULT_BYTES = 16384;

/**
 * Most instructions a search pattern may compile to (RE2's "program size"). The engine's work per
 * byte scanned grows with it: `x{1000}` is a thousand copies of `x`, so `[\s\S]{1000}` written ten
 * times compiles to ten thousand. Ordinary patterns stay far below (`\w{2,80}` is 160,
 * `(?s).{0,1000}x` about 2,000); a case-insensitive substring compiles to about one per character.
 */
export const MAX_REGEX_PROGRAM_SIZE = 2048;

export const REASONING_METADATA_KEYS: readonly string[] = [
  'reasoning',
  'reasoning_content',
  'reasoning_details',
  'thinking',
  'thinking_signature',
  'encrypted_reasoning',
];

export const REASONING_CONTENT_PART_TYPES: readonly string[] = ['thinking', 'redacted_thinking', 'reasoning'];

/** The highest file format version this build reads. */
export const FORMAT_VERSION = 1;
export const SIDECAR_FORMAT = 'supercode-sidecar';
export const SESSION_FORMAT = 'supercode-session';

/** The stub text of §4: what the model saw in place of hidden content. */
export function stubText(id: string, kind: string, hiddenBytes: number): string {
  return `${REDUCTION_SENTINEL} id=${id} kind=${kind} hidden_bytes=${hiddenBytes} \u2014 expand_reduction("${id}") restores it`;
}

/** The cap notice a runtime appends after keeping a prefix of a tool output. */
export function capNotice(moreBytes: number): string {
  return `${CAP_NOTICE_MARKER} ${moreBytes} more bytes not kept`;
}
