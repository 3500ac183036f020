/**
 * The oracle of the specs: the command line runs the same resolver without a window (SPEC §8), so
 * what the UI shows is compared with what `expand`, `search`, `check` and `log` print for the same files.
 */
import { execFileSync } from 'node:child_process';
import type { CheckReport } from '../shared/contract';
import type { LogReportEntry } from '../shared/resolver/status';
import type { ExpandOutcome, SidecarSearchResult } from '../shared/format/types';
import { CLI, REPO_ROOT } from './paths';

export interface CliRun {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs `session-inspector <args>` to completion. */
export function runCli(args: readonly string[]): CliRun {
  try {
    const stdout = execFileSync(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
    return { status: 0, stdout, stderr: '' };
  } catch (e) {
    const failed = e as { status?: number | null; stdout?: string; stderr?: string };
    return { status: failed.status ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

function json<T>(args: readonly string[], okStatuses: readonly number[] = [0]): T {
  const run = runCli(args);
  if (!okStatuses.includes(run.status)) {
    throw new Error(`session-inspector ${args.join(' ')} exited ${run.status}: ${run.stderr.trim() || run.stdout.trim()}`);
  }
  return JSON.parse(run.stdout) as T;
}

/** `expand --id ID [--range S:E] FILE...` */
export function cliExpand(files: readonly string[], id: string, range?: readonly [number, number]): ExpandOutcome {
  return json<ExpandOutcome>(['expand', '--id', id, ...(range ? ['--range', `${range[0]}:${range[1]}`] : []), ...files]);
}

export interface SearchFlags {
  regex?: boolean;
  caseSensitive?: boolean;
}

/** `search --query Q [--regex] [--ignore-case] FILE...` with the agent's bounds. */
export function cliSearch(files: readonly string[], query: string, flags: SearchFlags = {}): SidecarSearchResult {
  const args = ['search', '--query', query];
  if (flags.regex) args.push('--regex');
  if (flags.caseSensitive === false) args.push('--ignore-case');
  return json<SidecarSearchResult>([...args, ...files]);
}

/** `check FILE...` (exit 1 means an error-severity finding, which is still a report). */
export function cliCheck(files: readonly string[]): CheckReport {
  return json<CheckReport>(['check', ...files], [0, 1]);
}

/** `log FILE...` (SPEC §10.2): each live reduction with its status, provenance and hash origin. */
export function cliLog(files: readonly string[]): LogReportEntry[] {
  return json<{ reductions: LogReportEntry[] }>(['log', ...files]).reductions;
}

/** The `{ error }` a file the CLI cannot open prints (exit 2). */
export function cliOpenError(files: readonly string[]): { code: string; message: string } {
  const run = runCli(['check', ...files]);
  if (run.status !== 2) throw new Error(`expected check ${files.join(' ')} to fail with exit 2, got ${run.status}`);
  return (JSON.parse(run.stdout) as { error: { code: string; message: string } }).error;
}

/** What `view [--at N] FILE...` prints of the instructions and the messages (SPEC §11, shared/resolver/instructions.ts, shared/calls/calls.ts ViewEntry). */
export interface CliViewInstructions {
  calls: number;
  instructions?: { source: string; kind?: string; placement: string; index: number; line: number; text: string }[];
  messages: { index: number; role: string | null; content: string; reductions: string[]; compact_summary?: true }[];
}

/** `view [--at N] FILE...` */
export function cliView(files: readonly string[], at?: number): CliViewInstructions {
  return json<CliViewInstructions>(['view', ...(at !== undefined ? ['--at', String(at)] : []), ...files]);
}
