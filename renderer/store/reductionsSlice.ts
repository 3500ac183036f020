/**
 * Reductions: their verification status (batched `verify` for what is on screen), expansions
 * cached by (id, requested range) so nothing is fetched twice, and the one open reduction — the
 * windows of its content shown under its stub, the byte range its slider asks for, and the match
 * to highlight.
 */
import type { HostError, ReductionStatus, ResultOf } from '../../shared/contract';
import { MAX_SLICE_BYTES } from '../../shared/contract';
import type { SliceCreator } from './appState';
import { callParams } from './callParams';

export type ExpandOutcome = ResultOf<'expand'>;
export type ByteRange = readonly [number, number];

/** The first window an expansion shows, and the least `Load more` appends. */
export const EXPAND_WINDOW_BYTES = 64 * 1024;
/**
 * The most one request asks for. `Load more` appends as much again as is shown (64 KiB,
 * 64 KiB, 128 KiB, … up to this), a range or a jump is fetched one window at a time from its start:
 * each reply is rendered as one chunk of its own (earlier chunks are not rendered again).
 */
export const MAX_WINDOW_BYTES = 1024 * 1024;
/**
 * The most the open reduction shows at once (what is in the DOM, and what `Copy bytes` copies):
 * past it, `Load more` drops the earliest windows and `Show earlier` the latest. The host's own
 * bound on one slice (MAX_SLICE_BYTES), so a range asked for is shown whole as before.
 */
export const MAX_SHOWN_BYTES = MAX_SLICE_BYTES;
/** Most verify ids per request (the contract's bound). */
const VERIFY_BATCH = 1000;
/** Cached expansion text beyond this (UTF-16 units) is dropped, oldest first, unless on screen. */
const EXPANSION_CACHE_BUDGET = 24 * 1024 * 1024;

export type Expansion =
  | { status: 'loading'; id: string; range: ByteRange }
  | { status: 'ready'; id: string; range: ByteRange; outcome: ExpandOutcome }
  | { status: 'error'; id: string; range: ByteRange; error: HostError };

export interface Highlight {
  /** Byte offset and length of the match in the original content. */
  offset: number;
  length: number;
  /** Changes with every navigation: the view scrolls the mark into sight once per seq. */
  seq: number;
}

export interface OpenReduction {
  id: string;
  /**
   * Expansion keys shown one after the other: one window, then what `Load more` appended (or
   * `Show earlier` prepended). Contiguous; at most MAX_SHOWN_BYTES of ready content.
   */
  chunks: string[];
  /** A window on its way for this open reduction, to join `chunks` on the side named when it lands. */
  pending: { key: string; side: 'after' | 'before' } | null;
  /** The end of the range asked (a range, a link) still to be fetched after the shown windows, window by window. */
  fillTo: number | null;
  /** The range the slider and the inputs show: what was asked, or the snapped range shown. */
  requested: ByteRange | null;
  /** `requested` came from the user (slider, inputs): keep it; otherwise follow what was shown. */
  userRange: boolean;
  highlight: Highlight | null;
  /** Bumps with every range change: a reply for an older one is not shown. */
  seq: number;
}

export interface ReductionsSlice {
  statuses: ReadonlyMap<string, ReductionStatus>;
  expansions: ReadonlyMap<string, Expansion>;
  openReduction: OpenReduction | null;
  /** Asks `verify` for the ids whose status is not known yet (batched). */
  requestStatuses: (ids: readonly string[]) => void;
  /**
   * Opens `id` under its stub: the first window, or `range` (with a match to highlight).
   * `pinRange`: `range` is a place the user named (a link), kept as the slider's range like a move.
   */
  expand: (id: string, options?: { range?: ByteRange; pinRange?: boolean; highlight?: { offset: number; length: number } }) => void;
  collapse: () => void;
  toggleReduction: (id: string) => void;
  /** Appends the next window after what the open reduction shows (as much again as is shown, at most MAX_WINDOW_BYTES). */
  loadMore: () => void;
  /** Prepends the window before what the open reduction shows (same size rule as `loadMore`). */
  showEarlier: () => void;
  /** The slider or the inputs moved: show `range` (fetched after a quiet moment). */
  setShownRange: (range: ByteRange) => void;
  /**
   * Shows the window of MAX_WINDOW_BYTES at byte `offset` (clamped to the content), at
   * once (one commit, not a drag: no quiet moment), as a range the user chose. Only that window is read.
   */
  jumpTo: (offset: number) => void;
}

export function freshReductions(): Pick<ReductionsSlice, 'statuses' | 'expansions' | 'openReduction'> {
  return { statuses: new Map(), expansions: new Map(), openReduction: null };
}

