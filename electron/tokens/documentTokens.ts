/**
 * SPEC §16 `export --as markdown|html`: a session as the document's source with its token
 * estimates (SPEC §15): the estimated context of a call the file records no usage for, and the
 * tokens each reduction hides (`hidden_tokens_est`, as `log` prints it). The CLI and the worker
 * write documents from this one source (docs/export-documents.md).
 */
import type { DocumentSource } from '../../shared/export/document';
import type { TokenEstimate } from '../../shared/tokens/estimate';
import type { LoadedSession } from '../loader/session';
import { sessionEstimates } from './sessionEstimates';

export function documentSourceWithTokens(session: LoadedSession): DocumentSource {
  const estimates = sessionEstimates(session);
  let hidden: Map<string, TokenEstimate | null> | undefined;
  return {
    calls: session.calls,
    minted: session.minted,
    callInput: (call) => session.callInput(call),
    expand: (id, range, call) => session.expand(id, range, call),
    callTokens: (call) => session.callTokens(call),
    contextEstimate: (call) => estimates.callEstimate(call)?.total,
    // Counted once for the whole live log; a reduction no longer in it (folded into a later compaction) has none.
    hiddenTokens: (id) => (hidden ??= new Map(estimates.hiddenEstimates().map((h) => [h.id, h.hidden]))).get(id) ?? null,
  };
}
