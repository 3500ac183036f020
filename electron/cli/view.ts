/**
 * SPEC §11 `view [--at N] FILE...`: what the model was given at call N (1-based), or the latest
 * view without `--at` — `{"format","call","calls","messages":[{"index","role","content",
 * "tool_call_id"?,"tool_calls"?,"reductions"}]}`, content exactly as the model saw it (kept
 * prefixes and stubs in place, a cleared or summarized range one entry at its start, `role` null
 * there and for a message whose record could not be read). What the call was given outside those
 * messages (Codex's base instructions, Claude Code's attachments: shared/resolver/instructions.ts) is under
 * `"instructions"`, present when there is any: `[{"source","kind"?,"placement","index","line",
 * "text","unconfirmed"?}]` in file order. With `--at N`, `"tokens"` is the usage the file recorded
 * for call N (SPEC §15, shared/tokens/usage.ts CallTokens), or null where it records none.
 */
import type { MessageList, ReductionPolicy, ViewEntry } from '../../shared/index';
import { SESSION_FORMAT_OF_FILE, arrayList, inSource, utf8Decode, viewEntries } from '../../shared/index';
import { zodSchemas } from '../../shared/format/schema';
import { FileContent } from '../loader/content/fileContent';
import { whatIfSession } from '../loader/replay';
import { readWithin } from '../loader/common/safeRead';
import type { LoadedSession } from '../loader/session';
import { FileChangedError } from '../loader/session';
import type { AheadOptions, GivenView, RecordedContext } from '../tokens/sessionEstimates';
import { SessionEstimates, recordedContextOf } from '../tokens/sessionEstimates';
import type { TextCounter } from '../tokens/textCounter';
import type { ContentsCountedAhead } from '../tokens/countWhileBuilding';
import { CliError, usageError } from './errors';
import { RawJson } from './output';

/** `--at N` as given (checked before any file is read); undefined without it: the latest view. */
export function parseAt(flags: ReadonlyMap<string, string | true>): number | undefined {
  const at = flags.get('at');
  if (typeof at !== 'string') return undefined;
  if (!/^\d+$/.test(at) || !Number.isSafeInteger(Number(at))) throw usageError(`--at must be a model call number (1, 2, …), not ${JSON.stringify(at)}`);
  return Number(at);
}

/**
 * One estimator per loaded session and number of calls: its per-message counts and its calibration
 * (a fit over every call) hold while the session has not grown, so asking `view --at N` for many N
 * of one session fits once (docs/token-estimates.md).
 */
const estimators = new WeakMap<LoadedSession, { calls: number; estimates: SessionEstimates }>();
function sessionEstimatesOf(session: LoadedSession): SessionEstimates {
  const held = estimators.get(session);
  if (held && held.calls === session.calls.length) return held.estimates;
  const estimates = new SessionEstimates(session, recordedContextOf(session));
  estimators.set(session, { calls: session.calls.length, estimates });
  return estimates;
}

/**
 * A call's input and its view's entries, made once for `view`: its count ahead and its output both
 * walk them. Made twice, the projection of the scale session's 300,000 messages was a tenth of
 * `view`'s CPU time (docs/worker.md §7).
 */
export interface PreparedView extends GivenView {
  readonly at: number | undefined;
}

/** The view of call `at` (the latest without), undefined when `at` is no call of the session. */
export function prepareView(session: LoadedSession, at: number | undefined): PreparedView | undefined {
  const input = session.callInput(at ?? null);
  return input ? { at, input, entries: viewEntries(input) } : undefined;
}

/**
 * Counts ahead, on `counter`'s thread as well as this one, what `viewOutput(session, view.at)`
 * counts (SessionEstimates.countAhead): the input's every message, and the calibration's walk;
 * `built`, the contents handed to the thread while the session was built, taken from there.
 */
export async function countViewAhead(session: LoadedSession, view: PreparedView, counter: TextCounter, built?: ContentsCountedAhead, options?: AheadOptions): Promise<void> {
  await sessionEstimatesOf(session).countAhead([{ entries: view.entries, view: view.input.minted }], counter, built, options);
}

/**
 * The JSON `view` prints, or a usage error naming the valid range when `at` is no call of the session.
 * `estimates: false` leaves out the token estimates (the benchmark's baseline, bench/tokens.ts);
 * `prepared`, the same call's view made before (prepareView), is used instead of making it again.
 */
