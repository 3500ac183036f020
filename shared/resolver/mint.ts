/**
 * §5.4 mintReductions: the reference projection pass, used by the sample generator and by
 * "what-if policy" views.
 *
 * Rules, in order of precedence, for a view and a policy:
 * - Turns before `clear_turns_before` are cleared as one `turns_cleared` range (starting where
 *   earlier cleared ranges end); no per-message reduction is minted inside a cleared range.
 * - The last `protect_last_n_tool_results` tool results are never reduced.
 * - With `dedupe`, a tool result byte-identical to an earlier tool result becomes a
 *   `duplicate_output` of the earliest copy, when the stub is no longer than the content.
 * - A tool result over `max_tool_result_bytes` keeps `kept_prefix_bytes` (floored to a character
 *   boundary) and is `tool_output_truncated`; when the kept prefix would be empty, or the message
 *   carries an image content part (a prefix of an encoded image is noise), it is `tool_output_elided`.
 * Messages already addressed by a live reduction in `log` are left alone; new ids continue `log`'s.
 */
import { stubText } from '../format/constants';
import { floorSourceBoundary, sourceWindows } from '../format/bytes';
import { ptrHash, sha256Hex } from '../format/hash';
import { transcriptOf } from './original';
import type { ChatMessage, MessageList, Reduction, ReductionKind, ReductionPolicy, Sha256 } from '../format/types';
import { floorCharBoundary, utf8Decode, utf8Encode, utf8Length } from '../format/utf8';

export interface MintOptions {
  sha256?: Sha256;
  /**
   * Number of the first new id (`r<n>`). Defaults to one past the highest id in `log`; an agent
   * that rewinds passes its own counter so ids dropped by a rewind are never handed out again.
   */
  nextId?: number;
  /**
   * A message's content bytes (UTF-8): `utf8Length(msg.content)` unless given. A caller that runs
   * the pass many times over the same message objects (policy replay, shared/calls/replay.ts) passes a
   * memo, so an output no pass reduces is measured once, not encoded again at every pass.
   */
  contentBytes?: (msg: ChatMessage) => number;
  /**
   * The SHA-256 (hex) of a message's content bytes when known without encoding them (a sidecar's
   * long content is hashed while it is indexed); undefined: encoded and hashed here. With it, a
   * truncation encodes only the kept prefix (docs/policy-replay.md).
   */
  contentSha256?: (msg: ChatMessage) => string | undefined;
  /**
   * What makes two tool results duplicates: a value equal for two messages exactly when their
   * contents are (the content itself unless given; a caller whose messages keep their contents in
   * a ByteSource, `large`, gives one that compares those: shared/calls/replay.ts).
   */
  contentKey?: (msg: ChatMessage) => unknown;
}

const IMAGE_PART_TYPES = ['image', 'image_url', 'input_image'];

function nextIdNumber(log: readonly Reduction[]): number {
  let max = 0;
  for (const r of log) {
    const m = /^r(\d+)$/.exec(r.id);
    if (m) max = Math.max(max, Number(m[1]));
  }
  return max + 1;
}

