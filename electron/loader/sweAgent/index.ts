/**
 * The SWE-agent trajectory formats (`swe-agent`, SPEC §10; docs/FORMATS.md §3) behind the
 * source seam. Claimed by content: one JSON document whose `trajectory` holds SWE-agent steps
 * and/or whose `history` holds messages with a `role` (build.ts `isTrajDocument`), or a
 * mini-swe-agent trajectory (mini.ts `isMiniDocument`: its saved state, or a bare list of role
 * messages), and that opens like one (its first key is one these agents write first): only such a
 * file is read whole. A document that opens like a trajectory but does not parse is still claimed,
 * so a torn `.traj` is a finding.
 */
import { isUtf8 } from 'node:buffer';
import { basename } from 'node:path';
import { readExactly } from '../common/lines';
import { MAX_SNAPSHOT_BYTES, firstNonSpaceByte, parseCappedJson, parserLine, stripBom } from '../common/json';
import type { FormatAdapter } from '../common/source';
import { isTrajDocument } from './build';
import { isMiniDocument } from './mini';
import { MiniTrajSource, TrajSource } from './source';

/** How a trajectory document opens: `{` and one of the keys SWE-agent or mini-swe-agent writes first. */
export const TRAJ_HEAD = /^\{\s*"(environment|trajectory|history|info|replay_config|messages|trajectory_format)"\s*:/;
/** How mini-swe-agent's older trajectories open: a bare list of messages, `[` then `{"role": …`. */
export const MINI_LIST_HEAD = /^\[\s*\{\s*"role"\s*:/;


export const sweAgentFormat: FormatAdapter = {
  name: 'swe-agent',
  reads: 'SWE-agent .traj files and mini-swe-agent trajectories',
  formats: ['swe-agent-traj', 'mini-swe-agent-traj'],
  detect(file, context) {
    const unrecognized = (why: string) => ({ ok: false as const, error: { code: 'unrecognized_file' as const, message: `${file.path} is not a SWE-agent trajectory: ${why}` } });
    const head = readExactly(file.fd, 0, Math.min(file.size, 4096), context.read) ?? Buffer.alloc(0);
    const first = firstNonSpaceByte(head);
    const opening = stripBom(head.toString('utf8')).trimStart();
    if (first === 0x5b) {
      if (!MINI_LIST_HEAD.test(opening)) return unrecognized('it is a JSON array whose first item is not a message with a role');
    } else if (first !== 0x7b) {
      return unrecognized('it does not start with a JSON object');
    } else if (!TRAJ_HEAD.test(opening)) {
      // Only a file that opens like a trajectory is read whole: a large JSONL of another format is told apart in 4 KiB.
      return unrecognized('its first key is not one SWE-agent or mini-swe-agent writes first (environment, trajectory, history, info, replay_config, messages, trajectory_format)');
    }
    if (file.size > MAX_SNAPSHOT_BYTES) return unrecognized(`it is ${file.size} bytes; trajectories over 400 MB are not read`);
    const whole = readExactly(file.fd, 0, file.size, context.read);
    if (!whole) return unrecognized('the file shrank while it was being read');
    const text = stripBom(whole.toString('utf8'));
    const parsed = parseCappedJson(text);
    const id = basename(file.path).replace(/\.traj(\.json)?$/, '');
    // A torn list of messages, or a torn document naming mini-swe-agent's format, is a torn mini-swe-agent file.
    // (Its top-level keys are indented once; SWE-agent's `trajectory`/`history` say it is not mini's.)
    const mini = first === 0x5b || /"trajectory_format"\s*:\s*"mini-swe-agent/.test(text) || (/^\{?\s*"messages"\s*:|\n {0,2}"messages"\s*:/.test(text) && !/\n {0,2}"(trajectory|history)"\s*:/.test(text));
    if (!parsed.ok) {
      const torn = { error: parsed.reason, line: parserLine(text, parsed.reason) };
      return { ok: true, source: mini ? new MiniTrajSource(file, torn, id) : new TrajSource(file, torn, id) };
    }
    const deep = parsed.cut ? { deep: parsed.cut } : {};
    if (isTrajDocument(parsed.value)) return { ok: true, source: new TrajSource(file, { doc: parsed.value, notUtf8: !isUtf8(whole), ...deep }, id) };
    if (isMiniDocument(parsed.value)) return { ok: true, source: new MiniTrajSource(file, { doc: parsed.value, notUtf8: !isUtf8(whole), ...deep }, id) };
    return unrecognized('it is a JSON document without SWE-agent "trajectory" steps or "history" messages, nor mini-swe-agent "messages"');
  },
  assemble(opened) {
    if (opened.length > 1) return { error: { code: 'usage', message: `${opened.length} SWE-agent trajectories given (${opened.map((s) => s.file.path).join(', ')}): a trajectory is one session; pass one` } };
    return { sources: [...opened] };
  },
};
