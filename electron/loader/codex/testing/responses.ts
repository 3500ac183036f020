/**
 * The model responses of a rollout, read from its raw JSON lines for the tests (not through the
 * importer): the rule of docs/formats/codex.md, written again here from the file's own records. A
 * response is a run of consecutive output items (reasoning, an assistant message, a tool call of
 * any kind, a web search, an image generation) that ends at the next input item (a tool output, a
 * user or developer message), `token_count` event, turn or compaction. Codex's own account is the
 * other witness: the distinct cumulative totals of its `token_count` events, one per response.
 */
import { readFileSync } from 'node:fs';

export interface RawResponse {
  /** 1-based line of its first output item. */
  line: number;
  /** The call ids of its tool calls, in file order. */
  callIds: string[];
  /** Its item types, in file order. */
  types: string[];
}

const OUTPUTS = ['reasoning', 'function_call', 'custom_tool_call', 'local_shell_call', 'tool_search_call', 'web_search_call', 'image_generation_call'];
const CALLS = ['function_call', 'custom_tool_call', 'local_shell_call', 'tool_search_call'];
const BETWEEN = ['token_count', 'task_started', 'task_complete', 'turn_aborted'];

type Rec = { type?: string; payload?: { type?: string; role?: string; call_id?: string; info?: { total_token_usage?: unknown } | null } };

function records(path: string): { line: number; rec: Rec }[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((text, i) => ({ line: i + 1, text }))
    .flatMap((l) => {
      // A line that is not JSON (a torn last line, a damaged one) holds no record.
      try {
        return l.text.trim() === '' ? [] : [{ line: l.line, rec: JSON.parse(l.text) as Rec }];
      } catch {
        return [];
      }
    });
}

export function rawResponses(path: string): RawResponse[] {
  const found: RawResponse[] = [];
  let open: RawResponse | undefined;
  for (const { line, rec } of records(path)) {
    const p = rec.payload ?? {};
    if (rec.type === 'response_item') {
      const output = OUTPUTS.includes(String(p.type)) || (p.type === 'message' && p.role === 'assistant');
      if (output) {
        if (!open) found.push((open = { line, callIds: [], types: [] }));
        open.types.push(String(p.type));
        if (CALLS.includes(String(p.type))) open.callIds.push(String(p.call_id));
      } else if (p.type !== 'ghost_snapshot') open = undefined;
    } else if (rec.type === 'turn_context' || rec.type === 'compacted' || (rec.type === 'event_msg' && BETWEEN.includes(String(p.type)))) open = undefined;
  }
  return found;
}

/** How many input items (tool outputs, user and developer messages…) the rollout records: one view message each. */
export function rawInputItems(path: string): number {
  return records(path).filter(({ rec }) => {
    const p = rec.payload ?? {};
    return rec.type === 'response_item' && !OUTPUTS.includes(String(p.type)) && !(p.type === 'message' && p.role === 'assistant') && p.type !== 'ghost_snapshot';
  }).length;
}

/** How many times Codex's cumulative token usage changed: one model response each. */
export function distinctTokenTotals(path: string): number {
  let last = '';
  let n = 0;
  for (const { rec } of records(path)) {
    const p = rec.payload ?? {};
    if (rec.type !== 'event_msg' || p.type !== 'token_count' || !p.info) continue;
    const total = JSON.stringify(p.info.total_token_usage);
    if (total !== last) n++;
    last = total;
  }
  return n;
}
