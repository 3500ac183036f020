/**
 * The commands that read a session: expand, search, check (and check --follow), log, view, diff, trace. main.ts
 * loads this module only when one of them runs (scripts/build.mjs bundles it as dist/cli-session.cjs),
 * so `--help`, `serve` and `bundle` never load the loader, and these never load the HTTP host.
 */
import { statSync } from 'node:fs';
import type { ByteRange, CheckReport, Finding, SearchOptions } from '../../shared/index';
import { ContentUnavailableError, byLineThenIndex, contextOverLimit, logReport } from '../../shared/index';
import type { LoadedSession, LoadOptions } from '../loader/session';
import { FileChangedError, ONE_SHOT_CACHE, loadSession } from '../loader/session';
import { contentUnreadable } from '../../shared/resolver/original';
import { checkWithReplay } from '../loader/replay';
import { runCheckFollow } from './checkFollow';
import { CliError, asFileChange, usageError, writtenWhileUnchanged } from './errors';
import type { CliIo, ParsedFlags } from './output';
import { EXIT_FINDINGS, EXIT_OK, json, Utf8Text, writeJson } from './output';
import { untilSignal } from './signals';
import { SessionEstimates, recordedContextOf } from '../tokens/sessionEstimates';
import { startTextCounter } from '../tokens/textCounter';
import { ContentsCountedAhead } from '../tokens/countWhileBuilding';
import { mustSeeOutput, parseMustSee, traceOutput } from './trace';
import { countViewAhead, parseAt, prepareView, readPolicyFlag, viewOutput, whatIfOutput } from './view';
import { diffOutput, parseDiffCalls } from './diff';
import { withV8Flag } from './v8Flags';

export type SessionCommand = 'expand' | 'search' | 'check' | 'log' | 'view' | 'diff' | 'trace';

function requiredValue(flags: Map<string, string | true>, flag: string, command: SessionCommand): string {
  const v = flags.get(flag);
  if (typeof v !== 'string') throw usageError(`${command} needs --${flag}`);
  return v;
}

function nonNegativeInteger(text: string, what: string): number {
  if (!/^\d+$/.test(text)) throw usageError(`${what} must be a non-negative whole number, not ${JSON.stringify(text)}`);
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw usageError(`${what} ${text} is too large`);
  return n;
}

/** `check --max-context PCT`: a percentage above 0 (decimals allowed); undefined without it. */
function parseMaxContext(flags: Map<string, string | true>): number | undefined {
  const v = flags.get('max-context');
  if (typeof v !== 'string') return undefined;
  const pct = /^\d+(\.\d+)?$/.test(v) ? Number(v) : Number.NaN;
  if (!(pct > 0) || !Number.isFinite(pct)) throw usageError(`--max-context must be a percentage of the context window above 0 (80, 92.5…), not ${JSON.stringify(v)}`);
  return pct;
}

/** `report` with the gate's findings added (sorted in, counted as errors). */
function withGate(report: CheckReport, found: readonly Finding[]): CheckReport {
  if (found.length === 0) return report;
  return { ...report, findings: [...report.findings, ...found].sort(byLineThenIndex), summary: { ...report.summary, errors: report.summary.errors + found.filter((f) => f.severity === 'error').length, warnings: report.summary.warnings + found.filter((f) => f.severity !== 'error').length } };
}

function parseRange(text: string): ByteRange {
  const m = /^(\d+):(\d+)$/.exec(text);
  if (!m) throw usageError(`--range must be S:E with S and E non-negative whole numbers (bytes), not ${JSON.stringify(text)}`);
  return [nonNegativeInteger(m[1] as string, '--range start'), nonNegativeInteger(m[2] as string, '--range end')];
}

/** Stops expand and search on a file of a newer format version; `check` reports it instead. */
function refuseStopped(session: LoadedSession): void {
  if (!session.stopped) return;
  const finding = session.loadFindings.find((f) => f.code === 'unsupported_version');
  throw new CliError('unsupported_version', finding?.message ?? 'a file has a format version newer than this build supports');
}

/**
 * Session files of at least this many bytes in all have the counting of `view`, `log` and `diff`
 * shared with a counting thread (docs/token-estimates.md "Counting on two threads"). A smaller session
 * holds less text to count than that (its companions' large originals aside, which are sampled):
 * at most about a second of the counter's time (some 8 MB/s on the bench's session), often far
 * less, where a thread's start and its copy of the encoding cost the same each time.
 */
export const COUNT_AHEAD_MIN_BYTES = 8 * 1024 * 1024;

/** The bytes of the regular files among `paths` (stat only: nothing is opened). */
function filesBytes(paths: readonly string[]): number {
  let bytes = 0;
  for (const path of paths) {
    try {
      const stats = statSync(path, { throwIfNoEntry: false });
      if (stats?.isFile()) bytes += stats.size;
    } catch {
      // Not to be counted: the load says why it cannot be read.
    }
  }
  return bytes;
}