export function expansionKey(id: string, range: ByteRange): string {
  return `${id}\u0000${range[0]}\u0000${range[1]}`;
}

/** The ready windows of `open`, in order, up to the first one that is not ready. */
export function shownOutcomes(open: OpenReduction, expansions: ReadonlyMap<string, Expansion>): ExpandOutcome[] {
  const out: ExpandOutcome[] = [];
  for (const key of open.chunks) {
    const e = expansions.get(key);
    if (e?.status !== 'ready') break;
    out.push(e.outcome);
  }
  return out;
}

/** The size of the next window `Load more` or `Show earlier` asks for, when `shown` bytes are shown. */
export function nextWindowBytes(shown: number): number {
  return Math.min(MAX_WINDOW_BYTES, Math.max(EXPAND_WINDOW_BYTES, shown));
}

/**
 * The chunks kept when one more lands on `side`: the ready ones, dropping from the far side while
 * more than MAX_SHOWN_BYTES are shown (the one that landed always stays).
 */
export function boundedChunks(chunks: readonly string[], side: 'after' | 'before', expansions: ReadonlyMap<string, Expansion>): string[] {
  const out = [...chunks];
  const bytes = (key: string): number => {
    const e = expansions.get(key);
    return e?.status === 'ready' ? e.outcome.range[1] - e.outcome.range[0] : 0;
  };
  let total = out.reduce((sum, key) => sum + bytes(key), 0);
  while (out.length > 1 && total > MAX_SHOWN_BYTES) {
    const dropped = side === 'after' ? out.shift() : out.pop();
    total -= bytes(dropped as string);
  }
  return out;
}

/** The byte range the open reduction shows, as the host snapped it. */
export function shownRange(outcomes: readonly ExpandOutcome[]): [number, number] | null {
  const first = outcomes[0];
  const last = outcomes[outcomes.length - 1];
  return first && last ? [first.range[0], last.range[1]] : null;
}

/**
 * Whole, ordered, non-negative. The end is not clamped here: the host cuts a range to
 * MAX_SLICE_BYTES and floors both ends to character boundaries, and `Shown range` says what it
 * returned, while the slider keeps what the user asked.
 */
function normalizeRange(range: ByteRange): [number, number] {
  const s = Math.max(0, Math.floor(Math.min(range[0], range[1])));
  const e = Math.max(0, Math.floor(Math.max(range[0], range[1])));
  return [s, e];
}

