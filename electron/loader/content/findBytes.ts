/**
 * ByteSource.findAll on the Node side: `findInWindows` (shared/format/bytes.ts) with Buffer's own
 * search, some four times `bytesIndexOf`'s speed (docs/streaming-import.md "Texts searched as bytes").
 */
import type { ByteSource } from '../../../shared/index';
import { SOURCE_CHUNK_BYTES, findInWindows } from '../../../shared/format/bytes';

/** `bytesIndexOf` through Buffer's search (the bytes are not copied). */
function bufferIndexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  return Buffer.from(haystack.buffer, haystack.byteOffset, haystack.length).indexOf(needle, from);
}

/** The `findAll` of a source of `length` bytes read through `readInto`. */
export function findAllOf(readInto: (start: number, end: number, target: Uint8Array, at: number) => void, length: number): NonNullable<ByteSource['findAll']> {
  return (needle, start, end, onMatch) => findInWindows(readInto, length, needle, start, end, onMatch, SOURCE_CHUNK_BYTES, bufferIndexOf);
}
