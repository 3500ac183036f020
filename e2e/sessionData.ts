/**
 * What the specs compute from the sample files themselves, independently of the app under test:
 * the live reduction log (SPEC §3.1: reductions minus inverts minus rewound), which reductions show
 * a stub in the projected view, and byte-level helpers over content (SPEC §2: offsets are UTF-8).
 */
import { readFileSync } from 'node:fs';
import type { Reduction } from '../shared/format/types';
import { isRangeKind } from '../shared/format/types';

type SidecarLine =
  | { t: 'reduction'; r: Reduction }
  | { t: 'invert'; id: string }
  | { t: 'rewind'; to: number }
  | { t: string };

/** The highest view index a reduction addresses. */
function lastAddressed(r: Reduction): number {
  return Math.max(r.ptr.index, r.canonical?.index ?? 0, isRangeKind(r.kind) && r.end !== undefined ? r.end - 1 : 0);
}

/** The sidecar's live log, in log order. Only for well-formed sidecars (the good samples). */
export function liveLog(sidecarPath: string): Reduction[] {
  let live: Reduction[] = [];
  for (const text of readFileSync(sidecarPath, 'utf8').split('\n')) {
    if (text.trim() === '') continue;
    const line = JSON.parse(text) as SidecarLine;
    if (line.t === 'reduction' && 'r' in line) live.push(line.r);
    else if (line.t === 'invert' && 'id' in line) live = live.filter((r) => r.id !== line.id);
    else if (line.t === 'rewind' && 'to' in line) live = live.filter((r) => lastAddressed(r) < line.to);
  }
  return live;
}

function enclosedByClearedRange(log: readonly Reduction[], r: Reduction): boolean {
  return log.some((c) => c !== r && isRangeKind(c.kind) && c.end !== undefined && c.ptr.index <= r.ptr.index && r.ptr.index < c.end);
}

/**
 * The `duplicate_output` reductions whose canonical is fully visible (SPEC §3.5): no other live
 * record addresses the canonical's index and no cleared range encloses it. Search skips them.
 */
export function duplicatesWithVisibleCanonical(log: readonly Reduction[]): Reduction[] {
  return log.filter((r) => {
    if (r.kind !== 'duplicate_output' || !r.canonical) return false;
    const canonical = r.canonical.index;
    const addressed = log.some((o) => o !== r && (isRangeKind(o.kind) && o.end !== undefined ? o.ptr.index <= canonical && canonical < o.end : o.ptr.index === canonical));
    return !addressed;
  });
}

/**
 * The reductions that show a stub chip of their own in the projected view: every live reduction
 * not inside a cleared range (a cleared range is one stub row for all it holds).
 */
export function stubbedReductions(log: readonly Reduction[]): Reduction[] {
  return log.filter((r) => !enclosedByClearedRange(log, r)).sort((a, b) => a.ptr.index - b.ptr.index);
}

/**
 * True when the content is shown as-is by the content element (UI-CONTRACT.md): no ANSI escapes,
 * no control characters other than newline and tab, no bidirectional controls.
 */
export function displaysVerbatim(content: string): boolean {
  // eslint-disable-next-line no-control-regex
  return !/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(content);
}

export const utf8 = (text: string): Buffer => Buffer.from(text, 'utf8');

/** Byte offsets of the first characters of at least 2 UTF-8 bytes at or after `from`. */
export function multiByteOffsets(content: string, from: number): number[] {
  const bytes = utf8(content);
  const offsets: number[] = [];
  for (let i = from; i < bytes.length; i++) {
    const b = bytes[i] ?? 0;
    if (b >= 0xc0) offsets.push(i);
  }
  return offsets;
}
