/**
 * The Inspect AI log format (`inspect`, SPEC §10; docs/FORMATS.md §5) behind the source seam:
 * a `.eval` zip archive or a `.json` document, claimed by content, never by name.
 *
 * - `.eval`: the file starts with a zip local file header whose entry is one Inspect writes
 *   (`_journal/…`, `header.json`, `summaries.json`, `reductions.json`, `samples/…`). Only that
 *   first header's name is looked at here (detection is synchronous); everything else is read
 *   through yauzl when the source is indexed (zip.ts), so a damaged archive is claimed and its
 *   damage is a finding.
 * - `.json`: one JSON document that opens with a key Inspect writes first (`version`, `status`,
 *   `eval`) and has an `eval` object with `task` or `model`, and `samples` or a numeric `version`.
 *   A document that opens like a log but does not parse is still claimed (a finding).
 */
import { isUtf8 } from 'node:buffer';
import { readExactly } from '../common/lines';
import type { Finding } from '../../../shared/format/types';
import { depthCutMessage } from '../../../shared/format/jsonDepth';
import { MAX_SNAPSHOT_BYTES, firstNonSpaceByte, isPlainObject, parseCappedJson, parserLine, stripBom } from '../common/json';
import type { FormatAdapter } from '../common/source';
import { InspectSource, loadEvalLog, loadJsonLog } from './source';
import type { ZipCaps, ZipCounter } from './zip';
import { firstEntryName } from './zip';

/** The entries Inspect writes into a `.eval`; an archive whose first entry is none of them is not a log. */
export const EVAL_ENTRY = /^(_journal\/|header\.json$|summaries\.json$|reductions\.json$|samples\/)/;
export const JSON_HEAD = /^\{\s*"(version|status|eval)"\s*:/;

/** True when `v` is an Inspect log document. */
export function isInspectLog(v: unknown): v is Record<string, unknown> {
  if (!isPlainObject(v) || !isPlainObject(v.eval)) return false;
  if (!('task' in v.eval) && !('model' in v.eval)) return false;
  return Array.isArray(v.samples) || typeof v.version === 'number';
}

/** Test and bench hooks: caps and a counter for the archive reads. */
export const inspectReadOptions: { caps?: ZipCaps; counter?: ZipCounter } = {};

export const inspectFormat: FormatAdapter = {
  name: 'inspect',
  reads: 'Inspect AI .eval and .json logs',
  formats: ['inspect-eval', 'inspect-json'],
  detect(file, context) {
    const unrecognized = (why: string) => ({ ok: false as const, error: { code: 'unrecognized_file' as const, message: `${file.path} is not an Inspect AI log: ${why}` } });
    const head = readExactly(file.fd, 0, Math.min(file.size, 4096), context.read) ?? Buffer.alloc(0);
    const first = firstEntryName(head);
    if (first !== undefined) {
      if (!EVAL_ENTRY.test(first)) return unrecognized(`it is a zip archive whose first entry (${JSON.stringify(first.slice(0, 100))}) is not one Inspect writes`);
      const { fd, size } = file;
      return { ok: true, source: new InspectSource('inspect-eval', file, () => loadEvalLog(fd, size, context.session, inspectReadOptions.caps, inspectReadOptions.counter, context.onLogHeader)) };
    }
    if (firstNonSpaceByte(head) !== 0x7b) return unrecognized('it is neither a zip archive nor a JSON object');
    if (!JSON_HEAD.test(stripBom(head.toString('utf8')).trimStart())) return unrecognized('its first key is not one Inspect writes first (version, status, eval)');
    if (file.size > MAX_SNAPSHOT_BYTES) return unrecognized(`it is ${file.size} bytes; .json logs over 400 MB are not read (write .eval logs)`);
    const whole = readExactly(file.fd, 0, file.size, context.read);
    if (!whole) return unrecognized('the file shrank while it was being read');
    const text = stripBom(whole.toString('utf8'));
    const parsed = parseCappedJson(text);
    const session = context.session;
    if (!parsed.ok) {
      const line = parserLine(text, parsed.reason);
      const reason = parsed.reason;
      return { ok: true, source: new InspectSource('inspect-json', file, () => Promise.resolve({ sessionId: '', model: null, built: undefined, sessions: [], findings: [{ code: 'malformed_line', severity: 'error', line, message: `line ${line}: the log is not one JSON document (${reason}); nothing is shown` }] })) };
    }
    if (!isInspectLog(parsed.value)) return unrecognized('it is a JSON document without an "eval" object and "samples"');
    const doc = parsed.value;
    const findings: Finding[] = [];
    if (!isUtf8(whole)) findings.push({ code: 'malformed_line', severity: 'error', line: 1, message: 'the log holds bytes that are not valid UTF-8; they read as U+FFFD' });
    if (parsed.cut) findings.push({ code: 'malformed_line', severity: 'error', message: depthCutMessage('the log', parsed.cut) });
    return { ok: true, source: new InspectSource('inspect-json', file, () => Promise.resolve(loadJsonLog(doc, session, findings))) };
  },
  assemble(opened) {
    if (opened.length > 1) return { error: { code: 'usage', message: `${opened.length} Inspect AI logs given (${opened.map((s) => s.file.path).join(', ')}): a log is opened alone; --session picks one of its samples` } };
    return { sources: [...opened] };
  },
};
