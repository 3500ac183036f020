/**
 * `verify` (docs/worker.md): what expanding each reduction would find — verified, with its source
 * and sizes, or why not — for the chips of the view shown (the latest, or a call's input).
 */
import type { Reduction, ReductionStatus } from '../../../shared/index';
import { canonicalFullyVisible, checkReduction, unknownReduction } from '../../../shared/index';
import { nodeSha256 } from '../../loader/session';
import { ok } from '../replies';
import { callView } from './calls';
import type { Handler } from './handler';

export const verify: Handler<'verify'> = (request, state) =>
  state.withSession('verify', (open) => {
    const { session } = open;
    // A call's input holds the reductions live then: its chips are checked against its own log.
    const view = callView(open, request.call);
    if ('ok' in view) return view;
    // One pass over the log for the whole batch (the most recent record per id, as findReduction
    // answers), not one per id: a batch of 1,000 over a log of 100,000 took 1.25 s.
    const asked = new Set(request.ids);
    const byId = new Map<string, Reduction>();
    for (const r of view.log) if (asked.has(r.id)) byId.set(r.id, r);
    const statuses = request.ids.map((id): ReductionStatus => {
      const r = byId.get(id);
      if (!r) return { id, status: 'unknown_reduction', message: unknownReduction(id, view.log).message };
      const { hidden_bytes, hash_origin, ...found } = checkReduction(r, view.log, session.minted, session.recorded, { sha256: nodeSha256 });
      // A duplicate's chip links to its canonical and says whether the model could still see it (in the call shown).
      const canonical = r.kind === 'duplicate_output' && r.canonical ? { canonical: { index: r.canonical.index, visible: canonicalFullyVisible(r, view.log) } } : {};
      return { id, ...found, ...(hidden_bytes !== null ? { hidden_bytes } : {}), ...(hash_origin !== null ? { hash_origin } : {}), ...canonical };
    });
    return ok({ statuses });
  });
