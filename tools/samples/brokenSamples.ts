/**
 * One deliberately broken sample per finding code of SPEC §5.6. Each is a small generated session
 * (compact, about 40 messages) with exactly one planted defect, so a reader should report that code
 * and no other finding. Everything else about the sample (hashes, stubs, lengths) is kept consistent
 * with the defect, as a buggy writer would have produced it: e.g. the sentinel case re-hashes the
 * message it leaks a stub into, and the kept_bytes case keeps a correct hash.
 *
 * Pure: returns file names and contents; generate.ts writes them.
 */
import type { FindingCode, Reduction, SessionSnapshot, Severity, SidecarRecord } from '../../shared/index';
import { ptrHash, sha256Hex, stubText, utf8Decode, utf8Encode } from '../../shared/index';
import type { GeneratedSession } from './sessionGenerator';
import { DEFAULT_SEED, generateSession, sidecarText, snapshotText } from './sessionGenerator';

export interface BrokenSample {
  code: FindingCode;
  severity: Severity;
  /** File name → content. A snapshot's sibling sidecar shares its stem. */
  files: Record<string, string>;
  /** What was planted, in one sentence. */
  defect: string;
}

/** The view length of the session each broken sample is derived from. */
export const BROKEN_BASE_MESSAGES = 40;

function hashOf(bytes: Uint8Array): string {
  return ptrHash(sha256Hex([bytes]));
}

function hiddenBytes(r: Reduction): number {
  // The generator mints native reductions only: every one has its size (and its hash).
  const bytes = r.ptr.bytes ?? 0;
  return r.kind === 'tool_output_truncated' ? bytes - (r.kept_bytes ?? 0) : bytes;
}

/** Index in `records` of the record that minted the live reduction `id` (the last one: ids recur after a rewind). */
function reductionRecord(records: readonly SidecarRecord[], id: string): Extract<SidecarRecord, { t: 'reduction' }> {
  for (let k = records.length - 1; k >= 0; k--) {
    const rec = records[k];
    if (rec?.t === 'reduction' && rec.r.id === id) return rec;
  }
  throw new Error(`no reduction record ${id}`);
}

function positionOf(records: readonly SidecarRecord[], record: SidecarRecord): number {
  const k = records.indexOf(record);
  if (k < 0) throw new Error('record not found');
  return k;
}

/** The last `message` record at view index `i` (the current timeline's copy). */
function messageRecord(records: readonly SidecarRecord[], i: number): Extract<SidecarRecord, { t: 'message' }> {
  for (let k = records.length - 1; k >= 0; k--) {
    const rec = records[k];
    if (rec?.t === 'message' && rec.i === i) return rec;
  }
  throw new Error(`no message record at ${i}`);
}

function nextId(records: readonly SidecarRecord[]): string {
  let max = 0;
  for (const rec of records) if (rec.t === 'reduction') max = Math.max(max, Number(/^r(\d+)$/.exec(rec.r.id)?.[1] ?? 0));
  return `r${max + 1}`;
}

/** Sets `r.id` and rewrites its stub to name it, as a writer minting under that id would have. */
function renamed(r: Reduction, id: string): Reduction {
  return { ...r, id, stub: stubText(id, r.kind, hiddenBytes(r)) };
}

interface Base {
  records: SidecarRecord[];
  snapshot: SessionSnapshot;
  live: Reduction[];
  session: GeneratedSession;
}

function base(seed: number): Base {
  const session = generateSession({ seed, messages: BROKEN_BASE_MESSAGES, compact: true });
  return { session, records: structuredClone(session.records), snapshot: structuredClone(session.snapshot), live: session.snapshot.reductions ?? [] };
}

/** Lines of a sidecar without their newlines, for line-level damage. */
function lines(records: readonly SidecarRecord[]): string[] {
  return records.map((r) => JSON.stringify(r));
}

function enclosingCleared(live: readonly Reduction[], index: number): boolean {
  return live.some((r) => r.kind === 'turns_cleared' && r.ptr.index <= index && index < (r.end ?? 0));
}

