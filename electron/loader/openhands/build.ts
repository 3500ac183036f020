/**
 * An OpenHands conversation (docs/FORMATS.md §6) as the three inputs of SPEC §3.2, for both
 * file versions: a V0 trajectory (one JSON array of events) and a V1 event folder (one JSON file
 * per event). Each version's events are first read into one shape (`OhEvent`); `buildOpenHands`
 * then knows no version.
 *
 * - Every event the agent's memory turns into a model message becomes one message of the minted
 *   view, in event order (OpenHands' ConversationMemory): a user or agent `message` (V1
 *   `MessageEvent`), the `system` prompt (V1 `SystemPromptEvent`), an agent action as an assistant
 *   message with its tool call (`tool_call_metadata`; V1 `ActionEvent`'s `tool_call`), its
 *   observation as a `tool` message with that `tool_call_id` (V1 `ObservationEvent`,
 *   `UserRejectObservation`, `AgentErrorEvent`), any other observation as a user message. Events
 *   the memory never gives the model (agent state changes, `null` observations, condensation
 *   requests, V1 state updates and pauses) are skipped without a finding; an event of a shape not
 *   known here is an `unknown_record` warning and skipped. V1 actions of one model response (the
 *   same `llm_response_id`, one after another among the events the model is given) are one
 *   assistant message holding every tool call, as the SDK's `events_to_messages` combines them: one
 *   response is one model call. A V1 observation reads as the SDK's `to_llm_content` renders it
 *   (a terminal's prefix, suffix and working-folder lines; the error header; a rejection's
 *   "Action rejected: " prefix): docs/formats/openhands.md. A terminal text the SDK cut in the
 *   middle for the model (over 30,000 characters) is a `derived` `tool_output_truncated` of the
 *   whole text the event holds, its kept prefix the head, its stub the notice and the tail.
 * - "Lines" (SPEC §11) are event positions: message i's line is the 1-based position of its event.
 * - A condensation (V0 action `condensation`, V1 `kind: "Condensation"`) forgets events: by
 *   `forgotten_event_ids`, or (V0) every id in `[forgotten_events_start_id, forgotten_events_end_id]`.
 *   The forgotten events stay in the file, so the forgotten messages stay in the minted view and
 *   each contiguous run of them (not already hidden by an earlier condensation) is one `recorded`
 *   reduction live from the condensation's position: `summarized` with the summary as its stub
 *   when the condensation has one (one `group` per condensation, the summary row on its first
 *   run), else `turns_cleared` with an empty stub (the model was given nothing in their place).
 *   `ptr.hash` is the run's transcript's, hashed at import; `origin` names the condensation event.
 *   OpenHands inserts the summary at `summary_offset` of the kept events; the view shows it at the
 *   first run, and says so in a warning when that is not the same place.
 */
import { createHash } from 'node:crypto';
import { transcriptOf } from '../../../shared/resolver/original';
import type { ChatMessage, Finding, Reduction, ToolCall } from '../../../shared/format/types';
import { utf8Length } from '../../../shared/format/utf8';
import type { BuiltDocument } from '../common/documentSource';
import { isPlainObject } from '../common/json';
import { hashOf } from '../common/textHash';
import type { CallTokens } from '../../../shared/tokens/usage';
import { liteLlmTokens, withWindow } from '../../../shared/tokens/usage';
import { tableWindow } from '../../../shared/tokens/windows';

/** One event in the version-free shape. `id` is the event's id as a string (V0 ids are integers). */
export type OhEvent =
  /** `response`: the model response an action came from (V1 `llm_response_id`): actions of one response are one message. */
  /** `cut`: the SDK cut the message's text before the model saw it (`maybeTruncate`): the model was given `kept` + `stub`. */
  /** `usage`: what the response's LiteLLM usage records (V0 `tool_call_metadata.model_response.usage`, docs/tokens.md). */
  /** `recordedAs`: the response id an agent's V1 `MessageEvent` came from (its usage is recorded by it; it is no batch of actions). */
  | { id: string; where: string; type: 'message'; message: ChatMessage; response?: string; recordedAs?: string; cut?: ClippedText; usage?: CallTokens }
  | { id: string; where: string; type: 'condensation'; forgotten: (id: string) => boolean; summary: string | null; summaryOffset: number | null }
  | { id: string; where: string; type: 'skip' }
  | { id: string; where: string; type: 'unknown'; why: string };

