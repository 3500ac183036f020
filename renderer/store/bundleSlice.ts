/** Repro bundles. The host builds one from the open session (SPEC §12); the view packs and offers it. */
import type { Params, Reply } from '../../shared/contract';
import type { SliceCreator } from './appState';

export interface BundleSlice {
  /** The host's bundle of the open session, or null when the session changed while it was made. */
  makeReproBundle: (params: Params<'reproBundle'>) => Promise<Reply<'reproBundle'> | null>;
}

export const createBundleSlice: SliceCreator<BundleSlice> = (deps) => (_set, get) => ({
  async makeReproBundle(params) {
    const epoch = get().epoch;
    const reply = await deps.api.reproBundle(params);
    return get().epoch === epoch ? reply : null;
  },
});
