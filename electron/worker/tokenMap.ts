/**
 * The context map in tokens (SPEC §15 "The app", docs/tokens.md "In the app"): the worker's
 * `tokenMap` and `callTokens` replies, from the session's estimates (electron/tokens/
 * sessionEstimates.ts) and its recorded usage. Loaded by handlers/tokens.ts with a dynamic import,
 * so the tokenizer's encoding (seconds to load on a busy machine) is read the first time the map
 * asks for tokens, never while a session opens.
 */
import type { ContextMapInfo, ResultOf } from '../../shared/index';
import { viewEntries } from '../../shared/calls/calls';
import type { TokenMapFigures, TokenMapKnown } from '../../shared/tokenMapContract';
import { MAX_CALL_TOKEN_MESSAGES } from '../../shared/tokenMapContract';
import { resolveOriginal, statedHiddenBytes } from '../../shared/resolver/original';
import type { Reduction } from '../../shared/format/types';
import { calibrated } from '../../shared/tokens/calibration';
import { tableWindow } from '../../shared/tokens/windows';
import type { LoadedSession } from '../loader/session';
import type { CountPlan } from '../tokens/counter';
import { countText, sourcePlan } from '../tokens/counter';
import type { GivenView, KnownOriginal, SessionEstimates } from '../tokens/sessionEstimates';
import { sessionEstimates } from '../tokens/sessionEstimates';

/**
 * Entries of call inputs the map estimates at most (the sum over calls of each input's length):
 * estimating every call walks every input, O(calls × messages). Past it the reply is `partial`.
 */
export const MAX_MAP_ENTRIES = 4_000_000;

/** What is kept per open (OpenSession.tokens): the estimator with its per-message cache, the map once made, each reduction's hidden tokens. */
export interface TokenCache {
  /** Names this open's pass in its replies (`pass`): unique in the worker's life, so an asker's `known` from another open is told apart. */
  readonly id: number;
  estimates: SessionEstimates;
  /** The complete map, every call's (sent from where each asker's figures end: tokenMapReply). */
  map?: TokenMapFigures;
  /** The map's pass while it is unfinished: the calls estimated so far. */
  pass?: MapPass;
  /** Raw o200k tokens a reduction kept out of the input, by id; null where its original cannot be read. */
  hidden: Map<string, { tokens: number; sampled: boolean } | null>;
  /** Each call's window by the shipped table (the map's `window`). */
  window?: (number | null)[];
}

/**
 * The map's cache of an open, on the session's one estimator (electron/tokens/sessionEstimates.ts
 * sessionEstimates), which the reductions' figures (handlers/hiddenTokens.ts), diffs and export
 * documents use too: the calibration and every original are counted once for all of them.
 */
export function tokenCache(session: LoadedSession, estimates: SessionEstimates = sessionEstimates(session)): TokenCache {
  return { id: ++passes, estimates, hidden: new Map() };
}

/** The last TokenCache.id given. */
let passes = 0;

/**
 * A reply of the pass with every call known so far (`figures`), for an asker holding `known`: the
 * calls after those it holds of this pass (all of them for another pass, or none held), and the
 * windows only to an asker that holds none of this pass (docs/tokens.md "How the pass runs").
 */
function sentTo(cache: TokenCache, figures: TokenMapFigures, known: TokenMapKnown | undefined): ResultOf<'tokenMap'> {
  const ours = known !== undefined && known.pass === cache.id;
  const from = ours ? Math.min(known.calls, figures.estimated.length) : 0;
  return { ...figures, from, estimated: figures.estimated.slice(from), hidden: figures.hidden.slice(from), window: ours ? null : figures.window };
}

/** A reduction's original being counted across slices: its plan, the texts still to take and what was counted so far. */
interface HiddenCounting {
  id: string;
  plan: CountPlan;
  texts: Iterator<string>;
  counted: number;
  /** The original's length in bytes. */
  length: number;
}

/** The share of an original's estimate its reduction hid: the stated hidden bytes over the original's length. */
function hiddenShare(known: KnownOriginal | null, stated: number): { tokens: number; sampled: boolean } | null {
  if (!known) return null;
  return { tokens: known.bytes === 0 ? 0 : Math.round((known.estimate.tokens * Math.min(stated, known.bytes)) / known.bytes), sampled: known.estimate.sampled === true };
}

/**
 * The tokens a reduction kept out of the input: the estimate of its original scaled by the share
 * of it the file states as hidden (a truncation's kept prefix was shown), as the bytes map counts
 * the stated hidden bytes (shared/calls/contextMap.ts); into `cache.hidden` by id, null where the
 * original cannot be read. Counted a text (a 1 MiB block) at a time while `due` allows: false when
 * it stopped before the end, and `pass.counting` holds where, for the next slice to go on from
 * (an original of up to 8 MiB is counted whole: some seconds on a busy machine).
 */