export function viewOutput(
  session: LoadedSession,
  at: number | undefined,
  recordedContext?: RecordedContext,
  { estimates = true, prepared }: { estimates?: boolean; prepared?: PreparedView } = {},
): unknown {
  const calls = session.calls.length;
  const made = prepared?.at === at ? prepared : undefined;
  const input = made?.input ?? session.callInput(at ?? null);
  if (!input) {
    throw usageError(calls === 0 ? `--at ${at}: the session has no model calls (no assistant message); leave out --at for the latest view` : `--at ${at} is out of range: the session's model calls are 1 to ${calls}`);
  }
  // A session's files are all of one agent's format (the adapters pair only their own).
  const file = session.files[0];
  const before = session.fileChange();
  if (before) throw new CliError('file_changed', before.message);
  // A content kept in the file shows its first bytes in a row: the model was given all of it. Made
  // before the look above, `prepared` is still checked by the look after (a change is for good).
  const entries = made?.entries ?? viewEntries(input);
  const messages = withWholeContents(entries, input.minted);
  // SPEC §15: every message's estimate (the tokenizer loads here, on the first count), and at a call its breakdown.
  const estimator = estimates ? (recordedContext ? new SessionEstimates(session, recordedContext) : sessionEstimatesOf(session)) : undefined;
  const estimated = estimator?.entriesEstimate(entries, input.minted);
  const breakdown = at !== undefined ? estimator?.breakdown(at, { input, entries }) : undefined;
  const calibration = estimator?.calibration();
  const after = session.fileChange();
  if (after) throw new CliError('file_changed', after.message);
  // Where the input is, its instructions are (the same call); `to` is the timeline's, not the call's.
  const instructions = (session.instructionsAt(at ?? null) ?? []).map(({ to: _to, ...rest }) => rest);
  return {
    format: file ? SESSION_FORMAT_OF_FILE[file.format] : 'supercode',
    call: at ?? null,
    calls,
    // §15: the usage the file recorded for the call (null where it records none); none for the latest view.
    ...(at !== undefined ? { tokens: session.callTokens(at) ?? null } : {}),
    messages: estimated ? messages.map((m, k) => ({ ...m, tokens_est: estimated.messages[k]?.tokens ?? 0 })) : messages,
    ...(instructions.length > 0 ? { instructions } : {}),
    ...(estimated ? { tokens_est: estimated.total } : {}),
    ...(calibration ? { calibration } : {}),
    ...(breakdown ? { context_breakdown: breakdown } : {}),
  };
}

/**
 * The entries with each content kept in a source (`inSource`) in full: its JSON copied from the
 * file as it is when the file holds it as JSON.stringify writes it (FileContent's `jsonText`),
 * else decoded. Read between two looks at the files (the callers').
 */
function withWholeContents(entries: readonly ViewEntry[], view: MessageList): (Omit<ViewEntry, 'content'> & { content: string | RawJson })[] {
  return entries.map((e) => {
    const source = inSource(e, view);
    if (!source) return e;
    const raw = source instanceof FileContent ? source.jsonText() : undefined;
    return { ...e, content: raw ? new RawJson(raw) : utf8Decode(source.read(0, source.length)) };
  });
}

/** A policy file larger than this is refused (a policy is a few hundred bytes of JSON). */
const POLICY_MAX_BYTES = 1024 * 1024;

/**
 * `--policy FILE.json`, read and validated (§3.4, unknown fields refused: a misspelt
 * field would otherwise fall back silently) before any session file is read.
 */
export function readPolicyFlag(flags: ReadonlyMap<string, string | true>): ReductionPolicy | undefined {
  const path = flags.get('policy');
  if (typeof path !== 'string') return undefined;
  if (flags.has('at')) throw usageError('--policy shows the latest view re-projected; it does not combine with --at');
  // Read as every file is (safeRead.ts): a FIFO or device named as the policy is refused, never waited on; a policy is small.
  const read = readWithin(path, undefined, { followLast: true, maxBytes: POLICY_MAX_BYTES });
  if ('refused' in read) throw new CliError('unreadable_file', `cannot read the policy file ${path}: ${read.refused}`);
  const text = read.bytes.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new CliError('invalid_policy', `the policy file ${path} is not JSON: ${(e as Error).message}`);
  }
  // Built here, not when the chunk loads: `view` without --policy and every other command need no zod.
  const parsed = zodSchemas().reductionPolicy.strict().safeParse(value);
  if (!parsed.success) {
    const what = parsed.error.issues.map((i) => `${i.path.join('.') || 'the policy'}: ${i.message}`).join('; ');
    throw new CliError('invalid_policy', `the policy file ${path} is not a reduction policy (${what})`);
  }
  return parsed.data;
}

/**
 * `view --policy`: the latest view under `policy` (the §11 shape), with the policy and the diff
 * against the recorded log. `estimates: false` leaves out the token estimates, as viewOutput's does.
 */
export function whatIfOutput(session: LoadedSession, policy: ReductionPolicy, { estimates = true }: { estimates?: boolean } = {}): unknown {
  let outcome;
  try {
    outcome = whatIfSession(session, policy);
  } catch (e) {
    if (e instanceof FileChangedError) throw new CliError('file_changed', e.message);
    throw e;
  }
  if (!outcome.ok) throw new CliError('replay_not_possible', outcome.note);
  const view = arrayList(outcome.value.view);
  const messages = withWholeContents(outcome.value.messages, view);
  // SPEC §15: the what-if view's estimates, in a cache of their own (its reductions are the policy's, not the file's).
  const estimated = estimates ? new SessionEstimates(session, recordedContextOf(session)).entriesEstimate(outcome.value.messages, view) : undefined;
  // The contents were read after the replay's own last look at the files.
  const after = session.fileChange();
  if (after) throw new CliError('file_changed', after.message);
  const file = session.files[0];
  return {
    format: file ? SESSION_FORMAT_OF_FILE[file.format] : 'supercode',
    call: null,
    calls: session.calls.length,
    messages: estimated ? messages.map((m, k) => ({ ...m, tokens_est: estimated.messages[k]?.tokens ?? 0 })) : messages,
    ...(estimated ? { tokens_est: estimated.total } : {}),
    policy,
    diff: outcome.value.diff,
  };
}
