import { replaceInvisible } from '../../shared/format/visibleText';

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
 * One line for stderr, with every character that a terminal could act on or that could hide or
 * reorder the line written as a visible ASCII escape (`\u001b`): controls (ESC starts OSC 52
 * clipboard writes, title changes, cursor moves), bidi and zero-width characters, line separators
 * and lone surrogates — the set `nameText` shows (`shared/format/visibleText.ts`). A message can quote a
 * file name or an id taken from a session file, and stderr is a terminal that would otherwise run
 * its escape sequences. Ends with a full stop if it has no end mark.
 */
export function terminalSentence(message: string): string {
  const s = replaceInvisible(message.trim(), (c) => c.split('').map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''));
  return /[.!?]$/.test(s) ? s : `${s}.`;
}

/** What the change helpers below ask of a session: LoadedSession.fileChange. */
interface Watched {
  fileChange(): { message: string } | undefined;
}

/**
 * `write`, handing each text on only while the session's files are as they were opened, else
 * `file_changed`: an output read from the files as it is written (docs/export-documents.md,
 * "Written as it is made") carries no byte read after a change.
 */
export function writtenWhileUnchanged(session: Watched, write: (text: string) => void): (text: string) => void {
  return (text) => {
    const changed = session.fileChange();
    if (changed) throw new CliError('file_changed', changed.message);
    write(text);
  };
}

/** An error met while a session's files have changed since they were opened is that change (bytes read after it may not parse): `file_changed`; any other error as it is. */
export function asFileChange(session: Watched, e: unknown): unknown {
  if (e instanceof CliError) return e;
  const changed = session.fileChange();
  return changed ? new CliError('file_changed', changed.message) : e;
}
