/**
 * The store's instructions (instructionsSlice.ts): asked for the call the Projected view shows,
 * once per call, and a reply for a call the view has left is never kept as the current one; the
 * Instructions block's words (instructionsModel.ts).
 */
import { describe, expect, it } from 'vitest';
import type { InstructionInfo, Params, Reply } from '../../shared/contract';
import { instructionCut, instructionPlace, instructionTitle, instructionsSummary } from '../features/view/instructionsModel';
import type { AppStoreOptions } from './store';
import { createAppStore } from './store';
import { deferred, fakeHost, settle } from './testing/fakeHost';

const NO_DELAY: AppStoreOptions['timing'] = { searchDebounceMs: 0, rangeDebounceMs: 0, verifyBatchMs: 0 };

async function started(host = fakeHost()) {
  host.answer('rows', () => ({ ok: true, value: { rowCount: 10, rows: [] } }) satisfies Reply<'rows'>);
  const store = createAppStore(host.api, { timing: NO_DELAY });
  store.getState().start();
  await settle();
  return { store, host };
}

describe('instructions slice', () => {
  it('asks for the latest view, then for the shown call, once each', async () => {
    const { store, host } = await started();
    await Promise.all([store.getState().loadInstructions(), store.getState().loadInstructions()]);
    expect(host.callsOf('instructions')).toEqual([{}]);
    expect(store.getState().instructions?.result?.instructions[1]?.text).toBe('skills at latest');
    await store.getState().showCall(3);
    await settle();
    await store.getState().loadInstructions();
    expect(host.callsOf('instructions')).toEqual([{}, { call: 3 }]);
    expect(store.getState().instructions).toMatchObject({ call: 3, status: 'done' });
    expect(store.getState().instructions?.result?.instructions[1]?.text).toBe('skills at 3');
  });

  it('a reply that arrives after the view moved to another call is dropped', async () => {
    const host = fakeHost();
    const held = deferred<Reply<'instructions'>>();
    let first = true;
    host.answer('instructions', (p: Params<'instructions'>) => {
      if (first) {
        first = false;
        return held.promise;
      }
      return { ok: true, value: { instructions: [], total: p.call ?? 0 } };
    });
    const { store } = await started(host);
    const slow = store.getState().loadInstructions();
    await store.getState().showCall(2);
    await settle();
    await store.getState().loadInstructions();
    held.resolve({ ok: true, value: { instructions: [], total: 99 } });
    await slow;
    expect(store.getState().instructions).toMatchObject({ call: 2, status: 'done', result: { total: 2 } });
  });
});

describe('the Instructions block\'s words', () => {
  const base: InstructionInfo = { source: 'codex_base_instructions', placement: 'instructions', index: 0, line: 1, text: 'You are Codex.', text_bytes: 14 };
  const skills: InstructionInfo = { source: 'claude_code_attachment', kind: 'skill_listing', placement: 'user_message', index: 3, line: 12, text: 'é'.repeat(10), text_bytes: 5000 };

  it('name each instruction, where the request carries it and the line of its record', () => {
    expect(instructionTitle(base)).toBe('Base instructions');
    expect(instructionPlace(base)).toBe("the request's instructions, before every message · line 1");
    expect(instructionTitle(skills)).toBe('Attachment skill_listing');
    expect(instructionPlace(skills)).toBe('in a user message after message 2 · line 12');
    expect(instructionPlace({ ...skills, index: 0, unconfirmed: true })).toMatch(/^in a user message before the first message · line 12 · .*not confirmed$/);
  });

  it('say how much of a cut text is not shown, in bytes', () => {
    expect(instructionCut(skills, 20)).toBe('… 4,980 more bytes not shown');
    expect(instructionCut(base, 14)).toBeNull();
  });

  it('summarize the block', () => {
    expect(instructionsSummary([base, skills], 2)).toBe('Instructions given outside the messages: base instructions, 1 attachment');
    expect(instructionsSummary([skills], 8)).toBe('Instructions given outside the messages: 8 attachments');
  });
});

describe('the Instructions block stays open from call to call', () => {
  it('keeps what the user chose in the store', async () => {
    const { store } = await started();
    expect(store.getState().instructionsOpen).toBe(false);
    store.getState().setInstructionsOpen(true);
    await store.getState().showCall(2);
    await settle();
    expect(store.getState().instructionsOpen).toBe(true);
  });
});