export type OpenHandsIndex = BuiltDocument;

/** V0 actions the agent's memory never gives the model. */
const V0_SKIPPED_ACTIONS: readonly string[] = ['change_agent_state', 'condensation_request', 'recall', 'null', 'pause', 'resume'];
/** V0 observations the agent's memory never gives the model. */
const V0_SKIPPED_OBSERVATIONS: readonly string[] = ['agent_state_changed', 'null'];
/** V1 event kinds that are not model messages. */
const V1_SKIPPED_KINDS: readonly string[] = ['CondensationRequest', 'CondensationSummaryEvent', 'ConversationStateUpdateEvent', 'PauseEvent'];
/** V1 event kinds read here (and those skipped): an event file of another kind is not OpenHands'. */
export const V1_KINDS: readonly string[] = ['SystemPromptEvent', 'MessageEvent', 'ActionEvent', 'ObservationEvent', 'UserRejectObservation', 'AgentErrorEvent', 'Condensation', ...V1_SKIPPED_KINDS];

const ROLES: readonly string[] = ['system', 'user', 'assistant', 'tool'];

/** The text of a string, or of a list of `{type: 'text', text}` parts joined; else undefined. */
export function textOf(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (isPlainObject(v) && typeof v.text === 'string') return v.text;
  if (!Array.isArray(v)) return undefined;
  return v.map((p) => (typeof p === 'string' ? p : isPlainObject(p) && typeof p.text === 'string' ? p.text : '')).join('');
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const int = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) ? v : null);

/** The arguments of tool call `id` in a V0 `model_response`, as the model wrote them. */
function v0Arguments(metadata: Record<string, unknown>, id: string): string | undefined {
  const response = metadata.model_response;
  if (!isPlainObject(response) || !Array.isArray(response.choices)) return undefined;
  for (const choice of response.choices) {
    if (!isPlainObject(choice) || !isPlainObject(choice.message) || !Array.isArray(choice.message.tool_calls)) continue;
    for (const call of choice.message.tool_calls) {
      if (isPlainObject(call) && call.id === id && isPlainObject(call.function) && typeof call.function.arguments === 'string') return call.function.arguments;
    }
  }
  return undefined;
}

/** The assistant text of a V0 `model_response` (what the model said beside its tool calls). */
function v0ResponseText(metadata: Record<string, unknown>): string | undefined {
  const response = metadata.model_response;
  if (!isPlainObject(response) || !Array.isArray(response.choices)) return undefined;
  const choice: unknown = response.choices[0];
  return isPlainObject(choice) && isPlainObject(choice.message) ? textOf(choice.message.content) : undefined;
}

function forgottenBy(ids: unknown, start: unknown, end: unknown): ((id: string) => boolean) | string {
  if (Array.isArray(ids)) {
    const set = new Set(ids.map((x) => String(x)));
    return (id) => set.has(id);
  }
  const a = int(start);
  const b = int(end);
  if (a !== null && b !== null) return (id) => /^-?\d+$/.test(id) && Number(id) >= a && Number(id) <= b;
  return 'that names no forgotten events (neither forgotten_event_ids nor a start and end id)';
}

/** A V0 response's LiteLLM usage (docs/tokens.md "Recorded usage", shared/tokens/usage.ts liteLlmTokens). */
function v0Usage(metadata: Record<string, unknown>): CallTokens | undefined {
  const response = isPlainObject(metadata.model_response) ? metadata.model_response : undefined;
  return response ? liteLlmTokens(response.usage) : undefined;
}