/** A live truncation nothing else depends on: not a canonical, not inside a cleared range. */
function standaloneTruncation(live: readonly Reduction[]): Reduction {
  const found = live.find(
    (r) => r.kind === 'tool_output_truncated' && !enclosingCleared(live, r.ptr.index) && !live.some((o) => o.canonical?.index === r.ptr.index),
  );
  if (!found) throw new Error('broken samples: the base session has no standalone truncation');
  return found;
}

type Planter = (seed: number) => BrokenSample;

const planters: Planter[] = [
  (seed) => {
    const { records, live } = base(seed);
    const target = standaloneTruncation(live);
    const rec = reductionRecord(records, target.id);
    const hash = rec.r.ptr.hash ?? '';
    const flipped = hash.slice(0, -1) + (hash.endsWith('0') ? '1' : '0');
    rec.r = { ...rec.r, ptr: { ...rec.r.ptr, hash: flipped } };
    return { code: 'hash_mismatch', severity: 'error', files: { 'hash_mismatch.sidecar.jsonl': sidecarText(records) }, defect: `the last hex digit of ${target.id}'s ptr.hash is changed` };
  },
  (seed) => {
    const { records, live, snapshot } = base(seed);
    const target = live.find((r) => r.kind === 'tool_output_elided');
    if (!target) throw new Error('broken samples: no elided reduction');
    const rec = reductionRecord(records, target.id);
    const index = snapshot.messages.length + 2;
    rec.r = { ...rec.r, ptr: { ...rec.r.ptr, index } };
    return {
      code: 'address_out_of_range',
      severity: 'error',
      files: { 'address_out_of_range.sidecar.jsonl': sidecarText(records) },
      defect: `${target.id} addresses view index ${index}, past the end of the ${snapshot.messages.length}-message view`,
    };
  },
  (seed) => {
    const { records, session } = base(seed);
    const { visibleDuplicate, hiddenDuplicate } = session.landmarks;
    const rec = reductionRecord(records, visibleDuplicate.id);
    const other = reductionRecord(records, hiddenDuplicate.id).r.canonical;
    if (!other) throw new Error('broken samples: duplicate without canonical');
    rec.r = { ...rec.r, canonical: { ...other } };
    return {
      code: 'duplicate_bytes_differ',
      severity: 'error',
      files: { 'duplicate_bytes_differ.sidecar.jsonl': sidecarText(records) },
      defect: `${visibleDuplicate.id} names view index ${other.index} (with its correct hash) as canonical, but view index ${visibleDuplicate.index} holds other bytes`,
    };
  },
  (seed) => {
    const { records, live, snapshot } = base(seed);
    // The truncation with a multi-byte character closest after its kept prefix: move kept_bytes inside it.
    let best: { r: Reduction; at: number } | undefined;
    for (const r of live) {
      if (r.kind !== 'tool_output_truncated') continue;
      const bytes = utf8Encode(snapshot.messages[r.ptr.index]?.content ?? '');
      for (let p = r.kept_bytes ?? 0; p < bytes.length - 1; p++) {
        if ((bytes[p] ?? 0) >= 0xc0) {
          if (!best || p - (r.kept_bytes ?? 0) < best.at - (best.r.kept_bytes ?? 0)) best = { r, at: p };
          break;
        }
      }
    }
    if (!best) throw new Error('broken samples: no truncated output with a multi-byte character');
    const rec = reductionRecord(records, best.r.id);
    const kept = best.at + 1;
    const moved: Reduction = { ...rec.r, kept_bytes: kept };
    rec.r = { ...moved, stub: stubText(moved.id, moved.kind, hiddenBytes(moved)) };
    return {
      code: 'kept_bytes_invalid',
      severity: 'error',
      files: { 'kept_bytes_invalid.sidecar.jsonl': sidecarText(records) },
      defect: `${best.r.id}'s kept_bytes is ${kept}, one byte into the multi-byte character at byte ${best.at} of view index ${best.r.ptr.index} (the hash is correct)`,
    };
  },
  (seed) => {
    const { records, live } = base(seed);
    const target = standaloneTruncation(live);
    const rec = reductionRecord(records, target.id);
    const id = nextId(records);
    const twin: Reduction = { id, kind: 'tool_output_elided', ptr: { ...rec.r.ptr }, stub: stubText(id, 'tool_output_elided', rec.r.ptr.bytes ?? 0), minted_at: rec.r.minted_at };
    records.splice(positionOf(records, rec) + 1, 0, { t: 'reduction', r: twin });
    return {
      code: 'overlapping_reductions',
      severity: 'error',
      files: { 'overlapping_reductions.sidecar.jsonl': sidecarText(records) },
      defect: `${id} elides view index ${target.ptr.index}, which ${target.id} already truncates (both hashes correct)`,
    };
  },
  (seed) => {
    const { records, live } = base(seed);
    const perMessage = live.filter((r) => r.kind !== 'turns_cleared');
    const first = perMessage[0];
    const last = perMessage[perMessage.length - 1];
    if (!first || !last || first === last) throw new Error('broken samples: too few reductions');
    const rec = reductionRecord(records, last.id);
    rec.r = renamed(rec.r, first.id);
    return {
      code: 'duplicate_reduction_id',
      severity: 'error',
      files: { 'duplicate_reduction_id.sidecar.jsonl': sidecarText(records) },
      defect: `the reduction minted as ${last.id} (view index ${last.ptr.index}) carries the id ${first.id}, which already names the live reduction of view index ${first.ptr.index}`,
    };
  },
  (seed) => {
    const { records, live } = base(seed);
    const target = standaloneTruncation(live);
    const msgRec = messageRecord(records, target.ptr.index);
    const bytes = utf8Encode(msgRec.msg.content);
    const kept = target.kept_bytes ?? 0;
    // An export leak: the output quotes a stub from a projected view, and a reduction was minted over it.
    const leak = `\n[exported transcript] ${stubText('r2', 'tool_output_truncated', 4711)}\n`;
    const content = utf8Decode(bytes.subarray(0, kept)) + leak + utf8Decode(bytes.subarray(kept));
    msgRec.msg = { ...msgRec.msg, content };
    const contentBytes = utf8Encode(content);
    const rec = reductionRecord(records, target.id);
    const rehashed: Reduction = { ...rec.r, ptr: { ...rec.r.ptr, hash: hashOf(contentBytes), bytes: contentBytes.length } };
    rec.r = { ...rehashed, stub: stubText(rehashed.id, rehashed.kind, hiddenBytes(rehashed)) };
    return {
      code: 'sentinel_in_original',
      severity: 'error',
      files: { 'sentinel_in_original.sidecar.jsonl': sidecarText(records) },
      defect: `view index ${target.ptr.index} quotes a stub (an export leak) and ${target.id} was minted over it with a correct hash`,
    };
  },
  (seed) => {
    const { records, snapshot, live } = base(seed);
    // The last assistant reply: addressed by no reduction, outside every cleared range.
    let index = snapshot.messages.length - 1;
    while (index > 0 && (snapshot.messages[index]?.role !== 'assistant' || enclosingCleared(live, index) || live.some((r) => r.ptr.index === index))) index--;
    const msg = snapshot.messages[index];
    if (!msg) throw new Error('broken samples: no assistant reply');
    snapshot.messages[index] = { ...msg, content: `${msg.content}\n\n(edited after the session: the recorder never saw this line)` };
    return {
      code: 'recorded_diverges',
      severity: 'warning',
      files: { 'recorded_diverges.session.json': snapshotText(snapshot), 'recorded_diverges.sidecar.jsonl': sidecarText(records) },
      defect: `the snapshot's view index ${index} (an assistant reply) has a line its sidecar record lacks; no cap notice explains it`,
    };
  },
  (seed) => {
    const { records } = base(seed);
    const rec = records.find((r) => r.t === 'model_change');
    if (rec?.t !== 'model_change') throw new Error('broken samples: no model change');
    const recorded = rec.reasoning_artifacts_filtered;
    rec.reasoning_artifacts_filtered = recorded + 1;
    return {
      code: 'model_change_count_mismatch',
      severity: 'error',
      files: { 'model_change_count_mismatch.sidecar.jsonl': sidecarText(records) },
      defect: `the model_change record says ${recorded + 1} messages had reasoning artifacts; ${recorded} did`,
    };
  },
  (seed) => {
    const { records } = base(seed);
    const l = lines(records);
    const at = Math.floor(l.length / 2);
    l.splice(at, 0, 'npm warn deprecated inflight@1.0.6: This module is not supported, and leaks memory.');
    return {
      code: 'malformed_line',
      severity: 'error',
      files: { 'malformed_line.sidecar.jsonl': l.map((s) => s + '\n').join('') },
      defect: `line ${at + 1} is a stray line of npm output written into the sidecar`,
    };
  },
  (seed) => {
    const { records } = base(seed);
    const l = lines(records);
    const last = l.pop() ?? '';
    // Tear at an ASCII character inside the line, as a writer stopped mid-append would leave it.
    let cut = Math.floor(last.length * 0.6);
    while (cut > 1 && last.charCodeAt(cut) > 0x7f) cut--;
    return {
      code: 'truncated_last_line',
      severity: 'warning',
      files: { 'truncated_last_line.sidecar.jsonl': l.map((s) => s + '\n').join('') + last.slice(0, cut) },
      defect: `the last line (${l.length + 1}) stops after ${cut} of its ${last.length} characters, with no newline`,
    };
  },
  (seed) => {
    const { records } = base(seed);
    const l = lines(records);
    const at = records.findIndex((r, k) => k > records.length / 3 && r.t === 'message');
    const next = records[at];
    if (next?.t !== 'message') throw new Error('broken samples: no message record');
    // A newer writer's record: where history stood when the user set a checkpoint.
    l.splice(at, 0, JSON.stringify({ t: 'checkpoint', at: next.i, label: 'before refactor' }));
    return {
      code: 'unknown_record',
      severity: 'warning',
      files: { 'unknown_record.sidecar.jsonl': l.map((s) => s + '\n').join('') },
      defect: `line ${at + 1} is a "checkpoint" record, a type this format version does not define`,
    };
  },
  (seed) => {
    const { records } = base(seed);
    const header = records[0];
    if (header?.t !== 'header') throw new Error('broken samples: no header');
    header.version = 2;
    return { code: 'unsupported_version', severity: 'error', files: { 'unsupported_version.sidecar.jsonl': sidecarText(records) }, defect: 'the sidecar header says version 2' };
  },
  (seed) => {
    const { snapshot } = base(seed);
    snapshot.version = 2;
    return {
      code: 'unsupported_version',
      severity: 'error',
      files: { 'unsupported_version-snapshot.session.json': snapshotText(snapshot) },
      defect: 'a snapshot alone (no sibling sidecar) whose version is 2',
    };
  },
  (seed) => {
    const { records, snapshot } = base(seed);
    const dropped = snapshot.reductions?.pop();
    if (!dropped) throw new Error('broken samples: no reductions');
    return {
      code: 'log_differs',
      severity: 'warning',
      files: { 'log_differs.session.json': snapshotText(snapshot), 'log_differs.sidecar.jsonl': sidecarText(records) },
      defect: `the snapshot's reductions lack ${dropped.id}, which the sidecar's live log holds`,
    };
  },
];

/** Every broken sample, in the order of SPEC §5.6's table. */
export function brokenSamples(seed: number = DEFAULT_SEED): BrokenSample[] {
  return planters.map((plant) => plant(seed));
}

/** `manifest.json` of the broken set: which file should produce which finding. */
export function brokenManifest(samples: readonly BrokenSample[]): string {
  return JSON.stringify({ samples: samples.map((s) => ({ code: s.code, severity: s.severity, files: Object.keys(s.files), defect: s.defect })) }, null, 2) + '\n';
}
