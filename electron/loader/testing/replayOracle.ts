/**
 * The test oracle of policy replay's input (docs/policy-replay.md): the sidecar read again from
 * its path and every line parsed, the header and unreadable lines left out — how replay read its
 * records before it ran over the open session's index.
 */
import { closeSync, openSync } from 'node:fs';
import type { LocatedRecord } from '../../../shared/index';
import { parseSidecarLine } from '../../../shared/index';
import { splitLines } from '../common/lines';
import { MAX_RECORD_BYTES } from '../session';

export function sidecarRecordsReadAgain(path: string, bytes: number): LocatedRecord[] {
  const fd = openSync(path, 'r');
  const out: LocatedRecord[] = [];
  try {
    for (const line of splitLines(fd, { end: bytes, maxLineBytes: MAX_RECORD_BYTES })) {
      if (!line.bytes) continue;
      const parsed = parseSidecarLine(line.bytes.toString('utf8'), line.number, line.terminated);
      if (parsed.ok && parsed.record.t !== 'header') out.push({ record: parsed.record, line: line.number });
    }
  } finally {
    closeSync(fd);
  }
  return out;
}
