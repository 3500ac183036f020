/** §5.6: the integrity findings over a resolved session (minted view, recorded copies, live log). */
import { REDUCTION_SENTINEL } from '../format/constants';
import { sha256Hex } from '../format/hash';
import type { ResolveOptions } from './original';
import { hashHex, isCapNoticeBearingPrefix, recordedSupersedes, resolveOriginal } from './original';
import type { Finding, FindingCode, MessageList, Reduction } from '../format/types';
import { FINDING_SEVERITY, isRangeKind } from '../format/types';
import { contentSource, isMemorySource, isSourceBoundary, sourceIncludes, sourceSha256, sourcesEqual } from '../format/bytes';
import { ContentUnavailableError } from '../format/types';
import { utf8Encode } from '../format/utf8';

const SENTINEL_BYTES = utf8Encode(REDUCTION_SENTINEL);

export interface IntegrityInput {
  minted: MessageList;
  recorded?: MessageList;
  log: readonly Reduction[];
  /** 1-based sidecar line of each log entry, parallel to `log` (absent for a snapshot's log). */
  logLines?: readonly (number | undefined)[];
  /**
   * False for a session imported from another agent's file (§10.1): `sentinel_in_original` applies
   * to native sessions only, since a foreign transcript that mentions the sentinel is not a
   * reduction minted over a stub. Absent means native.
   */
  native?: boolean;
}

type IntegrityCode = Exclude<FindingCode, 'model_change_count_mismatch' | 'malformed_line' | 'truncated_last_line' | 'unknown_record' | 'unsupported_version' | 'log_differs' | 'policy_divergence' | 'value_too_large'>;

