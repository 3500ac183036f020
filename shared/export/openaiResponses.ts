/**
 * SPEC §16 `--as openai-responses`: a call's input as an OpenAI Responses body (POST
 * /v1/responses, docs/FORMATS.md §E3). Messages are `message` input items, each tool call a
 * `function_call` item and its result a `function_call_output` item of the same `call_id`; the
 * recorded instructions (Codex's base instructions) are `instructions`.
 */
import type { ExportInput, Piece, Turn } from './request';
import { NEVER_RECORDED, pairedTurns, textOf } from './request';

type Item = Record<string, unknown>;

const imageUrl = (p: Extract<Piece, { image: unknown }>): string => ('url' in p.image ? p.image.url : `data:${p.image.media_type};base64,${p.image.data}`);

function inputContent(pieces: readonly Piece[]): string | Item[] {
  if (pieces.every((p) => 'text' in p)) return textOf(pieces);
  return pieces.map((p) => ('text' in p ? { type: 'input_text', text: p.text } : { type: 'input_image', image_url: imageUrl(p), detail: 'auto' }));
}

function itemsOf(t: Turn, adjusted: string[]): Item[] {
  switch (t.kind) {
    case 'system':
      return [{ type: 'message', role: 'system', content: t.text }];
    case 'user':
      return [{ type: 'message', role: 'user', content: inputContent(t.pieces) }];
    case 'assistant':
      if (t.pieces.some((p) => 'image' in p)) adjusted.push(`the images of the assistant message at message ${t.index} are left out (an assistant message holds text only)`);
      return [
        ...(t.pieces.length > 0 || t.calls.length === 0 ? [{ type: 'message', role: 'assistant', content: textOf(t.pieces) }] : []),
        ...t.calls.map((c) => ({ type: 'function_call', call_id: c.id, name: c.name, arguments: c.arguments })),
      ];
    case 'result':
      return [{ type: 'function_call_output', call_id: t.id, output: inputContent(t.pieces) }];
  }
}

export function openaiResponsesRequest(input: ExportInput, adjusted: string[]): { request: Record<string, unknown>; not_recorded: string[] } {
  const turns = pairedTurns(input.messages, adjusted);
  const instructions = input.instructions.filter((s) => s !== '').join('\n\n');
  const request = { ...(input.model !== null ? { model: input.model } : {}), ...(instructions !== '' ? { instructions } : {}), input: turns.flatMap((t) => itemsOf(t, adjusted)) };
  const notRecorded = [...(input.model === null ? ['model'] : []), ...(instructions === '' ? ['instructions'] : []), ...NEVER_RECORDED, 'reasoning (effort and summary)', 'include, store, prompt_cache_key', 'max_output_tokens'];
  return { request, not_recorded: notRecorded };
}
