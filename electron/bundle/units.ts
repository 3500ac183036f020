/**
 * What the repro bundle's minimizer may remove from each session file (SPEC §12; docs/bundles.md):
 * its records, grouped the way the format ties them together. Pure (bytes in, bytes out), so the
 * units of every format are tested without a disk.
 *
 * - A native sidecar is lines: each unit is one line with its newline, kept in order, so a torn
 *   last line (no newline) stays last and torn. Its first line (the header: the format, the
 *   version, the policy) is never removed.
 * - A Claude Code transcript and a Codex rollout are records (lines) grouped so that any kept set
 *   is still a file of that format: a tool call with its result(s) (`tool_use`/`tool_result`,
 *   `function_call`/`function_call_output` and their custom and shell kinds), the records of one
 *   API response (same `message.id`), a compaction's records together (Claude Code's
 *   `compact_boundary` and its `isCompactSummary` record; Codex's `compacted`, its
 *   `context_compacted` event and a remote compaction's item). A Codex rollout's first
 *   `session_meta` is never removed. In a Claude Code transcript a kept record whose `parentUuid`
 *   names a removed one is re-linked to its nearest kept ancestor (only that value of the line
 *   changes), so the branch Claude Code would resume still runs through the kept records.
 * - A native snapshot is its `messages` and `reductions` elements; the rest of the object is kept
 *   as it was and the file is written back with its own indent (the recorder's is 2). A snapshot
 *   that is not a JSON object is kept whole.
 * - A SWE-agent trajectory, a mini-swe-agent trajectory, OpenHands V0 events and an Inspect log
 *   (`.json`, or `.eval` with its entries read by evalArchive.ts) are their records grouped the way
 *   the agent ties them (a step with its observation, a tool call with its result, a condensation
 *   with what it forgets, a model event with its tool events, another sample), the rest of the
 *   document kept; the document is written again from the kept parts (docs/bundles.md "Units per
 *   format"). Any other file (an OpenHands V1 folder's) is kept whole.
 * Removing a record can change what the others mean (a message's view index, a reduction's
 * address): the oracle, not this module, decides whether a removal keeps the bundle faithful.
 */
import type { SessionFileFormat } from '../../shared/index';
import type { RecordShape } from '../../shared/links/minimize';
import { deeperThan } from '../../shared/format/jsonDepth';
import { sampleSessionId } from '../loader/inspect/build';
import { bySessionId } from '../loader/inspect/source';
import type { ArchiveEntry, PackedEntry } from './evalArchive';
import { packEntry, writeZip } from './evalArchive';

/** How a file is cut: by lines (a sidecar), by grouped records (a JSONL import), by snapshot elements, or not at all. */
export type UnitKind = 'line' | 'record_group' | 'snapshot_element' | 'document_part' | 'whole';

/** One removable unit: what it is, where its bytes are in the source file, what it names. */
export interface UnitInfo {
  /** `tool_call`, `compaction`, `microcompaction`, `response`, `message`, a record's type, … */
  kind: string;
  /** The source lines it is made of (1-based; none for a snapshot element). */
  lines: number[];
  /** Its bytes in the source file, `[start, end)`, contiguous lines merged. */
  ranges: [number, number][];
  /** The ids it carries (tool call ids, a compaction's or record's uuid), at most MAX_UNIT_IDS. */
  ids: string[];
  /** Its size in bytes (the sum of its ranges; a snapshot element's JSON). */
  bytes: number;
}

/** A line of a kept record that rendering changed (a Claude Code `parentUuid` re-linked). */
export interface Rewrite {
  line: number;
  bytes_before: number;
  bytes_after: number;
  why: string;
}

export const MAX_UNIT_IDS = 20;

export interface FileUnits {
  name: string;
  format: SessionFileFormat;
  kind: UnitKind;
  /** Units of this file that may be removed, in file order. */
  count: number;
  /** What each unit is (a message at a view index, a record addressing some): the minimizer's first stage. */
  shapes: RecordShape[];
  /** What each unit is made of, for the manifest's cut list. */
  units: UnitInfo[];
  /** The file made of the units kept (ascending indices into 0..count-1). */
  render(kept: readonly number[]): Uint8Array;
  /** The lines of kept records whose bytes rendering changed. */
  rewrites(kept: readonly number[]): Rewrite[];
}

const NEWLINE = 0x0a;
const decoder = new TextDecoder();
const encoder = new TextEncoder();

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
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The highest view index a reduction (§3.5) addresses, if it names any. */
function reductionNeeds(r: unknown): number | undefined {
  if (typeof r !== 'object' || r === null) return undefined;
  const { ptr, canonical, end } = r as { ptr?: { index?: unknown }; canonical?: { index?: unknown }; end?: unknown };
  const found = [ptr?.index, canonical?.index, isIndex(end) && end > 0 ? end - 1 : undefined].filter(isIndex);
  return found.length > 0 ? Math.max(...found) : undefined;
}

function parseLine(line: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(line));
  } catch {
    return undefined;
  }
}

/** A native sidecar line's shape (§3.1); a line that is not a known record addresses nothing. */
export function sidecarShape(line: Uint8Array): RecordShape {
  const rec = parseLine(line);
  if (!isObj(rec)) return {};
  const r = rec as { t?: unknown; i?: unknown; r?: unknown; at?: unknown; to?: unknown };
  if (r.t === 'message' && isIndex(r.i)) return { message: r.i };
  const needs = r.t === 'reduction' ? reductionNeeds(r.r) : r.t === 'model_change' && isIndex(r.at) && r.at > 0 ? r.at - 1 : r.t === 'rewind' && isIndex(r.to) && r.to > 0 ? r.to - 1 : undefined;
  return needs === undefined ? {} : { needs };
}

