/**
 * What the repro bundle's minimizer may remove from each session file (SPEC §12): its records.
 * Pure (bytes in, bytes out), so the units of every format are tested without a disk.
 *
 * - A native sidecar and the JSONL imports (Claude Code, Codex) are lines: each unit is one line
 *   with its newline, kept in order, so a torn last line (no newline) stays last and torn. The
 *   sidecar's first line (its header: the format, the version, the policy) is never removed.
 * - A native snapshot is its `messages` and `reductions` elements; the rest of the object is kept
 *   as it was and the file is written back pretty-printed, as the recorder writes it. A snapshot
 *   that is not a JSON object is kept whole.
 * - Any other file (a SWE-agent trajectory, one JSON document) is kept whole.
 * Removing a record can change what the others mean (a message's view index, a reduction's
 * address): the oracle, not this module, decides whether a removal keeps the bundle faithful.
 */
import type { SessionFileFormat } from '../../shared/index';
import type { RecordShape } from '../../shared/links/minimize';
import { deeperThan } from '../../shared/format/jsonDepth';

export type UnitKind = 'line' | 'snapshot_element' | 'whole';

export interface FileUnits {
  name: string;
  format: SessionFileFormat;
  kind: UnitKind;
  /** Units of this file that may be removed, in file order. */
  count: number;
  /** What each unit is (a message at a view index, a record addressing some): the minimizer's first stage. */
  shapes: RecordShape[];
  /** The file made of the units kept (ascending indices into 0..count-1). */
  render(kept: readonly number[]): Uint8Array;
}

const NEWLINE = 0x0a;

/** The lines of `bytes`, each with its newline; a last line without one is its own unit. */
export function splitLines(bytes: Uint8Array): Uint8Array[] {
  const lines: Uint8Array[] = [];
  let start = 0;
  for (let k = 0; k < bytes.length; k++) {
    if (bytes[k] === NEWLINE) {
      lines.push(bytes.subarray(start, k + 1));
      start = k + 1;
    }
  }
  if (start < bytes.length) lines.push(bytes.subarray(start));
  return lines;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const isIndex = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/** The highest view index a reduction (§3.5) addresses, if it names any. */
function reductionNeeds(r: unknown): number | undefined {
  if (typeof r !== 'object' || r === null) return undefined;
  const { ptr, canonical, end } = r as { ptr?: { index?: unknown }; canonical?: { index?: unknown }; end?: unknown };
  const found = [ptr?.index, canonical?.index, isIndex(end) && end > 0 ? end - 1 : undefined].filter(isIndex);
  return found.length > 0 ? Math.max(...found) : undefined;
}

/** A native sidecar line's shape (§3.1); a line that is not a known record addresses nothing. */
export function sidecarShape(line: Uint8Array): RecordShape {
  let rec: unknown;
  try {
    rec = JSON.parse(new TextDecoder().decode(line));
  } catch {
    return {};
  }
  if (typeof rec !== 'object' || rec === null) return {};
  const r = rec as { t?: unknown; i?: unknown; r?: unknown; at?: unknown; to?: unknown };
  if (r.t === 'message' && isIndex(r.i)) return { message: r.i };
  const needs = r.t === 'reduction' ? reductionNeeds(r.r) : r.t === 'model_change' && isIndex(r.at) && r.at > 0 ? r.at - 1 : r.t === 'rewind' && isIndex(r.to) && r.to > 0 ? r.to - 1 : undefined;
  return needs === undefined ? {} : { needs };
}

function lineUnits(name: string, format: SessionFileFormat, bytes: Uint8Array, native: boolean): FileUnits {
  const lines = splitLines(bytes);
  const fixed = native ? lines.slice(0, 1) : [];
  const free = lines.slice(fixed.length);
  // An imported format's lines are not read here: ddmin alone decides (no first stage).
  const shapes = free.map((l) => (native ? sidecarShape(l) : {}));
  return { name, format, kind: 'line', count: free.length, shapes, render: (kept) => concat([...fixed, ...kept.map((k) => free[k] as Uint8Array)]) };
}

function wholeUnits(name: string, format: SessionFileFormat, bytes: Uint8Array): FileUnits {
  return { name, format, kind: 'whole', count: 0, shapes: [], render: () => bytes };
}

function snapshotUnits(name: string, format: SessionFileFormat, bytes: Uint8Array): FileUnits {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return wholeUnits(name, format, bytes);
  }
  // Rendering re-stringifies the kept elements: a snapshot too deep for that is kept whole (shared/format/jsonDepth.ts).
  if (typeof value !== 'object' || value === null || Array.isArray(value) || deeperThan(value)) return wholeUnits(name, format, bytes);
  const object = value as Record<string, unknown>;
  const messages = Array.isArray(object.messages) ? (object.messages as unknown[]) : undefined;
  const reductions = Array.isArray(object.reductions) ? (object.reductions as unknown[]) : undefined;
  const m = messages?.length ?? 0;
  const count = m + (reductions?.length ?? 0);
  return {
    name,
    format,
    kind: 'snapshot_element',
    count,
    shapes: [...(messages ?? []).map((_, k) => ({ message: k })), ...(reductions ?? []).map((r) => {
      const needs = reductionNeeds(r);
      return needs === undefined ? {} : { needs };
    })],
    render: (kept) => {
      const out: Record<string, unknown> = { ...object };
      if (messages) out.messages = kept.filter((k) => k < m).map((k) => messages[k]);
      if (reductions) out.reductions = kept.filter((k) => k >= m).map((k) => reductions[k - m]);
      return new TextEncoder().encode(JSON.stringify(out, null, 2) + '\n');
    },
  };
}

/** The units of one session file, by the format the loader read it as. */
export function fileUnits(name: string, format: SessionFileFormat, bytes: Uint8Array): FileUnits {
  switch (format) {
    case 'supercode-sidecar':
      return lineUnits(name, format, bytes, true);
    case 'claude-code':
    case 'codex-rollout':
      return lineUnits(name, format, bytes, false);
    case 'supercode-snapshot':
      return snapshotUnits(name, format, bytes);
    default:
      return wholeUnits(name, format, bytes);
  }
}

/** Several files' units as one list (file after file), as the minimizer sees them. */
export interface JointUnits {
  files: readonly FileUnits[];
  count: number;
  shapes: RecordShape[];
  /** Each file's bytes for a kept set of joint indices (ascending). */
  render(kept: readonly number[]): Uint8Array[];
}

export function jointUnits(files: readonly FileUnits[]): JointUnits {
  // File k's units are the joint indices [starts[k], starts[k] + files[k].count).
  const starts = files.map((_, k) => files.slice(0, k).reduce((n, f) => n + f.count, 0));
  return {
    files,
    count: files.reduce((n, f) => n + f.count, 0),
    shapes: files.flatMap((f) => f.shapes),
    render: (kept) =>
      files.map((f, k) => {
        const start = starts[k] as number;
        return f.render(kept.filter((j) => j >= start && j < start + f.count).map((j) => j - start));
      }),
  };
}
