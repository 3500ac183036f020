/**
 * A file's format from its head (the first bytes only): what a folder listing shows, and what the
 * session library (SPEC §14, "a cheap sniff of the first bytes") will start from. It mirrors the
 * format adapters' detection (electron/loader/detect.ts, same order, the adapters' own head rules
 * and document predicates) but never reads a file whole: a JSON document is judged by a sketch of
 * its head (./sketch.ts). Opening the file still runs the full detection, which has the last word.
 *
 * `sniffHead` answers a format, null (not a session file), or undefined when the head given is too
 * short to tell and the file is longer (the caller reads a longer head, up to SNIFF_MAX_BYTES, and
 * then takes undefined as null).
 */
import { basename, dirname } from 'node:path';
import type { SessionFileFormat } from '../../shared/index';
import { isSnapshotValue } from '../../shared/index';
import { isClaudeRecord } from '../loader/claudeCode/index';
import { isRolloutRecord } from '../loader/codex/index';
import { EVAL_ENTRY, JSON_HEAD, isInspectLog } from '../loader/inspect/index';
import { firstEntryName } from '../loader/inspect/zip';
import { MAX_SNAPSHOT_BYTES, firstNonSpaceByte, isPlainObject, jsonValueOf, stripBom } from '../loader/common/json';
import { SIDECAR_RECORD_HEAD } from '../loader/native/recordHead';
import { MAX_V1_FILE_BYTES, V0_HEAD, isV0Trajectory, v1FileKind } from '../loader/openhands/index';
import { v1EventFiles } from '../loader/openhands/source';
import { realFolder } from '../loader/common/safeRead';
import { isTrajDocument } from '../loader/sweAgent/build';
import { MINI_LIST_HEAD, TRAJ_HEAD } from '../loader/sweAgent/index';
import { isMiniDocument } from '../loader/sweAgent/mini';
import type { Sketch } from './sketch';
import { sketchJson } from './sketch';

/** The first read of a file's head. */
export const SNIFF_HEAD_BYTES = 64 * 1024;
/** The longest head read (as far as the line formats' own detection reads for a first record). */
export const SNIFF_MAX_BYTES = 1024 * 1024;

/** A format, null (none), or undefined: the head given is too short to tell. */
export type Sniffed = SessionFileFormat | null | undefined;

/** The first of `rules` that claims the file; undefined when none does but one could with more head. */
function firstClaim(rules: (() => Sniffed)[]): Sniffed {
  let undecided = false;
  for (const rule of rules) {
    const found = rule();
    if (found) return found;
    if (found === undefined) undecided = true;
  }
  return undecided ? undefined : null;
}

/** The first non-blank line of `text`, or undefined when it runs past the head. */
function firstLine(text: string, whole: boolean): string | undefined {
  let at = 0;
  for (;;) {
    const nl = text.indexOf('\n', at);
    const line = nl < 0 ? text.slice(at) : text.slice(at, nl);
    if (nl < 0) return whole ? line : undefined;
    if (line.trim() !== '') return line;
    at = nl + 1;
  }
}

function parsed(line: string | undefined): { value: unknown } | undefined {
  return line === undefined ? undefined : jsonValueOf(line);
}

/** The lines of a head the Claude Code claim looks at, at most. */
const CLAUDE_CLAIM_LINES = 20;

/**
 * Claude Code: the first parseable line of the first CLAUDE_CLAIM_LINES of `text` is a Claude Code
 * record (`whole`: the text is the whole file, else its last line may be cut: undecided). Takes
 * the lines one by one: a head of 64 KiB split whole, to look at its first lines, was about a
 * ninth of a cold listing's sniffing on the caller's thread (docs/library.md).
 */
export function claudeClaim(text: string, whole: boolean): Sniffed {
  let start = 0;
  for (let k = 0; k < CLAUDE_CLAIM_LINES; k++) {
    const nl = text.indexOf('\n', start);
    const last = nl === -1;
    const t = text.slice(start, last ? text.length : nl).trim();
    start = nl + 1;
    if (t !== '') {
      const p = parsed(t);
      if (p) return isClaudeRecord(p.value) ? 'claude-code' : null;
      if (last) return whole ? null : undefined;
    }
    if (last) return null;
  }
  return null;
}

/** `claims` on a sketch that is JSON so far; undefined when it does not claim it yet and more may follow. */
function judge(sketch: Sketch, claims: (v: unknown) => Sniffed): Sniffed {
  if (sketch.error !== undefined) return null;
  const found = claims(sketch.value);
  if (found) return found;
  return sketch.complete ? null : undefined;
}