export function checkIntegrity(input: IntegrityInput, options: ResolveOptions = {}): Finding[] {
  const { minted, recorded, log, logLines } = input;
  const native = input.native ?? true;
  const sha = options.sha256 ?? sha256Hex;
  const findings: Finding[] = [];
  const add = (code: IntegrityCode, message: string, k: number | undefined, extra: { reduction_id?: string; index?: number } = {}) => {
    const line = k === undefined ? undefined : logLines?.[k];
    findings.push({ code, severity: FINDING_SEVERITY[code], message, ...(line !== undefined ? { line } : {}), ...extra });
  };

  const ids = new Map<string, number>();
  const perMessage = new Map<number, Reduction>();
  // Range reductions seen so far, and the summarized ones among them (few: a scan per range stays cheap).
  const ranges: Reduction[] = [];
  const summarized: Reduction[] = [];
  const checkOne = (r: Reduction, k: number) => {
    const at = { reduction_id: r.id, index: r.ptr.index };
    const first = ids.get(r.id);
    if (first !== undefined) add('duplicate_reduction_id', `reduction id ${r.id} is minted twice in the live log (entries ${first + 1} and ${k + 1})`, k, at);
    else ids.set(r.id, k);

    if (!isRangeKind(r.kind)) {
      const other = perMessage.get(r.ptr.index);
      if (other) add('overlapping_reductions', `reductions ${other.id} and ${r.id} both address view index ${r.ptr.index}`, k, at);
      else perMessage.set(r.ptr.index, r);
    } else {
      // A summary stands in for its whole range: no other range may share a message with it (two
      // turns_cleared ranges that overlap are one cleared row, as before §10.1). Per-message
      // reductions inside a range are allowed: they were made before the range was dropped.
      const [s, e] = [r.ptr.index, r.end ?? r.ptr.index];
      for (const o of r.kind === 'summarized' ? ranges : summarized) {
        if (o.ptr.index < e && s < (o.end ?? o.ptr.index)) {
          add('overlapping_reductions', `reductions ${o.id} (${o.kind} [${o.ptr.index}, ${String(o.end)})) and ${r.id} (${r.kind} [${s}, ${e})) address overlapping view ranges`, k, at);
        }
      }
      ranges.push(r);
      if (r.kind === 'summarized') summarized.push(r);
    }

    const resolved = resolveOriginal(r, minted, recorded, options);
    if (!resolved.ok && resolved.error.code === 'address_out_of_range') {
      add('address_out_of_range', resolved.error.message, k, at);
      return;
    }
    // The file does not hold the original (§10.1): nothing to verify; `log` and `verify` say so.
    const unavailable = !resolved.ok && resolved.error.code === 'original_unavailable';
    // The addressed message as resolved (read once: a file-backed list can lose it between reads).
    const own = resolved.ok ? resolved.value.messages[0]?.minted : minted.at(r.ptr.index);
    if (!resolved.ok) {
      if (!unavailable) add('hash_mismatch', resolved.error.message, k, at);
    } else {
      const original = resolved.value;
      if (r.ptr.bytes !== original.mintedLength) {
        add('hash_mismatch', `reduction ${r.id}: ptr.bytes is ${r.ptr.bytes} but the hashed minted bytes are ${original.mintedLength}`, k, at);
      }
      for (const m of native ? original.messages : []) {
        if (isMemorySource(m.bytes) ? m.content.includes(REDUCTION_SENTINEL) : sourceIncludes(m.bytes, SENTINEL_BYTES)) {
          add('sentinel_in_original', `reduction ${r.id}: the original content of view index ${m.index} contains ${REDUCTION_SENTINEL}, so a reduction was minted over a stub`, k, { reduction_id: r.id, index: m.index });
        }
      }
    }

    if (own === undefined) {
      add('address_out_of_range', `reduction ${r.id} addresses index ${r.ptr.index}, which holds no readable message`, k, at);
      return;
    }

    if (r.kind === 'tool_output_truncated') {
      const bytes = contentSource(own);
      const kept = r.kept_bytes ?? -1;
      if (!(kept >= 0 && kept < bytes.length)) {
        add('kept_bytes_invalid', `reduction ${r.id}: kept_bytes ${kept} is not below the content length ${bytes.length} of view index ${r.ptr.index}`, k, at);
      } else if (!isSourceBoundary(bytes, kept)) {
        add('kept_bytes_invalid', `reduction ${r.id}: kept_bytes ${kept} falls inside a UTF-8 character of view index ${r.ptr.index}`, k, at);
      }
    }

    if (r.kind === 'duplicate_output' && r.canonical) {
      const c = r.canonical;
      const canonical = minted.at(c.index);
      if (!Number.isInteger(c.index) || canonical === undefined) {
        add('address_out_of_range', `reduction ${r.id}: canonical index ${c.index} is outside the minted view of ${minted.length} messages or unreadable`, k, at);
        return;
      }
      const canonicalBytes = contentSource(canonical);
      const actual = sourceSha256(canonicalBytes, sha);
      if (hashHex(c.hash) !== actual) {
        add('hash_mismatch', `reduction ${r.id}: canonical.hash is ${c.hash} but view index ${c.index} hashes to sha256:${actual}`, k, at);
      }
      const ownBytes = contentSource(own);
      if (!sourcesEqual(ownBytes, canonicalBytes)) {
        add('duplicate_bytes_differ', `reduction ${r.id}: view index ${r.ptr.index} (${ownBytes.length} bytes) is not byte-identical to its canonical, view index ${c.index} (${canonicalBytes.length} bytes)`, k, at);
      }
    }
  };
  log.forEach((r, k) => {
    try {
      checkOne(r, k);
    } catch (e) {
      // A large content that can no longer be read from its file.
      if (!(e instanceof ContentUnavailableError)) throw e;
      add('address_out_of_range', `reduction ${r.id}: the content at index ${r.ptr.index} can no longer be read: ${e.message}`, k, { reduction_id: r.id, index: r.ptr.index });
    }
  });

  if (recorded) {
    const n = Math.min(minted.length, recorded.length);
    for (let i = 0; i < n; i++) {
      try {
        divergence(i);
      } catch (e) {
        if (!(e instanceof ContentUnavailableError)) throw e;
      }
    }
  }
  return findings;

  function divergence(i: number): void {
    if (!recorded) return;
    const m = minted.at(i);
    const rec = recorded.at(i);
    if (!m || !rec || m === rec) return;
    const large = m.large !== undefined || rec.large !== undefined;
    if (m.role === rec.role && m.tool_call_id === rec.tool_call_id && (large ? sourcesEqual(contentSource(m), contentSource(rec)) : m.content === rec.content)) return;
    const mSource = contentSource(m);
    // A minted copy too large for memory is never a capped copy: it is compared, not upgraded.
    const mBytes = m.large === undefined ? mSource.read(0, mSource.length) : utf8Encode(m.content);
    const rBytes = contentSource(rec);
    if (m.large === undefined && recordedSupersedes(m, mBytes, rec, rBytes)) return;
    const why =
      m.role !== rec.role
        ? `roles differ (${m.role} vs ${rec.role})`
        : m.tool_call_id !== rec.tool_call_id
          ? `tool_call_ids differ (${String(m.tool_call_id)} vs ${String(rec.tool_call_id)})`
          : isCapNoticeBearingPrefix(mBytes, rBytes)
            ? 'the minted copy is capped but the upgrade key does not hold'
            : `the minted copy (${mSource.length} bytes) is not a cap-notice-bearing prefix of the recorded copy (${rBytes.length} bytes)`;
    findings.push({ code: 'recorded_diverges', severity: 'warning', message: `view index ${i}: recorded and minted copies differ: ${why}`, index: i });
  }
}

