/**
 * A SWE-agent trajectory (`.traj`, one JSON document; docs/FORMATS.md §3) as the three inputs
 * of SPEC §3.2.
 *
 * - `history` is the recorded copy: every message in full, in order. It is the minted view; message
 *   i sits at position i + 1 (the order SPEC §11 calls "lines": there is one document, no lines).
 * - A step's `messages` (older files) or `query` (newer) is the history as the history processors
 *   gave it to a model call: a prefix of `history`, message for message, in which some texts were
 *   replaced (`last_n_observations`: `Old environment output: (N lines omitted)`). A list of n
 *   messages is the input of the call whose assistant message is history[n] — which call that is
 *   needs no reading of the file version (a list that ends with its step's own observation is the
 *   next call's input; one that does not is its own call's), so each replaced text is logged from
 *   position n + 1 on: the first call that shows it sees it, no earlier call does.
 * - A replaced text is a `derived` reduction of the history message: `tool_output_truncated` when
 *   the input kept a prefix of it (`kept_bytes`, the rest of the input is the stub), else
 *   `tool_output_elided` whose stub is the whole input text. Either way the projected text is the
 *   exact input text; `ptr.hash` is the history text's, hashed at import.
 */
import type { ChatMessage, Finding, Reduction, Role, ToolCall } from '../../../shared/format/types';
import type { BuiltDocument } from '../common/documentSource';
import { isPlainObject } from '../common/json';
import { commonPrefixBytes, hashOf } from '../common/textHash';

/** The fields a trajectory step has (SWE-agent's TrajectoryStep); a step with none is unknown. */
export const STEP_FIELDS: readonly string[] = ['action', 'observation', 'response', 'thought', 'query', 'messages'];
const ROLES: readonly string[] = ['system', 'user', 'assistant', 'tool'];

/** Placeholders history processors put where an observation was (SWE-agent `last_n_observations`). */
const ELISION_PLACEHOLDERS: readonly RegExp[] = [/^Old environment output: \(\d+ lines omitted\)$/, /^Old output omitted \(\d+ lines\)\.?$/];

export type TrajIndex = BuiltDocument;

/** The text of a message's `content`: a string, or the `text` of its text parts joined. */
export function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  return content.map((p) => (isPlainObject(p) && typeof p.text === 'string' ? p.text : '')).join('');
}

function toolCallsOf(v: unknown): ToolCall[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const calls: ToolCall[] = [];
  for (const c of v) {
    if (!isPlainObject(c)) continue;
    const fn = isPlainObject(c.function) ? c.function : c;
    const args = fn.arguments;
    calls.push({ id: typeof c.id === 'string' ? c.id : '', name: typeof fn.name === 'string' ? fn.name : '', arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) });
  }
  return calls.length > 0 ? calls : undefined;
}

/** One history message as a chat message; a shape it does not know is said, never dropped (indices must stay aligned). */
export function messageOf(m: unknown, i: number, findings: Finding[], list = 'history'): ChatMessage {
  if (!isPlainObject(m)) {
    findings.push({ code: 'unknown_record', severity: 'warning', message: `${list}[${i}] is not an object; shown as its JSON` });
    return { role: 'user', content: JSON.stringify(m) ?? String(m) };
  }
  const known = typeof m.role === 'string' && ROLES.includes(m.role);
  if (!known) findings.push({ code: 'unknown_record', severity: 'warning', message: `${list}[${i}] has role ${JSON.stringify(m.role)}; shown as a user message` });
  let text = contentText(m.content);
  if (text === undefined) {
    findings.push({ code: 'unknown_record', severity: 'warning', message: `${list}[${i}] has content that is neither a string nor a list of parts; shown as its JSON` });
    text = JSON.stringify(m.content) ?? '';
  }
  const msg: ChatMessage = { role: known ? (m.role as Role) : 'user', content: text };
  const calls = toolCallsOf(m.tool_calls);
  if (calls) msg.tool_calls = calls;
  const ids = m.tool_call_ids;
  if (Array.isArray(ids) && typeof ids[0] === 'string') msg.tool_call_id = ids[0];
  // mini-swe-agent (tool-calling models) writes the OpenAI field itself.
  else if (typeof m.tool_call_id === 'string') msg.tool_call_id = m.tool_call_id;
  const metadata: Record<string, unknown> = {};
  if (typeof m.message_type === 'string') metadata.swe_message_type = m.message_type;
  if (!known) metadata.swe_role = m.role;
  if (Object.keys(metadata).length > 0) msg.metadata = metadata;
  return msg;
}

/** The model named by `replay_config` (a JSON string or an object): `agent.model.name`. */
function modelOf(doc: Record<string, unknown>): string | null {
  let rc = doc.replay_config;
  if (typeof rc === 'string') {
    try {
      rc = JSON.parse(rc) as unknown;
    } catch {
      return null;
    }
  }
  if (!isPlainObject(rc) || !isPlainObject(rc.agent) || !isPlainObject(rc.agent.model)) return null;
  return typeof rc.agent.model.name === 'string' ? rc.agent.model.name : null;
}

