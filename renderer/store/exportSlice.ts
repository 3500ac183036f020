/** `Export call…` (SPEC §16): the host's provider request for a call of the open session. */
import type { Params, Reply } from '../../shared/contract';
import type { SliceCreator } from './appState';

export interface ExportSlice {
  /** The call's request, or null when the session changed while it was made. */
  exportCall: (params: Params<'exportCall'>) => Promise<Reply<'exportCall'> | null>;
}

export const createExportSlice: SliceCreator<ExportSlice> = (deps) => (_set, get) => ({
  async exportCall(params) {
    const epoch = get().epoch;
    const reply = await deps.api.exportCall(params);
    return get().epoch === epoch ? reply : null;
  },
});
