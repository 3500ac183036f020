/**
 * Telling the native files apart by content (SPEC §3): a sidecar's first non-empty line is a JSON
 * object with a string `t`; a snapshot is one JSON document, an object with
 * `format: "supercode-session"`.
 */
import { isUtf8 } from 'node:buffer';
import { isSnapshotValue } from '../../../shared/index';
import type { SplitLine } from '../common/lines';
import { readExactly, splitLines } from '../common/lines';
import { unreadable } from '../common/openFile';
import type { DetectContext, LoadError, OpenFile } from '../common/source';
import { MAX_SNAPSHOT_BYTES, firstNonSpaceByte, isPlainObject, parseJson, stripBom } from '../common/json';
import { SIDECAR_RECORD_HEAD } from './recordHead';

/** The low bytes of the characters of `supercode-session` (s u p e r c o d - i n), as `\u00XX` would write them. */
const SNAPSHOT_TAG_ESCAPES = new Set(['73', '75', '70', '65', '72', '63', '6f', '64', '2d', '69', '6e']);

/**
 * False only when no JSON string of `bytes` can be `supercode-session`: the text holds it neither
 * literally nor with any of its characters written as a `\u00XX` escape. Scans bytes: nothing is decoded.
 */
export function mayHoldSnapshotTag(bytes: Buffer): boolean {
  if (bytes.indexOf('supercode-session') >= 0) return true;
  for (let at = bytes.indexOf('\\u00'); at >= 0; at = bytes.indexOf('\\u00', at + 1)) {
    if (SNAPSHOT_TAG_ESCAPES.has(bytes.toString('latin1', at + 4, at + 6).toLowerCase())) return true;
  }
  return false;
}

export { MAX_SNAPSHOT_BYTES };

export type NativeFile =
  | { format: 'supercode-sidecar' }
  | { format: 'supercode-snapshot'; value: Record<string, unknown>; invalidUtf8?: boolean }
  | { error: LoadError };

/** Which native file `file` is, or why it is neither. Reads only; may throw on an I/O error. */
export function detectNative(file: OpenFile, { read, maxRecordBytes }: DetectContext): NativeFile {
  const path = file.path;
  const unrecognized = (why: string): NativeFile => ({ error: { code: 'unrecognized_file', message: `${path} is neither a sidecar nor a session snapshot: ${why}` } });

  const head = readExactly(file.fd, 0, Math.min(file.size, 64 * 1024), read) ?? Buffer.alloc(0);
  const first = firstNonSpaceByte(head);
  if (first === undefined) return unrecognized(file.size === 0 ? 'it is empty' : 'it holds only white space');
  if (first !== 0x7b /* { */) return unrecognized('it does not start with a JSON object');

  let firstLine: SplitLine | undefined;
  for (const line of splitLines(file.fd, { readSync: read, maxLineBytes: maxRecordBytes, chunkSize: 64 * 1024 })) {
    firstLine = line.bytes ? { ...line, bytes: Buffer.from(line.bytes) } : line;
    break;
  }
  let firstValue: unknown;
  if (firstLine?.bytes) {
    const parsed = parseJson(stripBom(firstLine.bytes.toString('utf8')));
    if (parsed.ok) {
      firstValue = parsed.value;
      if (isPlainObject(firstValue) && typeof firstValue.t === 'string') return { format: 'supercode-sidecar' };
    }
  } else if (firstLine && SIDECAR_RECORD_HEAD.test(head.toString('utf8'))) {
    // A first record too long to decode that starts like one: a sidecar, whose indexing pass
    // reports the line. Reading the file whole as a snapshot would build the very string the
    // record limit exists to avoid.
    return { format: 'supercode-sidecar' };
  }

  // A compact snapshot is one line: reuse its parse when nothing but white space follows it.
  if (firstLine && isSnapshotValue(firstValue)) {
    const restStart = firstLine.offset + firstLine.length;
    const rest = file.size - restStart <= 4096 ? readExactly(file.fd, restStart, file.size - restStart, read) : undefined;
    if (rest && firstNonSpaceByte(rest) === undefined) return { format: 'supercode-snapshot', value: firstValue, ...(firstLine.bytes && !isUtf8(firstLine.bytes) ? { invalidUtf8: true } : {}) };
  }

  // A first line that is a whole JSON value followed by more than white space: the file is not one
  // JSON document (JSON.parse of it all would fail after that value), so it is not read whole.
  // Every JSONL file of another format is told apart here, in a few KiB.
  if (firstValue !== undefined && firstLine) {
    const restStart = firstLine.offset + firstLine.length;
    const window = readExactly(file.fd, restStart, Math.min(file.size - restStart, 64 * 1024), read);
    if (window && firstNonSpaceByte(window) !== undefined) return unrecognized('its first line is not a sidecar record and the file is not one JSON document (more follows its first line, a whole JSON value)');
  }

  if (file.size > MAX_SNAPSHOT_BYTES) {
    if (head.toString('utf8').includes('"supercode-session"')) {
      return { error: unreadable(path, `snapshot is ${file.size} bytes; snapshots over 400 MB are not supported yet`) };
    }
    return unrecognized('its first line is not a sidecar record and it is too large to be a snapshot');
  }
  const whole = readExactly(file.fd, 0, file.size, read);
  if (!whole) return { error: unreadable(path, 'the file shrank while it was being read') };
  // A snapshot holds the string "supercode-session", literally or with some of its characters
  // escaped: a document with neither is not one, and is neither decoded nor parsed (another
  // format's large JSON document — a SWE-agent trajectory — would otherwise be parsed twice).
  if (!mayHoldSnapshotTag(whole)) return unrecognized('it is a JSON document without "format": "supercode-session"');
  const parsed = parseJson(stripBom(whole.toString('utf8')));
  if (!parsed.ok) return unrecognized(`its first line is not a sidecar record and the file is not one JSON document (${parsed.reason})`);
  if (isSnapshotValue(parsed.value)) return { format: 'supercode-snapshot', value: parsed.value, ...(isUtf8(whole) ? {} : { invalidUtf8: true }) };
  return unrecognized('it is a JSON document without "format": "supercode-session"');
}
