/** What leaves the app: repro bundles (SPEC §12) and session documents (§16). The host makes them from the open session; the view offers them. */
import type { EventPayload, Params, Reply, ResultOf } from '../../shared/contract';
import type { SliceCreator } from './appState';

export type BundleProgressEvent = EventPayload<'bundleProgress'>;

/** What a bundle's control shows: nothing asked yet, the search running, its error, or the bundle made. */
export type ReproBundleState = { status: 'idle' } | { status: 'running'; bundleId: string; stopping: boolean } | { status: 'error'; message: string } | { status: 'done'; made: ResultOf<'reproBundle'> };

/** What a bundle is made for: the findings' codes and the reductions' ids it must reproduce. */
export interface ReproBundleTarget {
  codes: readonly string[];
  ids: readonly string[];
}

/** The key of a target in `reproBundles`: one per control (a finding's code, a reduction's id). */
export function reproBundleKey(target: ReproBundleTarget): string {
  return JSON.stringify([target.codes, target.ids]);
}

export const IDLE_BUNDLE: ReproBundleState = { status: 'idle' };

export interface BundleSlice {
  /**
   * Each bundle control's state, by its target (reproBundleKey), for the open session. Held here and
   * not in the control: the control is in a row of the virtual scroller, which unmounts rows out of
   * its window, and a search runs for minutes.
   */
  reproBundles: Readonly<Record<string, ReproBundleState>>;
  /**
   * Makes the bundle of `target` (its state in `reproBundles` meanwhile): the bundle made, or null
   * when it failed (its state says why), a search for it already runs, or the session changed.
   */
  startReproBundle: (target: ReproBundleTarget) => Promise<ResultOf<'reproBundle'> | null>;
  /** Stops the search running for `target`: the host answers with the smallest bundle found so far that reproduces. */
  stopReproBundle: (target: ReproBundleTarget) => void;
  /** The latest progress of each bundle in flight, by bundleId (docs/bundles.md). */
  bundleProgress: Readonly<Record<string, BundleProgressEvent>>;
  /** A `bundleProgress` event: kept while that bundle is in flight. */
  applyBundleProgress: (progress: BundleProgressEvent) => void;
  /** The host's document of the open session (Markdown or HTML), or null when the session changed while it was written. */
  makeSessionDocument: (params: Params<'exportDocument'>) => Promise<Reply<'exportDocument'> | null>;
}

/** The bundles this window has asked for and not yet been answered. */
const inFlight = new Set<string>();

let nextBundle = 0;

/** No bundle state: a session opened (applySession with another generation). */
export function freshBundles(): Pick<BundleSlice, 'reproBundles'> {
  return { reproBundles: {} };
}

export const createBundleSlice: SliceCreator<BundleSlice> = (deps) => (set, get) => {
  const generation = (): number | undefined => get().session?.generation;
  /** Sets the state of `key`, when the session is still `asked` (another session's states were dropped). */
  const setBundle = (key: string, asked: number | undefined, state: ReproBundleState): void => {
    if (generation() === asked) set({ reproBundles: { ...get().reproBundles, [key]: state } });
  };
  /**
   * The host's bundle `bundleId` of `target`, asked while the session was `asked`, or null when
   * another session was opened meanwhile (a session that only grew, followed live, keeps it: the
   * bundle reproduces what it held). Its progress is kept while it is in flight.
   */
  const make = async (target: ReproBundleTarget, bundleId: string, asked: number | undefined): Promise<Reply<'reproBundle'> | null> => {
    inFlight.add(bundleId);
    try {
      const reply = await deps.api.reproBundle({ codes: [...target.codes], ids: [...target.ids], bundleId });
      return generation() === asked ? reply : null;
    } finally {
      inFlight.delete(bundleId);
      const { [bundleId]: _done, ...rest } = get().bundleProgress;
      set({ bundleProgress: rest });
    }
  };
  return {
    bundleProgress: {},
    ...freshBundles(),
    applyBundleProgress(progress) {
      if (!inFlight.has(progress.bundleId)) return;
      set({ bundleProgress: { ...get().bundleProgress, [progress.bundleId]: progress } });
    },
    async startReproBundle(target) {
      const key = reproBundleKey(target);
      if (get().reproBundles[key]?.status === 'running') return null;
      const asked = generation();
      const bundleId = `bundle-${Date.now().toString(36)}-${nextBundle++}`;
      setBundle(key, asked, { status: 'running', bundleId, stopping: false });
      const reply = await make(target, bundleId, asked);
      if (reply === null) return null;
      if (!reply.ok) {
        setBundle(key, asked, { status: 'error', message: reply.error.message });
        return null;
      }
      setBundle(key, asked, { status: 'done', made: reply.value });
      return reply.value;
    },
    stopReproBundle(target) {
      const key = reproBundleKey(target);
      const state = get().reproBundles[key];
      if (state?.status !== 'running' || state.stopping) return;
      setBundle(key, generation(), { ...state, stopping: true });
      // The host answers the running `startReproBundle` with the smallest bundle found so far.
      void deps.api.cancelBundle({ bundleId: state.bundleId });
    },
    async makeSessionDocument(params) {
      const epoch = get().epoch;
      const reply = await deps.api.exportDocument(params);
      return get().epoch === epoch ? reply : null;
    },
  };
};
