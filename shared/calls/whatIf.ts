/**
 * The what-if view. A session re-projected under another policy (replayPolicy in
 * what-if mode: the policy's own ids), and what differs from what the agent really did, in the
 * latest view: reductions added, removed or changed (matched by address — a message's index, a
 * range's `[index, end)` — never by id, since the two logs number independently), the messages
 * whose shown content differs, and the bytes the model would have been given.
 */
import { viewEntries, type ViewEntry } from './calls';
import { statedHiddenBytes } from '../resolver/original';
import { replayPolicy, type LocatedRecord, type ReplayOptions } from './replay';
import { arrayList } from '../resolver/session';
import { memorySource, sourcesEqual } from '../format/bytes';
import type { ByteSource, ChatMessage, MessageList, Reduction, ReductionKind, ReductionPolicy, Role } from '../format/types';
import { isRangeKind } from '../format/types';
import { isWellFormed, utf8Encode, utf8Length } from '../format/utf8';

/** One side of a reduction in a what-if diff. */
export interface WhatIfReduction {
  id: string;
  kind: ReductionKind;
  index: number;
  end?: number;
  kept_bytes?: number;
  /** The bytes it states it hides (null: it states no size). */
  hidden_bytes: number | null;
}

export interface WhatIfMessage {
  /** View index (a range entry's start). */
  index: number;
  role: Role | null;
  /** UTF-8 bytes of the entry as the agent's log shows it; null: no entry there (inside a range). */
  recorded_bytes: number | null;
  /** The same under the policy. */
  policy_bytes: number | null;
}

export interface WhatIfDiff {
  counts: { added: number; removed: number; changed: number; messages: number };
  reductions: {
    added: WhatIfReduction[];
    removed: WhatIfReduction[];
    changed: { index: number; recorded: WhatIfReduction; policy: WhatIfReduction }[];
  };
  /** Entries of the latest view whose shown content differs, in view order. */
  messages: WhatIfMessage[];
  /** UTF-8 bytes of the latest view's content, as recorded and under the policy. */
  bytes: { recorded: number; policy: number };
}

export interface WhatIf {
  /**
   * The latest view under the policy (SPEC §11 `view` entries). An entry that shows whole a
   * message whose content is kept in a ByteSource (`large`: `inSource`) has an empty `content`.
   */
  messages: ViewEntry[];
  diff: WhatIfDiff;
  /** The view re-projected (what `inSource` reads an entry's source from). */
  view: (ChatMessage | undefined)[];
}

/** The source of the content an entry shows whole, when its message keeps it in one (its `content` is then empty). */
export function inSource(entry: ViewEntry, view: MessageList): ByteSource | undefined {
  return entry.reductions.length === 0 ? view.at(entry.index)?.large : undefined;
}

function side(r: Reduction): WhatIfReduction {
  return {
    id: r.id,
    kind: r.kind,
    index: r.ptr.index,
    ...(r.end !== undefined ? { end: r.end } : {}),
    ...(r.kept_bytes !== undefined ? { kept_bytes: r.kept_bytes } : {}),
    hidden_bytes: statedHiddenBytes(r),
  };
}

const address = (r: Reduction) => (isRangeKind(r.kind) ? `range:${r.ptr.index}:${r.end ?? r.ptr.index}` : `index:${r.ptr.index}`);

/** Two reductions at one address differ when the model would have been shown something else. */
function differs(a: Reduction, b: Reduction): boolean {
  return a.kind !== b.kind || a.kept_bytes !== b.kept_bytes || a.end !== b.end || a.ptr.bytes !== b.ptr.bytes || a.canonical?.index !== b.canonical?.index;
}

const byIndex = <T extends { index: number }>(x: T, y: T) => x.index - y.index;

/** The diff of the agent's live log and a policy's, over one view. */
export function whatIfDiff(
  view: Parameters<typeof arrayList>[0],
  recordedLog: readonly Reduction[],
  policyLog: readonly Reduction[],
  sizes?: WeakMap<ChatMessage, number>,
): { entries: ViewEntry[]; diff: WhatIfDiff } {
  const minted = arrayList(view);
  const recordedEntries = viewEntries({ minted, log: [...recordedLog] });
  const policyEntries = viewEntries({ minted, log: [...policyLog] });
  const rec = new Map(recordedLog.map((r) => [address(r), r]));
  const pol = new Map(policyLog.map((r) => [address(r), r]));
  const added = policyLog.filter((r) => !rec.has(address(r))).map(side);
  const removed = recordedLog.filter((r) => !pol.has(address(r))).map(side);
  const changed = recordedLog.flatMap((r) => {
    const p = pol.get(address(r));
    return p && differs(r, p) ? [{ index: r.ptr.index, recorded: side(r), policy: side(p) }] : [];
  });
  const shownBytes = (e: ViewEntry) => inSource(e, minted)?.length ?? utf8Length(e.content);
  /** The two entries at one index show the same text (a source's, when kept in one: well-formed UTF-8). */
  const same = (a: ViewEntry, b: ViewEntry): boolean => {
    const sa = inSource(a, minted);
    const sb = inSource(b, minted);
    if (sa === undefined && sb === undefined) return a.content === b.content;
    if (sa !== undefined && sb !== undefined) return sa === sb || sourcesEqual(sa, sb);
    const text = sa ? b.content : a.content;
    const source = (sa ?? sb) as ByteSource;
    return isWellFormed(text) && source.length === utf8Length(text) && sourcesEqual(source, memorySource(utf8Encode(text)));
  };
  const recAt = new Map(recordedEntries.map((e) => [e.index, e]));
  const polAt = new Map(policyEntries.map((e) => [e.index, e]));
  const messages: WhatIfMessage[] = [];
  for (const index of new Set([...recAt.keys(), ...polAt.keys()])) {
    const a = recAt.get(index);
    const b = polAt.get(index);
    if (a && b && same(a, b)) continue;
    messages.push({ index, role: a?.role ?? b?.role ?? null, recorded_bytes: a ? shownBytes(a) : null, policy_bytes: b ? shownBytes(b) : null });
  }
  // An entry no reduction touches shows its message's content itself: measured once, by the replay.
  const bytesOf = (e: ViewEntry): number => {
    const source = inSource(e, minted);
    if (source) return source.length;
    const msg = e.reductions.length === 0 ? minted.at(e.index) : undefined;
    const known = msg !== undefined && msg.content === e.content ? sizes?.get(msg) : undefined;
    return known ?? utf8Length(e.content);
  };
  const total = (entries: readonly ViewEntry[]) => entries.reduce((n, e) => n + bytesOf(e), 0);
  const diff: WhatIfDiff = {
    counts: { added: added.length, removed: removed.length, changed: changed.length, messages: messages.length },
    reductions: { added: added.sort(byIndex), removed: removed.sort(byIndex), changed: changed.sort(byIndex) },
    messages: messages.sort(byIndex),
    bytes: { recorded: total(recordedEntries), policy: total(policyEntries) },
  };
  return { entries: policyEntries, diff };
}

/** The session of `records` re-projected under `policy`, diffed against its recorded log. */
export function whatIf(records: Iterable<LocatedRecord>, policy: ReductionPolicy, options: Omit<ReplayOptions, 'ownIds' | 'sizes'> = {}): WhatIf {
  const sizes = new WeakMap<ChatMessage, number>();
  const replayed = replayPolicy(records, policy, { ...options, ownIds: true, sizes });
  const { entries, diff } = whatIfDiff(replayed.view, replayed.recordedLog, replayed.policyLog, sizes);
  return { messages: entries, diff, view: replayed.view };
}