/**
 * The format of the file whose head is `head` (`size` bytes in all, at `path`); see the header.
 * `decode` gives the head as UTF-8 text (the caller may keep what it gave, to decode the head once).
 */
export function sniffHead(head: Buffer, size: number, path: string, decode: () => string = () => head.toString('utf8')): Sniffed {
  const whole = head.length >= size;
  const entry = firstEntryName(head);
  if (entry !== undefined) return EVAL_ENTRY.test(entry) ? 'inspect-eval' : null;
  const text = stripBom(decode());
  const opening = text.trimStart();
  const first = firstNonSpaceByte(head);
  let sketched: Sketch | undefined;
  const sketch = (): Sketch => (sketched ??= sketchJson(opening, { whole }));
  const line = firstLine(text, whole);
  const record = parsed(line);

  /** Native (SPEC §3): a sidecar's first line is an object with a string `t`; a snapshot is a `supercode-session` document. */
  const native = (): Sniffed => {
    if (first !== 0x7b) return null;
    if (record) return isPlainObject(record.value) && typeof record.value.t === 'string' ? 'supercode-sidecar' : isSnapshotValue(record.value) && text.slice(text.indexOf(line as string) + (line as string).length).trim() === '' ? 'supercode-snapshot' : null;
    if (line === undefined && SIDECAR_RECORD_HEAD.test(text)) return 'supercode-sidecar';
    const s = sketch();
    // Not one JSON document (more follows a first value, or it does not parse): no snapshot.
    if (s.trailing || s.error !== undefined) return null;
    if (isSnapshotValue(s.value)) return 'supercode-snapshot';
    // The snapshot's tag may come after what the head holds.
    return !s.complete && s.error === undefined && isPlainObject(s.value) && !('format' in s.value) ? undefined : null;
  };
  const claude = (): Sniffed => claudeClaim(text, whole);
  /** Codex: the first line is a rollout record. */
  const codex = (): Sniffed => {
    if (first !== 0x7b) return null;
    if (line === undefined) return undefined;
    return record && isRolloutRecord(record.value) ? 'codex-rollout' : null;
  };
  /** SWE-agent and mini-swe-agent: a trajectory document that opens with a key they write first. */
  const sweAgent = (): Sniffed => {
    if (size > MAX_SNAPSHOT_BYTES) return null;
    const list = first === 0x5b && MINI_LIST_HEAD.test(opening);
    if (!list && !(first === 0x7b && TRAJ_HEAD.test(opening))) return null;
    const s = sketch();
    if (s.error !== undefined) {
      const mini = list || /"trajectory_format"\s*:\s*"mini-swe-agent/.test(text) || (/^\{?\s*"messages"\s*:|\n {0,2}"messages"\s*:/.test(text) && !/\n {0,2}"(trajectory|history)"\s*:/.test(text));
      return mini ? 'mini-swe-agent-traj' : 'swe-agent-traj';
    }
    return judge(s, (v) => (isTrajDocument(v) ? 'swe-agent-traj' : isMiniDocument(v) ? 'mini-swe-agent-traj' : null));
  };
  /** Inspect AI `.json`: a document that opens with `version`, `status` or `eval` and is a log. */
  const inspect = (): Sniffed => {
    if (first !== 0x7b || !JSON_HEAD.test(opening) || size > MAX_SNAPSHOT_BYTES) return null;
    const s = sketch();
    if (s.error !== undefined) return 'inspect-json';
    return judge(s, (v) => (isInspectLog(v) ? 'inspect-json' : null));
  };
  /** OpenHands: a V0 trajectory array, or a V1 event or base_state.json of a conversation folder. */
  const openHands = (): Sniffed => {
    if (first === 0x5b) {
      if (!V0_HEAD.test(opening) || size > MAX_SNAPSHOT_BYTES) return null;
      const s = sketch();
      if (s.error !== undefined) return 'openhands-v0';
      return judge(s, (v) => (isV0Trajectory(v) ? 'openhands-v0' : null));
    }
    if (first !== 0x7b || size > MAX_V1_FILE_BYTES) return null;
    return judge(sketch(), (v) => {
      const kind = v1FileKind(v);
      if (kind === undefined) return null;
      if (kind === 'event' && basename(dirname(path)) !== 'events') return null;
      const folder = kind === 'event' ? dirname(dirname(path)) : dirname(path);
      // As the adapter detects it: inside the conversation folder; a refused events/ folder still opens (with a finding).
      const real = realFolder(folder);
      const events = v1EventFiles(folder, real === undefined ? [] : [real]);
      return 'names' in events && events.names.length === 0 ? null : 'openhands-v1';
    });
  };
  return firstClaim([native, claude, codex, sweAgent, inspect, openHands]);
}