/** Each line's `[start, end)` in the file. */
function lineOffsets(lines: readonly Uint8Array[]): [number, number][] {
  let at = 0;
  return lines.map((l) => {
    const range: [number, number] = [at, at + l.length];
    at += l.length;
    return range;
  });
}

/** The ranges of some lines (ascending), contiguous ones merged. */
function mergedRanges(lineIndices: readonly number[], offsets: readonly [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  for (const k of lineIndices) {
    const [s, e] = offsets[k] as [number, number];
    const last = out[out.length - 1];
    if (last && last[1] === s) last[1] = e;
    else out.push([s, e]);
  }
  return out;
}

/** A unit of some lines of a file (0-based indices, ascending). */
function lineUnit(kind: string, lineIndices: number[], offsets: readonly [number, number][], ids: readonly string[]): UnitInfo {
  const ranges = mergedRanges(lineIndices, offsets);
  return { kind, lines: lineIndices.map((k) => k + 1), ranges, ids: [...new Set(ids)].slice(0, MAX_UNIT_IDS), bytes: ranges.reduce((n, [s, e]) => n + e - s, 0) };
}

function sidecarUnits(name: string, format: SessionFileFormat, bytes: Uint8Array): FileUnits {
  const lines = splitLines(bytes);
  const offsets = lineOffsets(lines);
  const header = lines.slice(0, 1);
  const free = lines.slice(header.length);
  const units = free.map((l, k) => {
    const rec = parseLine(l);
    const t = isObj(rec) ? str(rec.t) : undefined;
    const id = isObj(rec) && isObj(rec.r) ? str(rec.r.id) : undefined;
    return lineUnit(t ?? 'line', [k + header.length], offsets, id !== undefined ? [id] : []);
  });
  return {
    name,
    format,
    kind: 'line',
    count: free.length,
    shapes: free.map(sidecarShape),
    units,
    render: (kept) => concat([...header, ...kept.map((k) => free[k] as Uint8Array)]),
    rewrites: () => [],
  };
}

/** Union-find over line indices. */
class Groups {
  private readonly parent: number[];
  constructor(n: number) {
    this.parent = Array.from({ length: n }, (_, k) => k);
  }
  find(k: number): number {
    let root = k;
    while (this.parent[root] !== root) root = this.parent[root] as number;
    while (this.parent[k] !== root) {
      const next = this.parent[k] as number;
      this.parent[k] = root;
      k = next;
    }
    return root;
  }
  union(a: number, b: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
}

/** What one record of a JSONL import ties it to, and what it is. */
interface RecordTies {
  /** Keys shared by records that must stay together (a tool call id, a response id). */
  keys: string[];
  /** Its kind, strongest first when grouped: see KIND_RANK. */
  kind: string;
  ids: string[];
}

/** A group's kind is its strongest member's. */
const KIND_RANK = ['compaction', 'microcompaction', 'tool_call', 'response', 'message'];
const rank = (kind: string): number => {
  const k = KIND_RANK.indexOf(kind);
  return k < 0 ? KIND_RANK.length : k;
};

const blocksOf = (rec: Record<string, unknown>): unknown[] => {
  const message = rec.message;
  return isObj(message) && Array.isArray(message.content) ? message.content : [];
};

function claudeTies(rec: unknown): RecordTies {
  if (!isObj(rec)) return { keys: [], kind: 'line', ids: [] };
  const keys: string[] = [];
  const ids: string[] = [];
  let kind = (str(rec.type) ?? 'record').slice(0, 64);
  if (kind === 'user' || kind === 'assistant') kind = 'message';
  const messageId = rec.type === 'assistant' && isObj(rec.message) ? str(rec.message.id) : undefined;
  if (messageId !== undefined) {
    keys.push(`response:${messageId}`);
    kind = 'response';
  }
  for (const b of blocksOf(rec)) {
    if (!isObj(b)) continue;
    const id = b.type === 'tool_use' ? str(b.id) : b.type === 'tool_result' ? str(b.tool_use_id) : undefined;
    if (id === undefined) continue;
    keys.push(`tool:${id}`);
    ids.push(id);
    kind = 'tool_call';
  }
  if (rec.type === 'system' && rec.subtype === 'compact_boundary') kind = 'compaction';
  if (rec.type === 'system' && rec.subtype === 'microcompact_boundary') kind = 'microcompaction';
  if (kind === 'compaction' || kind === 'microcompaction' || ids.length === 0) {
    const uuid = str(rec.uuid);
    if (uuid !== undefined) ids.push(uuid);
  }
  return { keys, kind, ids };
}

const CODEX_TOOL_ITEM = /^(function_call|custom_tool_call|local_shell_call|tool_search_call)(_output)?$|^tool_search_output$/;

function codexTies(rec: unknown): RecordTies {
  if (!isObj(rec)) return { keys: [], kind: 'line', ids: [] };
  const payload = isObj(rec.payload) ? rec.payload : {};
  const type = (str(rec.type) ?? 'record').slice(0, 64);
  const itemType = str(payload.type)?.slice(0, 64);
  if (type === 'compacted' || (type === 'response_item' && itemType === 'compaction') || (type === 'event_msg' && itemType === 'context_compacted')) return { keys: [], kind: 'compaction', ids: [] };
  if (type === 'response_item' && itemType !== undefined && CODEX_TOOL_ITEM.test(itemType)) {
    const id = str(payload.call_id);
    return id !== undefined ? { keys: [`tool:${id}`], kind: 'tool_call', ids: [id] } : { keys: [], kind: 'tool_call', ids: [] };
  }
  if (type === 'response_item') return { keys: [], kind: itemType === 'message' ? 'message' : (itemType ?? 'response_item'), ids: [] };
  if (type === 'event_msg') return { keys: [], kind: 'event', ids: [] };
  return { keys: [], kind: type, ids: [] };
}

/** Claude Code: each line's uuid and parentUuid, to re-link kept records past removed ones. */
interface ClaudeLinks {
  uuidLine: Map<string, number>;
  /** Each line's parent (a compact boundary's: its logical parent). */
  parentOf: (string | null | undefined)[];
}

function claudeLinks(records: readonly unknown[]): ClaudeLinks {
  const uuidLine = new Map<string, number>();
  const parentOf = records.map((rec, k) => {
    if (!isObj(rec)) return undefined;
    const uuid = str(rec.uuid);
    if (uuid !== undefined && !uuidLine.has(uuid)) uuidLine.set(uuid, k);
    // A compact boundary is a root that continues through its logical parent (as the importer reads it).
    if (rec.type === 'system' && rec.subtype === 'compact_boundary' && (rec.parentUuid === null || rec.parentUuid === undefined)) return str(rec.logicalParentUuid) ?? null;
    return rec.parentUuid === null ? null : str(rec.parentUuid);
  });
  return { uuidLine, parentOf };
}

/** The line with its `parentUuid` value replaced (the first such key, as Claude Code writes it), or undefined when not found. */
function relinked(line: Uint8Array, from: string, to: string | null): Uint8Array | undefined {
  const text = decoder.decode(line);
  const pattern = new RegExp(`("parentUuid"\\s*:\\s*)${JSON.stringify(from).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
  const match = pattern.exec(text);
  if (!match) return undefined;
  return encoder.encode(text.slice(0, match.index) + (match[1] as string) + JSON.stringify(to) + text.slice(match.index + match[0].length));
}

function jsonlUnits(name: string, format: 'claude-code' | 'codex-rollout', bytes: Uint8Array): FileUnits {
  const lines = splitLines(bytes);
  const offsets = lineOffsets(lines);
  const records = lines.map(parseLine);
  // A Codex rollout names its session in its first session_meta: that line stays.
  const fixedCount = format === 'codex-rollout' && isObj(records[0]) && records[0].type === 'session_meta' ? 1 : 0;
  const ties = records.map((r) => (format === 'claude-code' ? claudeTies(r) : codexTies(r)));
  const groups = new Groups(lines.length);
  const byKey = new Map<string, number>();
  ties.forEach((t, k) => {
    if (k < fixedCount) return;
    for (const key of t.keys) {
      const first = byKey.get(key);
      if (first === undefined) byKey.set(key, k);
      else groups.union(first, k);
    }
  });
  // A compaction's records together: Claude Code's boundary and the summary after it; Codex's
  // `compacted` and the remote item and event written beside it (within a few lines, no other compaction between).
  for (let k = fixedCount; k < lines.length; k++) {
    const rec = records[k];
    if (format === 'claude-code') {
      if (!(isObj(rec) && rec.type === 'system' && rec.subtype === 'compact_boundary')) continue;
      for (let j = k + 1; j < lines.length; j++) {
        const next = records[j];
        if (isObj(next) && next.type === 'system' && next.subtype === 'compact_boundary') break;
        if (isObj(next) && next.isCompactSummary === true) {
          groups.union(k, j);
          break;
        }
      }
    } else if (isObj(rec) && rec.type === 'compacted') {
      for (let j = Math.max(fixedCount, k - 3); j <= Math.min(lines.length - 1, k + 3); j++) {
        if (j !== k && ties[j]?.kind === 'compaction' && !(isObj(records[j]) && (records[j] as Record<string, unknown>).type === 'compacted')) groups.union(k, j);
      }
    }
  }
  const members = new Map<number, number[]>();
  for (let k = fixedCount; k < lines.length; k++) {
    const root = groups.find(k);
    const list = members.get(root);
    if (list) list.push(k);
    else members.set(root, [k]);
  }
  // Units in file order of their first line.
  const unitLines = [...members.values()].sort((a, b) => (a[0] as number) - (b[0] as number));
  const units = unitLines.map((ls) => {
    const kind = ls.map((k) => ties[k]?.kind ?? 'line').sort((a, b) => rank(a) - rank(b))[0] as string;
    return lineUnit(kind, ls, offsets, ls.flatMap((k) => ties[k]?.ids ?? []));
  });
  const links = format === 'claude-code' ? claudeLinks(records) : undefined;

  /** Each line kept (fixed lines included), and the lines re-linked, for a kept set of units. */
  const assemble = (kept: readonly number[]): { out: Uint8Array[]; rewrites: Rewrite[] } => {
    const keptLines = new Set<number>(Array.from({ length: fixedCount }, (_, k) => k));
    for (const u of kept) for (const k of unitLines[u] ?? []) keptLines.add(k);
    const order = [...keptLines].sort((a, b) => a - b);
    const rewrites: Rewrite[] = [];
    const out = order.map((k) => {
      const line = lines[k] as Uint8Array;
      const parent = links?.parentOf[k];
      if (!links || typeof parent !== 'string') return line;
      const at = links.uuidLine.get(parent);
      if (at === undefined || keptLines.has(at)) return line;
      // Up the removed ancestors to the nearest kept one (null: none is kept), never looping.
      let to: string | null = null;
      const seen = new Set<number>();
      let cur: number | undefined = at;
      while (cur !== undefined && !seen.has(cur)) {
        seen.add(cur);
        const up: string | null | undefined = links.parentOf[cur];
        if (typeof up !== 'string') break;
        const upLine = links.uuidLine.get(up);
        if (upLine === undefined) break;
        if (keptLines.has(upLine)) {
          to = up;
          break;
        }
        cur = upLine;
      }
      const changed = relinked(line, parent, to);
      if (!changed) return line;
      rewrites.push({ line: k + 1, bytes_before: line.length, bytes_after: changed.length, why: `parentUuid re-linked to ${to === null ? 'null' : 'the nearest kept ancestor'}` });
      return changed;
    });
    return { out, rewrites };
  };
  return {
    name,
    format,
    kind: 'record_group',
    count: units.length,
    // An imported format's records are not read for view indices: ddmin alone decides (no first stage).
    shapes: units.map(() => ({})),
    units,
    render: (kept) => concat(assemble(kept).out),
    rewrites: (kept) => assemble(kept).rewrites,
  };
}

function wholeUnits(name: string, format: SessionFileFormat, bytes: Uint8Array): FileUnits {
  return { name, format, kind: 'whole', count: 0, shapes: [], units: [], render: () => bytes, rewrites: () => [] };
}

/** A JSON file's value, or undefined when it is not UTF-8 JSON, or too deep to write again (shared/format/jsonDepth.ts). */
function parseDocument(bytes: Uint8Array): unknown {
  try {
    const value: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    return typeof value === 'object' && value !== null && !deeperThan(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The indent a JSON document was written with (the first line's, after its opening bracket): 0 when on one line. */
function indentOf(bytes: Uint8Array): number {
  const head = decoder.decode(bytes.subarray(0, 256));
  const m = /^[[{]\r?\n( +)/.exec(head);
  return m ? (m[1] as string).length : 0;
}

/** A removable piece of a JSON document: what it is, the ids it carries, the JSON values it is made of (for its size). */
interface DocumentPart {
  kind: string;
  ids: string[];
  values: unknown[];
  /** Its size when it is no JSON value of the document (an archive's entry): else its values' JSON. */
  bytes?: number;
}

const jsonBytes = (v: unknown): number => encoder.encode(JSON.stringify(v) ?? '').length;

/** How a JSON document is written again: with the source's indent, and a final newline where it had one. */
function jsonWriter(bytes: Uint8Array): (value: unknown) => Uint8Array {
  const indent = indentOf(bytes);
  const newline = bytes[bytes.length - 1] === NEWLINE ? '\n' : '';
  return (value) => encoder.encode(JSON.stringify(value, null, indent) + newline);
}

/**
 * The units of one document: `parts` removable, `render` writes the document of the kept ones. It
 * is written again as a whole, so what the removed parts' own bytes do not account for is one rewrite.
 */
function documentUnits(name: string, format: SessionFileFormat, bytes: Uint8Array, parts: readonly DocumentPart[], render: (kept: ReadonlySet<number>) => Uint8Array, shapes?: RecordShape[]): FileUnits {
  const units: UnitInfo[] = parts.map((p) => ({ kind: p.kind, lines: [], ranges: [], ids: [...new Set(p.ids)].slice(0, MAX_UNIT_IDS), bytes: p.bytes ?? p.values.reduce<number>((n, v) => n + jsonBytes(v), 0) }));
  return {
    name,
    format,
    kind: 'document_part',
    count: parts.length,
    shapes: shapes ?? parts.map(() => ({})),
    units,
    render: (kept) => render(new Set(kept)),
    rewrites: (kept) => {
      const keptSet = new Set(kept);
      const cut = units.reduce((n, u, k) => (keptSet.has(k) ? n : n + u.bytes), 0);
      return [{ line: 0, bytes_before: bytes.length - cut, bytes_after: render(keptSet).length, why: 'the document is written again from the kept parts' }];
    },
  };
}

function snapshotUnits(name: string, format: SessionFileFormat, bytes: Uint8Array): FileUnits {
  const value = parseDocument(bytes);
  if (!isObj(value)) return wholeUnits(name, format, bytes);
  const messages = Array.isArray(value.messages) ? (value.messages as unknown[]) : [];
  const reductions = Array.isArray(value.reductions) ? (value.reductions as unknown[]) : [];
  const m = messages.length;
  const idsOf = (v: unknown): string[] => (isObj(v) && typeof v.id === 'string' ? [v.id] : []);
  const parts = [...messages.map((v) => ({ kind: 'message', ids: idsOf(v), values: [v] })), ...reductions.map((v) => ({ kind: 'reduction', ids: idsOf(v), values: [v] }))];
  const shapes = [...messages.map((_, k) => ({ message: k })), ...reductions.map((r) => {
    const needs = reductionNeeds(r);
    return needs === undefined ? {} : { needs };
  })];
  const write = jsonWriter(bytes);
  const units = documentUnits(name, format, bytes, parts, (kept) => write({
    ...value,
    ...(Array.isArray(value.messages) ? { messages: messages.filter((_, k) => kept.has(k)) } : {}),
    ...(Array.isArray(value.reductions) ? { reductions: reductions.filter((_, k) => kept.has(m + k)) } : {}),
  }), shapes);
  return { ...units, kind: 'snapshot_element' };
}

/** The tool call ids a chat message carries: its calls' (`tool_calls[].id`) and its reply's (`tool_call_id`, SWE-agent's `tool_call_ids`). */
function chatToolIds(m: unknown): string[] {
  if (!isObj(m)) return [];
  const ids: string[] = [];
  if (Array.isArray(m.tool_calls)) for (const c of m.tool_calls) if (isObj(c) && typeof c.id === 'string') ids.push(c.id);
  if (typeof m.tool_call_id === 'string') ids.push(m.tool_call_id);
  if (Array.isArray(m.tool_call_ids)) for (const id of m.tool_call_ids) if (typeof id === 'string') ids.push(id);
  return ids;
}

/**
 * A chat history cut into turns: each assistant message with the messages after it up to the next
 * one (its tool replies, its observation), in order. What comes before the first assistant message
 * (the system prompt, the task) is not a turn: it is kept.
 */
function chatTurns(messages: readonly unknown[], end = messages.length): number[][] {
  const turns: number[][] = [];
  for (let i = 0; i < end; i++) {
    const m = messages[i];
    if (isObj(m) && m.role === 'assistant') turns.push([i]);
    else turns[turns.length - 1]?.push(i);
  }
  return turns;
}

const turnPart = (messages: readonly unknown[], turn: readonly number[], extra: unknown[] = []): DocumentPart => {
  const ids = turn.flatMap((i) => chatToolIds(messages[i]));
  return { kind: ids.length > 0 ? 'tool_call' : 'step', ids, values: [...turn.map((i) => messages[i]), ...extra] };
};

/**
 * SWE-agent (`.traj`): a unit is a step: the k-th assistant message of `history` with its
 * observation(s), and the k-th `trajectory` step (the loader pairs them by that order); a step the
 * history lacks (the last `submit`) is a unit alone. Each kept step's input (`query`/`messages`, a
 * prefix of the history) keeps the same positions as the history, so it still lines up with it and
 * its elisions are still read. `environment`, `info`, `replay_config` (the history processors) stay.
 */
function sweAgentUnits(name: string, format: SessionFileFormat, bytes: Uint8Array): FileUnits {
  const doc = parseDocument(bytes);
  if (!isObj(doc) || !Array.isArray(doc.history)) return wholeUnits(name, format, bytes);
  const history = doc.history as unknown[];
  const steps = Array.isArray(doc.trajectory) ? (doc.trajectory as unknown[]) : [];
  const turns = chatTurns(history);
  const parts = turns.map((t, k) => turnPart(history, t, k < steps.length ? [steps[k]] : []));
  for (let k = turns.length; k < steps.length; k++) parts.push({ kind: 'step', ids: [], values: [steps[k]] });
  const turnOf = new Map<number, number>();
  turns.forEach((t, k) => t.forEach((i) => turnOf.set(i, k)));
  const write = jsonWriter(bytes);
  return documentUnits(name, format, bytes, parts, (kept) => {
    const keptMessage = (i: number): boolean => {
      const k = turnOf.get(i);
      return k === undefined || kept.has(k);
    };
    const trimInput = (input: unknown): unknown => (Array.isArray(input) ? input.filter((_, i) => i >= history.length || keptMessage(i)) : input);
    const trajectory = steps.flatMap((s, k) => {
      // Step k is part k: its turn's, or (past the history's turns) its own.
      if (!kept.has(k)) return [];
      if (!isObj(s)) return [s];
      return [{ ...s, ...('query' in s ? { query: trimInput(s.query) } : {}), ...('messages' in s ? { messages: trimInput(s.messages) } : {}) }];
    });
    return write({ ...doc, ...(Array.isArray(doc.trajectory) ? { trajectory } : {}), history: history.filter((_, i) => keptMessage(i)) });
  });
}

/**
 * mini-swe-agent: a unit is a turn (an assistant message with its tool replies or observation);
 * the messages before the first, the closing `exit` message and the rest of the saved state stay.
 */
function miniUnits(name: string, format: SessionFileFormat, bytes: Uint8Array): FileUnits {
  const doc = parseDocument(bytes);
  const messages: unknown[] | undefined = Array.isArray(doc) ? (doc as unknown[]) : isObj(doc) && Array.isArray(doc.messages) ? (doc.messages as unknown[]) : undefined;
  if (!messages) return wholeUnits(name, format, bytes);
  const last = messages[messages.length - 1];
  const turns = chatTurns(messages, isObj(last) && last.role === 'exit' ? messages.length - 1 : messages.length);
  const dropped = (kept: ReadonlySet<number>): Set<number> => new Set(turns.flatMap((t, k) => (kept.has(k) ? [] : t)));
  const write = jsonWriter(bytes);
  return documentUnits(name, format, bytes, turns.map((t) => turnPart(messages, t)), (kept) => {
    const out = dropped(kept);
    const list = messages.filter((_, i) => !out.has(i));
    return write(Array.isArray(doc) ? list : { ...(doc as Record<string, unknown>), messages: list });
  });
}

/** Items grouped by keys (union-find): items sharing a key are one group; groups in order of their first item. */
function groupByKeys(keysOf: readonly string[][]): number[][] {
  const groups = new Groups(keysOf.length);
  const first = new Map<string, number>();
  keysOf.forEach((keys, k) => {
    for (const key of keys) {
      const at = first.get(key);
      if (at === undefined) first.set(key, k);
      else groups.union(at, k);
    }
  });
  const members = new Map<number, number[]>();
  keysOf.forEach((_, k) => {
    const root = groups.find(k);
    const list = members.get(root);
    if (list) list.push(k);
    else members.set(root, [k]);
  });
  return [...members.values()].sort((a, b) => (a[0] as number) - (b[0] as number));
}

/**
 * OpenHands V0 (one JSON array of events): a unit is an action with its observation(s) (their
 * `cause`, the same `tool_call_metadata.tool_call_id`), the actions of one model response together
 * (`model_response.id`), a condensation with the events it forgets; any other event alone. The unit
 * of the first event stays (the array must still open like an OpenHands event).
 */
function openHandsUnits(name: string, format: SessionFileFormat, bytes: Uint8Array): FileUnits {
  const parsed = parseDocument(bytes);
  if (!Array.isArray(parsed) || parsed.length === 0) return wholeUnits(name, format, bytes);
  const events = parsed as unknown[];
  const idOf = (e: unknown): string | undefined => (isObj(e) && (typeof e.id === 'number' || typeof e.id === 'string') ? String(e.id) : undefined);
  const keys = events.map((e): string[] => {
    if (!isObj(e)) return [];
    const out: string[] = [];
    const id = idOf(e);
    if (id !== undefined) out.push(`event:${id}`);
    if (typeof e.cause === 'number' || typeof e.cause === 'string') out.push(`event:${String(e.cause)}`);
    const meta = isObj(e.tool_call_metadata) ? e.tool_call_metadata : undefined;
    if (typeof meta?.tool_call_id === 'string') out.push(`tool:${meta.tool_call_id}`);
    if (isObj(meta?.model_response) && typeof meta.model_response.id === 'string') out.push(`response:${meta.model_response.id}`);
    if (e.action === 'condensation' && isObj(e.args)) {
      const args = e.args;
      if (Array.isArray(args.forgotten_event_ids)) for (const f of args.forgotten_event_ids) out.push(`event:${String(f)}`);
      const a = args.forgotten_events_start_id;
      const b = args.forgotten_events_end_id;
      if (Number.isInteger(a) && Number.isInteger(b)) for (const other of events) {
        const o = idOf(other);
        if (o !== undefined && /^-?\d+$/.test(o) && Number(o) >= (a as number) && Number(o) <= (b as number)) out.push(`event:${o}`);
      }
    }
    return out;
  });
  const groups = groupByKeys(keys).filter((g) => !g.includes(0));
  const parts = groups.map((g): DocumentPart => {
    const kinds = g.map((i) => {
      const e = events[i];
      return isObj(e) && e.action === 'condensation' ? 'compaction' : isObj(e) && isObj(e.tool_call_metadata) ? 'tool_call' : 'event';
    });
    const ids = g.flatMap((i) => {
      const e = events[i];
      const meta = isObj(e) && isObj(e.tool_call_metadata) ? e.tool_call_metadata : undefined;
      return typeof meta?.tool_call_id === 'string' ? [meta.tool_call_id] : [];
    });
    return { kind: kinds.sort((a, b) => rank(a) - rank(b))[0] as string, ids, values: g.map((i) => events[i]) };
  });
  const write = jsonWriter(bytes);
  return documentUnits(name, format, bytes, parts, (kept) => {
    const out = new Set(groups.flatMap((g, k) => (kept.has(k) ? [] : g)));
    return write(events.filter((_, i) => !out.has(i)));
  });
}

/** The sample a bundle of an Inspect log is about: `session` (`<id>_epoch_<n>`), else the first in id order, as the loader chooses (electron/loader/inspect/source.ts). */
function chosenSample(samples: readonly unknown[], session: string | undefined): number {
  const ids = samples.map((s, k) => (isObj(s) ? (sampleSessionId(s) ?? `sample_${k}`) : undefined));
  const order = ids.map((id, k) => ({ id, k })).filter((x): x is { id: string; k: number } => x.id !== undefined).sort((a, b) => bySessionId(a.id, b.id));
  return (session !== undefined ? order.find((x) => x.id === session) : order[0])?.k ?? -1;
}

/**
 * The removable parts of one Inspect sample: its history's turns (an assistant message with its tool
 * results) and its events, tied by what they share — a tool call id (a model event's output calls,
 * a tool event's `id`, the messages that call and answer), a message id (the model event that
 * produced the message): a model event comes with its tool events and the messages it produced.
 * Any other event is a part alone. What comes before the first assistant message stays, with
 * whatever is tied to it.
 */
function inspectSampleParts(sample: Record<string, unknown>): { parts: DocumentPart[]; build: (kept: (part: number) => boolean) => Record<string, unknown> } {
  const messages = Array.isArray(sample.messages) ? (sample.messages as unknown[]) : [];
  const events = Array.isArray(sample.events) ? (sample.events as unknown[]) : [];
  const turnOf = new Map<number, number>();
  chatTurns(messages).forEach((t, k) => t.forEach((i) => turnOf.set(i, k)));
  const messageKeys = messages.map((m, i): string[] => {
    const turn = turnOf.get(i);
    if (turn === undefined) return ['fixed'];
    return [`turn:${turn}`, ...chatToolIds(m).map((id) => `tool:${id}`), ...(isObj(m) && typeof m.id === 'string' ? [`message:${m.id}`] : [])];
  });
  const eventKeys = events.map((e): string[] => {
    if (!isObj(e)) return [];
    if (e.event === 'tool' && typeof e.id === 'string') return [`tool:${e.id}`];
    if (e.event !== 'model' || !isObj(e.output) || !Array.isArray(e.output.choices)) return [];
    const out: unknown = isObj(e.output.choices[0]) ? e.output.choices[0].message : undefined;
    return [...chatToolIds(out).map((id) => `tool:${id}`), ...(isObj(out) && typeof out.id === 'string' ? [`message:${out.id}`] : [])];
  });
  const m = messages.length;
  const groups = groupByKeys([...messageKeys, ...eventKeys]).filter((g) => !g.some((i) => i < m && turnOf.get(i) === undefined));
  const valueOf = (i: number): unknown => (i < m ? messages[i] : events[i - m]);
  const parts = groups.map((g): DocumentPart => {
    const hasModel = g.some((i) => i >= m && isObj(events[i - m]) && (events[i - m] as Record<string, unknown>).event === 'model');
    const ids = g.flatMap((i) => (i < m ? chatToolIds(messages[i]) : []));
    return { kind: ids.length > 0 ? 'tool_call' : hasModel || g.some((i) => i < m) ? 'response' : 'event', ids, values: g.map(valueOf) };
  });
  const eventsData = isObj(sample.events_data) ? sample.events_data : undefined;
  const pool: unknown[] = Array.isArray(eventsData?.messages) ? (eventsData.messages as unknown[]) : Array.isArray(sample.message_pool) ? (sample.message_pool as unknown[]) : [];
  const messageId = (v: unknown): string | undefined => (isObj(v) && typeof v.id === 'string' ? v.id : undefined);
  /** A kept model event given none of the removed messages: out of its `input`, and of the pool ranges its `input_refs` name. */
  const withoutRemoved = (e: unknown, removed: ReadonlySet<string>): unknown => {
    if (removed.size === 0 || !isObj(e) || e.event !== 'model') return e;
    const gone = (v: unknown): boolean => {
      const id = messageId(v);
      return id !== undefined && removed.has(id);
    };
    const out: Record<string, unknown> = { ...e };
    if (Array.isArray(e.input)) out.input = e.input.filter((v) => !gone(v));
    if (Array.isArray(e.input_refs)) {
      const ranges: [number, number][] = [];
      for (const r of e.input_refs) {
        if (!Array.isArray(r) || !Number.isInteger(r[0]) || !Number.isInteger(r[1])) return e;
        for (let i = r[0] as number; i < (r[1] as number) && i < pool.length; i++) {
          if (gone(pool[i])) continue;
          const last = ranges[ranges.length - 1];
          if (last && last[1] === i) last[1] = i + 1;
          else ranges.push([i, i + 1]);
        }
      }
      out.input_refs = ranges;
    }
    return out;
  };
  return {
    parts,
    build: (kept) => {
      const out = new Set(groups.flatMap((g, k) => (kept(k) ? [] : g)));
      const removed = new Set(messages.flatMap((v, i) => (out.has(i) ? (messageId(v) ?? []) : [])));
      return {
        ...sample,
        ...(Array.isArray(sample.messages) ? { messages: messages.filter((_, i) => !out.has(i)) } : {}),
        ...(Array.isArray(sample.events) ? { events: events.flatMap((e, i) => (out.has(m + i) ? [] : [withoutRemoved(e, removed)])) } : {}),
      };
    },
  };
}

/**
 * An Inspect `.json` log: the other samples first, one unit each (dropped whole), then the parts of
 * the sample the bundle is about (inspectSampleParts). The header fields (`eval`, `plan`,
 * `results`, `stats`) stay.
 */
function inspectJsonUnits(name: string, format: SessionFileFormat, bytes: Uint8Array, session: string | undefined): FileUnits {
  const doc = parseDocument(bytes);
  if (!isObj(doc) || !Array.isArray(doc.samples)) return wholeUnits(name, format, bytes);
  const samples = doc.samples as unknown[];
  const chosen = chosenSample(samples, session);
  const others = samples.flatMap((s, k) => (k === chosen ? [] : [k]));
  const sample = samples[chosen];
  const own = isObj(sample) ? inspectSampleParts(sample) : undefined;
  const sampleId = (s: unknown): string[] => (isObj(s) ? [sampleSessionId(s) ?? ''].filter((x) => x !== '') : []);
  const parts: DocumentPart[] = [...others.map((k) => ({ kind: 'sample', ids: sampleId(samples[k]), values: [samples[k]] })), ...(own?.parts ?? [])];
  const o = others.length;
  const write = jsonWriter(bytes);
  return documentUnits(name, format, bytes, parts, (kept) => {
    const keptOthers = new Set(others.filter((_, j) => kept.has(j)));
    return write({ ...doc, samples: samples.flatMap((s, k) => (k === chosen && own ? [own.build((p) => kept.has(o + p))] : keptOthers.has(k) ? [s] : [])) });
  });
}


const SAMPLE_ENTRY = /^samples\/(.+)_epoch_(\d+)\.json$/;
const SUMMARY_ENTRY = /^(summaries\.json|_journal\/summaries\/[^/]+\.json)$/;
/** The most entries a zip without zip64 lists. */
const MAX_ZIP_ENTRIES = 0xffff;

/**
 * An Inspect `.eval` archive, its entries read (evalArchive.ts): the other samples' entries first,
 * one unit each, then the parts of the sample the bundle is about (inspectSampleParts), whose entry
 * is written again. The summaries (`summaries.json`, `_journal/summaries/*.json`) keep only the
 * kept samples' rows, so they name no sample the archive lacks; the header, the journal's start and
 * `reductions.json` stay. An archive whose entries were not all read, or whose sample is not a JSON
 * object, is kept whole.
 */
function evalUnits(name: string, format: SessionFileFormat, bytes: Uint8Array, entries: readonly ArchiveEntry[] | undefined, session: string | undefined): FileUnits {
  if (!entries || entries.length > MAX_ZIP_ENTRIES) return wholeUnits(name, format, bytes);
  const ids = entries.map((e) => {
    const m = SAMPLE_ENTRY.exec(e.name);
    return m ? `${m[1] as string}_epoch_${m[2] as string}` : undefined;
  });
  const order = ids.flatMap((id, k) => (id !== undefined ? [{ id, k }] : [])).sort((a, b) => bySessionId(a.id, b.id));
  const chosen = (session !== undefined ? order.find((x) => x.id === session) : order[0])?.k;
  const chosenDoc = chosen !== undefined ? parseDocument((entries[chosen] as ArchiveEntry).bytes) : undefined;
  if (chosen === undefined || !isObj(chosenDoc)) return wholeUnits(name, format, bytes);
  const own = inspectSampleParts(chosenDoc);
  const others = order.filter((x) => x.k !== chosen).map((x) => x.k).sort((a, b) => a - b);
  const parts: DocumentPart[] = [...others.map((k) => ({ kind: 'sample', ids: [ids[k] as string], values: [], bytes: (entries[k] as ArchiveEntry).bytes.length })), ...own.parts];
  const o = others.length;
  const packed = new Map<number, PackedEntry>();
  const pack = (k: number): PackedEntry => {
    let got = packed.get(k);
    if (!got) packed.set(k, (got = packEntry(entries[k] as ArchiveEntry)));
    return got;
  };
  const sampleWriter = jsonWriter((entries[chosen] as ArchiveEntry).bytes);
  const summaries = entries.map((e) => (SUMMARY_ENTRY.test(e.name) ? parseDocument(e.bytes) : undefined));
  return documentUnits(name, format, bytes, parts, (kept) => {
    const keptIds = new Set([ids[chosen] as string, ...others.filter((_, j) => kept.has(j)).map((k) => ids[k] as string)]);
    const out = entries.flatMap((e, k): PackedEntry[] => {
      if (k === chosen) return [packEntry({ name: e.name, bytes: sampleWriter(own.build((p) => kept.has(o + p))) })];
      if (ids[k] !== undefined) return keptIds.has(ids[k]) ? [pack(k)] : [];
      const list = summaries[k];
      if (Array.isArray(list)) {
        const rows = list.filter((s) => {
          const id = isObj(s) ? sampleSessionId(s) : undefined;
          return id === undefined || keptIds.has(id);
        });
        if (rows.length !== list.length) return [packEntry({ name: e.name, bytes: jsonWriter(e.bytes)(rows) })];
      }
      return [pack(k)];
    });
    return writeZip(out);
  });
}

/** The units of one session file, by the format the loader read it as. */
/** What some formats' units need besides the bytes: the session the bundle is about (Inspect), an archive's entries (evalArchive.ts). */
export interface UnitOptions {
  session?: string;
  entries?: readonly ArchiveEntry[];
}

export function fileUnits(name: string, format: SessionFileFormat, bytes: Uint8Array, options: UnitOptions = {}): FileUnits {
  switch (format) {
    case 'supercode-sidecar':
      return sidecarUnits(name, format, bytes);
    case 'claude-code':
    case 'codex-rollout':
      return jsonlUnits(name, format, bytes);
    case 'supercode-snapshot':
      return snapshotUnits(name, format, bytes);
    case 'swe-agent-traj':
      return sweAgentUnits(name, format, bytes);
    case 'mini-swe-agent-traj':
      return miniUnits(name, format, bytes);
    case 'openhands-v0':
      return openHandsUnits(name, format, bytes);
    case 'inspect-json':
      return inspectJsonUnits(name, format, bytes, options.session);
    case 'inspect-eval':
      return evalUnits(name, format, bytes, options.entries, options.session);
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
  /** Each file's own kept indices for a kept set of joint indices. */
  split(kept: readonly number[]): number[][];
}

export function jointUnits(files: readonly FileUnits[]): JointUnits {
  // File k's units are the joint indices [starts[k], starts[k] + files[k].count).
  const starts = files.map((_, k) => files.slice(0, k).reduce((n, f) => n + f.count, 0));
  const split = (kept: readonly number[]): number[][] =>
    files.map((f, k) => {
      const start = starts[k] as number;
      return kept.filter((j) => j >= start && j < start + f.count).map((j) => j - start);
    });
  return {
    files,
    count: files.reduce((n, f) => n + f.count, 0),
    shapes: files.flatMap((f) => f.shapes),
    render: (kept) => split(kept).map((own, k) => (files[k] as FileUnits).render(own)),
    split,
  };
}