/** One V0 trajectory event (openhands/events/serialization) in the version-free shape. */
export function v0Event(e: unknown, k: number): OhEvent {
  const where = `event ${k}`;
  if (!isPlainObject(e)) return { id: '', where, type: 'unknown', why: 'it is not an object' };
  const id = typeof e.id === 'number' || typeof e.id === 'string' ? String(e.id) : '';
  const at = id === '' ? where : `event ${id}`;
  const args = isPlainObject(e.args) ? e.args : {};
  const metadata = isPlainObject(e.tool_call_metadata) ? e.tool_call_metadata : undefined;
  const source = str(e.source);
  const meta = (extra: Record<string, unknown>): Record<string, unknown> => ({ openhands_event: id, ...extra });
  if (typeof e.action === 'string') {
    const action = e.action;
    if (action === 'condensation') {
      const forgotten = forgottenBy(args.forgotten_event_ids, args.forgotten_events_start_id, args.forgotten_events_end_id);
      if (typeof forgotten === 'string') return { id, where: at, type: 'unknown', why: `a condensation ${forgotten}` };
      return { id, where: at, type: 'condensation', forgotten, summary: str(args.summary) ?? null, summaryOffset: int(args.summary_offset) };
    }
    if (V0_SKIPPED_ACTIONS.includes(action)) return { id, where: at, type: 'skip' };
    if (action === 'system') return { id, where: at, type: 'message', message: { role: 'system', content: str(args.content) ?? str(e.message) ?? '', metadata: meta({ openhands_action: action }) } };
    if (metadata && typeof metadata.tool_call_id === 'string') {
      const callId = metadata.tool_call_id;
      const call: ToolCall = { id: callId, name: str(metadata.function_name) ?? action, arguments: v0Arguments(metadata, callId) ?? JSON.stringify(args) };
      const text = v0ResponseText(metadata) ?? str(args.thought) ?? '';
      const usage = v0Usage(metadata);
      return { id, where: at, type: 'message', message: { role: 'assistant', content: text, tool_calls: [call], metadata: meta({ openhands_action: action }) }, ...(usage ? { usage } : {}) };
    }
    const text = action === 'message' ? (str(args.content) ?? str(e.message) ?? '') : (str(e.message) ?? JSON.stringify(args));
    return { id, where: at, type: 'message', message: { role: source === 'user' ? 'user' : 'assistant', content: text, metadata: meta({ openhands_action: action }) } };
  }
  if (typeof e.observation === 'string') {
    const observation = e.observation;
    if (V0_SKIPPED_OBSERVATIONS.includes(observation)) return { id, where: at, type: 'skip' };
    const text = str(e.content) ?? str(e.message) ?? '';
    if (metadata && typeof metadata.tool_call_id === 'string') return { id, where: at, type: 'message', message: { role: 'tool', content: text, tool_call_id: metadata.tool_call_id, metadata: meta({ openhands_observation: observation }) } };
    return { id, where: at, type: 'message', message: { role: 'user', content: text, metadata: meta({ openhands_observation: observation }) } };
  }
  return { id, where: at, type: 'unknown', why: 'it is neither an action nor an observation' };
}

/** The header the SDK's `Observation.to_llm_content` puts before an observation whose `is_error` is true. */
export const V1_ERROR_HEADER = '[An error occurred during execution.]\n';
/** What a terminal observation said on an error before the SDK's Observation base (`output` and `error` fields, 2025-09 to 2025-11). */
export const V1_LEGACY_TERMINAL_ERROR = '[There was an error during command execution.]\n';
const TERMINAL_OBSERVATIONS: readonly string[] = ['TerminalObservation', 'ExecuteBashObservation'];

/** The SDK's cap on the text of a terminal observation it gives the model (openhands-tools `MAX_CMD_OUTPUT_SIZE`). */
export const V1_TERMINAL_LIMIT = 30_000;
/** `maybe_truncate`'s notices (openhands-sdk `utils/truncate.py`). */
export const CLIP_NOTICE = '<response clipped><NOTE>Due to the max output limit, only part of the full response has been shown to you.</NOTE>';
const clipNoticeSaved = (path: string, line: number): string =>
  `<response clipped><NOTE>Due to the max output limit, only part of the full response has been shown to you. The complete output has been saved to ${path} - you can use other tools to view the full content (truncated part starts around line ${line}).</NOTE>`;

/** A text the SDK cut in the middle: the model was given `kept` (its head) and then `stub` (the notice and its tail). */
export interface ClippedText {
  kept: string;
  stub: string;
}

/** The line boundaries of Python's `str.splitlines()` (`\r\n` is one). */
const PY_LINE_BREAKS = new Set(['\n', '\r', '\v', '\f', '\u001c', '\u001d', '\u001e', '\u0085', '\u2028', '\u2029']);

