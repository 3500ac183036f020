/** What leaves the app: repro bundles (SPEC §12) and session documents (§16). The host makes them from the open session; the view offers them. */
import type { EventPayload, Params, Reply } from '../../shared/contract';
import type { SliceCreator } from './appState';

export type BundleProgressEvent = EventPayload<'bundleProgress'>;

export interface BundleSlice {
  /** The host's bundle of the open session, or null when the session changed while it was made. */
  makeReproBundle: (params: Params<'reproBundle'>) => Promise<Reply<'reproBundle'> | null>;
  /** The latest progress of each bundle in flight, by bundleId (docs/bundles.md). */
  bundleProgress: Readonly<Record<string, BundleProgressEvent>>;
  /** A `bundleProgress` event: kept while that bundle is in flight. */
  applyBundleProgress: (progress: BundleProgressEvent) => void;
  /** Stops bundle `bundleId`: it answers with the smallest bundle found so far that reproduces. */
  cancelReproBundle: (bundleId: string) => Promise<void>;
  /** The host's document of the open session (Markdown or HTML), or null when the session changed while it was written. */
  makeSessionDocument: (params: Params<'exportDocument'>) => Promise<Reply<'exportDocument'> | null>;
}

/** The bundles this window has asked for and not yet been answered. */
const inFlight = new Set<string>();

export const createBundleSlice: SliceCreator<BundleSlice> = (deps) => (set, get) => ({
  bundleProgress: {},
  async makeReproBundle(params) {
    const epoch = get().epoch;
    const id = params.bundleId;
    if (id !== undefined) inFlight.add(id);
    try {
      const reply = await deps.api.reproBundle(params);
      return get().epoch === epoch ? reply : null;
    } finally {
      if (id !== undefined) {
        inFlight.delete(id);
        const { [id]: _done, ...rest } = get().bundleProgress;
        set({ bundleProgress: rest });
      }
    }
  },
  applyBundleProgress(progress) {
    if (!inFlight.has(progress.bundleId)) return;
    set({ bundleProgress: { ...get().bundleProgress, [progress.bundleId]: progress } });
  },
  async cancelReproBundle(bundleId) {
    await deps.api.cancelBundle({ bundleId });
  },
  async makeSessionDocument(params) {
    const epoch = get().epoch;
    const reply = await deps.api.exportDocument(params);
    return get().epoch === epoch ? reply : null;
  },
});
