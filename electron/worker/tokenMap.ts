/**
 * The context map in tokens (SPEC §15 "The app", docs/tokens.md "In the app"): the worker's
 * `tokenMap` and `callTokens` replies, from the session's estimates (electron/tokens/
 * sessionEstimates.ts) and its recorded usage. Loaded by handlers/tokens.ts with a dynamic import,
 * so the tokenizer's encoding (seconds to load on a busy machine) is read the first time the map
 * asks for tokens, never while a session opens.
 */
import type { ContextMapInfo, ResultOf } from '../../shared/index';
import { viewEntries } from '../../shared/calls/calls';
import { MAX_CALL_TOKEN_MESSAGES } from '../../shared/tokenMapContract';
import { resolveOriginal, statedHiddenBytes } from '../../shared/resolver/original';
import type { Reduction } from '../../shared/format/types';
import { calibrated } from '../../shared/tokens/calibration';
import { tableWindow } from '../../shared/tokens/windows';
import type { LoadedSession } from '../loader/session';
import { nodeSha256 } from '../loader/session';
import { estimateSource } from '../tokens/counter';
import { SessionEstimates, recordedContextOf } from '../tokens/sessionEstimates';

/**
 * Entries of call inputs the map estimates at most (the sum over calls of each input's length):
 * estimating every call walks every input, O(calls × messages). Past it the reply is `partial`.
 */
export const MAX_MAP_ENTRIES = 4_000_000;

/** What is kept per open (OpenSession.tokens): the estimator with its per-message cache, the map once made, each reduction's hidden tokens. */
export interface TokenCache {
  estimates: SessionEstimates;
  map?: ResultOf<'tokenMap'>;
  /** Raw o200k tokens a reduction kept out of the input, by id; null where its original cannot be read. */
  hidden: Map<string, { tokens: number; sampled: boolean } | null>;
}

export function tokenCache(session: LoadedSession): TokenCache {
  return { estimates: new SessionEstimates(session, recordedContextOf(session)), hidden: new Map() };
}

/**
 * The tokens a reduction kept out of the input: the estimate of its original scaled by the share
 * of it the file states as hidden (a truncation's kept prefix was shown), as the bytes map counts
 * the stated hidden bytes (shared/calls/contextMap.ts). Cached by id.
 */
function hiddenRaw(cache: TokenCache, session: LoadedSession, r: Reduction): { tokens: number; sampled: boolean } | null {
  const known = cache.hidden.get(r.id);
  if (known !== undefined) return known;
  let out: { tokens: number; sampled: boolean } | null = null;
  const stated = statedHiddenBytes(r);
  const original = stated === null ? undefined : resolveOriginal(r, session.minted, session.recorded, { sha256: nodeSha256 });
  if (original?.ok && stated !== null) {
    const bytes = original.value.bytes;
    const whole = estimateSource(bytes);
    out = { tokens: bytes.length === 0 ? 0 : Math.round((whole.tokens * Math.min(stated, bytes.length)) / bytes.length), sampled: whole.sampled === true };
  }
  cache.hidden.set(r.id, out);
  return out;
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

/** `tokenMap`: every call's estimated context and hidden tokens, and the window of its model (SPEC §15). */
export function tokenMapReply(session: LoadedSession, map: ContextMapInfo, cache: TokenCache): ResultOf<'tokenMap'> {
  if (cache.map) return cache.map;
  const { estimates } = cache;
  const calibration = estimates.calibration() ?? null;
  const estimated: number[] = [];
  const hidden: (number | null)[] = [];
  let sampled = false;
  let entries = 0;
  let partial = false;
  for (const { call } of session.calls) {
    const input = session.callInput(call);
    if (!input) break;
    entries += input.minted.length;
    if (entries > MAX_MAP_ENTRIES) {
      partial = true;
      break;
    }
    const est = estimates.entriesEstimate(viewEntries(input), input.minted);
    sampled ||= est.total.sampled === true;
    estimated.push(est.total.tokens);
    let h: number | null = 0;
    for (const r of input.log) {
      const raw = statedHiddenBytes(r) === 0 ? { tokens: 0, sampled: false } : hiddenRaw(cache, session, r);
      if (raw === null) {
        h = null;
        break;
      }
      sampled ||= raw.sampled;
      h += raw.tokens;
    }
    hidden.push(h === null ? null : calibrated(h, calibration ?? undefined));
  }
  const window = modelPerCall(map, session.model).map((m) => tableWindow(m) ?? null);
  cache.map = { estimated, hidden, window, calibration, approximate: estimates.approximate, sampled, partial };
  return cache.map;
}

/** `callTokens`: call N's recorded usage, per-message estimates, breakdown and calibration; undefined when N is no call. */
export function callTokensReply(session: LoadedSession, call: number, cache: TokenCache): ResultOf<'callTokens'> | undefined {
  const input = session.callInput(call);
  const breakdown = cache.estimates.breakdown(call);
  if (!input || !breakdown) return undefined;
  const entries = viewEntries(input);
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