/** Python's `len(s.splitlines())`: the lines of `s`, a last line without its break included. */
function pythonLineCount(s: string): number {
  let lines = 0;
  let open = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (!PY_LINE_BREAKS.has(c)) {
      open = true;
      continue;
    }
    if (c === '\r' && s[i + 1] === '\n') i++;
    lines++;
    open = false;
  }
  return open ? lines + 1 : lines;
}

/**
 * The SDK's `maybe_truncate(content, limit, save_dir=saveDir, tool_prefix=prefix)` (openhands-sdk
 * `utils/truncate.py`, docs/formats/openhands.md): a text longer than `limit` characters (Python's,
 * code points) is given as its head, a notice and its tail, `limit` characters in all; the notice
 * names the file the SDK saved the whole text to when a folder was given (its name from the text's
 * SHA-256). Undefined when the text is not cut.
 */
export function maybeTruncate(content: string, limit: number, saveDir?: string, prefix = 'output'): ClippedText | undefined {
  if (!(limit > 0) || content.length <= limit) return undefined;
  const chars = Array.from(content);
  if (chars.length <= limit) return undefined;
  const base = Array.from(CLIP_NOTICE);
  if (base.length >= limit) return { kept: '', stub: base.slice(0, limit).join('') };
  const available = limit - base.length;
  const proposedHead = Math.ceil(available / 2);
  let notice = CLIP_NOTICE;
  if (saveDir !== undefined && saveDir !== '') {
    const name = `${prefix}_output_${createHash('sha256').update(content, 'utf8').digest('hex').slice(0, 8)}.txt`;
    const path = `${saveDir.length > 1 ? saveDir.replace(/\/+$/, '') : saveDir}/${name}`;
    notice = clipNoticeSaved(path, pythonLineCount(chars.slice(0, proposedHead).join('')) + 1);
  }
  const noticeChars = Array.from(notice);
  if (noticeChars.length >= limit) return { kept: '', stub: noticeChars.slice(0, limit).join('') };
  const remaining = limit - noticeChars.length;
  const head = Math.min(proposedHead, remaining);
  const tail = remaining - head;
  return { kept: chars.slice(0, head).join(''), stub: notice + (tail > 0 ? chars.slice(chars.length - tail).join('') : '') };
}

/**
 * The text an SDK observation gives the model (its `to_llm_content`, docs/formats/openhands.md): its
 * `content` parts (else its `output`/`message`/`error`, else its JSON); a terminal's between its
 * metadata's prefix and suffix, followed by the working folder, interpreter and exit code lines;
 * after the error header when `is_error` is true. A terminal text over `V1_TERMINAL_LIMIT`
 * characters is cut in the middle (`maybeTruncate`): `text` is the whole, `cut` what the model was
 * given.
 */
function observationText(o: unknown): { text: string; cut?: ClippedText } {
  if (!isPlainObject(o)) return { text: JSON.stringify(o) ?? '' };
  const text = textOf(o.content) ?? str(o.output) ?? str(o.message) ?? str(o.error);
  if (text === undefined) return { text: JSON.stringify(o) };
  let shown = text;
  let cut: ClippedText | undefined;
  if (TERMINAL_OBSERVATIONS.includes(str(o.kind) ?? '')) {
    const md = isPlainObject(o.metadata) ? o.metadata : {};
    shown = `${str(md.prefix) ?? ''}${text}${str(md.suffix) ?? ''}`;
    if (str(md.working_dir)) shown += `\n[Current working directory: ${str(md.working_dir)}]`;
    if (str(md.py_interpreter_path)) shown += `\n[Python interpreter: ${str(md.py_interpreter_path)}]`;
    if (typeof md.exit_code === 'number' && md.exit_code !== -1) shown += `\n[Command finished with exit code ${md.exit_code}]`;
    if (o.content === undefined && o.error === true) shown = `${V1_LEGACY_TERMINAL_ERROR}${shown}`;
    cut = maybeTruncate(shown, V1_TERMINAL_LIMIT, str(o.full_output_save_dir), 'terminal');
  }
  const header = o.is_error === true ? V1_ERROR_HEADER : '';
  return { text: `${header}${shown}`, ...(cut ? { cut: { kept: `${header}${cut.kept}`, stub: cut.stub } } : {}) };
}

