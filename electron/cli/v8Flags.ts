/**
 * V8 flags a command sets for its run: the heap's growth of a session command
 * (sessionCommands.ts), the interrupt budget of a listing (listingTiering.ts), and the flags the
 * user gave, which a command keeps (sessionThread.ts, listingTiering.ts). A flag is the process's:
 * one set for a run is set back to V8's own when the run ends, because V8 refuses a code cache made
 * under other flags than those it is read under, and the command line writes its chunks' cache
 * after the run (chunkLoader.ts).
 */

// Fetched when used: dist/cli.cjs holds this file, and `--help` loads no more than it needs (chunkLoader.ts).
const setFlagsFromString = (flags: string): void => process.getBuiltinModule('node:v8').setFlagsFromString(flags);

/** The process's own V8 flags: its command line's and `NODE_OPTIONS`'. */
export interface GivenFlags {
  execArgv?: readonly string[];
  env?: NodeJS.ProcessEnv;
}

/**
 * Whether the user gave one of `names` (such as `--interrupt-budget`), in the command line or
 * `NODE_OPTIONS`: V8 reads `_` and `-` alike in a name, and takes its value after `=` or as the next
 * argument; a flag whose name only begins so (`--interrupt-budget-for-maglev`) is another.
 */
export function gaveV8Flag(names: readonly string[], given: GivenFlags = {}): boolean {
  const flags = [...(given.execArgv ?? process.execArgv), ...((given.env ?? process.env).NODE_OPTIONS ?? '').split(/\s+/)];
  return flags.some((f) => names.includes(f.replace(/_/g, '-').split('=')[0] as string));
}

/** Runs `run` with V8's flag `name` at `value`, and sets `own` (V8's own value) back when it ends, however it ends. */
export async function withV8Flag<T>(name: string, value: number, own: number, run: () => Promise<T>): Promise<T> {
  setFlagsFromString(`${name}=${value}`);
  try {
    return await run();
  } finally {
    setFlagsFromString(`${name}=${own}`);
  }
}
