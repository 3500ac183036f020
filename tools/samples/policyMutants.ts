/**
 * Mutants of a generated sample for policy replay — the sidecar with one reduction record
 * removed, one added, or one `kept_bytes` changed. Built at test time from the records the
 * generator returns; each says which record it touched so a test can name what replay must report.
 */
import type { Reduction, SidecarRecord } from '../../shared/index';
import { utf8Length } from '../../shared/index';
import type { GeneratedSession } from './sessionGenerator';

export interface PolicyMutant {
  records: SidecarRecord[];
  /** The reduction removed, added or changed (as it now is in the file; the original for `removed`). */
  reduction: Reduction;
  /** 1-based sidecar line of the touched record (the removed one's former line). */
  line: number;
}

type ReductionRecord = { t: 'reduction'; r: Reduction };

/** The first `tool_output_truncated` record: a reduction every sample has. */
function firstTruncation(records: readonly SidecarRecord[]): number {
  const k = records.findIndex((r) => r.t === 'reduction' && r.r.kind === 'tool_output_truncated');
  if (k === -1) throw new Error('a generated sample has a truncation');
  return k;
}

export function withReductionRemoved(session: GeneratedSession): PolicyMutant {
  const k = firstTruncation(session.records);
  return { records: session.records.filter((_, j) => j !== k), reduction: (session.records[k] as ReductionRecord).r, line: k + 1 };
}

export function withKeptBytesChanged(session: GeneratedSession, by = -7): PolicyMutant {
  const k = firstTruncation(session.records);
  const original = (session.records[k] as ReductionRecord).r;
  const reduction: Reduction = { ...original, kept_bytes: (original.kept_bytes ?? 0) + by };
  return { records: session.records.map((r, j) => (j === k ? { t: 'reduction', r: reduction } : r)), reduction, line: k + 1 };
}

/**
 * An elision the policy never mints (a tool result under the size limit that nothing reduces),
 * appended as the last record, with the next id of the agent's counter.
 */
export function withReductionAdded(session: GeneratedSession): PolicyMutant {
  const { snapshot, records } = session;
  const log = snapshot.reductions ?? [];
  const addressed = new Set(log.flatMap((r) => (r.end !== undefined ? Array.from({ length: r.end - r.ptr.index }, (_, j) => r.ptr.index + j) : [r.ptr.index])));
  const index = snapshot.messages.findIndex((m, i) => m.role === 'tool' && !addressed.has(i));
  const maxId = Math.max(0, ...records.flatMap((r) => (r.t === 'reduction' ? [Number(r.r.id.slice(1))] : [])));
  const bytes = utf8Length(snapshot.messages[index]?.content ?? '');
  const reduction: Reduction = { id: `r${maxId + 1}`, kind: 'tool_output_elided', ptr: { index, hash: `sha256:${'0'.repeat(64)}`, bytes }, stub: 'elided', minted_at: snapshot.messages.length };
  return { records: [...records, { t: 'reduction', r: reduction }], reduction, line: records.length + 1 };
}
