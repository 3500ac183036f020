/**
 * A mini-swe-agent trajectory (`*.traj.json`; FORMATS.md "SWE-agent") as the three inputs of SPEC
 * §3.2. mini-swe-agent keeps one linear list of messages and gives every model call all of it: it
 * has no history processor, so nothing is reduced and the view is the list. Two shapes exist: the
 * saved agent state `{info, messages, trajectory_format: "mini-swe-agent-1.x"}`, and (older
 * files, its tests' data) the bare list of messages. Call N's input is then the messages before
 * the N-th assistant message, which SPEC §11's `view --at N` gives with lines = positions.
 */
import type { ChatMessage, Finding } from '../../../shared/types';
import { isPlainObject } from '../native/text';
import { messageOf } from './build';

export interface MiniIndex {
  model: string | null;
  view: ChatMessage[];
  messageLines: number[];
  findings: Finding[];
}

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

/** The view of a parsed mini-swe-agent document. Never throws. */
export function buildMini(doc: Record<string, unknown> | unknown[]): MiniIndex {
  const findings: Finding[] = [];
  const list: unknown[] = Array.isArray(doc) ? doc : Array.isArray(doc.messages) ? doc.messages : [];
  const view = list.map((m, i) => messageOf(m, i, findings, 'messages'));
  return { model: Array.isArray(doc) ? null : modelOf(doc), view, messageLines: view.map((_m, i) => i + 1), findings };
}
