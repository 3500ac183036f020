/**
 * SPEC §16 `trace --query Q [--regex] [--ignore-case] FILE...`: a piece of text followed through
 * the model calls (shared/calls/trace.ts), and SPEC §15 `check --must-see Q [--at N]`, the CI gate
 * over the same core (shared/calls/mustSee.ts). docs/trace.md describes both outputs.
 */
import type { GateFinding, MustSeeSummary } from '../../shared/calls/mustSee';
import { mustSee } from '../../shared/calls/mustSee';
import type { TraceOptions, TraceResult, TraceSession } from '../../shared/calls/trace';
import { trace } from '../../shared/calls/trace';
import type { LoadedSession } from '../loader/session';
import { FileChangedError, nodeSha256 } from '../loader/session';
import { CliError, usageError } from './errors';
import { parseAt } from './view';

type Flags = ReadonlyMap<string, string | true>;

/** `--regex` and `--ignore-case` as search options. */
export function queryModeFlags(flags: Flags): Pick<TraceOptions, 'mode' | 'case_sensitive'> {
  return { mode: flags.has('regex') ? 'regex' : 'substring', case_sensitive: !flags.has('ignore-case') };
}

/** `check`'s gate flags, checked before any file is read; undefined without `--must-see`. */
export function parseMustSee(flags: Flags, lists: ReadonlyMap<string, string[]>): { queries: string[]; at: number | undefined } | undefined {
  const queries = lists.get('must-see') ?? [];
  const at = parseAt(flags);
  if (queries.length === 0) {
    for (const flag of ['at', 'regex', 'ignore-case']) if (flags.has(flag)) throw usageError(`--${flag} applies to --must-see; give --must-see Q`);
    return undefined;
  }
  if (flags.has('follow')) throw usageError('--must-see checks a session as it is; it does not combine with --follow');
  if (queries.some((q) => q === '')) throw usageError('--must-see needs a non-empty query');
  return { queries, at };
}

function traceSession(session: LoadedSession): TraceSession {
  return { timeline: session.callTimeline, minted: session.minted, ...(session.recorded ? { recorded: session.recorded } : {}), log: session.log };
}

/** Runs `body` between two looks at the files (a trace reads contents): a changed file is `file_changed`. */
function betweenChecks<T>(session: LoadedSession, body: () => T): T {
  const before = session.fileChange();
  if (before) throw new CliError('file_changed', before.message);
  let value: T;
  try {
    value = body();
  } catch (e) {
    if (e instanceof FileChangedError) throw new CliError('file_changed', e.message);
    throw e;
  }
  const after = session.fileChange();
  if (after) throw new CliError('file_changed', after.message);
  return value;
}

function checkAt(session: LoadedSession, at: number | undefined): void {
  if (at === undefined) return;
  const calls = session.calls.length;
  if (at < 1 || at > calls) throw usageError(calls === 0 ? `--at ${at}: the session has no model calls; leave out --at for the latest view` : `--at ${at} is out of range: the session's model calls are 1 to ${calls}`);
}

/** The JSON `trace` prints (TraceResult). */
export function traceOutput(session: LoadedSession, query: string, flags: Flags): TraceResult {
  const result = betweenChecks(session, () => trace(traceSession(session), query, { ...queryModeFlags(flags), sha256: nodeSha256 }));
  if (!result.ok) throw new CliError(result.error.code, result.error.message);
  return result.value;
}

/** The gate's findings and summary for `check --must-see`. */
export function mustSeeOutput(session: LoadedSession, gate: { queries: string[]; at: number | undefined }, flags: Flags): { findings: GateFinding[]; summary: MustSeeSummary[] } {
  checkAt(session, gate.at);
  const result = betweenChecks(session, () => mustSee(traceSession(session), gate.queries, { ...queryModeFlags(flags), sha256: nodeSha256, at: gate.at ?? null }));
  if (!result.ok) throw new CliError(result.error.code, result.error.message);
  return result.value;
}
