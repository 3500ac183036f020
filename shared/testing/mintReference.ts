/**
 * A test oracle: §5.4 mintReductions as it was before the pass learnt to decide on byte counts
 * (encoding every tool result it looks at, at every call). shared/calls/replay.test.ts proves the
 * incremental pass and the replay over it give exactly what this gives. Never used by the app.
 */
import { stubText } from '../format/constants';
import { ptrHash, sha256Hex } from '../format/hash';
import { transcriptOf } from '../resolver/original';
import type { ChatMessage, MessageList, Reduction, ReductionKind, ReductionPolicy, Sha256 } from '../format/types';
import { floorCharBoundary, utf8Encode, utf8Length } from '../format/utf8';

interface MintOptions {
  sha256?: Sha256;
  /**
   * Number of the first new id (`r<n>`). Defaults to one past the highest id in `log`; an agent
   * that rewinds passes its own counter so ids dropped by a rewind are never handed out again.
   */
  nextId?: number;
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

export function referenceMintReductions(
  view: MessageList,
  policy: ReductionPolicy,
  log: readonly Reduction[] = [],
  options: MintOptions = {},
): Reduction[] {
  const hash = (chunks: Uint8Array[]) => ptrHash((options.sha256 ?? sha256Hex)(chunks));
  let next = Math.max(options.nextId ?? 0, nextIdNumber(log));
  const mintedAt = view.length;
  const out: Reduction[] = [];
  const make = (kind: ReductionKind, index: number, bytes: Uint8Array, hidden: number, extra: Partial<Reduction>): Reduction => {
    const id = `r${next++}`;
    return { id, kind, ptr: { index, hash: hash([bytes]), bytes: bytes.length }, ...extra, stub: stubText(id, kind, hidden), minted_at: mintedAt };
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
  const firstCopy = new Map<string, number>();

  toolIndices.forEach((index, nth) => {
    const msg = view.at(index) as ChatMessage;
    const earliest = firstCopy.get(msg.content);
    if (earliest === undefined) firstCopy.set(msg.content, index);
    if (nth >= protectedFrom || reduced.has(index) || isCleared(index)) return;
    const bytes = utf8Encode(msg.content);
    if (policy.dedupe && earliest !== undefined && bytes.length > 0) {
      const stubLength = utf8Length(stubText(`r${next}`, 'duplicate_output', bytes.length));
      if (stubLength <= bytes.length) {
        const canonicalHash = hash([utf8Encode((view.at(earliest) as ChatMessage).content)]);
        out.push(make('duplicate_output', index, bytes, bytes.length, { canonical: { index: earliest, hash: canonicalHash } }));
        return;
      }
    }
    if (bytes.length <= policy.max_tool_result_bytes) return;
    const kept = floorCharBoundary(bytes, policy.kept_prefix_bytes);
    if (kept >= bytes.length) return;
    const hasImage = msg.content_parts?.some((p) => IMAGE_PART_TYPES.includes(p.type)) ?? false;
    if (kept === 0 || hasImage) out.push(make('tool_output_elided', index, bytes, bytes.length, {}));
    else out.push(make('tool_output_truncated', index, bytes, bytes.length - kept, { kept_bytes: kept }));
  });

  if (clearTo > clearedEnd) {
    const messages: { minted: ChatMessage; content: string }[] = [];
    for (let i = clearedEnd; i < clearTo; i++) {
      const m = view.at(i);
      if (m) messages.push({ minted: m, content: m.content });
    }
    const bytes = utf8Encode(transcriptOf(messages));
    out.push(make('turns_cleared', clearedEnd, bytes, bytes.length, { end: clearTo }));
  }
  return out;
}
