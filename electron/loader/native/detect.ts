/**
 * Telling the native files apart by content (SPEC §3): a sidecar's first non-empty line is a JSON
 * object with a string `t`; a snapshot is one JSON document, an object with
 * `format: "supercode-session"`.
 */
import { isUtf8 } from 'node:buffer';
import { isSnapshotValue } from '../../../shared/index';
import type { SplitLine } from '../lines';
import { readExactly, splitLines } from '../lines';
import type { OpenFile } from '../openFile';
import { unreadable } from '../openFile';
import type { DetectContext, LoadError } from '../source';
import { SIDECAR_RECORD_HEAD, firstNonSpaceByte, isPlainObject, parseJson, stripBom } from './text';

/** Snapshots are parsed whole for now; past this, refuse rather than exhaust memory. */
export const MAX_SNAPSHOT_BYTES = 400 * 1000 * 1000;

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
  const parsed = parseJson(stripBom(whole.toString('utf8')));
  if (!parsed.ok) return unrecognized(`its first line is not a sidecar record and the file is not one JSON document (${parsed.reason})`);
  if (isSnapshotValue(parsed.value)) return { format: 'supercode-snapshot', value: parsed.value, ...(isUtf8(whole) ? {} : { invalidUtf8: true }) };
  return unrecognized('it is a JSON document without "format": "supercode-session"');
}
