/**
 * The command line of SPEC §8: the resolver without a window. Every outcome is compact JSON with a
 * trailing newline on stdout; exit 0 success, 1 `check` found an error-severity finding, 2 any
 * error, which also prints `{"error":{"code","message"}}` on stdout and one sentence on stderr.
 */
import type { LoadOptions } from '../loader/session';
import { CliError, terminalSentence, usageError } from './errors';
import type { OpenDeps } from './open';
import type { CliIo, ParsedFlags } from './output';
import { EXIT_ERROR, EXIT_OK, fdWriter, json, processStream } from './output';

/** The process's stdout and stderr, written synchronously through their descriptors (output.ts fdWriter). */
const stdout = fdWriter(1, (rest) => void processStream('stdout').write(rest));
export const processIo: CliIo = {
  stdout,
  stderr: fdWriter(2, (rest) => void processStream('stderr').write(rest)),
  stdoutBytes: stdout,
  stderrIsTerminal: () => process.getBuiltinModule('node:tty').isatty(2),
};

export { EXIT_OK, EXIT_FINDINGS, EXIT_ERROR } from './output';

/** Error codes this command line prints besides the resolver's own. */
export type CliErrorCode = 'usage' | 'invalid_policy' | 'replay_not_possible' | 'unreadable_file' | 'unrecognized_file' | 'unsupported_version' | 'file_changed' | 'listen_failed' | 'cancelled' | 'internal_error';

/**
 * The outside world of `serve` and `open` (resolver client, signals, package folder, Electron).
 * Tests pass a fake client and a stop promise; anything left out takes its real default.
 */
export type CliDeps = Partial<OpenDeps>;