/** One V1 event file (openhands-sdk `openhands.sdk.event`) in the version-free shape. */
export function v1Event(e: unknown, where: string): OhEvent {
  if (!isPlainObject(e)) return { id: '', where, type: 'unknown', why: 'it is not an object' };
  const id = str(e.id) ?? '';
  const kind = str(e.kind) ?? '';
  const meta = { openhands_event: id, openhands_kind: kind };
  switch (kind) {
    case 'SystemPromptEvent':
      return { id, where, type: 'message', message: { role: 'system', content: textOf(e.system_prompt) ?? '', metadata: meta } };
    case 'MessageEvent': {
      const m = isPlainObject(e.llm_message) ? e.llm_message : {};
      const role = str(m.role);
      if (!role || !ROLES.includes(role)) return { id, where, type: 'unknown', why: `a MessageEvent whose llm_message role is ${JSON.stringify(m.role)}` };
      const extra = textOf(e.extended_content) ?? '';
      const recordedAs = role === 'assistant' ? str(e.llm_response_id) : undefined;
      return { id, where, type: 'message', message: { role: role as ChatMessage['role'], content: (textOf(m.content) ?? '') + extra, metadata: meta }, ...(recordedAs ? { recordedAs } : {}) };
    }
    case 'ActionEvent': {
      const tc = isPlainObject(e.tool_call) ? e.tool_call : {};
      const fn = isPlainObject(tc.function) ? tc.function : tc;
      const call: ToolCall = { id: str(e.tool_call_id) ?? str(tc.id) ?? '', name: str(e.tool_name) ?? str(fn.name) ?? '', arguments: str(fn.arguments) ?? JSON.stringify(e.action ?? {}) };
      const response = str(e.llm_response_id);
      return { id, where, type: 'message', message: { role: 'assistant', content: textOf(e.thought) ?? '', tool_calls: [call], metadata: meta }, ...(response ? { response } : {}) };
    }
    case 'ObservationEvent':
    case 'UserRejectObservation':
    case 'AgentErrorEvent': {
      const { text, cut } =
        kind === 'ObservationEvent' ? observationText(e.observation) : { text: kind === 'UserRejectObservation' ? `Action rejected: ${str(e.rejection_reason) ?? 'User rejected the action'}` : (str(e.error) ?? '') };
      return { id, where, type: 'message', message: { role: 'tool', content: text, tool_call_id: str(e.tool_call_id) ?? '', metadata: meta }, ...(cut ? { cut } : {}) };
    }
    case 'Condensation': {
      const forgotten = forgottenBy(e.forgotten_event_ids, undefined, undefined);
      if (typeof forgotten === 'string') return { id, where, type: 'unknown', why: `a condensation ${forgotten}` };
      return { id, where, type: 'condensation', forgotten, summary: str(e.summary) ?? null, summaryOffset: int(e.summary_offset) };
    }
    default:
      if (V1_SKIPPED_KINDS.includes(kind)) return { id, where, type: 'skip' };
      return { id, where, type: 'unknown', why: `its kind ${JSON.stringify(e.kind)} is not an event kind read here` };
  }
}

/**
 * The three inputs of a conversation's events, in order. Never throws. `responseUsage`: the usage
 * V1 records apart from the events, by response id (base_state.json, source.ts `v1State`).
 */