function countHidden(cache: TokenCache, session: LoadedSession, pass: MapPass, r: Reduction, due: () => boolean): boolean {
  if (cache.hidden.has(r.id)) return true;
  const stated = statedHiddenBytes(r);
  if (stated === null) {
    cache.hidden.set(r.id, null);
    return true;
  }
  const { estimates } = cache;
  const known = estimates.knownOriginal(r);
  if (known !== undefined) {
    cache.hidden.set(r.id, hiddenShare(known, stated));
    return true;
  }
  let c = pass.counting?.id === r.id ? pass.counting : undefined;
  if (!c) {
    const original = resolveOriginal(r, session.minted, session.recorded, estimates.resolveOptions);
    if (!original.ok) {
      estimates.rememberOriginal(r, null);
      cache.hidden.set(r.id, null);
      return true;
    }
    const plan = sourcePlan(original.value.bytes);
    c = pass.counting = { id: r.id, plan, texts: plan.texts[Symbol.iterator](), counted: 0, length: original.value.bytes.length };
  }
  for (;;) {
    if (due()) return false;
    const next = c.texts.next();
    if (next.done === true) break;
    c.counted += countText(next.value);
  }
  const counted: KnownOriginal = { estimate: c.plan.estimate(c.counted), bytes: c.length };
  estimates.rememberOriginal(r, counted);
  cache.hidden.set(r.id, hiddenShare(counted, stated));
  pass.counting = undefined;
  return true;
}

/** The model answering each call: the latest switch at or before it, else the first switch's `from`, else the session's. */
export function modelPerCall(map: Pick<ContextMapInfo, 'calls' | 'model_switches'>, sessionModel: string | null): (string | null)[] {
  const switches = [...map.model_switches].sort((a, b) => a.call - b.call);
  let model: string | null = switches[0]?.from ?? sessionModel;
  const out: (string | null)[] = [];
  let s = 0;
  for (let call = 1; call <= map.calls; call++) {
    while (s < switches.length && (switches[s]?.call ?? Infinity) <= call) model = switches[s++]?.to ?? model;
    out.push(model);
  }
  return out;
}

/** Where an unfinished `tokenMap` pass stands: the calls estimated so far (the next is `session.calls[estimated.length]`). */
interface MapPass {
  /** Null where the call's context is recorded (not estimated). */
  estimated: (number | null)[];
  hidden: (number | null)[];
  sampled: boolean;
  entries: number;
  /** Where the pass stopped before the last call: a call without an input, or too many entries (`partial`). */
  ended?: 'no input' | 'partial';
  /** The original a slice stopped counting in (countHidden). */
  counting?: HiddenCounting;
}

/** Says when a slice of the pass ends: after `calls` calls, or once `ms` have passed — never before its first call. */
export interface SliceBound {
  ms: number;
  calls: number;
}

/** The whole pass in one go (the CLI's and tests' one-pass reference). */
export const WHOLE_PASS: SliceBound = { ms: Infinity, calls: Infinity };

/**
 * Call `call`'s calibrated estimate and hidden tokens, added to the pass; else why the pass ends
 * there, or `later` when `due` stopped the counting of an original (the next slice takes the call
 * again: what it counted is cached, and the original goes on where it stopped). A call whose
 * context the file records (`recorded`) is not estimated: the map draws the recorded figure
 * (renderer/features/calls/contextMapTokens.ts tokenCalls), and estimating every input walks
 * O(calls × messages) (docs/tokens.md "How the pass runs", "Only what the map draws").
 */
function estimateCall(session: LoadedSession, cache: TokenCache, pass: MapPass, call: number, recorded: boolean, due: () => boolean): MapPass['ended'] | 'later' {
  const input = session.callInput(call);
  if (!input) return 'no input';
  const { estimates } = cache;
  let h: number | null = 0;
  let sampled = false;
  for (const r of input.log) {
    if (statedHiddenBytes(r) === 0) continue;
    if (!countHidden(cache, session, pass, r, due)) return 'later';
    const raw = cache.hidden.get(r.id);
    if (!raw) {
      h = null;
      break;
    }
    sampled ||= raw.sampled;
    h += raw.tokens;
  }
  let estimated: number | null = null;
  if (!recorded) {
    if (pass.entries + input.minted.length > MAX_MAP_ENTRIES) return 'partial';
    pass.entries += input.minted.length;
    const est = estimates.entriesEstimate(viewEntries(input), input.minted);
    sampled ||= est.total.sampled === true;
    estimated = est.total.tokens;
  }
  pass.sampled ||= sampled;
  pass.estimated.push(estimated);
  pass.hidden.push(h === null ? null : calibrated(h, estimates.calibration()));
  return undefined;
}

/**
 * `tokenMap`: every call's estimated context and hidden tokens, and the window of its model (SPEC
 * §15), counted a slice at a time (docs/tokens.md "How the pass runs"). One call counts for a
 * slice of at most `bound` — the calibration's walk first, then the calls' estimates in order —
 * and answers what is known, with `progress` while more is left; the next call goes on where it
 * stopped. The per-message estimates are cached (SessionEstimates), the finished map kept.
 */