/** The three inputs of a parsed trajectory document. Never throws. */
export function buildTraj(doc: Record<string, unknown>): TrajIndex {
  const findings: Finding[] = [];
  const history = Array.isArray(doc.history) ? doc.history : [];
  if (doc.history !== undefined && !Array.isArray(doc.history)) findings.push({ code: 'malformed_line', severity: 'error', line: 1, message: 'history is not a list; no messages are read' });
  const view = history.map((m, i) => messageOf(m, i, findings));
  const texts = view.map((m) => m.content);
  const steps = Array.isArray(doc.trajectory) ? doc.trajectory : [];
  // SWE-agent records the last step (the `submit`) in `trajectory` but not in `history` (checked on
  // the real files): its response was still a model call's output, so it ends the view.
  let answered = view.filter((m) => m.role === 'assistant').length;
  for (; answered < steps.length; answered++) {
    const step: unknown = steps[answered];
    if (!isPlainObject(step) || !STEP_FIELDS.some((f) => f in step)) continue;
    const text = typeof step.response === 'string' ? step.response : typeof step.thought === 'string' ? step.thought : '';
    view.push({ role: 'assistant', content: text, metadata: { swe_step: answered, ...(typeof step.action === 'string' ? { swe_action: step.action } : {}) } });
  }
  const log: Reduction[] = [];
  const logLines: number[] = [];
  /** Index → the input text its reduction shows. */
  const reduced = new Map<number, string>();

  if (doc.trajectory !== undefined && !Array.isArray(doc.trajectory)) findings.push({ code: 'malformed_line', severity: 'error', line: 1, message: 'trajectory is not a list; no per-call inputs are read' });
  steps.forEach((step, k) => {
    if (!isPlainObject(step) || !STEP_FIELDS.some((f) => f in step)) {
      findings.push({ code: 'unknown_record', severity: 'warning', message: `step ${k} is not a trajectory step (none of ${STEP_FIELDS.join(', ')}); skipped` });
      return;
    }
    const input = Array.isArray(step.query) ? step.query : Array.isArray(step.messages) ? step.messages : undefined;
    if (!input) return;
    if (input.length > history.length) {
      findings.push({ code: 'unknown_record', severity: 'warning', message: `step ${k}: its input has ${input.length} messages, more than the history's ${history.length}; its reductions are not derived` });
      return;
    }
    for (let i = 0; i < input.length; i++) {
      const q: unknown = input[i];
      const h: unknown = history[i];
      if (!isPlainObject(q) || (isPlainObject(h) && q.role !== h.role)) {
        findings.push({ code: 'unknown_record', severity: 'warning', message: `step ${k}: input message ${i} does not line up with history[${i}]; the rest of this input is not compared` });
        return;
      }
      const seen = contentText(q.content);
      const original = texts[i] as string;
      if (seen === undefined || seen === original) continue;
      const earlier = reduced.get(i);
      if (earlier !== undefined) {
        if (earlier !== seen) findings.push({ code: 'unknown_record', severity: 'warning', message: `step ${k}: history[${i}] was given as a second, different replacement; only the first is shown` });
        continue;
      }
      reduced.set(i, seen);
      const { hash, bytes } = hashOf(original);
      const placeholder = ELISION_PLACEHOLDERS.some((p) => p.test(seen));
      const kept = placeholder ? 0 : commonPrefixBytes(original, seen);
      const base = { id: `swe-step${k}-m${i}`, minted_at: input.length, provenance: 'derived' as const, origin: { event: `step ${k}` }, hash_origin: 'import' as const, original_from: `history[${i}] of the trajectory` };
      if (kept > 0) {
        const keptChars = Buffer.from(seen, 'utf8').subarray(0, kept).toString('utf8').length;
        log.push({ ...base, kind: 'tool_output_truncated', ptr: { index: i, hash, bytes }, kept_bytes: kept, stub: seen.slice(keptChars) });
      } else {
        log.push({ ...base, kind: 'tool_output_elided', ptr: { index: i, hash, bytes }, stub: seen });
      }
      // Live from the call whose assistant message follows this input (position input.length + 1).
      logLines.push(input.length + 1);
    }
  });
  return { model: modelOf(doc), view, messageLines: view.map((_m, i) => i + 1), log, logLines, findings };
}

/** True when `v` is a SWE-agent trajectory document: `trajectory` steps and/or `history` messages. */
export function isTrajDocument(v: unknown): v is Record<string, unknown> {
  if (!isPlainObject(v) || 'format' in v) return false;
  const { trajectory, history } = v;
  // One step of SWE-agent's shape is enough: a step of another shape is an `unknown_record` warning, not another format.
  const stepsOk = Array.isArray(trajectory) && trajectory.some((s) => isPlainObject(s) && STEP_FIELDS.some((f) => f in s));
  const historyOk = Array.isArray(history) && history.length > 0 && history.every((m) => isPlainObject(m) && typeof m.role === 'string');
  if (Array.isArray(trajectory) && trajectory.length > 0) return stepsOk && (history === undefined || Array.isArray(history));
  return historyOk;
}
