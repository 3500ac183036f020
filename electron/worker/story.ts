/**
 * The worker's answers about a session's story — the diff between two model
 * calls (§11 `callDiff`), the events where they happened (model switches §5.5, rewinds §3.1,
 * reductions minted §3.5 `minted_at`) and the messages a rewind abandoned, read back from the file.
 * Every reply is bounded whatever the session holds: lists are capped, and what was left out is
 * counted.
 */
import type { ParsedParams, ResultOf, SessionEvent } from '../../shared/contract';
import { ABANDONED_TEXT_MAX_BYTES, MAX_DIFF_CHANGED, MAX_DIFF_ENTRIES, MAX_EVENT_ITEMS, MAX_EVENTS_PER_REQUEST } from '../../shared/contract';
import type { LoadedSession } from '../../shared/index';
import { diffTokens } from '../tokens/diffTokens';
import { ContentUnavailableError, contentSource, floorSourceBoundary, utf8Decode } from '../../shared/index';

type Totaled = { bytes?: number | null; hidden_bytes?: number | null };

function total(list: readonly Totaled[]): { count: number; bytes: number } {
  let bytes = 0;
  for (const e of list) bytes += (e.bytes ?? e.hidden_bytes) ?? 0;
  return { count: list.length, bytes };
}

/**
 * The diff of two calls' inputs (SPEC §16, shared/calls/callsDiff.ts), each list cut to `limit`
 * entries (by view index; the changed runs with their line diffs to MAX_DIFF_CHANGED) and totalled
 * whole; undefined for a call that is none. `given` gives a call's bytes (the context map's, when computed).
 */
export function callDiffReply(session: LoadedSession, params: ParsedParams<'callDiff'>, given?: (call: number) => number | undefined): ResultOf<'callDiff'> | undefined {
  const limit = params.limit ?? MAX_DIFF_ENTRIES;
  const diff = session.callsDiff(params.from, params.to, { limit: Math.min(limit, MAX_DIFF_CHANGED) }, given);
  if (!diff) return undefined;
  const counted = diffTokens(session, diff);
  return {
    calls: session.calls.length,
    from: params.from,
    to: params.to,
    added: diff.added.slice(0, limit),
    removed: diff.dropped.slice(0, limit),
    reduced: diff.reduced.slice(0, limit),
    restored: diff.restored.slice(0, limit),
    totals: { added: total(diff.added), removed: total(diff.dropped), reduced: total(diff.reduced), restored: total(diff.restored) },
    bytes: diff.bytes,
    ...(counted ? { tokens: counted.tokens, tokens_est: { added: counted.added.slice(0, limit), removed: counted.dropped.slice(0, limit), changed: counted.changed } } : {}),
    changed: diff.changed,
    changed_count: diff.changed_count,
    between: diff.between.slice(0, limit),
    between_count: diff.between.length,
    compactions: diff.compactions.slice(0, limit),
  };
}

/** Why a call number is none of the session's. */
export function noSuchCall(session: LoadedSession, params: ParsedParams<'callDiff'>): string {
  const bad = [params.from, params.to].find((c) => c !== null && session.callInput(c) === undefined);
  const calls = session.calls.length;
  return `call ${bad ?? '?'} is no model call of this session: it has ${calls === 0 ? 'none' : `calls 1 to ${calls}`} (or ask for the latest view)`;
}

/** Events by view position then line, built once per session (a session object is never changed once handed out). */
const eventsOf = new WeakMap<LoadedSession, SessionEvent[]>();

function allEvents(session: LoadedSession): SessionEvent[] {
  const known = eventsOf.get(session);
  if (known) return known;
  const events: SessionEvent[] = [];
  for (const c of session.modelChanges) {
    events.push({
      kind: 'model_change',
      index: c.at,
      line: c.line,
      from: c.from,
      to: c.to,
      reasoning_artifacts_filtered: c.reasoning_artifacts_filtered,
      stripped: (c.stripped ?? []).slice(0, MAX_EVENT_ITEMS),
      stripped_count: c.stripped ? c.stripped.length : null,
    });
  }
  session.rewinds.forEach((r, k) => events.push({ kind: 'rewind', index: r.to, line: r.line, rewind: k, abandoned: r.abandoned.length }));
  // Reductions minted at one view length are one event: a compaction can mint thousands at once.
  const minted = new Map<number, Extract<SessionEvent, { kind: 'minted' }>>();
  session.log.forEach((r, k) => {
    const line = session.logLines?.[k];
    let event = minted.get(r.minted_at);
    if (!event) {
      event = { kind: 'minted', index: r.minted_at, ...(line !== undefined ? { line } : {}), count: 0, reductions: [] };
      minted.set(r.minted_at, event);
      events.push(event);
    }
    event.count++;
    if (event.reductions.length < MAX_EVENT_ITEMS) event.reductions.push({ id: r.id, kind: r.kind });
  });
  // At one position, in file order; mints of no known line (a snapshot's log) after the records.
  events.sort((a, b) => a.index - b.index || (a.line ?? Number.MAX_SAFE_INTEGER) - (b.line ?? Number.MAX_SAFE_INTEGER));
  eventsOf.set(session, events);
  return events;
}

/** First k with events[k].index >= index. */
function lowerBound(events: readonly SessionEvent[], index: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((events[mid]?.index ?? 0) < index) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The events at view positions `[start, end)`, the first MAX_EVENTS_PER_REQUEST of them, and how many there are. */
export function sessionEventsReply(session: LoadedSession, params: ParsedParams<'sessionEvents'>): ResultOf<'sessionEvents'> {
  const events = allEvents(session);
  const from = lowerBound(events, params.start);
  const to = lowerBound(events, params.end);
  return { events: events.slice(from, Math.min(to, from + MAX_EVENTS_PER_REQUEST)), total: to - from };
}

/** Messages `[start, end)` of rewind `rewind`'s abandoned branch, each text cut to ABANDONED_TEXT_MAX_BYTES; undefined for no such rewind. */
export function abandonedReply(session: LoadedSession, params: ParsedParams<'abandoned'>): ResultOf<'abandoned'> | undefined {
  const rewind = session.rewinds[params.rewind];
  if (!rewind) return undefined;
  const list = rewind.abandoned;
  const messages: ResultOf<'abandoned'>['messages'] = [];
  for (let k = params.start; k < Math.min(params.end, list.length); k++) {
    const index = rewind.to + k;
    const m = list.at(k);
    if (!m) {
      messages.push({ index, text: '', text_bytes: 0, missing: true });
      continue;
    }
    let text = '';
    let bytes = 0;
    let missing = false;
    try {
      const source = contentSource(m);
      bytes = source.length;
      text = utf8Decode(source.read(0, floorSourceBoundary(source, Math.min(bytes, ABANDONED_TEXT_MAX_BYTES))));
    } catch (e) {
      if (!(e instanceof ContentUnavailableError)) throw e;
      missing = true;
    }
    messages.push({ index, role: m.role, ...(m.tool_call_id !== undefined ? { tool_call_id: m.tool_call_id } : {}), text, text_bytes: bytes, ...(missing ? { missing } : {}) });
  }
  return { to: rewind.to, line: rewind.line, total: list.length, messages };
}
