/**
 * Policy replay (the Findings panel's `Replay policy`) and the what-if view (the
 * `What if` tab's policy editor). Both run when asked: a replay re-reads the whole sidecar.
 */
import type { HostError, ResultOf } from '../../shared/contract';
import type { ReductionPolicy } from '../../shared/format/types';
import type { SliceCreator } from './appState';

type Status = 'idle' | 'running' | 'done' | 'error';

export interface PolicySlice {
  replayStatus: Status;
  replayResult: ResultOf<'replay'> | null;
  replayError: HostError | null;
  runReplay: () => Promise<void>;
  whatIfStatus: Status;
  whatIfResult: ResultOf<'whatIf'> | null;
  whatIfError: HostError | null;
  /** The policy the shown result is for. */
  whatIfPolicy: ReductionPolicy | null;
  runWhatIf: (policy: ReductionPolicy) => Promise<void>;
}

/** Reset with the findings when a session opens (freshFindings). */
export function freshPolicy(): Omit<PolicySlice, 'runReplay' | 'runWhatIf'> {
  return { replayStatus: 'idle', replayResult: null, replayError: null, whatIfStatus: 'idle', whatIfResult: null, whatIfError: null, whatIfPolicy: null };
}

export const createPolicySlice: SliceCreator<PolicySlice> = (deps) => (set, get) => ({
  ...freshPolicy(),

  async runReplay() {
    const epoch = get().epoch;
    if (!get().session || get().replayStatus === 'running') return;
    set({ replayStatus: 'running', replayError: null });
    const reply = await deps.api.replay({});
    if (get().epoch !== epoch) return;
    if (reply.ok) set({ replayStatus: 'done', replayResult: reply.value });
    else set({ replayStatus: 'error', replayError: reply.error });
  },

  async runWhatIf(policy) {
    const epoch = get().epoch;
    if (!get().session) return;
    set({ whatIfStatus: 'running', whatIfError: null, whatIfPolicy: policy });
    const reply = await deps.api.whatIf({ policy });
    // A later request (or another session) owns the result.
    if (get().epoch !== epoch || get().whatIfPolicy !== policy) return;
    if (reply.ok) set({ whatIfStatus: 'done', whatIfResult: reply.value });
    else set({ whatIfStatus: 'error', whatIfError: reply.error });
  },
});
