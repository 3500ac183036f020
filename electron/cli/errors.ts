/**
 * Marks a CliError. The command line runs as several bundles (scripts/build.mjs: main.ts in
 * dist/cli.cjs, each command in its own chunk loaded on demand), each with its own copy of this
 * class; a registered symbol is the same in all of them, so `instanceof CliError` holds for an
 * error thrown by any copy.
 */
const CLI_ERROR = Symbol.for('session-inspector.CliError');

/** The command line's error: a SPEC §8 code and a message, printed as JSON on stdout (exit 2). */
export class CliError extends Error {
  readonly [CLI_ERROR] = true;

  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as { [CLI_ERROR]?: unknown })[CLI_ERROR] === true;
  }
}

export function usageError(message: string): CliError {
  return new CliError('usage', message);
}

/**
 * Controls a terminal acts on (C0, DEL, C1 — ESC starts OSC 52 clipboard writes, title changes,
 * cursor moves), bidirectional overrides and isolates (they reorder what the line says), line and
 * paragraph separators, and lone surrogates (not text at all).
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this looks for
const UNSAFE_FOR_TERMINAL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * One line for stderr, with every character a terminal could act on written as a visible escape
 * (`\u001b`): a message can quote a file name or an id taken from a session file, and stderr is a
 * terminal that would otherwise run its escape sequences. Ends with a full stop if it has no end mark.
 */
export function terminalSentence(message: string): string {
  const s = message.trim().replace(UNSAFE_FOR_TERMINAL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return /[.!?]$/.test(s) ? s : `${s}.`;
}
