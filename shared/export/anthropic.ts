/**
 * SPEC §16 `--as anthropic`: a call's input as an Anthropic Messages body (POST /v1/messages,
 * docs/FORMATS.md §E1). Leading system messages and the recorded instructions go to `system`;
 * tool calls are `tool_use` blocks and their results `tool_result` blocks at the head of the next
 * user turn; consecutive turns of one role are one message (the API would combine them anyway).
 */
import type { ExportInput, Piece, Turn } from './request';
import { NEVER_RECORDED, argumentsObject, pairedTurns } from './request';

type Block = Record<string, unknown>;
interface Message {
  role: 'user' | 'assistant';
  content: Block[];
}

function blocksOf(pieces: readonly Piece[]): Block[] {
  return pieces.flatMap((p): Block[] => {
    if ('text' in p) return p.text === '' ? [] : [{ type: 'text', text: p.text }];
    const img = p.image;
    return [{ type: 'image', source: 'url' in img ? { type: 'url', url: img.url } : { type: 'base64', media_type: img.media_type, data: img.data } }];
  });
}

/** The blocks of one turn, and the role it speaks in. */
function turnBlocks(t: Turn, adjusted: string[]): { role: 'user' | 'assistant'; blocks: Block[] } {
  switch (t.kind) {
    case 'assistant':
      return {
        role: 'assistant',
        blocks: [
          ...(t.thinking ? [{ type: 'thinking', thinking: t.thinking.text, signature: t.thinking.signature }] : []),
          ...blocksOf(t.pieces),
          ...t.calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: argumentsObject(c, adjusted) })),
        ],
      };
    case 'result': {
      const content = blocksOf(t.pieces);
      const whole = content.length === 1 && content[0]?.type === 'text' ? (content[0].text as string) : content;
      return { role: 'user', blocks: [{ type: 'tool_result', tool_use_id: t.id, content: whole, ...(t.is_error ? { is_error: true } : {}) }] };
    }
    case 'system':
      adjusted.push(`the system message at message ${t.index} is not at the start: given as a user message`);
      return { role: 'user', blocks: blocksOf([{ text: t.text }]) };
    case 'user':
      return { role: 'user', blocks: blocksOf(t.pieces) };
  }
}

export function anthropicRequest(input: ExportInput, adjusted: string[]): { request: Record<string, unknown>; not_recorded: string[] } {
  const turns = pairedTurns(input.messages, adjusted);
  const system = [...input.instructions];
  let k = 0;
  for (; k < turns.length; k++) {
    const t = turns[k] as Turn;
    if (t.kind !== 'system') break;
    system.push(t.text);
  }
  const messages: Message[] = [];
  for (const t of turns.slice(k)) {
    const { role, blocks } = turnBlocks(t, adjusted);
    if (blocks.length === 0) {
      adjusted.push(`message ${t.index} is empty: left out (the API refuses an empty message)`);
      continue;
    }
    const last = messages[messages.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  }
  const systemText = system.filter((s) => s !== '').join('\n\n');
  const request: Record<string, unknown> = { ...(input.model !== null ? { model: input.model } : {}), ...(systemText !== '' ? { system: systemText } : {}), messages: messages.map(compact) };
  const notRecorded = [...(input.model === null ? ['model'] : []), 'max_tokens (required by the API)', ...(systemText === '' ? ['system (the system prompt)'] : []), ...NEVER_RECORDED, 'thinking (the extended-thinking settings)', 'cache_control breakpoints'];
  return { request, not_recorded: notRecorded };
}

/** A message of one text block as its string, as agents send most of them. */
function compact(m: Message): { role: string; content: string | Block[] } {
  const only = m.content.length === 1 ? m.content[0] : undefined;
  return { role: m.role, content: only && only.type === 'text' ? (only.text as string) : m.content };
}