export const USAGE = `Usage: session-inspector <command> [options] FILE...

FILE... is one or two paths, told apart by content, never by name: a supercode sidecar
(*.sidecar.jsonl) and/or session snapshot (*.session.json; its sibling sidecar is opened
automatically), or one file of another agent: a Claude Code transcript (its subagents and
tool-results are found beside it), a Codex rollout, a SWE-agent .traj or mini-swe-agent
trajectory, an Inspect AI .eval or .json log, an OpenHands V0 trajectory or a V1 conversation
folder's base_state.json or event file. All offsets and sizes are UTF-8 byte counts.

Commands:
  expand --id ID [--range S:E] FILE...
      Print the original content of reduction ID (or the byte range [S, E) of it, both ends
      floored to a character boundary) as an ExpandOutcome.
  search --query Q [--regex] [--ignore-case] [--max-matches N] FILE...
      Search the content currently hidden from the model; print a SidecarSearchResult.
  check [--strict] [--replay] [--max-context PCT] [--must-see Q]... [--regex] [--ignore-case] [--at N] FILE...
      Print {"findings":[...],"summary":{...}}; exit 1 when a finding is an error (with
      --strict, when there is any finding at all, warnings included). The summary names the
      file's format and the sessions it holds, the token usage the file recorded ("tokens":
      calls_recorded, max_context, window, compactions with before/after) and every fall of
      cache reads from one call to the next ("cache_breaks": call, tokens_rewritten, and the
      first message that changed, null when none did). --max-context PCT adds an error
      finding context_over_limit, with the call and a link, for every call whose recorded
      context exceeds PCT % of its context window (the file's own, else the model's as a
      shipped table gives it; a call of no recorded usage or unknown window is not judged).
      --replay re-runs the policy the sidecar header names over the recorded messages, pass
      by pass, adds a policy_divergence warning for
      every place the recorded log differs from what it mints, and prints "replay":{...}
      (with a note instead when the session names no policy or is not a supercode sidecar).
      --must-see Q (repeatable; --regex and --ignore-case apply) adds an error finding
      required_hidden for each reduction that hides a match of Q from the model at the latest
      view (or at call N with --at N), naming the reduction, the call that hid it and a link;
      a Q that matches nothing is a required_not_found warning. summary.must_see counts them.
  log FILE...
      Print {"reductions":[...]}: each live reduction with hidden_bytes, status (verified or
      why not: hash_mismatch, address_out_of_range, original_unavailable), provenance and
      hash_origin (recorded, import, or null when the file does not hold the original), and
      hidden_tokens_est: {tokens,source:"estimated",approximate?,sampled?} for what it hid
      (the original's estimate minus what replaced it, at least 0; null without the original).
  view [--at N] FILE...
      Print what the model was given at model call N (1-based: the call that produced the N-th
      assistant message), or the latest view without --at: {"format","call","calls","messages"},
      each message's content exactly as the model saw it, stubs in place. Token estimates
      (o200k_base; docs/token-estimates.md): tokens_est per message (a number) and for the view
      ({tokens,source:"estimated",approximate?,sampled?}: approximate for Claude models, sampled
      when a part above 8 MiB was counted in chunks), calibration {factor,error,calls,source,
      refused?} when one applies (refused: the file's own fit, not used because its usage does
      not follow its messages), and with --at context_breakdown {system,user,assistant,tool_results,
      summaries,other,in_file,recorded?,not_in_file?}. With --at, "tokens" is
      the usage the file recorded for that call ({input, cache_read, cache_write, output,
      reasoning?, context, window?, source:"recorded"}; input counts cache reads and writes),
      null where the file records none.
  diff --from N --to M FILE...
      Print what changed in the model's input between model calls N and M (either order):
      {"format","from","to","calls","bytes":{"from","to"},"tokens":{"from","to","added",
      "dropped","reduced","restored"},"messages":{"added","dropped","reduced","restored"},
      "reductions":{"applied","undone"},"between","compactions"}. Each reduced or restored run
      of messages carries a line diff of the text the model was given (unified hunks; a side
      over 256 KiB or 10,000 lines gets a note instead) and its tokens_est at each end;
      "tokens" gives each call's context (recorded, else estimated) and the estimated tokens
      each way. "between" the
      reductions logged or undone between the calls, "compactions" the ranges each compaction
      dropped and its summary.
  trace --query Q [--regex] [--ignore-case] FILE...
      Follow Q through the model calls: {"query","occurrences":[{message_index,first_call,
      visible_calls:[[from,to]...],hidden_by:{reduction,kind,call}|null,...}],"truncated"}:
      per match in a message, the calls whose input showed it (inclusive ranges), the
      reduction and the first call that no longer saw it (C+1: only the latest view hides it),
      every hiding, and bytes_at: the reduction and byte range to expand, verified or not.
  export --call N [--as anthropic|openai-chat|openai-responses] [--expanded] [--with-notes] FILE...
      Print the request body that reproduces model call N's input for that provider's API:
      the model as recorded, the messages as the model was given them (stubs and summaries in
      place; --expanded: the originals), every tool call with its result. What the file does not
      record (system prompt, tool schemas, max_tokens…) is left out and named on stderr;
      --with-notes prints {"request","not_recorded","source"}. Without --as: the provider the
      session's agent speaks (Claude Code: anthropic, Codex: openai-responses, others openai-chat).
  bundle --out DIR [--id ID]... [--finding CODE]... [--max-calls N] [--max-time S] [--progress] FILE...
      Write a repro bundle into DIR (new or empty): the smallest session files that still show
      the named findings and reductions (none named: every finding of check), README.md with the
      commands, bundle.spec.ts (Playwright) and bundle.json. Prints {"out","files","minimizer"}.
      Progress (oracle calls, size) is redrawn on stderr when it is a terminal; --progress prints
      it as JSON lines {"progress":{...}} on stderr. Ctrl-C, --max-calls (default 2000) or
      --max-time (seconds) stop the search and write the smallest bundle found so far that still
      reproduces; bundle.json says it was stopped early and lists what was cut.
  view --policy POLICY.json FILE...
      What if: the latest view re-projected under another reduction policy (a JSON object with
      protect_last_n_tool_results, max_tool_result_bytes, kept_prefix_bytes, dedupe and
      clear_turns_before), plus "policy" and "diff": the reductions it adds, removes or changes
      against the recorded log, the messages shown differently, and the bytes given either way;
      tokens_est per message and for the view as without --policy.
  serve [FILE...|DIR] [--port N] [--host H] [--max-upload BYTES] [--link '#…']
      Serve the inspector over HTTP on 127.0.0.1 (or H), port N (default 0: any free port).
      The first line on stdout is "Session Inspector listening on <url>"; the URL carries the
      access token (and --link's place after it). Runs until interrupted (SIGINT/SIGTERM), then exits 0. The page can open a
      file the browser picks or drops (uploaded, at most BYTES: default 2G; K, M, G allowed);
      with DIR it lists the session files in that folder (not its subfolders) to open.
  open [FILE...] [--port N] [--host H] [--link '#…']
      Open the desktop window. Without an Electron binary (or a display), say why on stderr and
      do what serve does instead.
  --link '#call=N&reduction=ID&range=S:E&q=Q&regex=1&case=0' (any subset, any order) starts
      serve and open at that place: the model call, the reduction expanded at the byte range,
      the search run. The app's Copy link button gives such links.
  serve and open without FILE start on the session library (the sessions of sessions below;
      the bundled samples where no agent folder exists). Both follow the files while
      an agent appends to them (new messages appear as they are written); --no-follow opens
      them as they are (a change then stops serving their content).
  sessions [DIR...] [--query Q] [--regex] [--ignore-case] [--since DATE] [--format F]
           [--heads] [--jsonl] [--table] [--no-default-roots]
      List the session library: the sessions under each agent's own folder (Claude Code
      $CLAUDE_CONFIG_DIR/projects or ~/.claude/projects; Codex $CODEX_HOME/sessions and
      archived_sessions, default ~/.codex; Inspect $INSPECT_LOG_DIR or ./logs; SWE-agent
      ./trajectories; mini-swe-agent's and OpenHands' folders) and under each DIR, walked
      recursively (8 levels, links never followed, files told by content). Prints
      {"roots":[{path,agent,exists,sessions}],"sessions":[entry...],"walk":{...}}, newest first;
      each entry's counts come from reading the whole file (kept in a cache under the OS cache
      folder, session-inspector/library, so the next run is fast). --heads prints at once from
      the files' heads (counts null). --query searches every session in what the model was
      given and in what was hidden from it, and lists only the matching ones, each with
      "matches":{visible,hidden,first:[{call,reduction?,snippet,link}]}. --since keeps
      sessions updated since DATE; --format F one format (claude-code, codex, inspect,
      swe-agent, openhands, supercode). --jsonl prints one entry a line as each finishes;
      --table an aligned table (with --query, each session's matches seen and hidden).
      --no-default-roots lists only the DIRs given.
  export --as markdown|html [--redact] [--calls N:M] [--out F] FILE...
      Print the session as one readable document (not JSON): a "## Call N" section per model
      call with the context reduced since the previous call (what was shown instead, hidden
      bytes, the original), the new messages and the response; texts cut at 64 KiB. HTML is one
      file with no script and a CSP that loads nothing. --redact replaces secrets with
      [REDACTED:kind] and prints the counts on stderr; --calls N:M keeps calls N to M;
      --out F writes F (never a file of the session).
  check --follow FILE...
      Check, then keep checking as the file grows: print each new finding as one JSON line;
      ends on SIGINT or when the file is deleted (exit status as check).

Every command but sessions also takes --session ID (a file holding several sessions, such as a Claude Code
transcript and its subagents: open that one; check's summary and the app's picker list them all)
and --format F (read the files as format F instead of detecting it: supercode, claude-code,
codex, swe-agent, inspect). serve and open check both against the file before they start.

Options may come before or after FILE...; --flag=value works too; -- ends the options.
Output is compact JSON with a trailing newline. Exit status: 0 success, 1 check found an error,
2 any error (with {"error":{"code":...,"message":...}} on stdout and a sentence on stderr).
`;