export function mintReductions(
  view: MessageList,
  policy: ReductionPolicy,
  log: readonly Reduction[] = [],
  options: MintOptions = {},
): Reduction[] {
  const hash = (chunks: Iterable<Uint8Array>) => ptrHash((options.sha256 ?? sha256Hex)(chunks));
  // A content kept in a ByteSource (`large`) is its bytes; `content` then holds at most a preview.
  const contentBytes = options.contentBytes ?? ((msg: ChatMessage) => (msg.large ? msg.large.length : utf8Length(msg.content)));
  const contentKey = options.contentKey ?? ((msg: ChatMessage) => msg.large ?? msg.content);
  let next = Math.max(options.nextId ?? 0, nextIdNumber(log));
  const mintedAt = view.length;
  const out: Reduction[] = [];
  /** A content's pointer hash and byte count: known, or from its bytes (encoded here unless given). */
  const whole = (msg: ChatMessage, bytes?: Uint8Array): { hash: string; bytes: number } => {
    const known = bytes === undefined ? (options.contentSha256?.(msg) ?? msg.large?.sha256) : undefined;
    if (known !== undefined) return { hash: ptrHash(known), bytes: contentBytes(msg) };
    if (msg.large && bytes === undefined) return { hash: hash(sourceWindows(msg.large)), bytes: msg.large.length };
    const encoded = bytes ?? utf8Encode(msg.content);
    return { hash: hash([encoded]), bytes: encoded.length };
  };
  const make = (kind: ReductionKind, index: number, content: { hash: string; bytes: number }, hidden: number, extra: Partial<Reduction>): Reduction => {
    const id = `r${next++}`;
    return { id, kind, ptr: { index, hash: content.hash, bytes: content.bytes }, ...extra, stub: stubText(id, kind, hidden), minted_at: mintedAt };
  };

  const reduced = new Set<number>();
  let clearedEnd = 0;
  const clearedRanges: [number, number][] = [];
  for (const r of log) {
    if (r.kind === 'turns_cleared') {
      clearedRanges.push([r.ptr.index, r.end ?? r.ptr.index]);
      clearedEnd = Math.max(clearedEnd, r.end ?? 0);
    } else reduced.add(r.ptr.index);
  }
  const clearTo = Math.min(policy.clear_turns_before ?? 0, view.length);
  if (clearTo > clearedEnd) clearedRanges.push([clearedEnd, clearTo]);
  const isCleared = (i: number) => clearedRanges.some(([s, e]) => s <= i && i < e);

  const toolIndices: number[] = [];
  for (let i = 0; i < view.length; i++) if (view.at(i)?.role === 'tool') toolIndices.push(i);
  const protectedFrom = toolIndices.length - Math.max(0, policy.protect_last_n_tool_results);
  const firstCopy = new Map<unknown, number>();

  toolIndices.forEach((index, nth) => {
    const msg = view.at(index) as ChatMessage;
    const key = contentKey(msg);
    const earliest = firstCopy.get(key);
    if (earliest === undefined) firstCopy.set(key, index);
    if (nth >= protectedFrom || reduced.has(index) || isCleared(index)) return;
    // Decided on the byte count first: the bytes are encoded only for what is minted.
    const length = contentBytes(msg);
    if (policy.dedupe && earliest !== undefined && length > 0) {
      const stubLength = utf8Length(stubText(`r${next}`, 'duplicate_output', length));
      if (stubLength <= length) {
        const canonicalHash = whole(view.at(earliest) as ChatMessage).hash;
        out.push(make('duplicate_output', index, whole(msg), length, { canonical: { index: earliest, hash: canonicalHash } }));
        return;
      }
    }
    // A kept prefix as long as the content keeps it all (floorCharBoundary clamps to the length).
    if (length <= policy.max_tool_result_bytes || policy.kept_prefix_bytes >= length) return;
    // With a known hash only the prefix is encoded: one code unit past the kept bytes, so the byte
    // floorCharBoundary looks at is the one the whole encoding has there (a lead byte either way).
    // A content kept in a ByteSource reads the byte at the kept length from it.
    const bytes = options.contentSha256?.(msg) === undefined && !msg.large ? utf8Encode(msg.content) : undefined;
    const kept = msg.large ? floorSourceBoundary(msg.large, policy.kept_prefix_bytes) : floorCharBoundary(bytes ?? utf8Encode(msg.content.slice(0, policy.kept_prefix_bytes + 1)), policy.kept_prefix_bytes);
    if (kept >= length) return;
    const content = whole(msg, bytes);
    const hasImage = msg.content_parts?.some((p) => IMAGE_PART_TYPES.includes(p.type)) ?? false;
    if (kept === 0 || hasImage) out.push(make('tool_output_elided', index, content, length, {}));
    else out.push(make('tool_output_truncated', index, content, length - kept, { kept_bytes: kept }));
  });

  if (clearTo > clearedEnd) {
    const messages: { minted: ChatMessage; content: string }[] = [];
    for (let i = clearedEnd; i < clearTo; i++) {
      const m = view.at(i);
      if (m) messages.push({ minted: m, content: m.large ? utf8Decode(m.large.read(0, m.large.length)) : m.content });
    }
    const bytes = utf8Encode(transcriptOf(messages));
    out.push(make('turns_cleared', clearedEnd, { hash: hash([bytes]), bytes: bytes.length }, bytes.length, { end: clearTo }));
  }
  return out;
}