export const createReductionsSlice: SliceCreator<ReductionsSlice> = (deps) => (set, get) => {
  // Bookkeeping that is not rendered lives here, keyed by epoch like the caches it serves.
  // `verifying`: a verify batch is in flight (at most one: see flushVerify).
  // And by the shown call, whose chips are verified and expanded against its own log.
  let book = { epoch: -1, call: null as number | null, queued: new Set<string>(), asked: new Set<string>(), inFlight: new Map<string, Promise<void>>(), verifying: false };
  let verifyTimer: ReturnType<typeof setTimeout> | undefined;
  let rangeTimer: ReturnType<typeof setTimeout> | undefined;
  let highlightSeq = 0;

  const current = (): typeof book => {
    if (book.epoch !== get().epoch || book.call !== get().shownCall) book = { epoch: get().epoch, call: get().shownCall, queued: new Set(), asked: new Set(), inFlight: new Map(), verifying: false };
    return book;
  };

  const setExpansion = (key: string, value: Expansion): void => {
    const next = new Map(get().expansions);
    next.delete(key);
    next.set(key, value);
    // Oldest first (Map order); keep what is on screen and what is loading.
    let total = 0;
    for (const e of next.values()) if (e.status === 'ready') total += e.outcome.content.length;
    if (total > EXPANSION_CACHE_BUDGET) {
      const keep = new Set(get().openReduction?.chunks ?? []);
      keep.add(key);
      for (const [k, e] of next) {
        if (total <= EXPANSION_CACHE_BUDGET) break;
        if (keep.has(k) || e.status !== 'ready') continue;
        total -= e.outcome.content.length;
        next.delete(k);
      }
    }
    set({ expansions: next });
  };

  /** Fetches (id, range) once: a cached or in-flight expansion is reused. */
  const fetchExpansion = (id: string, range: ByteRange): Promise<void> => {
    const key = expansionKey(id, range);
    const b = current();
    const known = get().expansions.get(key);
    if (known && known.status !== 'error') return b.inFlight.get(key) ?? Promise.resolve();
    setExpansion(key, { status: 'loading', id, range });
    const done = deps.api.expand({ id, range: [range[0], range[1]], ...callParams(b.call) }).then((reply) => {
      if (current() !== b) return;
      b.inFlight.delete(key);
      setExpansion(key, reply.ok ? { status: 'ready', id, range, outcome: reply.value } : { status: 'error', id, range, error: reply.error });
      const open = get().openReduction;
      // The first reply of a window the user did not choose tells the slider where it is.
      if (reply.ok && open && open.id === id && !open.userRange && open.chunks[0] === key) {
        const shown = shownRange(shownOutcomes(open, get().expansions));
        if (shown) set({ openReduction: { ...open, requested: shown } });
      }
    });
    b.inFlight.set(key, done);
    return done;
  };

  /**
   * Sends the queued ids, one batch of at most VERIFY_BATCH in flight at a time, in the order they
   * were asked. The resolver answers one request at a time: 100 batches sent at once would hold a
   * click's `expand` behind all of them; one at a time, it waits for one batch at most. Each reply
   * is one store update; a chip selects its own status, so only the chips of that batch re-render.
   */
  const flushVerify = (): void => {
    verifyTimer = undefined;
    const b = current();
    if (b.verifying || b.queued.size === 0) return;
    const batch: string[] = [];
    for (const id of b.queued) {
      batch.push(id);
      if (batch.length === VERIFY_BATCH) break;
    }
    for (const id of batch) b.queued.delete(id);
    b.verifying = true;
    void deps.api.verify({ ids: batch, ...callParams(b.call) }).then((reply) => {
      // A reply for an older session is dropped, and its bookkeeping with it.
      if (current() !== b) return;
      b.verifying = false;
      if (reply.ok) {
        const next = new Map(get().statuses);
        for (const s of reply.value.statuses) next.set(s.id, s);
        set({ statuses: next });
      }
      flushVerify();
    });
  };

  /** The first window of a range asked: from its start, at most MAX_WINDOW_BYTES. */
  const firstWindow = (asked: [number, number]): [number, number] => [asked[0], Math.min(asked[1], asked[0] + MAX_WINDOW_BYTES)];

  /** Fetches `range` for the open reduction, to join its chunks on `side` when it lands. */
  const addWindow = (side: 'after' | 'before', range: [number, number]): void => {
    const open = get().openReduction;
    if (!open) return;
    const key = expansionKey(open.id, range);
    set({ openReduction: { ...open, pending: { key, side } } });
    void fetchExpansion(open.id, range).then(() => landed(key));
  };

  /**
   * A window of the open reduction landed: it joins the chunks (bounded), the slider follows what
   * is shown unless the user chose the range, and a fill goes on. A reply for a window no longer
   * pending (a collapse, another reduction, a new range) is not shown.
   */
  const landed = (key: string): void => {
    const now = get().openReduction;
    if (!now || now.pending?.key !== key) return;
    const { side } = now.pending;
    const e = get().expansions.get(key);
    let chunks: string[];
    let fillTo = now.fillTo;
    if (e?.status !== 'ready') {
      // An error is shown after what is shown (its alert), and nothing more is asked.
      chunks = [...now.chunks, key];
      fillTo = null;
    } else if (e.outcome.range[1] <= e.outcome.range[0]) {
      // Nothing between the ends (a range inside one character): nothing to add, nor to wait for.
      chunks = now.chunks;
      fillTo = null;
    } else {
      chunks = boundedChunks(side === 'after' ? [...now.chunks, key] : [key, ...now.chunks], side, get().expansions);
    }
    const next: OpenReduction = { ...now, chunks, pending: null, fillTo };
    const shown = shownRange(shownOutcomes(next, get().expansions));
    set({ openReduction: !now.userRange && shown ? { ...next, requested: shown } : next });
    continueFill();
  };

  /** Fetches the next window of a range asked that is longer than one, while MAX_SHOWN_BYTES allow. */
  const continueFill = (): void => {
    const open = get().openReduction;
    if (!open || open.fillTo === null || open.pending) return;
    const outcomes = shownOutcomes(open, get().expansions);
    const shown = shownRange(outcomes);
    const last = outcomes[outcomes.length - 1];
    if (outcomes.length !== open.chunks.length || !shown || !last) return;
    const end = Math.min(open.fillTo, last.total_bytes, shown[0] + MAX_SHOWN_BYTES);
    if (shown[1] >= end) set({ openReduction: { ...open, fillTo: null } });
    else addWindow('after', [shown[1], Math.min(end, shown[1] + MAX_WINDOW_BYTES)]);
  };

  /**
   * Shows the range the user asked for reduction `id` (its first window, then the fill), unless a
   * later move, another reduction or a collapse came first (`seq`): the old chunks stay until then.
   */
  const showAsked = (id: string, range: [number, number], seq: number): void => {
    const window = firstWindow(range);
    void fetchExpansion(id, window).then(() => {
      const now = get().openReduction;
      if (!now || now.id !== id || now.seq !== seq) return;
      set({ openReduction: { ...now, chunks: [expansionKey(id, window)], pending: null, fillTo: range[1] > window[1] ? range[1] : null } });
      continueFill();
    });
  };

  /** What `Load more` and `Show earlier` start from: the shown range, once every shown window is ready. */
  const settledShown = (): { open: OpenReduction; shown: [number, number]; total: number } | null => {
    const open = get().openReduction;
    if (!open || open.pending) return null;
    const outcomes = shownOutcomes(open, get().expansions);
    const shown = shownRange(outcomes);
    const last = outcomes[outcomes.length - 1];
    if (outcomes.length !== open.chunks.length || !shown || !last) return null; // a window is still on its way, or failed
    return { open, shown, total: last.total_bytes };
  };

  return {
    ...freshReductions(),

    requestStatuses(ids) {
      const b = current();
      const { statuses, session } = get();
      if (!session || session.stopped) return;
      let added = false;
      for (const id of ids) {
        // `asked` is per epoch: an id is asked once, even if the answer was an error.
        if (statuses.has(id) || b.asked.has(id)) continue;
        b.asked.add(id);
        b.queued.add(id);
        added = true;
      }
      if (added && verifyTimer === undefined) verifyTimer = setTimeout(flushVerify, deps.timing.verifyBatchMs);
    },

    expand(id, options = {}) {
      const asked = normalizeRange(options.range ?? [0, EXPAND_WINDOW_BYTES]);
      const range = firstWindow(asked);
      const key = expansionKey(id, range);
      const previous = get().openReduction;
      clearTimeout(rangeTimer);
      const highlight = options.highlight ? { ...options.highlight, seq: ++highlightSeq } : null;
      const cached = get().expansions.get(key);
      const shown = cached?.status === 'ready' ? cached.outcome.range : null;
      const pinned = options.pinRange === true && options.range !== undefined;
      const seq = (previous?.seq ?? 0) + 1;
      set({
        openReduction: { id, chunks: [key], pending: null, fillTo: asked[1] > range[1] ? asked[1] : null, requested: pinned ? asked : shown, userRange: pinned, highlight, seq },
      });
      void fetchExpansion(id, range).then(() => {
        if (get().openReduction?.seq === seq) continueFill();
      });
    },

    collapse() {
      clearTimeout(rangeTimer);
      if (get().openReduction) set({ openReduction: null });
    },

    toggleReduction(id) {
      if (get().openReduction?.id === id) get().collapse();
      else get().expand(id);
    },

    loadMore() {
      const at = settledShown();
      if (!at || at.shown[1] >= at.total) return;
      const { open, shown, total } = at;
      set({ openReduction: { ...open, userRange: false, fillTo: null } });
      addWindow('after', [shown[1], Math.min(total, shown[1] + nextWindowBytes(shown[1] - shown[0]))]);
    },

    showEarlier() {
      const at = settledShown();
      if (!at || at.shown[0] <= 0) return;
      const { open, shown } = at;
      set({ openReduction: { ...open, userRange: false, fillTo: null } });
      addWindow('before', [Math.max(0, shown[0] - nextWindowBytes(shown[1] - shown[0])), shown[0]]);
    },

    setShownRange(asked) {
      const open = get().openReduction;
      if (!open) return;
      const range = normalizeRange(asked);
      const seq = open.seq + 1;
      set({ openReduction: { ...open, requested: range, userRange: true, seq, pending: null, fillTo: null } });
      clearTimeout(rangeTimer);
      rangeTimer = setTimeout(() => showAsked(open.id, range, seq), deps.timing.rangeDebounceMs);
    },

    jumpTo(offset) {
      const open = get().openReduction;
      if (!open) return;
      const total = shownOutcomes(open, get().expansions)[0]?.total_bytes ?? get().statuses.get(open.id)?.total_bytes;
      const start = Math.max(0, Math.floor(total === undefined ? offset : Math.min(offset, total)));
      const range: [number, number] = [start, total === undefined ? start + MAX_WINDOW_BYTES : Math.min(total, start + MAX_WINDOW_BYTES)];
      const seq = open.seq + 1;
      clearTimeout(rangeTimer);
      set({ openReduction: { ...open, requested: range, userRange: true, seq, pending: null, fillTo: null } });
      showAsked(open.id, range, seq);
    },
  };
};