/**
 * Canonical text of a reduction for comparing logs (key order and unknown fields do not matter;
 * the §10.1 fields do, absent ones read as their defaults: they change what is shown).
 */
function reductionKey(r: Reduction): string {
  const origin = r.origin === undefined ? null : 'line' in r.origin ? ['line', r.origin.line] : ['event', r.origin.event];
  return JSON.stringify([
    r.id,
    r.kind,
    r.ptr.index,
    r.ptr.hash,
    r.ptr.bytes,
    r.kept_bytes ?? null,
    r.canonical?.index ?? null,
    r.canonical?.hash ?? null,
    r.end ?? null,
    r.stub,
    r.minted_at,
    r.provenance ?? 'recorded',
    origin,
    r.group ?? null,
    r.summary_role ?? null,
    r.hash_origin ?? 'recorded',
  ]);
}

/** The `log_differs` finding when a snapshot's reductions and the sidecar's live log disagree (as multisets). */
export function compareLogs(snapshotLog: readonly Reduction[], sidecarLog: readonly Reduction[]): Finding | undefined {
  const count = new Map<string, number>();
  for (const r of snapshotLog) count.set(reductionKey(r), (count.get(reductionKey(r)) ?? 0) + 1);
  for (const r of sidecarLog) count.set(reductionKey(r), (count.get(reductionKey(r)) ?? 0) - 1);
  const onlySnapshot = snapshotLog.filter((r) => (count.get(reductionKey(r)) ?? 0) > 0).map((r) => r.id);
  const onlySidecar = sidecarLog.filter((r) => (count.get(reductionKey(r)) ?? 0) < 0).map((r) => r.id);
  if (onlySnapshot.length === 0 && onlySidecar.length === 0) return undefined;
  const list = (ids: string[]) => (ids.length ? ids.slice(0, 10).join(', ') + (ids.length > 10 ? ` and ${ids.length - 10} more` : '') : 'none');
  return {
    code: 'log_differs',
    severity: 'warning',
    message: `the snapshot's reductions (${snapshotLog.length}) and the sidecar's live log (${sidecarLog.length}) disagree: only in the snapshot: ${list(onlySnapshot)}; only in the sidecar: ${list(onlySidecar)}`,
  };
}