/**
 * How far V8 lets the heap of a command that reads one session grow past what its last full
 * collection kept, in percent (V8's own factor runs up to 300 %). A session read whole keeps its
 * records while the view is built and checked, which makes garbage as fast: `check` of the bench's
 * 537 MB Claude Code session peaked 409–429 MB with V8's factor and 380–391 MB with this one, for
 * 4.36–4.84 s against 4.19–4.59 s (four runs alternating); `view --at` 550–593 → 499–528 MB
 * (docs/streaming-import.md "The heap's growth"). Set when the command starts: V8 reads it at each
 * full collection. The `sessions` listing and the hosts keep V8's own.
 */
export const SESSION_HEAP_GROWING_PERCENT = 70;
/** V8's own value of the flag (its factor chosen by V8). */
const V8_OWN_HEAP_GROWING_PERCENT = 0;

/**
 * Runs one session command; resolves to its exit status (errors are thrown as CliError). The heap's
 * growth is the command's: V8's own again once it ends, so that the code cache bin.ts writes after
 * the run is made under the flags the next run reads it under (V8 refuses a cache made under other
 * flags: docs/streaming-import.md "The heap's growth").
 */
export async function runSessionCommand(command: SessionCommand, parsed: ParsedFlags, io: CliIo, loadOptions: LoadOptions, untilStopped: () => Promise<void> = untilSignal): Promise<number> {
  return withV8Flag('--heap-growing-percent', SESSION_HEAP_GROWING_PERCENT, V8_OWN_HEAP_GROWING_PERCENT, () => sessionCommand(command, parsed, io, loadOptions, untilStopped));
}

