/** What leaves the app: repro bundles (SPEC §12) and session documents (§16). The host makes them from the open session; the view offers them. */
import type { Params, Reply } from '../../shared/contract';
import type { SliceCreator } from './appState';

export interface BundleSlice {
  /** The host's bundle of the open session, or null when the session changed while it was made. */
  makeReproBundle: (params: Params<'reproBundle'>) => Promise<Reply<'reproBundle'> | null>;
  /** The host's document of the open session (Markdown or HTML), or null when the session changed while it was written. */
  makeSessionDocument: (params: Params<'exportDocument'>) => Promise<Reply<'exportDocument'> | null>;
}

export const createBundleSlice: SliceCreator<BundleSlice> = (deps) => (_set, get) => ({
  async makeReproBundle(params) {
    const epoch = get().epoch;
    const reply = await deps.api.reproBundle(params);
    return get().epoch === epoch ? reply : null;
  },
  async makeSessionDocument(params) {
    const epoch = get().epoch;
    const reply = await deps.api.exportDocument(params);
    return get().epoch === epoch ? reply : null;
  },
});
