/**
 * What each reduction's original is found to be, for reports (the worker's `verify`, the command
 * line's `log`, SPEC §10.2): verified, or the resolver error that expanding it answers, with the
 * bytes it hides, its provenance and where its hash came from (§10.1).
 */
import type { ResolveOptions } from './original';
import { hashOrigin, hiddenSpan, resolveOriginal, statedHiddenBytes } from './original';
import type { HashOrigin, MessageList, Provenance, Reduction, Source } from '../format/types';

export type ReductionStatusCode = 'verified' | 'hash_mismatch' | 'address_out_of_range' | 'original_unavailable';

export interface ReductionCheck {
  status: ReductionStatusCode;
  /** verified only. */
  source?: Source;
  total_bytes?: number;
  /**
   * Bytes of the hidden span when verified (0 for a duplicate whose canonical is visible); for an
   * original not in the file, what the file states (`ptr.bytes`, less a kept prefix), or null when
   * it states nothing; null when the original cannot be verified.
   */
  hidden_bytes: number | null;
  provenance: Provenance;
  /** null when the reduction has no hash (its original is not in the file). */
  hash_origin: HashOrigin | null;
  /** Why it is not verified. */
  message?: string;
  /** verified only: where in the file the importer read the original (Reduction.original_from). */
  original_from?: string;
}

/** §10.2 `log`: a live reduction's §3.5 fields plus what checking it finds. */
export type LogReportEntry = Omit<Reduction, 'provenance' | 'hash_origin'> & Pick<ReductionCheck, 'hidden_bytes' | 'status' | 'provenance' | 'hash_origin'>;

/** Checks one live reduction of `log` exactly as expanding it would. */
export function checkReduction(r: Reduction, log: readonly Reduction[], minted: MessageList, recorded: MessageList | undefined, options: ResolveOptions = {}): ReductionCheck {
  const about = { provenance: r.provenance ?? 'recorded', hash_origin: hashOrigin(r) } as const;
  const resolved = resolveOriginal(r, minted, recorded, options);
  if (!resolved.ok) {
    const { code, message } = resolved.error;
    if (code !== 'hash_mismatch' && code !== 'address_out_of_range' && code !== 'original_unavailable') throw new Error(`resolveOriginal answered ${code} for ${r.id}: ${message}`);
    return { status: code, hidden_bytes: code === 'original_unavailable' ? statedHiddenBytes(r) : null, ...about, message };
  }
  const { bytes, source } = resolved.value;
  const span = hiddenSpan(r, bytes, log);
  return { status: 'verified', source, total_bytes: bytes.length, hidden_bytes: span ? span[1] - span[0] : 0, ...about, ...(r.original_from !== undefined ? { original_from: r.original_from } : {}) };
}

/** §10.2 `log`: every live reduction, in log order, with its check. */
export function logReport(log: readonly Reduction[], minted: MessageList, recorded: MessageList | undefined, options: ResolveOptions = {}): LogReportEntry[] {
  return log.map((r) => {
    const { hidden_bytes, status, provenance, hash_origin } = checkReduction(r, log, minted, recorded, options);
    return { ...r, hidden_bytes, status, provenance, hash_origin };
  });
}
