/** A sidecar's records replayed into a session, as the loader does, for tests of the model calls (§11). */
import { replayedCalls } from '../calls/calls';
import { hasReasoningArtifacts } from '../resolver/reasoning';
import type { IndexedRecords, IndexedSnapshot, LoadedSession } from '../resolver/session';
import { arrayList, makeSession, resolveSession } from '../resolver/session';
import type { TimelineRecord } from '../calls/timeline';
import { TimelineBuilder, applyCap } from '../calls/timeline';
import type { ChatMessage } from '../format/types';

/**
 * Record k of `records` is read at line k + 2 (line 1 is the header); `holes[k]`, when given, is
 * the view index of record k, which could not be read. `snapshot` is opened beside the sidecar.
 */
export function replay(records: readonly TimelineRecord<ChatMessage>[], holes: Record<number, number> = {}, snapshot?: IndexedSnapshot): { session: LoadedSession; lineOf: (k: number) => number } {
  const b = new TimelineBuilder<ChatMessage>(hasReasoningArtifacts);
  const lineOf = (k: number): number => k + 2;
  records.forEach((record, k) => {
    // A hole: the record of line k + 2 could not be read (its index is known from its head).
    if (holes[k] !== undefined) b.addHole(holes[k]);
    else b.add(record, lineOf(k));
  });
  const t = b.finish();
  const indexed: IndexedRecords = {
    header: null,
    view: arrayList(t.view.map((e) => e && (e.cap ? applyCap(e.value, e.cap) : e.value))),
    recorded: arrayList(t.recorded.map((e) => e?.value)),
    log: t.log,
    logLines: t.logLines,
    modelChanges: t.modelChanges,
    findings: t.findings,
    system: () => undefined,
    calls: replayedCalls(t, (m) => m.role),
  };
  return { session: makeSession(resolveSession({ files: [], records: indexed, ...(snapshot ? { snapshot } : {}) })), lineOf };
}
