/**
 * The oracle of the robustness tests: an expansion's bytes must be exactly the bytes its pointer
 * hashes, or (`source: recorded`) a recorded superset of those verified bytes (SPEC §5.1 step 3).
 * Computed here from the outcome and the log alone, not by asking the resolver again.
 */
import { createHash } from 'node:crypto';
import type { ExpandOutcome, MessageList, Reduction } from '../../shared/index';
import { CAP_NOTICE_MARKER, findReduction, utf8Encode } from '../../shared/index';

const sha256 = (bytes: Uint8Array): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/**
 * Why the whole-content outcome `outcome` (expanded without a range) is not bytes `log` vouches
 * for, or undefined when it is. `minted` is the view the pointer was minted against.
 */
export function unverifiedOutcome(log: readonly Reduction[], minted: MessageList, outcome: ExpandOutcome): string | undefined {
  const r = findReduction(log, outcome.reduction_id);
  if (!r) return `${outcome.reduction_id} is not in the log`;
  const bytes = utf8Encode(outcome.content);
  if (bytes.length !== outcome.total_bytes) return `${r.id}: ${bytes.length} content bytes, total_bytes says ${outcome.total_bytes}`;
  if (outcome.range[0] !== 0 || outcome.range[1] !== bytes.length) return `${r.id}: range ${outcome.range.join(':')} is not the whole content`;
  if (outcome.source === 'minted') {
    const actual = sha256(bytes);
    return actual.toLowerCase() === r.ptr.hash?.toLowerCase() ? undefined : `${r.id}: minted content hashes to ${actual}, ptr.hash is ${r.ptr.hash}`;
  }
  // Recorded: the minted copy must hash to the pointer and be a cap-notice-bearing prefix of what came back.
  if (r.kind === 'turns_cleared' || r.kind === 'summarized') return undefined;
  const mintedMessage = minted.at(r.ptr.index);
  if (!mintedMessage) return `${r.id}: recorded content, but minted index ${r.ptr.index} is unreadable`;
  const mintedBytes = utf8Encode(mintedMessage.content);
  if (sha256(mintedBytes).toLowerCase() !== r.ptr.hash?.toLowerCase()) return `${r.id}: recorded content over a minted copy that does not verify`;
  const k = mintedMessage.content.lastIndexOf(CAP_NOTICE_MARKER);
  if (k < 0) return `${r.id}: recorded content, but the minted copy has no cap notice`;
  const prefix = utf8Encode(mintedMessage.content.slice(0, k));
  const startsWith = bytes.length > prefix.length && prefix.every((b, i) => bytes[i] === b);
  return startsWith ? undefined : `${r.id}: recorded content does not extend the minted copy's kept prefix`;
}
