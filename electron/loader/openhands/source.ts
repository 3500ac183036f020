/**
 * An OpenHands conversation as a source. V0: the trajectory array, parsed whole at detection
 * (documentSource.ts). V1: the conversation folder of the file the user opened (`base_state.json`
 * or one of its `events/event-*.json`): every event file, in the order of their names (the SDK
 * numbers them `event-NNNNN-<id>.json`), read once here. Files are only read, never written. An
 * event file that does not parse is a `malformed_line` finding naming it; the rest still opens.
 */
import { isUtf8 } from 'node:buffer';
import { join } from 'node:path';
import type { Finding } from '../../../shared/format/types';
import { depthCutMessage } from '../../../shared/format/jsonDepth';
import { isPlainObject, parseCappedJson, parseJson, stripBom } from '../common/json';
import { listWithin, readWithin } from '../common/safeRead';
import type { OpenFile, SourceIndex } from '../common/source';
import { type BuiltDocument, documentIndex, JsonDocumentSource } from '../common/documentSource';
import { WholeFileSource } from '../common/wholeFileSource';
import type { CallTokens } from '../../../shared/tokens/usage';
import { openAiTokens } from '../../../shared/tokens/usage';
import { buildOpenHands, type OhEvent, v0Event, v1Event } from './build';

/** The model a V0 trajectory's last model response names. */
function v0Model(events: readonly unknown[]): string | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const e: unknown = events[i];
    if (!isPlainObject(e) || !isPlainObject(e.tool_call_metadata)) continue;
    const r = e.tool_call_metadata.model_response;
    if (isPlainObject(r) && typeof r.model === 'string') return r.model;
  }
  return null;
}

export class OpenHandsV0Source extends JsonDocumentSource<unknown[]> {
  readonly format = 'openhands-v0' as const;

  protected build(events: unknown[]): BuiltDocument {
    return buildOpenHands(
      events.map((e, k) => v0Event(e, k)),
      v0Model(events),
    );
  }
}

/** V1 files are small (one event, or the state): a larger JSON object is not read whole. */
export const MAX_V1_FILE_BYTES = 64 * 1000 * 1000;

/**
 * The event files of a V1 conversation folder, in the SDK's order (their zero-padded numbers); the
 * `events/` folder is listed only when it resolves inside `roots` (safeRead.ts), else why not.
 */
export function v1EventFiles(folder: string, roots: readonly string[]): { names: string[] } | { refused: string } {
  const listed = listWithin(join(folder, 'events'), roots);
  if ('refused' in listed && listed.missing !== true) return { refused: listed.refused };
  return { names: 'names' in listed ? listed.names.filter((n) => /^event-.*\.json$/.test(n)).sort() : [] };
}

export class OpenHandsV1Source extends WholeFileSource {
  readonly format = 'openhands-v1' as const;

  constructor(
    file: OpenFile,
    /** The conversation folder: the one holding `base_state.json` and `events/`. */
    readonly folder: string,
    private readonly sessionId: string,
    /** Where its event files and base_state.json may be read (docs/safe-reads.md). */
    private readonly roots: readonly string[],
  ) {
    super(file);
  }

  protected parseWhole(): SourceIndex {
    const findings: Finding[] = [];
    const events: OhEvent[] = [];
    const listed = v1EventFiles(this.folder, this.roots);
    const names = 'names' in listed ? listed.names : [];
    if ('refused' in listed) findings.push({ code: 'malformed_line', severity: 'error', line: 1, message: `${join(this.folder, 'events')} was not read: ${listed.refused}; nothing is shown` });
    else if (names.length === 0) findings.push({ code: 'malformed_line', severity: 'error', line: 1, message: `${join(this.folder, 'events')} holds no event files; nothing is shown` });
    names.forEach((name, k) => {
      const where = `events/${name}`;
      const read = readWithin(join(this.folder, 'events', name), this.roots, { maxBytes: MAX_V1_FILE_BYTES });
      if ('refused' in read) {
        findings.push({ code: 'malformed_line', severity: 'error', line: k + 1, message: `${where} cannot be read (${read.refused}); skipped` });
        // Kept as a place: the events after it keep their positions (SPEC §11 lines).
        events.push({ id: '', where, type: 'skip' });
        return;
      }
      const bytes = read.bytes;
      const text = stripBom(bytes.toString('utf8'));
      if (!isUtf8(bytes)) findings.push({ code: 'malformed_line', severity: 'error', line: k + 1, message: `${where} holds bytes that are not valid UTF-8; they read as U+FFFD` });
      const parsed = parseCappedJson(text);
      if (parsed.ok && parsed.cut) findings.push({ code: 'malformed_line', severity: 'error', line: k + 1, message: depthCutMessage(where, parsed.cut) });
      if (!parsed.ok) {
        findings.push({ code: 'malformed_line', severity: 'error', line: k + 1, message: `${where} is not one JSON document (${parsed.reason}); skipped` });
        events.push({ id: '', where, type: 'skip' });
        return;
      }
      events.push(v1Event(parsed.value, where));
    });
    const state = readWithin(join(this.folder, 'base_state.json'), this.roots, { maxBytes: MAX_V1_FILE_BYTES });
    if ('refused' in state && state.missing !== true) findings.push({ code: 'malformed_line', severity: 'error', message: `base_state.json was not read (${state.refused}); the model is not known` });
    const known = 'bytes' in state ? v1State(state.bytes) : { model: null, usage: new Map<string, CallTokens>() };
    return documentIndex(buildOpenHands(events, known.model, known.usage), this.sessionId, findings);
  }
}

/**
 * What `base_state.json` says: the model (`agent.llm.model`), and each response's recorded usage
 * (docs/tokens.md "OpenHands"): `stats.usage_to_metrics.<llm>.token_usages[]`, one entry per
 * response by `response_id` (LiteLLM's OpenAI shape: `prompt_tokens` counts every input token,
 * `cache_read_tokens` a part of it, `context_window` the model's window). The SDK keeps the last 500
 * entries: an older response has none.
 */
function v1State(bytes: Buffer): { model: string | null; usage: Map<string, CallTokens> } {
  const usage = new Map<string, CallTokens>();
  const parsed = parseJson(stripBom(bytes.toString('utf8')));
  if (!parsed.ok || !isPlainObject(parsed.value)) return { model: null, usage };
  const { agent, stats } = parsed.value;
  const llm = isPlainObject(agent) && isPlainObject(agent.llm) ? agent.llm : undefined;
  const metrics = isPlainObject(stats) && isPlainObject(stats.usage_to_metrics) ? Object.values(stats.usage_to_metrics) : [];
  for (const m of metrics) {
    if (!isPlainObject(m) || !Array.isArray(m.token_usages)) continue;
    for (const u of m.token_usages) {
      if (!isPlainObject(u) || typeof u.response_id !== 'string' || u.response_id === '') continue;
      const window = typeof u.context_window === 'number' && Number.isSafeInteger(u.context_window) && u.context_window > 0 ? u.context_window : undefined;
      const tokens = openAiTokens({ input: u.prompt_tokens, cached: u.cache_read_tokens, cacheWrite: u.cache_write_tokens, output: u.completion_tokens, reasoning: u.reasoning_tokens }, window);
      if (tokens) usage.set(u.response_id, tokens);
    }
  }
  return { model: llm && typeof llm.model === 'string' ? llm.model : null, usage };
}
