/**
 * `instructions` (docs/worker.md): what a call was given outside the view's messages
 * (shared/resolver/instructions.ts), bounded like rows — at most MAX_INSTRUCTIONS_PER_REQUEST entries, each
 * text cut to ROW_TEXT_MAX_BYTES with its whole length (a Codex base prompt is tens of kilobytes,
 * and a file can hold any text there).
 */
import type { ParsedParams, ResultOf } from '../../../shared/contract';
import { MAX_INSTRUCTIONS_PER_REQUEST, ROW_TEXT_MAX_BYTES } from '../../../shared/contract';
import type { LoadedSession } from '../../../shared/resolver/session';
import { fail, ok } from '../replies';
import type { Handler } from './handler';
import { cutToBytes } from './rows';

/** The reply, or undefined for a call that is none of the session's. */
export function instructionsReply(session: LoadedSession, params: ParsedParams<'instructions'>): ResultOf<'instructions'> | undefined {
  const all = session.instructionsAt(params.call ?? null);
  if (!all) return undefined;
  const start = params.start ?? 0;
  const instructions = all.slice(start, start + MAX_INSTRUCTIONS_PER_REQUEST).map(({ to: _to, text: whole, ...rest }) => {
    const { text, bytes } = cutToBytes(whole, ROW_TEXT_MAX_BYTES);
    return { ...rest, text, text_bytes: bytes };
  });
  return { instructions, total: all.length };
}

export const instructions: Handler<'instructions'> = (request, state) =>
  state.withSession('instructions', ({ session }) => {
    const value = instructionsReply(session, request);
    return value ? ok(value) : fail('invalid_request', `call ${request.call ?? ''} is none of this session's ${session.calls.length} model calls`);
  });