export function buildOpenHands(events: readonly OhEvent[], model: string | null, responseUsage?: ReadonlyMap<string, CallTokens>): OpenHandsIndex {
  const findings: Finding[] = [];
  const view: ChatMessage[] = [];
  const messageLines: number[] = [];
  /** Event id of each view message, and the events not forgotten so far (V0 `View.from_events`' kept events). */
  const eventOf: string[] = [];
  const hidden: boolean[] = [];
  const kept: { id: string; index: number | null }[] = [];
  const log: Reduction[] = [];
  const logLines: number[] = [];
  const usage = new Map<number, CallTokens>();
  /** The response whose actions the last message holds, while nothing the model is given came after it. */
  let batch: string | undefined;
  events.forEach((e, k) => {
    const line = k + 1;
    if (e.type === 'unknown') {
      findings.push({ code: 'unknown_record', severity: 'warning', message: `${e.where}: ${e.why}; skipped` });
      return;
    }
    if (e.type === 'skip') {
      kept.push({ id: e.id, index: null });
      return;
    }
    if (e.type === 'message') {
      const last = view[view.length - 1];
      if (e.response !== undefined && e.response === batch && last && !hidden[view.length - 1]) {
        // Another action of the same response: one more tool call of that message (its text, the
        // response's thought, is on the first action only). Forgetting the first forgets the message.
        kept.push({ id: e.id, index: view.length - 1 });
        view[view.length - 1] = { ...last, tool_calls: [...(last.tool_calls ?? []), ...(e.message.tool_calls ?? [])] };
        return;
      }
      batch = e.response;
      kept.push({ id: e.id, index: view.length });
      if (e.cut) {
        // The SDK cut the text in the middle when it gave it to the model; the event holds it whole.
        const { hash, bytes } = hashOf(e.message.content);
        log.push({ id: `openhands-clip-${e.id === '' ? line : e.id}`, kind: 'tool_output_truncated', ptr: { index: view.length, hash, bytes }, kept_bytes: utf8Length(e.cut.kept), stub: e.cut.stub, minted_at: view.length + 1, provenance: 'derived', origin: { event: e.id === '' ? e.where : e.id }, hash_origin: 'import' });
        logLines.push(line);
      }
      view.push(e.message);
      messageLines.push(line);
      const byResponse = e.response ?? e.recordedAs;
      const recorded = e.usage ?? (byResponse !== undefined ? responseUsage?.get(byResponse) : undefined);
      if (recorded && e.message.role === 'assistant') usage.set(line, withWindow(recorded, tableWindow(model)));
      eventOf.push(e.id);
      hidden.push(false);
      return;
    }
    batch = undefined;
    // A condensation: every visible message whose event it forgets, in runs.
    const forgotten = view.map((_m, i) => !hidden[i] && e.forgotten(eventOf[i] as string));
    const before = view.length;
    const stillKept = kept.filter((x) => !e.forgotten(x.id));
    if (!forgotten.includes(true)) {
      findings.push({ code: 'unknown_record', severity: 'warning', message: `${e.where}: the condensation forgets no message still shown; nothing is reduced` });
      kept.splice(0, kept.length, ...stillKept);
      return;
    }
    const summarized = e.summary !== null;
    const group = `condensation-${e.id === '' ? line : e.id}`;
    let run = 0;
    let firstStart = -1;
    let firstEnd = -1;
    for (let i = 0; i < before; ) {
      if (!forgotten[i]) {
        i++;
        continue;
      }
      let end = i;
      while (end < before && forgotten[end]) end++;
      const range = view.slice(i, end);
      const { hash, bytes } = hashOf(transcriptOf(range.map((m) => ({ minted: m, content: m.content }))));
      run++;
      if (firstStart < 0) [firstStart, firstEnd] = [i, end];
      const base = { id: `openhands-${group}-${run}`, ptr: { index: i, hash, bytes }, end, minted_at: before, provenance: 'recorded' as const, origin: { event: e.id === '' ? e.where : e.id }, hash_origin: 'import' as const, original_from: 'the events the condensation forgot, as the trajectory records them' };
      log.push(summarized ? { ...base, kind: 'summarized', stub: e.summary ?? '', group } : { ...base, kind: 'turns_cleared', stub: '' });
      logLines.push(line);
      for (let j = i; j < end; j++) hidden[j] = true;
      i = end;
    }
    if (summarized && e.summaryOffset !== null) {
      // OpenHands puts the summary before the kept event at `summary_offset`: the first message at
      // or after it should be the one the first run ends before.
      const after = stillKept.slice(e.summaryOffset).find((x) => x.index !== null)?.index ?? before;
      const firstAfterRun = hidden.findIndex((h, i) => i >= firstEnd && !h);
      const expected = firstAfterRun < 0 ? before : firstAfterRun;
      if (after !== expected) {
        findings.push({ code: 'unknown_record', severity: 'warning', message: `${e.where}: summary_offset ${e.summaryOffset} puts the summary before message ${after}; it is shown in place of the first forgotten run (messages ${firstStart}–${firstEnd - 1})` });
      }
    }
    kept.splice(0, kept.length, ...stillKept);
  });
  return { model, view, messageLines, log, logLines, findings, ...(usage.size > 0 ? { usage } : {}) };
}
