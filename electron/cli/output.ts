/**
 * What every command shares, kept apart from main.ts so that each command's chunk (scripts/build.mjs
 * bundles the commands into separate files, loaded on demand) needs nothing of main.ts at run time.
 */

export const EXIT_OK = 0;
export const EXIT_FINDINGS = 1;
export const EXIT_ERROR = 2;

/** Compact JSON with a trailing newline: every outcome on stdout (SPEC §8). */
export function json(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

/** A parsed command line: the command's flags (`list` flags also in `lists`, in order) and FILE... */
export interface ParsedFlags {
  flags: Map<string, string | true>;
  lists: Map<string, string[]>;
  files: string[];
}
