/**
 * The token figures beside the bytes of chips, log rows and search results (SPEC §15, §16.1):
 * `hiddenTokens` asked for the reductions on screen once they show, batched (one request in flight
 * at a time, like `verify`), and what the worker did not count within its budget (`pending`) asked
 * again, so the figures fill in while the rows stay responsive. Figures belong to one session
 * (epoch) and one view (the call shown): `figuresKey` says which, and a figure of another view is
 * never shown.
 */
import type { ResultOf } from '../../shared/contract';
import { MAX_HIDDEN_TOKENS_IDS } from '../../shared/contract';
import type { AppState, SliceCreator } from './appState';
import { callParams } from './callParams';
import { searchOver, searching } from './searching';

export type TokenFigures = ResultOf<'hiddenTokens'>['reductions'][number];

/** What a reduction's figures are, in the view shown: figures, or null when the view does not hold it. */
export interface TokensSlice {
  hiddenTokens: ReadonlyMap<string, TokenFigures | null>;
  /** The session and view `hiddenTokens` is about: `epoch|call`. */
  hiddenTokensKey: string;
  /** Asks `hiddenTokens` for the ids whose figures are not known yet (batched; pending ones asked again). */
  requestHiddenTokens: (ids: readonly string[]) => void;
}

/** The key of the view shown: figures of another key are not shown. */
export function viewKey(state: Pick<AppState, 'epoch' | 'shownCall'>): string {
  return `${state.epoch}|${state.shownCall ?? 'latest'}`;
}

/** A reduction's figures in the view shown; undefined until they are known. */
export function figuresOf(state: AppState, id: string): TokenFigures | null | undefined {
  return state.hiddenTokensKey === viewKey(state) ? state.hiddenTokens.get(id) : undefined;
}

export const createTokensSlice: SliceCreator<TokensSlice> = (deps) => (set, get, store) => {
  let book = { key: '', call: null as number | null, queued: new Set<string>(), asked: new Set<string>(), inFlight: false, waiting: false };
  let timer: ReturnType<typeof setTimeout> | undefined;

  const current = (): typeof book => {
    const key = viewKey(get());
    if (book.key !== key) {
      book = { key, call: get().shownCall, queued: new Set(), asked: new Set(), inFlight: false, waiting: false };
      set({ hiddenTokens: new Map(), hiddenTokensKey: key });
    }
    return book;
  };

  /** Sends the queued ids, one batch in flight; the pending ones of a reply go to the back of the queue. */
  const flush = (): void => {
    timer = undefined;
    const b = current();
    if (b.inFlight || b.waiting || b.queued.size === 0) return;
    // A search the user asked for goes first: the worker would answer an ask (a budget of counting,
    // a compaction's original at least) between each two of its slices (docs/tokens.md "How the pass runs").
    if (searching(get())) {
      b.waiting = true;
      void searchOver(store).then(() => {
        b.waiting = false;
        flush();
      });
      return;
    }
    const batch = [...b.queued].slice(0, MAX_HIDDEN_TOKENS_IDS);
    for (const id of batch) b.queued.delete(id);
    b.inFlight = true;
    void deps.api.hiddenTokens({ ids: batch, ...callParams(b.call) }).then((reply) => {
      if (current() !== b) return;
      b.inFlight = false;
      if (reply.ok) {
        const next = new Map(get().hiddenTokens);
        for (const f of reply.value.reductions) next.set(f.id, f);
        for (const id of reply.value.unknown) next.set(id, null);
        set({ hiddenTokens: next });
        for (const id of reply.value.pending) b.queued.add(id);
      }
      // An error leaves those ids without figures (their bytes still show): they are not asked again.
      flush();
    });
  };

  return {
    hiddenTokens: new Map(),
    hiddenTokensKey: '',
    requestHiddenTokens(ids) {
      const { session } = get();
      if (!session || session.stopped || session.provisional) return;
      const b = current();
      let added = false;
      for (const id of ids) {
        if (b.asked.has(id)) continue;
        b.asked.add(id);
        b.queued.add(id);
        added = true;
      }
      if (added && timer === undefined) timer = setTimeout(flush, deps.timing.verifyBatchMs);
    },
  };
};