/** `list`: a value flag that may be given again (bundle's --id and --finding). */
type FlagKind = 'value' | 'switch' | 'list';

/** SPEC §10.1–10.2: the session of a file that holds several, and a format forced instead of detected. */
const SOURCE_FLAGS = { session: 'value', format: 'value' } as const;

const COMMANDS = {
  expand: { id: 'value', range: 'value', ...SOURCE_FLAGS },
  search: { query: 'value', regex: 'switch', 'ignore-case': 'switch', 'max-matches': 'value', ...SOURCE_FLAGS },
  check: { strict: 'switch', replay: 'switch', follow: 'switch', 'max-context': 'value', 'must-see': 'list', regex: 'switch', 'ignore-case': 'switch', at: 'value', ...SOURCE_FLAGS },
  log: { ...SOURCE_FLAGS },
  view: { at: 'value', policy: 'value', ...SOURCE_FLAGS },
  diff: { from: 'value', to: 'value', ...SOURCE_FLAGS },
  trace: { query: 'value', regex: 'switch', 'ignore-case': 'switch', ...SOURCE_FLAGS },
  bundle: { out: 'value', id: 'list', finding: 'list', 'max-calls': 'value', 'max-time': 'value', progress: 'switch', ...SOURCE_FLAGS },
  serve: { port: 'value', host: 'value', 'max-upload': 'value', link: 'value', 'no-follow': 'switch', ...SOURCE_FLAGS },
  open: { port: 'value', host: 'value', link: 'value', 'no-follow': 'switch', ...SOURCE_FLAGS },
  export: { call: 'value', as: 'value', expanded: 'switch', 'with-notes': 'switch', redact: 'switch', calls: 'value', out: 'value', ...SOURCE_FLAGS },
  sessions: { query: 'value', regex: 'switch', 'ignore-case': 'switch', since: 'value', format: 'value', heads: 'switch', jsonl: 'switch', table: 'switch', 'no-default-roots': 'switch' },
} as const satisfies Record<string, Record<string, FlagKind>>;

type Command = keyof typeof COMMANDS;

interface Parsed extends ParsedFlags {
  command: Command;
}

function isCommand(name: string): name is Command {
  return Object.prototype.hasOwnProperty.call(COMMANDS, name);
}

