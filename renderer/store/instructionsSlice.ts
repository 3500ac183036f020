/**
 * What the shown call was given outside the view's messages (shared/resolver/instructions.ts): Codex's base
 * instructions, Claude Code's attachments. Fetched for the call the Projected view shows; a reply
 * is kept with the session epoch, call and message count it answers, so a reply for a call the
 * view has left (or for the session before it grew) is never shown as the current one.
 */
import type { HostError, ResultOf } from '../../shared/contract';
import type { SliceCreator } from './appState';

/** Which input a reply answers: the session's epoch, the call (null: the latest view), its message count. */
export interface InstructionsKey {
  epoch: number;
  call: number | null;
  messages: number;
}

export interface InstructionsSlice {
  instructions: (InstructionsKey & { status: 'loading' | 'done' | 'error'; result?: ResultOf<'instructions'>; error?: HostError }) | null;
  /** Fetches the shown call's instructions unless they are here or on their way. */
  loadInstructions: () => Promise<void>;
  /** Whether the user opened the Instructions block: it stays so from call to call. */
  instructionsOpen: boolean;
  setInstructionsOpen: (open: boolean) => void;
}

/** The key of what the view shows now, or null without a readable session. */
export function shownInstructionsKey(state: { epoch: number; shownCall: number | null; session: { messages: number; stopped: boolean } | null }): InstructionsKey | null {
  if (!state.session || state.session.stopped) return null;
  return { epoch: state.epoch, call: state.shownCall, messages: state.session.messages };
}

const sameKey = (a: InstructionsKey | null, b: InstructionsKey | null): boolean => a !== null && b !== null && a.epoch === b.epoch && a.call === b.call && a.messages === b.messages;

export const createInstructionsSlice: SliceCreator<InstructionsSlice> = (deps) => (set, get) => ({
  instructions: null,
  instructionsOpen: false,

  setInstructionsOpen(open) {
    if (get().instructionsOpen !== open) set({ instructionsOpen: open });
  },

  async loadInstructions() {
    const key = shownInstructionsKey(get());
    if (!key || sameKey(get().instructions, key)) return;
    set({ instructions: { ...key, status: 'loading' } });
    const reply = await deps.api.instructions(key.call === null ? {} : { call: key.call });
    // Only the reply for what is still asked is kept.
    if (!sameKey(get().instructions, key)) return;
    set({ instructions: reply.ok ? { ...key, status: 'done', result: reply.value } : { ...key, status: 'error', error: reply.error } });
  },
});
