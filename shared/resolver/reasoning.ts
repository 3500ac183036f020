/** §5.5 filterReasoningArtifacts, and the pure recount the inspector uses to check `model_change`. */
import { REASONING_CONTENT_PART_TYPES, REASONING_METADATA_KEYS } from '../format/constants';
import type { ChatMessage } from '../format/types';

/** True when a message carries a reasoning artifact a model switch must strip. */
export function hasReasoningArtifacts(msg: ChatMessage): boolean {
  const meta = msg.metadata;
  if (meta && REASONING_METADATA_KEYS.some((k) => Object.prototype.hasOwnProperty.call(meta, k))) return true;
  return msg.content_parts?.some((p) => REASONING_CONTENT_PART_TYPES.includes(p.type)) ?? false;
}

/**
 * Strips every reasoning artifact from `history` IN PLACE, as the agent does at a model switch, and
 * returns the number of messages touched. Callers that must not mutate pass a copy, or use
 * `countReasoningArtifacts`.
 */
export function filterReasoningArtifacts(history: ChatMessage[]): number {
  let touched = 0;
  for (const msg of history) {
    if (!hasReasoningArtifacts(msg)) continue;
    touched++;
    if (msg.metadata) {
      const meta = { ...msg.metadata };
      for (const k of REASONING_METADATA_KEYS) delete meta[k];
      msg.metadata = meta;
    }
    if (msg.content_parts) msg.content_parts = msg.content_parts.filter((p) => !REASONING_CONTENT_PART_TYPES.includes(p.type));
  }
  return touched;
}

/** What `filterReasoningArtifacts` would return, without touching anything. */
export function countReasoningArtifacts(history: Iterable<ChatMessage | undefined>): number {
  let n = 0;
  for (const msg of history) if (msg && hasReasoningArtifacts(msg)) n++;
  return n;
}
