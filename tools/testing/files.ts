/** Builders of session files on disk for the loader's and the command line's tests. */
import { mkdtempSync, readdirSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { ChatMessage, ExpandOutcome, Reduction, SessionFileFormat, SidecarHeader } from '../../shared/index';
import { ptrHash, sha256Hex, stubText, utf8Encode } from '../../shared/index';
import type { LoadedSession, LoadOptions } from '../../electron/loader/session';
import { detectSource } from '../../electron/loader/detect';
import { DEFAULT_CACHE_BYTES, MAX_RECORD_BYTES, loadSession } from '../../electron/loader/session';

/** A fresh folder under the OS temp dir; `cleanup` removes it and everything in it. */
export function tempDir(prefix = 'session-inspector-'): { dir: string; path(name: string): string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, path: (name) => join(dir, name), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Every regular file under `dir`, recursively (links are not followed). */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    if (d.isDirectory()) return filesUnder(path);
    return d.isFile() ? [path] : [];
  });
}

/** The session files under `dir` by their names (`.jsonl`, `.json`, `.traj`, `.eval`; not a README or a LICENSE): a corpus's files, its notes left out. */
export function sessionFilesUnder(dir: string): string[] {
  return filesUnder(dir).filter((path) => /\.(jsonl|json|traj|eval)$/.test(path) && !/^(README|LICENSE)/i.test(basename(path)));
}

/** The file format the loader detects for `path`, as an open does; null for a file of no format. */
export function detectedFileFormat(path: string): SessionFileFormat | null {
  const found = detectSource(path, { read: readSync, maxRecordBytes: MAX_RECORD_BYTES, cacheBytes: DEFAULT_CACHE_BYTES });
  if ('error' in found) return null;
  found.source.close();
  return found.source.format;
}

export function makeHeader(overrides: Partial<SidecarHeader> = {}): SidecarHeader {
  return {
    t: 'header',
    format: 'supercode-sidecar',
    version: 1,
    session_id: 's-test',
    created_at: '2026-11-30T12:00:00Z',
    model: 'model-a',
    gate: true,
    policy: null,
    ...overrides,
  };
}

export const messageRecord = (i: number, msg: ChatMessage, cap?: { kept_bytes: number; notice: string }) => ({ t: 'message', i, msg, ...(cap ? { cap } : {}) });
export const reductionRecord = (r: Reduction) => ({ t: 'reduction', r });

/** One record per line: an object is JSON-encoded, a string is written as it is (for broken lines). */
export function sidecarText(records: readonly (object | string)[], options: { trailingNewline?: boolean; eol?: string } = {}): string {
  const eol = options.eol ?? '\n';
  const body = records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join(eol);
  return options.trailingNewline === false ? body : body + eol;
}

export function writeSidecar(path: string, records: readonly (object | string)[], options: { trailingNewline?: boolean; eol?: string } = {}): string {
  writeFileSync(path, sidecarText(records, options));
  return path;
}

export function makeSnapshot(messages: readonly ChatMessage[], reductions?: readonly Reduction[], overrides: Record<string, unknown> = {}) {
  return {
    format: 'supercode-session',
    version: 1,
    session_id: 's-test',
    model: 'model-b',
    messages,
    ...(reductions ? { reductions } : {}),
    ...overrides,
  };
}

/** A snapshot file, pretty-printed by default (it is one JSON document, not JSON Lines). */
export function writeSnapshot(path: string, snapshot: object, pretty = true): string {
  writeFileSync(path, pretty ? JSON.stringify(snapshot, null, 2) : JSON.stringify(snapshot));
  return path;
}

/** SPEC §9: `expand --id r1 --range 31:41` of samples/demo.sidecar.jsonl (the em dash floors 31 to 30). */
export const SPEC9_EXPAND_R1_31_41: ExpandOutcome = {
  reduction_id: 'r1',
  kind: 'tool_output_truncated',
  index: 2,
  role: 'tool',
  tool_call_id: 'call_9',
  content: '\u2014 expecte',
  range: [30, 41],
  total_bytes: 67,
  source: 'minted',
};

/**
 * `load(paths)` for tests: a session that must open (its error is thrown otherwise); `track` adds
 * one opened elsewhere; `closeAll` closes them all (call it in afterEach).
 */
export function sessionOpener(): {
  load: (paths: string[], options?: LoadOptions) => Promise<LoadedSession>;
  track: (session: LoadedSession) => void;
  closeAll: () => void;
} {
  const open: LoadedSession[] = [];
  return {
    load: async (paths, options) => {
      const result = await loadSession(paths, options);
      if (!result.ok) throw new Error(`expected a session, got ${result.error.code}: ${result.error.message}`);
      open.push(result.session);
      return result.session;
    },
    track: (session) => void open.push(session),
    closeAll: () => {
      for (const s of open.splice(0)) s.close();
    },
  };
}

/**
 * A sidecar of `outputs` tool outputs of `outputBytes` bytes each (lowercase words and newlines,
 * no capital letter), every one elided: `r0`, `r1`… Each output is read from the file by range
 * when opened, as a large tool output is. The reductions are recorded after the last call (live in
 * the latest view only), or with `live`, each right after its output, with one more call at the
 * end: every later call's input carries it.
 */
export function writeElidedOutputs(path: string, outputs: number, outputBytes: number, options: { live?: boolean } = {}): string {
  const records: object[] = [makeHeader({ session_id: 's-elided' }), messageRecord(0, { role: 'user', content: 'read every log' })];
  const reductions: Reduction[] = [];
  const line = 'alpha beta gamma delta log line step 17 ok\n';
  for (let k = 0; k < outputs; k++) {
    const content = line.repeat(Math.ceil(outputBytes / line.length)).slice(0, outputBytes);
    const index = 2 + 2 * k;
    records.push(messageRecord(index - 1, { role: 'assistant', content: '', tool_calls: [{ id: `call_${k}`, name: 'shell', arguments: '{"cmd":"cat log"}' }] }));
    records.push(messageRecord(index, { role: 'tool', tool_call_id: `call_${k}`, content }));
    const id = `r${k}`;
    const r: Reduction = {
      id,
      kind: 'tool_output_elided',
      ptr: { index, hash: ptrHash(sha256Hex([utf8Encode(content)])), bytes: outputBytes },
      stub: stubText(id, 'tool_output_elided', outputBytes),
      minted_at: index + 1,
    };
    if (options.live) records.push(reductionRecord(r));
    else reductions.push(r);
  }
  if (options.live) {
    const last = 2 + 2 * outputs;
    records.push(messageRecord(last - 1, { role: 'user', content: 'go on' }), messageRecord(last, { role: 'assistant', content: 'done' }));
  }
  return writeSidecar(path, [...records, ...reductions.map(reductionRecord)]);
}

/**
 * A sidecar whose one tool output, `content`, is not reduced: the model saw it whole, as row 2 of
 * the view (rows 0 and 1 are the user's request and the call).
 */
export function writeVisibleOutput(path: string, content: string): string {
  return writeSidecar(path, [
    makeHeader({ session_id: 's-visible' }),
    messageRecord(0, { role: 'user', content: 'read the log' }),
    messageRecord(1, { role: 'assistant', content: '', tool_calls: [{ id: 'call_0', name: 'shell', arguments: '{"cmd":"cat log"}' }] }),
    messageRecord(2, { role: 'tool', tool_call_id: 'call_0', content }),
  ]);
}
