/**
 * The OpenHands formats (`openhands`, SPEC §10; docs/FORMATS.md §6) behind the source seam,
 * claimed by content:
 *
 * - `openhands-v0`: a trajectory, one JSON array whose events have an `id` and an `action` or an
 *   `observation`. Only a file that opens like one (`[` then an object whose first key is one V0
 *   events start with) is read whole; one that opens like one but does not parse is still claimed,
 *   so a torn trajectory is a finding.
 * - `openhands-v1`: a conversation folder of the SDK. The user opens a file of it: its
 *   `base_state.json` (an object with an `agent`) or any `events/event-*.json` (an object whose
 *   `kind` is an SDK event kind); either opens the whole conversation (the folder holding
 *   `base_state.json` and `events/`). The folder itself is not a file: the loader refuses it.
 */
import { isUtf8 } from 'node:buffer';
import { basename, dirname } from 'node:path';
import { readExactly } from '../common/lines';
import { MAX_SNAPSHOT_BYTES, firstNonSpaceByte, isPlainObject, parseCappedJson, parseJson, parserLine, stripBom } from '../common/json';
import type { FormatAdapter } from '../common/source';
import { V1_KINDS } from './build';
import { MAX_V1_FILE_BYTES, OpenHandsV0Source, OpenHandsV1Source, v1EventFiles } from './source';
import { realFolder } from '../common/safeRead';

/** How a V0 trajectory opens: `[`, `{` and one of the keys its events are serialized with first. */
export const V0_HEAD = /^\[\s*\{\s*"(id|timestamp|source|message|action|observation)"\s*:/;
/** V1 files are small (one event, or the state): a larger JSON object is not read whole (source.ts). */
export { MAX_V1_FILE_BYTES };

/** True when `v` is a V0 trajectory: an array with an event that has an id and an action or an observation. */
export function isV0Trajectory(v: unknown): v is unknown[] {
  return Array.isArray(v) && v.some((e) => isPlainObject(e) && (typeof e.id === 'number' || typeof e.id === 'string') && (typeof e.action === 'string' || typeof e.observation === 'string'));
}

/** What a V1 file is: an SDK event, the conversation's `base_state.json`, or neither. */
export function v1FileKind(v: unknown): 'event' | 'state' | undefined {
  if (!isPlainObject(v)) return undefined;
  if (typeof v.kind === 'string' && V1_KINDS.includes(v.kind) && typeof v.id === 'string') return 'event';
  if (isPlainObject(v.agent) && typeof v.id === 'string' && ('execution_status' in v || 'persistence_dir' in v || 'max_iterations' in v)) return 'state';
  return undefined;
}

export const openHandsFormat: FormatAdapter = {
  name: 'openhands',
  reads: 'OpenHands V0 trajectories and V1 conversation folders',
  formats: ['openhands-v0', 'openhands-v1'],
  detect(file, context) {
    const unrecognized = (why: string) => ({ ok: false as const, error: { code: 'unrecognized_file' as const, message: `${file.path} is not an OpenHands trajectory or conversation file: ${why}` } });
    const head = readExactly(file.fd, 0, Math.min(file.size, 4096), context.read) ?? Buffer.alloc(0);
    const first = firstNonSpaceByte(head);
    if (first === 0x5b) {
      if (!V0_HEAD.test(stripBom(head.toString('utf8')).trimStart())) return unrecognized('it is a JSON array whose first item does not open like an OpenHands event');
      if (file.size > MAX_SNAPSHOT_BYTES) return unrecognized(`it is ${file.size} bytes; trajectories over 400 MB are not read`);
      const whole = readExactly(file.fd, 0, file.size, context.read);
      if (!whole) return unrecognized('the file shrank while it was being read');
      const text = stripBom(whole.toString('utf8'));
      const parsed = parseCappedJson(text);
      const id = basename(file.path).replace(/\.json$/, '');
      if (!parsed.ok) return { ok: true, source: new OpenHandsV0Source(file, { error: parsed.reason, line: parserLine(text, parsed.reason) }, id) };
      if (!isV0Trajectory(parsed.value)) return unrecognized('no item of the array has an id and an action or an observation');
      return { ok: true, source: new OpenHandsV0Source(file, { doc: parsed.value, notUtf8: !isUtf8(whole), ...(parsed.cut ? { deep: parsed.cut } : {}) }, id) };
    }
    if (first !== 0x7b) return unrecognized('it does not start with a JSON array or object');
    if (file.size > MAX_V1_FILE_BYTES) return unrecognized(`it is a JSON object of ${file.size} bytes, larger than any V1 event or state file`);
    const whole = readExactly(file.fd, 0, file.size, context.read);
    if (!whole) return unrecognized('the file shrank while it was being read');
    const parsed = parseJson(stripBom(whole.toString('utf8')));
    const kind = parsed.ok ? v1FileKind(parsed.value) : undefined;
    if (!kind) return unrecognized('it is neither a V0 trajectory array nor a V1 event or base_state.json');
    // An event sits in `<conversation>/events/`; the state beside `events/`.
    const folder = kind === 'event' ? dirname(dirname(file.path)) : dirname(file.path);
    if (kind === 'event' && basename(dirname(file.path)) !== 'events') return unrecognized('it is an OpenHands V1 event outside an events/ folder, so no conversation holds it');
    // Its companions are read inside the host's roots, else inside the conversation folder (docs/safe-reads.md).
    const real = realFolder(folder);
    const roots = context.roots ?? (real === undefined ? [] : [real]);
    const events = v1EventFiles(folder, roots);
    // A refused events/ folder (a link out, say) still opens the conversation, with the refusal as a finding.
    if ('names' in events && events.names.length === 0) return unrecognized(`it is an OpenHands V1 ${kind === 'event' ? 'event' : 'base_state.json'}, but ${folder}/events holds no event files`);
    return { ok: true, source: new OpenHandsV1Source(file, folder, basename(folder), roots) };
  },
  assemble(opened) {
    if (opened.length > 1) return { error: { code: 'usage', message: `${opened.length} OpenHands files given (${opened.map((s) => s.file.path).join(', ')}): a trajectory, or one file of a conversation folder, is one session; pass one` } };
    return { sources: [...opened] };
  },
};
