/**
 * SPEC §16 `--as openai-chat`: a call's input as an OpenAI Chat Completions body (POST
 * /v1/chat/completions, docs/FORMATS.md §E2). Messages keep their roles and order; an assistant's
 * tool calls are `tool_calls` (arguments as the recorded JSON text) and each result a `tool`
 * message right after them; the recorded instructions are a leading `system` message.
 */
import type { ExportInput, Piece, Turn } from './request';
import { NEVER_RECORDED, pairedTurns, textOf } from './request';

type Part = Record<string, unknown>;

function userContent(pieces: readonly Piece[]): string | Part[] {
  if (pieces.every((p) => 'text' in p)) return textOf(pieces);
  return pieces.map((p) => ('text' in p ? { type: 'text', text: p.text } : { type: 'image_url', image_url: { url: 'url' in p.image ? p.image.url : `data:${p.image.media_type};base64,${p.image.data}` } }));
}

function messageOf(t: Turn, adjusted: string[]): Record<string, unknown> {
  switch (t.kind) {
    case 'system':
      return { role: 'system', content: t.text };
    case 'user':
      return { role: 'user', content: userContent(t.pieces) };
    case 'assistant':
      if (t.pieces.some((p) => 'image' in p)) adjusted.push(`the images of the assistant message at message ${t.index} are left out (an assistant message holds text only)`);
      return {
        role: 'assistant',
        content: t.pieces.length === 0 && t.calls.length > 0 ? null : textOf(t.pieces),
        ...(t.calls.length > 0 ? { tool_calls: t.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) } : {}),
      };
    case 'result':
      if (t.pieces.some((p) => 'image' in p)) adjusted.push(`the images of the tool result at message ${t.index} are left out (a tool message holds text only)`);
      return { role: 'tool', tool_call_id: t.id, content: textOf(t.pieces) };
  }
}

export function openaiChatRequest(input: ExportInput, adjusted: string[]): { request: Record<string, unknown>; not_recorded: string[] } {
  const turns = pairedTurns(input.messages, adjusted);
  const instructions = input.instructions.filter((s) => s !== '');
  const messages = [...(instructions.length > 0 ? [{ role: 'system', content: instructions.join('\n\n') }] : []), ...turns.map((t) => messageOf(t, adjusted))];
  const hasSystem = messages.some((m) => m.role === 'system');
  const request = { ...(input.model !== null ? { model: input.model } : {}), messages };
  return { request, not_recorded: [...(input.model === null ? ['model'] : []), ...(hasSystem ? [] : ['the system prompt']), ...NEVER_RECORDED, 'max_completion_tokens'] };
}