/** `--help` or `-h` anywhere before a `--`. */
function wantsHelp(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === '--help' || a === '-h') return true;
  }
  return false;
}

/** The command line parsed: its command, flags and files (a usage error when it is not one). */
export function parseArgs(argv: readonly string[]): Parsed {
  const [name, ...rest] = argv;
  if (name === undefined) throw usageError('no command given: expected expand, search, check, log, view, diff, trace, sessions, open or serve');
  if (!isCommand(name)) {
    throw usageError(name.startsWith('-') ? `expected a command before ${name}: expand, search, check, log, view, diff, trace, sessions, open or serve` : `unknown command ${JSON.stringify(name)}: expected expand, search, check, log, view, diff, trace, sessions, open or serve`);
  }
  const known: Record<string, FlagKind> = COMMANDS[name];
  const flags = new Map<string, string | true>();
  const lists = new Map<string, string[]>();
  const files: string[] = [];
  for (let k = 0; k < rest.length; k++) {
    const arg = rest[k] as string;
    if (arg === '--') {
      for (const f of rest.slice(k + 1)) files.push(f);
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      files.push(arg);
      continue;
    }
    if (!arg.startsWith('--')) throw usageError(`unknown option ${arg} for ${name}`);
    const eq = arg.indexOf('=');
    const flag = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const kind = known[flag];
    if (kind === undefined) throw usageError(`unknown option --${flag} for ${name}`);
    if (flags.has(flag) && kind !== 'list') throw usageError(`--${flag} is given more than once`);
    if (kind === 'switch') {
      if (eq !== -1) throw usageError(`--${flag} takes no value`);
      flags.set(flag, true);
      continue;
    }
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else {
      value = rest[k + 1];
      // `--query --regex` is a forgotten value, not a query; `--query=--regex` searches for it.
      if (value === undefined || value.startsWith('--')) throw usageError(`--${flag} needs a value (write --${flag}=VALUE for a value that starts with --)`);
      k++;
    }
    flags.set(flag, value);
    if (kind === 'list') lists.set(flag, [...(lists.get(flag) ?? []), value]);
  }
  return { command: name, flags, lists, files };
}

/** Prints an error of SPEC §8 (its JSON on stdout, a sentence on stderr) and answers the exit status. */
export function printError(io: CliIo, code: string, message: string): number {
  io.stdout(json({ error: { code, message } }));
  io.stderr(`session-inspector: ${terminalSentence(code === 'usage' ? `${message} (see session-inspector --help)` : message)}\n`);
  return EXIT_ERROR;
}

/**
 * Each command's code is loaded only when it runs (a dynamic import: scripts/build.mjs bundles
 * each target as its own file, required on demand), so a cold `check` or `--help` parses and runs
 * no more than it needs: no HTTP host, worker client or bundle writer, and `--help` no loader.
 */
async function run(argv: readonly string[], io: CliIo, loadOptions: LoadOptions, deps: CliDeps): Promise<number> {
  const { command, ...parsed } = parseArgs(argv);
  switch (command) {
    case 'bundle': {
      const { runBundle } = await import('./bundle');
      return runBundle(parsed.flags, parsed.lists, parsed.files, io);
    }
    case 'export': {
      const { runExport } = await import('./export');
      return runExport(parsed, io, loadOptions);
    }
    case 'sessions': {
      const { runSessions } = await import('./sessions');
      return runSessions(parsed, io, deps.untilStopped, deps.packageRoot);
    }
    case 'serve':
    case 'open': {
      const { runServeCommand } = await import('./serveCommands');
      return runServeCommand(command, parsed, io, deps);
    }
    default: {
      const { runSessionCommand } = await import('./sessionCommands');
      return runSessionCommand(command, parsed, io, loadOptions, deps.untilStopped);
    }
  }
}

/**
 * Runs one command line (`argv` without the node and script paths) and returns its exit status.
 * `loadOptions` and `deps` are for tests (injected reads, small buffers; a fake resolver client).
 */
export async function main(argv: string[], io: CliIo = processIo, loadOptions: LoadOptions = {}, deps: CliDeps = {}): Promise<number> {
  if (argv.length === 0) {
    // No command: the usage goes to stderr so that stdout stays the JSON error of §8.
    const code = printError(io, 'usage', 'no command given: expected expand, search, check, log, view, diff, trace, sessions, open or serve');
    io.stderr(`\n${USAGE}`);
    return code;
  }
  if (wantsHelp(argv)) {
    io.stdout(USAGE);
    return EXIT_OK;
  }
  try {
    return await run(argv, io, loadOptions, deps);
  } catch (e) {
    if (e instanceof CliError) return printError(io, e.code, e.message);
    const message = e instanceof Error ? e.message : String(e);
    return printError(io, 'internal_error', `internal error: ${message}`);
  }
}
