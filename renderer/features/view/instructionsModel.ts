/**
 * Words for the Instructions block (instructionsBlock.tsx): what each instruction is and where the
 * model was given it, and the block's one-line summary. Pure, for the renderer's tests.
 */
import type { InstructionInfo } from '../../../shared/contract';
import { countOf } from '../../text/format';

/** "Base instructions" or "Attachment skill_listing". */
export function instructionTitle(i: InstructionInfo): string {
  return i.source === 'codex_base_instructions' ? 'Base instructions' : `Attachment ${i.kind ?? '(no type)'}`;
}

/** Where the request carries it, and the record it comes from. */
export function instructionPlace(i: InstructionInfo): string {
  const where = i.placement === 'instructions' ? "the request's instructions, before every message" : i.index === 0 ? 'in a user message before the first message' : `in a user message after message ${i.index - 1}`;
  return `${where} · line ${i.line}${i.unconfirmed ? ' · a kind newer than the Claude Code version checked: that the model is given it is not confirmed' : ''}`;
}

/** "… 12,345 more bytes not shown" when the text was cut for the reply, else null. */
export function instructionCut(i: InstructionInfo, shownBytes: number): string | null {
  const more = i.text_bytes - shownBytes;
  return more > 0 ? `… ${more.toLocaleString('en-US')} more bytes not shown` : null;
}

/** "Instructions given outside the messages: base instructions, 7 attachments". */
export function instructionsSummary(list: readonly InstructionInfo[], total: number): string {
  const base = list.filter((i) => i.source === 'codex_base_instructions').length;
  const attachments = total - base;
  const parts = [...(base > 0 ? ['base instructions'] : []), ...(attachments > 0 ? [countOf(attachments, 'attachment')] : [])];
  return `Instructions given outside the messages: ${parts.join(', ')}`;
}