export function tokenMapReply(session: LoadedSession, map: ContextMapInfo, cache: TokenCache, bound: SliceBound = WHOLE_PASS, known?: TokenMapKnown): ResultOf<'tokenMap'> {
  if (cache.map) return sentTo(cache, cache.map, known);
  const { estimates } = cache;
  const started = performance.now();
  const calls = session.calls.length;
  // The same for every slice of the open: made once (on a session of 29,445 calls, a few ms of every ask).
  const window = (cache.window ??= modelPerCall(map, session.model).map((m) => tableWindow(m) ?? null));
  const base = { pass: cache.id, window, approximate: estimates.approximate };
  // The walk's calls bound counts the calls it counted (those that record their context); the rest cost a look each.
  const stepsBefore = estimates.calibrationSteps;
  const countedBefore = estimates.calibrationCounted;
  const calibrating = !estimates.advanceCalibration(
    () => estimates.calibrationSteps > stepsBefore && (estimates.calibrationCounted - countedBefore >= bound.calls || performance.now() - started > bound.ms),
  );
  if (calibrating) {
    return sentTo(cache, { ...base, estimated: [], hidden: [], calibration: null, sampled: false, partial: false, progress: { stage: 'calibrating', done: estimates.calibrationSteps, calls: estimates.calibrationTotal } }, known);
  }
  const pass = (cache.pass ??= { estimated: [], hidden: [], sampled: false, entries: 0 });
  let counted = 0;
  // Whether this slice has done any work (a call, a text of an original): the first is always done, so every ask makes progress.
  let worked = false;
  const due = () => {
    const over = worked && performance.now() - started > bound.ms;
    worked = true;
    return over;
  };
  while (pass.ended === undefined && pass.estimated.length < calls) {
    if (worked && (counted >= bound.calls || performance.now() - started > bound.ms)) break;
    const k = pass.estimated.length;
    const call = session.calls[k]?.call;
    const recorded = (map.recorded?.context[k] ?? null) !== null;
    const ended = call === undefined ? 'no input' : estimateCall(session, cache, pass, call, recorded, due);
    if (ended === 'later') break;
    pass.ended = ended;
    // The calls bound counts the calls whose input was estimated; a recorded call costs its hidden tokens, which the time bound holds (each ask's reply costs a few ms to send).
    if (!recorded) counted++;
    worked = true;
  }
  const calibration = estimates.calibration() ?? null;
  const done = pass.ended !== undefined || pass.estimated.length >= calls;
  // The pass's own arrays: sentTo copies the part an asker lacks.
  const figures = { ...base, estimated: pass.estimated, hidden: pass.hidden, calibration, sampled: pass.sampled, partial: pass.ended === 'partial' };
  if (!done) return sentTo(cache, { ...figures, progress: { stage: 'estimating', done: pass.estimated.length, calls } }, known);
  cache.map = { ...figures, progress: null };
  cache.pass = undefined;
  return sentTo(cache, cache.map, known);
}

/**
 * `callTokens`' counting, a step at a time: the calibration's walk (done already once the map's
 * pass has ended), then each message of call N's view counted into the estimates' cache. Its
 * result is the reply (`callTokensReply` over the view made here), undefined when N is no call. The
 * handler runs it in slices, giving way to a search (docs/tokens.md "The breakdown in slices").
 */
export function* callTokensSteps(session: LoadedSession, call: number, cache: TokenCache): Generator<void, ResultOf<'callTokens'> | undefined> {
  const input = session.callInput(call);
  if (!input) return undefined;
  const { estimates } = cache;
  let walked = 0;
  // One call of the walk a step: `advanceCalibration` asks before each whether to stop.
  while (!estimates.advanceCalibration(() => walked++ > 0)) {
    walked = 0;
    yield;
  }
  // The call's view, made once for its counting, its breakdown and its estimates (docs/worker.md §7).
  const entries = viewEntries(input);
  for (const entry of entries) {
    estimates.entryRaw(entry, input.minted);
    yield;
  }
  return callTokensReply(session, call, cache, { input, entries });
}

/** `callTokens`: call N's recorded usage, per-message estimates, breakdown and calibration; undefined when N is no call. */
export function callTokensReply(session: LoadedSession, call: number, cache: TokenCache, given?: GivenView): ResultOf<'callTokens'> | undefined {
  const input = given?.input ?? session.callInput(call);
  if (!input) return undefined;
  // The call's view, made once for its breakdown and its estimates (docs/worker.md §7).
  const entries = given?.entries ?? viewEntries(input);
  const breakdown = cache.estimates.breakdown(call, { input, entries });
  if (!breakdown) return undefined;
  const est = cache.estimates.entriesEstimate(entries, input.minted);
  const recorded = session.callTokens(call);
  return {
    call,
    recorded: recorded ? { ...recorded } : null,
    index: entries.slice(0, MAX_CALL_TOKEN_MESSAGES).map((e) => e.index),
    messages: est.messages.slice(0, MAX_CALL_TOKEN_MESSAGES).map((m) => m.tokens),
    messages_total: entries.length,
    total: est.total,
    breakdown,
    calibration: cache.estimates.calibration() ?? null,
  };
}