async function sessionCommand(command: SessionCommand, { flags, lists, files }: ParsedFlags, io: CliIo, loadOptions: LoadOptions, untilStopped: () => Promise<void>): Promise<number> {
  // Check every flag before touching a file, so a usage error is never hidden behind a file error.
  let range: ByteRange | undefined;
  let id = '';
  let query = '';
  let searchOptions: Omit<SearchOptions, 'sha256'> = {};
  const at = command === 'view' ? parseAt(flags) : undefined;
  const policy = command === 'view' ? readPolicyFlag(flags) : undefined;
  const between = command === 'diff' ? parseDiffCalls(flags) : undefined;
  const gate = command === 'check' ? parseMustSee(flags, lists) : undefined;
  const maxContext = command === 'check' ? parseMaxContext(flags) : undefined;
  if (maxContext !== undefined && flags.has('follow')) throw usageError('--max-context judges the calls once; it does not combine with --follow');
  if (command === 'expand') {
    id = requiredValue(flags, 'id', command);
    const r = flags.get('range');
    if (typeof r === 'string') range = parseRange(r);
  } else if (command === 'trace') {
    query = requiredValue(flags, 'query', command);
  } else if (command === 'search') {
    query = requiredValue(flags, 'query', command);
    const max = flags.get('max-matches');
    searchOptions = {
      mode: flags.has('regex') ? 'regex' : 'substring',
      case_sensitive: !flags.has('ignore-case'),
      ...(typeof max === 'string' ? { max_matches: nonNegativeInteger(max, '--max-matches') } : {}),
    };
  }
  if (files.length === 0) throw usageError(`${command} needs FILE...: a sidecar and/or a session snapshot`);
  if (files.length > 2) throw usageError(`${command} takes one or two files (a sidecar and/or a session snapshot), not ${files.length}`);

  const sessionId = flags.get('session');
  const format = flags.get('format');
  if (command === 'check' && flags.has('follow')) {
    const source = { ...loadOptions, ...(typeof sessionId === 'string' ? { session: sessionId } : {}), ...(typeof format === 'string' ? { format } : {}) };
    return runCheckFollow(files, source, { strict: flags.has('strict'), untilStopped: untilStopped() }, io);
  }
  // SPEC §15: `view` counts every message of the input, `log` every reduction's original, `diff`
  // what changed between two inputs. A large session's counting is shared with a thread started
  // now, so its encoding loads while the session is read (docs/token-estimates.md "Counting on two
  // threads").
  const counts = (command === 'view' && policy === undefined) || command === 'log' || command === 'diff';
  const counter = counts && filesBytes(files) >= COUNT_AHEAD_MIN_BYTES ? startTextCounter() : undefined;
  // `view` knows its call before the session is read, and `log` that it counts the originals: the
  // contents those likely are are counted on that thread while the session is built
  // (docs/token-estimates.md "Counted while the session is built").
  const built = counter && command !== 'diff' ? new ContentsCountedAhead(command === 'log' ? 'hidden' : { input: at ?? null }, counter) : undefined;
  const loaded = await loadSession(files, {
    ...ONE_SHOT_CACHE,
    ...loadOptions,
    ...(typeof sessionId === 'string' ? { session: sessionId } : {}),
    ...(typeof format === 'string' ? { format } : {}),
    // check reports every session the file holds with its messages counted (an Inspect log's samples).
    ...(command === 'check' ? { countSessions: true } : {}),
    ...(built ? { countWhileBuilding: built } : {}),
  });
  if (!loaded.ok) {
    counter?.close();
    throw new CliError(loaded.error.code, loaded.error.message);
  }
  const session = loaded.session;
  try {
    switch (command) {
      case 'expand': {
        refuseStopped(session);
        const outcome = session.expandBytes(id, range);
        if (!outcome.ok) throw new CliError(outcome.error.code, outcome.error.message);
        // In pieces, the content decoded a window at a time: a compaction's whole original is the
        // transcript of the view before it, some 100 MB in a long session. The verified bytes are
        // read again as they are written, so each piece goes out only while the files are as they
        // were opened (docs/export-documents.md, "Written as it is made").
        const { reduction_id, index } = outcome.value;
        try {
          writeJson({ ...outcome.value, content: new Utf8Text(outcome.value.content) }, writtenWhileUnchanged(session, (text) => io.stdout(text)));
        } catch (e) {
          const error = asFileChange(session, e);
          // As expand answers a content that can no longer be read while it resolves it (withContent).
          if (!(error instanceof ContentUnavailableError)) throw error;
          const unreadable = contentUnreadable(reduction_id, index, error);
          throw new CliError(unreadable.code, unreadable.message);
        }
        return EXIT_OK;
      }
      case 'search': {
        refuseStopped(session);
        const result = session.search(query, searchOptions);
        if (!result.ok) throw new CliError(result.error.code, result.error.message);
        io.stdout(json(result.value));
        return EXIT_OK;
      }
      case 'log': {
        refuseStopped(session);
        const estimates = new SessionEstimates(session, recordedContextOf(session));
        if (counter) await estimates.countHiddenAhead(counter, built);
        // Read between two looks at the files: a report over bytes read around a change would be wrong.
        const before = session.fileChange();
        if (before) throw new CliError('file_changed', before.message);
        let reductions;
        try {
          // With the transcript hashes the counts kept: a compaction's transcript, hashed as its
          // original was counted a moment ago, is not hashed again (docs/tokens.md "How the pass runs").
          const report = logReport(session.log, session.minted, session.recorded, estimates.resolveOptions);
          // SPEC §15: what each reduction hid, in estimated tokens (the tokenizer loads here).
          const hidden = estimates.hiddenEstimates();
          reductions = report.map((r, k) => ({ ...r, hidden_tokens_est: hidden[k]?.hidden ?? null }));
        } catch (e) {
          if (e instanceof FileChangedError) throw new CliError('file_changed', e.message);
          throw e;
        }
        const after = session.fileChange();
        if (after) throw new CliError('file_changed', after.message);
        io.stdout(json({ reductions }));
        return EXIT_OK;
      }
      case 'view': {
        refuseStopped(session);
        const prepared = prepareView(session, at);
        if (counter && prepared) await countViewAhead(session, prepared, counter, built);
        // In pieces: a view whose outputs are kept whole is about the size of the session.
        writeJson(policy ? whatIfOutput(session, policy) : viewOutput(session, at, undefined, { prepared }), (text) => io.stdout(text), io.stdoutBytes && ((bytes) => io.stdoutBytes?.(bytes)));
        return EXIT_OK;
      }
      case 'diff':
        refuseStopped(session);
        writeJson(await diffOutput(session, between?.from ?? 1, between?.to ?? 1, counter), (text) => io.stdout(text), io.stdoutBytes && ((bytes) => io.stdoutBytes?.(bytes)));
        return EXIT_OK;
      case 'trace':
        refuseStopped(session);
        io.stdout(json(traceOutput(session, query, flags)));
        return EXIT_OK;
      case 'check': {
        let report: CheckReport;
        try {
          report = flags.has('replay') ? checkWithReplay(session) : session.check();
          if (maxContext !== undefined) report = withGate(report, contextOverLimit(session, maxContext));
        } catch (e) {
          // A file changed while it was checked: findings over changed bytes would be wrong.
          if (e instanceof FileChangedError) throw new CliError('file_changed', e.message);
          throw e;
        }
        // The gate reads contents: a session stopped at a newer version has none to read.
        const gated = gate && !session.stopped ? mustSeeOutput(session, gate, flags) : undefined;
        const findings = gated ? [...report.findings, ...gated.findings] : report.findings;
        const summary = gated ? { ...report.summary, must_see: gated.summary } : report.summary;
        io.stdout(json({ findings, summary, ...('replay' in report ? { replay: report.replay } : {}) }));
        const failing = flags.has('strict') ? findings : findings.filter((f) => f.severity === 'error');
        return failing.length > 0 ? EXIT_FINDINGS : EXIT_OK;
      }
      default:
        throw new Error(`no such session command: ${String(command satisfies never)}`);
    }
  } finally {
    session.close();
    counter?.close();
  }
}
