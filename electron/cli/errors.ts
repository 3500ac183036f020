/** The command line's error: a SPEC §8 code and a message, printed as JSON on stdout (exit 2). */
export class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function usageError(message: string): CliError {
  return new CliError('usage', message);
}
