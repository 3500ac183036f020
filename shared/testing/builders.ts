/** Builders for tests: real hashes, real stubs, overridable fields. */
import { capNotice, stubText } from '../format/constants';
import { ptrHash, sha256Hex } from '../format/hash';
import { transcriptOf } from '../resolver/original';
import type { ChatMessage, Reduction, ReductionKind } from '../format/types';
import { floorCharBoundary, utf8Decode, utf8Encode } from '../format/utf8';

export function hashOf(text: string): string {
  return ptrHash(sha256Hex([utf8Encode(text)]));
}

export const user = (content: string): ChatMessage => ({ role: 'user', content });
export const assistant = (content: string, callId?: string): ChatMessage =>
  callId ? { role: 'assistant', content, tool_calls: [{ id: callId, name: 'shell', arguments: '{"cmd":"make"}' }] } : { role: 'assistant', content };
export const tool = (content: string, callId: string): ChatMessage => ({ role: 'tool', tool_call_id: callId, content });

/** A legacy capped copy: `content[0..kept] + capNotice(rest)`. */
export function capped(msg: ChatMessage, keptBytes: number): ChatMessage {
  const bytes = utf8Encode(msg.content);
  const k = floorCharBoundary(bytes, keptBytes);
  return { ...msg, content: utf8Decode(bytes.subarray(0, k)) + capNotice(bytes.length - k) };
}

/**
 * A reduction over `view` whose pointer hash is right unless overridden. For turns_cleared and
 * summarized pass `end`; for duplicate_output pass `canonical` (the index; its hash is computed).
 * A summarized reduction's stub is `summary` (default `Summary of messages <index>–<end - 1>`);
 * `unavailable` makes its original not in the file (`ptr.hash: null`, `ptr.bytes` still stated).
 */
export function makeReduction(
  view: readonly (ChatMessage | undefined)[],
  fields: {
    id?: string;
    kind: ReductionKind;
    index: number;
    kept_bytes?: number;
    end?: number;
    canonical?: number;
    group?: string;
    summary?: string;
    unavailable?: boolean;
  },
  overrides: Partial<Reduction> = {},
): Reduction {
  const id = fields.id ?? 'r1';
  const original =
    fields.kind === 'turns_cleared' || fields.kind === 'summarized'
      ? transcriptOf(view.slice(fields.index, fields.end).map((m) => ({ minted: m as ChatMessage, content: (m as ChatMessage).content })))
      : (view[fields.index]?.content ?? '');
  const bytes = utf8Encode(original).length;
  const hidden = fields.kind === 'tool_output_truncated' ? bytes - (fields.kept_bytes ?? 0) : bytes;
  const stub = fields.kind === 'summarized' ? (fields.summary ?? `Summary of messages ${fields.index}–${(fields.end ?? fields.index + 1) - 1}`) : stubText(id, fields.kind, hidden);
  const r: Reduction = {
    id,
    kind: fields.kind,
    ptr: { index: fields.index, hash: fields.unavailable ? null : hashOf(original), bytes },
    ...(fields.kept_bytes !== undefined ? { kept_bytes: fields.kept_bytes } : {}),
    ...(fields.canonical !== undefined ? { canonical: { index: fields.canonical, hash: hashOf(view[fields.canonical]?.content ?? '') } } : {}),
    ...(fields.end !== undefined ? { end: fields.end } : {}),
    stub,
    minted_at: view.length,
    ...(fields.group !== undefined ? { group: fields.group } : {}),
  };
  return { ...r, ...overrides };
}

/** A search signal that counts how often the search looks at it, and is raised from look number `raiseAt` on. */
export function countingSignal(raiseAt = Infinity): { readonly aborted: boolean; looks: number } {
  return {
    looks: 0,
    get aborted() {
      this.looks++;
      return this.looks >= raiseAt;
    },
  };
}
