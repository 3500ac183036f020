/**
 * The session's story in the store — the diff between two model calls, the
 * session's events by view position (fetched a page of positions at a time, as the rows they sit
 * between are shown), and the messages a rewind abandoned. Everything belongs to one epoch: a
 * reply about an older session is dropped on arrival.
 */
import type { HostError, ResultOf, SessionEvent } from '../../shared/contract';
import { MAX_ABANDONED_PER_REQUEST } from '../../shared/contract';
import type { SliceCreator } from './appState';

/** View positions per `sessionEvents` request: one page of positions covers many rows. */
export const EVENT_PAGE_SIZE = 1000;

export type CallDiffResult = ResultOf<'callDiff'>;
export type AbandonedResult = ResultOf<'abandoned'>;

export interface DiffState {
  status: 'idle' | 'loading' | 'done' | 'error';
  /** The calls asked for (null: the latest view). */
  from: number | null;
  to: number | null;
  result?: CallDiffResult;
  error?: HostError;
}

export interface EventPage {
  status: 'loading' | 'done' | 'error';
  events: SessionEvent[];
  /** Events of the page left out of `events` by the host's cap. */
  omitted: number;
}

export interface StorySlice {
  diff: DiffState;
  /** Pages of view positions (`floor(index / EVENT_PAGE_SIZE)`) → their events. */
  eventPages: Map<number, EventPage>;
  /** Rewind number → the first messages of its abandoned branch. */
  abandoned: Map<number, { status: 'loading' | 'done' | 'error'; result?: AbandonedResult; error?: HostError }>;
  /** Asks for the diff from call `from` to call `to` (null: the latest view). */
  loadDiff: (from: number | null, to: number | null) => Promise<void>;
  /**
   * The default diff: the selected call against its previous one (call 1 against itself), else,
   * with no call selected, the last call against the latest view (what changed since the model
   * last ran; the latest against itself when the session has no call).
   */
  loadDefaultDiff: (selectedCall: number | null) => Promise<void>;
  /** Fetches the events of the pages holding positions `[start, end]` unless they are here or on their way. */
  wantEvents: (start: number, end: number) => void;
  /** Fetches the first MAX_ABANDONED_PER_REQUEST messages rewind `rewind` abandoned. */
  loadAbandoned: (rewind: number) => Promise<void>;
}

export function freshStory(): Pick<StorySlice, 'diff' | 'eventPages' | 'abandoned'> {
  return { diff: { status: 'idle', from: null, to: null }, eventPages: new Map(), abandoned: new Map() };
}

/** The events at view position `index`, when its page is here. */
export function eventsAt(pages: ReadonlyMap<number, EventPage>, index: number): SessionEvent[] {
  const page = pages.get(Math.floor(index / EVENT_PAGE_SIZE));
  return page ? page.events.filter((e) => e.index === index) : [];
}

export const createStorySlice: SliceCreator<StorySlice> = (deps) => (set, get) => ({
  ...freshStory(),

  async loadDiff(from, to) {
    const epoch = get().epoch;
    set({ diff: { status: 'loading', from, to } });
    const reply = await deps.api.callDiff({ from, to });
    // A later ask, or another session, wins.
    const now = get().diff;
    if (get().epoch !== epoch || now.from !== from || now.to !== to || now.status !== 'loading') return;
    set({ diff: reply.ok ? { status: 'done', from, to, result: reply.value } : { status: 'error', from, to, error: reply.error } });
  },

  async loadDefaultDiff(selectedCall) {
    if (selectedCall !== null) return get().loadDiff(Math.max(1, selectedCall - 1), selectedCall);
    const epoch = get().epoch;
    set({ diff: { status: 'loading', from: null, to: null } });
    // The number of calls comes with any diff; the smallest one asks for it.
    const reply = await deps.api.callDiff({ from: null, to: null, limit: 1 });
    if (get().epoch !== epoch || get().diff.status !== 'loading' || get().diff.from !== null) return;
    if (!reply.ok) {
      set({ diff: { status: 'error', from: null, to: null, error: reply.error } });
      return;
    }
    const calls = reply.value.calls;
    return get().loadDiff(calls > 0 ? calls : null, null);
  },

  wantEvents(start, end) {
    const session = get().session;
    if (!session || session.stopped) return;
    const epoch = get().epoch;
    for (let page = Math.floor(start / EVENT_PAGE_SIZE); page <= Math.floor(end / EVENT_PAGE_SIZE); page++) {
      if (get().eventPages.has(page)) continue;
      const put = (entry: EventPage): void => {
        if (get().epoch !== epoch) return;
        set({ eventPages: new Map(get().eventPages).set(page, entry) });
      };
      put({ status: 'loading', events: [], omitted: 0 });
      void deps.api.sessionEvents({ start: page * EVENT_PAGE_SIZE, end: (page + 1) * EVENT_PAGE_SIZE }).then((reply) =>
        put(reply.ok ? { status: 'done', events: reply.value.events, omitted: reply.value.total - reply.value.events.length } : { status: 'error', events: [], omitted: 0 }),
      );
    }
  },

  async loadAbandoned(rewind) {
    if (get().abandoned.get(rewind)?.status === 'done') return;
    const epoch = get().epoch;
    set({ abandoned: new Map(get().abandoned).set(rewind, { status: 'loading' }) });
    const reply = await deps.api.abandoned({ rewind, start: 0, end: MAX_ABANDONED_PER_REQUEST });
    if (get().epoch !== epoch) return;
    set({ abandoned: new Map(get().abandoned).set(rewind, reply.ok ? { status: 'done', result: reply.value } : { status: 'error', error: reply.error }) });
  },
});
