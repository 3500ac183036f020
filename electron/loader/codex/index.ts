/**
 * The Codex rollout format (`codex`, SPEC §10, docs/FORMATS.md §2) behind the source seam. Claimed by
 * content: the first non-empty line is a rollout record `{"timestamp", "type", "payload"}` of a
 * rollout item type. A rollout is one session; a forked one (two `session_meta` lines and its
 * parent's history copied) is shown whole, as its model was given it.
 */
import { readExactly } from '../common/lines';
import type { FormatAdapter } from '../common/source';
import { firstNonSpaceAt, isPlainObject, parseJson } from '../common/json';
import { ROLLOUT_TYPES } from './build';
import { RolloutSource } from './source';

/** How far detection reads for the first line. */
const DETECT_BYTES = 1024 * 1024;

/** True when `text` (the first non-empty line) is a Codex rollout record. */
export function isRolloutRecord(value: unknown): boolean {
  return isPlainObject(value) && typeof value.type === 'string' && ROLLOUT_TYPES.includes(value.type) && isPlainObject(value.payload) && typeof value.timestamp === 'string' && !('t' in value);
}

export const codexFormat: FormatAdapter = {
  name: 'codex',
  reads: 'Codex rollouts',
  formats: ['codex-rollout'],
  detect(file, context) {
    const unrecognized = (why: string) => ({ ok: false as const, error: { code: 'unrecognized_file' as const, message: `${file.path} is not a Codex rollout: ${why}` } });
    const head = readExactly(file.fd, 0, Math.min(file.size, DETECT_BYTES), context.read) ?? Buffer.alloc(0);
    const start = firstNonSpaceAt(head);
    if (head[start] !== 0x7b) return unrecognized('it does not start with a JSON object');
    // Only the first line is decoded: a listing detects thousands of files read whole.
    const nl = head.indexOf(0x0a, start);
    if (nl < 0 && head.length < file.size) return unrecognized('its first line is too long to be a rollout record');
    const parsed = parseJson(head.toString('utf8', start, nl < 0 ? head.length : nl));
    if (!parsed.ok || !isRolloutRecord(parsed.value)) return unrecognized('its first line is not a rollout record ({"timestamp","type","payload"})');
    return { ok: true, source: new RolloutSource(file, context.largeStringBytes, context.services, context.wholeValueBytes, context.cacheBytes, context.keptStringChars, context.cachePolicy) };
  },
  assemble(opened) {
    if (opened.length > 1) return { error: { code: 'usage', message: `${opened.length} Codex rollouts given (${opened.map((s) => s.file.path).join(', ')}): a rollout is one session; pass one` } };
    return { sources: [...opened] };
  },
};
