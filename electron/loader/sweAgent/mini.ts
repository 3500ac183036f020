/**
 * A mini-swe-agent trajectory (`*.traj.json`; docs/FORMATS.md §4) as the three inputs of SPEC
 * §3.2. mini-swe-agent keeps one linear list of messages and gives every model call all of it: it
 * has no history processor, so nothing is reduced and the view is the list. Two shapes exist: the
 * saved agent state `{info, messages, trajectory_format: "mini-swe-agent-1.x"}`, and (older
 * files, its tests' data) the bare list of messages. Call N's input is then the messages before
 * the N-th assistant message, which SPEC §11's `view --at N` gives with lines = positions.
 *
 * mini-swe-agent 2.x (`trajectory_format` `mini-swe-agent-1.1`) closes the list with a message of
 * role `exit` — `{role: "exit", content, extra: {exit_status, submission, …}}`, written when the
 * run ends (submitted, a limit, a format error or an uncaught exception: agents/default.py) and
 * never sent to the model. It is read as the run's end, not as a message: the session's `end`
 * (`status`: `extra.exit_status`, `detail`: the start of its content). A file without one (1.x,
 * `mini-swe-agent-1`, or a bare list) ends as `info.exit_status` says, when it says.
 */
import type { RunEnd } from '../../../shared/resolver/session';
import type { ChatMessage, Finding } from '../../../shared/format/types';
import type { CallTokens } from '../../../shared/tokens/usage';
import { liteLlmTokens } from '../../../shared/tokens/usage';
import { tableWindow } from '../../../shared/tokens/windows';
import { isPlainObject } from '../common/json';
import { messageOf } from './build';

export interface MiniIndex {
  model: string | null;
  view: ChatMessage[];
  messageLines: number[];
  findings: Finding[];
  /** How the run ended, where the file records it. */
  end?: RunEnd;
  /** SPEC §15: each response's LiteLLM usage (2.x `extra.response.usage`), by the line of its assistant message. */
  usage?: Map<number, CallTokens>;
}

/** The most of an exit's content `end.detail` keeps, in code points (a submission can be a whole patch). */
export const MAX_END_DETAIL_CHARS = 200;

/** True when `v` is a mini-swe-agent trajectory: the saved state (`messages` and `trajectory_format` or `info`), or a bare list of role messages. */
export function isMiniDocument(v: unknown): v is Record<string, unknown> | unknown[] {
  const roleList = (m: unknown): boolean => Array.isArray(m) && m.length > 0 && m.every((x) => isPlainObject(x) && typeof x.role === 'string');
  if (Array.isArray(v)) return roleList(v);
  if (!isPlainObject(v) || !Array.isArray(v.messages)) return false;
  const tagged = typeof v.trajectory_format === 'string' && v.trajectory_format.startsWith('mini-swe-agent');
  return tagged || (isPlainObject(v.info) && roleList(v.messages));
}

/** `info.config.model.model_name`, where mini-swe-agent's models serialize their name. */
function modelOf(doc: Record<string, unknown>): string | null {
  const info = doc.info;
  if (!isPlainObject(info) || !isPlainObject(info.config) || !isPlainObject(info.config.model)) return null;
  return typeof info.config.model.model_name === 'string' ? info.config.model.model_name : null;
}

/** The run's end an `exit` message records: its `extra.exit_status` (else its content), and the start of its content. */
function endOf(exit: Record<string, unknown>): RunEnd {
  const extra = isPlainObject(exit.extra) ? exit.extra : {};
  const content = typeof exit.content === 'string' ? exit.content : '';
  const status = typeof extra.exit_status === 'string' && extra.exit_status !== '' ? extra.exit_status : content.split('\n')[0] || 'exit';
  const chars = [...content];
  const detail = chars.length > MAX_END_DETAIL_CHARS ? `${chars.slice(0, MAX_END_DETAIL_CHARS).join('')}…` : content;
  return { status, ...(detail !== '' ? { detail } : {}) };
}

/** The view of a parsed mini-swe-agent document. Never throws. */
export function buildMini(doc: Record<string, unknown> | unknown[]): MiniIndex {
  const findings: Finding[] = [];
  const list: unknown[] = Array.isArray(doc) ? doc : Array.isArray(doc.messages) ? doc.messages : [];
  // The closing exit message is the run's end, not a message the model was given.
  const last = list[list.length - 1];
  const exit = isPlainObject(last) && last.role === 'exit' ? last : undefined;
  const messages = exit ? list.slice(0, -1) : list;
  const view = messages.map((m, i) => messageOf(m, i, findings, 'messages'));
  const info = !Array.isArray(doc) && isPlainObject(doc.info) ? doc.info : undefined;
  const end = exit ? endOf(exit) : typeof info?.exit_status === 'string' && info.exit_status !== '' ? { status: info.exit_status } : undefined;
  const model = Array.isArray(doc) ? null : modelOf(doc);
  // 2.x keeps each response (LiteLLM's `model_dump()`) on its assistant message; 1.x and the bare lists record none.
  const usage = new Map<number, CallTokens>();
  messages.forEach((m, i) => {
    if (!isPlainObject(m) || m.role !== 'assistant' || !isPlainObject(m.extra) || !isPlainObject(m.extra.response)) return;
    const tokens = liteLlmTokens(m.extra.response.usage, tableWindow(model));
    if (tokens) usage.set(i + 1, tokens);
  });
  return { model, view, messageLines: view.map((_m, i) => i + 1), findings, ...(end ? { end } : {}), ...(usage.size > 0 ? { usage } : {}) };
}
