/**
 * The test oracle of policy replay's input (docs/policy-replay.md): the sidecar read again from
 * its path and every line parsed, the header and unreadable lines left out — how replay read its
 * records before it ran over the open session's index. What replay is given keeps a long content in
 * the file (docs/policy-replay.md): `readWhole` and its kin read such contents for the comparison.
 */
import { closeSync, openSync } from 'node:fs';
import type { ChatMessage, LocatedRecord, WhatIf } from '../../../shared/index';
import { arrayList, inSource, parseSidecarLine, utf8Decode } from '../../../shared/index';
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

/** A message with the content it keeps in a source (`large`) read whole, as parsing its line gives it. */
export function readWhole(msg: ChatMessage): ChatMessage {
  if (!msg.large) return msg;
  const { large, ...rest } = msg;
  return { ...rest, content: utf8Decode(large.read(0, large.length)) };
}

/** Located records with every message's content read whole (readWhole). */
export function recordsReadWhole(records: readonly LocatedRecord[]): LocatedRecord[] {
  return records.map((l) => (l.record.t === 'message' || l.record.t === 'system' ? { ...l, record: { ...l.record, msg: readWhole(l.record.msg) } } : l));
}

/** A what-if with the contents its entries and view keep in sources read whole. */
export function whatIfReadWhole(w: WhatIf): WhatIf {
  const view = arrayList(w.view);
  const messages = w.messages.map((e) => {
    const source = inSource(e, view);
    return source ? { ...e, content: utf8Decode(source.read(0, source.length)) } : e;
  });
  return { ...w, messages, view: w.view.map((m) => m && readWhole(m)) };
}
