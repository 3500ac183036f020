/** §5.1 expandReduction and §5.2 reductionTotalBytes. */
import type { ResolveOptions } from './original';
import { findReduction, resolveOriginal, unknownReduction, withContent } from './original';
import { floorSourceBoundary, memorySource, sliceSource } from '../format/bytes';
import type { ByteSource, ExpandOutcome, MessageList, Reduction, Result } from '../format/types';
import { err, isRangeKind, ok } from '../format/types';
import { utf8Decode } from '../format/utf8';

/** A requested byte range `[start, end)`. */
export type ByteRange = readonly [number, number];

/**
 * §5.1 step 4: `end` clamped to `total`, then both ends floored to character boundaries, so
 * consecutive ranges `[0,k),[k,2k),…` tile the content exactly. Returns undefined when invalid.
 */
export function snapByteRange(bytes: Uint8Array | ByteSource, range: ByteRange): [number, number] | undefined {
  const [start, end] = range;
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || start > end || start > bytes.length) return undefined;
  const source = bytes instanceof Uint8Array ? memorySource(bytes) : bytes;
  return [floorSourceBoundary(source, start), floorSourceBoundary(source, Math.min(end, bytes.length))];
}

export function expandReduction(
  log: readonly Reduction[],
  id: string,
  minted: MessageList,
  recorded?: MessageList,
  byteRange?: ByteRange,
  options: ResolveOptions = {},
): Result<ExpandOutcome> {
  // Decoded inside withContent: a content that can no longer be read answers as it does while it is resolved.
  return withReduction(log, id, (r) => {
    const expanded = expandResolved(r, minted, recorded, byteRange, options);
    if (!expanded.ok) return expanded;
    const { content } = expanded.value;
    // `content` keeps its place among the keys.
    return ok({ ...expanded.value, content: utf8Decode(content.read(0, content.length)) });
  });
}

/** An ExpandOutcome whose content is its verified bytes, not yet decoded (a caller that writes it a window at a time). */
export type ExpandBytes = Omit<ExpandOutcome, 'content'> & { content: ByteSource };

/**
 * §5.1 with the content left as bytes: `expandReduction` without decoding the range, so an
 * original of hundreds of MB can be written a window at a time (docs/export-documents.md).
 * The keys are in ExpandOutcome's order. Reading the bytes later can throw
 * ContentUnavailableError (a file that shrank): the caller answers it with `contentUnreadable`.
 */
export function expandReductionBytes(
  log: readonly Reduction[],
  id: string,
  minted: MessageList,
  recorded?: MessageList,
  byteRange?: ByteRange,
  options: ResolveOptions = {},
): Result<ExpandBytes> {
  return withReduction(log, id, (r) => expandResolved(r, minted, recorded, byteRange, options));
}

/** `body` over reduction `id` of `log` (unknown_reduction without it), its contents read within `withContent`. */
function withReduction<T>(log: readonly Reduction[], id: string, body: (r: Reduction) => Result<T>): Result<T> {
  const r = findReduction(log, id);
  if (!r) return err(unknownReduction(id, log));
  return withContent(r, () => body(r));
}

function expandResolved(r: Reduction, minted: MessageList, recorded: MessageList | undefined, byteRange: ByteRange | undefined, options: ResolveOptions): Result<ExpandBytes> {
  const id = r.id;
  const resolved = resolveOriginal(r, minted, recorded, options);
  if (!resolved.ok) return resolved;
  const { bytes, source, messages } = resolved.value;
  const total = bytes.length;
  let range: [number, number] = [0, total];
  if (byteRange !== undefined) {
    const snapped = snapByteRange(bytes, byteRange);
    if (!snapped) {
      return err({
        code: 'invalid_byte_range',
        message: `byte range [${byteRange[0]}, ${byteRange[1]}) is invalid for reduction ${id}: total_bytes is ${total} (start must be a whole number with 0 <= start <= end and start <= ${total})`,
        reduction_id: id,
        total_bytes: total,
      });
    }
    range = snapped;
  }
  const content = sliceSource(bytes, range[0], range[1]);
  const first = messages[0];
  if (!isRangeKind(r.kind) && first) {
    // Key order follows §9's printed example.
    return ok({
      reduction_id: r.id,
      kind: r.kind,
      index: r.ptr.index,
      role: first.minted.role,
      ...(first.minted.tool_call_id !== undefined ? { tool_call_id: first.minted.tool_call_id } : {}),
      content,
      range,
      total_bytes: total,
      source,
    });
  }
  return ok({ reduction_id: r.id, kind: r.kind, index: r.ptr.index, content, range, total_bytes: total, source });
}

/** §5.2: what `ExpandOutcome.total_bytes` would be, without slicing. */
export function reductionTotalBytes(
  log: readonly Reduction[],
  id: string,
  minted: MessageList,
  recorded?: MessageList,
  options: ResolveOptions = {},
): Result<number> {
  const r = findReduction(log, id);
  if (!r) return err(unknownReduction(id, log));
  const resolved = resolveOriginal(r, minted, recorded, options);
  return resolved.ok ? ok(resolved.value.bytes.length) : resolved;
}
