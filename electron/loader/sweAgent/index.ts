/**
 * The SWE-agent trajectory format (`swe-agent`, SPEC §10; FORMATS.md "SWE-agent") behind the source
 * seam. Claimed by content: one JSON document whose `trajectory` holds SWE-agent steps and/or whose
 * `history` holds messages with a `role` (build.ts `isTrajDocument`), and that opens like one (its
 * first key is one SWE-agent writes first): only such a file is read whole. A document that opens
 * like a trajectory but does not parse is still claimed, so a torn `.traj` is a finding.
 */
import { isUtf8 } from 'node:buffer';
import { basename } from 'node:path';
import { readExactly } from '../lines';
import { MAX_SNAPSHOT_BYTES } from '../native/detect';
import { firstNonSpaceByte, parseJson, stripBom } from '../native/text';
import type { FormatAdapter } from '../source';
import { isTrajDocument } from './build';
import { TrajSource } from './source';

/** How a trajectory document opens: `{` and one of the keys SWE-agent writes first. */
const TRAJ_HEAD = /^\{\s*"(environment|trajectory|history|info|replay_config)"\s*:/;

/** The 1-based line of a JSON parser's "position N" in `text`, else 1. */
export function parserLine(text: string, reason: string): number {
  const m = /position (\d+)/.exec(reason);
  // "Unexpected end of JSON input" names no position: the document stops at its last line.
  if (!m) return /end of JSON/i.test(reason) ? text.split('\n').length : 1;
  const at = Number(m[1]);
  let line = 1;
  for (let i = 0; i < Math.min(at, text.length); i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

export const sweAgentFormat: FormatAdapter = {
  name: 'swe-agent',
  formats: ['swe-agent-traj'],
  detect(file, context) {
    const unrecognized = (why: string) => ({ ok: false as const, error: { code: 'unrecognized_file' as const, message: `${file.path} is not a SWE-agent trajectory: ${why}` } });
    const head = readExactly(file.fd, 0, Math.min(file.size, 4096), context.read) ?? Buffer.alloc(0);
    if (firstNonSpaceByte(head) !== 0x7b) return unrecognized('it does not start with a JSON object');
    // Only a file that opens like a trajectory is read whole: a large JSONL of another format is told apart in 4 KiB.
    if (!TRAJ_HEAD.test(stripBom(head.toString('utf8')).trimStart())) return unrecognized('its first key is not one SWE-agent writes first (environment, trajectory, history, info, replay_config)');
    if (file.size > MAX_SNAPSHOT_BYTES) return unrecognized(`it is ${file.size} bytes; trajectories over 400 MB are not read`);
    const whole = readExactly(file.fd, 0, file.size, context.read);
    if (!whole) return unrecognized('the file shrank while it was being read');
    const text = stripBom(whole.toString('utf8'));
    const parsed = parseJson(text);
    const id = basename(file.path).replace(/\.traj$/, '');
    if (!parsed.ok) {
      return { ok: true, source: new TrajSource(file, { error: parsed.reason, line: parserLine(text, parsed.reason) }, id) };
    }
    if (!isTrajDocument(parsed.value)) return unrecognized('it is a JSON document without SWE-agent "trajectory" steps or "history" messages');
    return { ok: true, source: new TrajSource(file, { doc: parsed.value, notUtf8: !isUtf8(whole) }, id) };
  },
  assemble(opened) {
    if (opened.length > 1) return { error: { code: 'usage', message: `${opened.length} SWE-agent trajectories given (${opened.map((s) => s.file.path).join(', ')}): a trajectory is one session; pass one` } };
    return { sources: [...opened] };
  },
};
