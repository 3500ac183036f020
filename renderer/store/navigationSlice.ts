/**
 * Going somewhere in the projected view: to a view index (the host says which row shows it), to a
 * reduction (expanded under its stub), to a search match (expanded around the match, highlighted),
 * to a finding, to the next or previous stub.
 */
import type { Finding } from '../../shared/format/types';
import { countOf } from '../text/format';
import type { SliceCreator } from './appState';
import { callParams } from './callParams';
import type { ByteRange } from './reductionsSlice';
import { rowAt } from './rowsSlice';
import type { SearchMatch } from './searchSlice';

/** Bytes of context fetched either side of a search match. */
export const MATCH_CONTEXT_BYTES = 2048;

export interface NavigationSlice {
  /** Selects and scrolls to the row showing view index `index`; then expands `reductionId` if given. */
  goToIndex: (index: number, then?: { reductionId?: string; range?: ByteRange; pinRange?: boolean; highlight?: { offset: number; length: number } }) => Promise<void>;
  goToReduction: (id: string) => Promise<void>;
  goToMatch: (match: SearchMatch) => Promise<void>;
  goToFinding: (finding: Finding) => Promise<void>;
  /** Selects the next (1) or previous (-1) row holding a stub. */
  stepStub: (direction: 1 | -1) => Promise<void>;
  /** Expands the selected row's stub (its applied reduction, else its first). */
  expandSelected: () => void;
}

export const createNavigationSlice: SliceCreator<NavigationSlice> = (deps) => (set, get) => {
  return {
  async goToIndex(index, then = {}) {
    const epoch = get().epoch;
    const call = get().shownCall;
    const reply = await deps.api.rowOfIndex({ index, ...callParams(call) });
    if (get().epoch !== epoch || get().shownCall !== call) return;
    if (!reply.ok) {
      get().pushAlert(reply.error.message);
      return;
    }
    if (reply.value.row < 0) {
      get().pushAlert(
        `Message ${index} is not in the projected view (it has ${countOf(get().session?.messages ?? 0, 'message')}).`,
        'The reduction addresses a message the view does not have; see the Findings tab.',
      );
      return;
    }
    get().selectRow(reply.value.row, 'start');
    if (then.reductionId !== undefined) {
      get().expand(then.reductionId, {
        ...(then.range ? { range: then.range } : {}),
        ...(then.pinRange ? { pinRange: true } : {}),
        ...(then.highlight ? { highlight: then.highlight } : {}),
      });
    }
  },

  async goToReduction(id) {
    await get().loadLog();
    const entry = get().logEntries.find((e) => e.reduction.id === id);
    if (!entry) {
      get().pushAlert(`Reduction ${id} is not in the live log.`);
      return;
    }
    await get().goToIndex(entry.reduction.ptr.index, { reductionId: id });
  },

  async goToMatch(match) {
    // A match in a cleared or summarized range is placed by the host in the range's transcript
    // (`transcript_offset`); the renderer never looks for message headers in the text.
    const ranged = match.kind === 'turns_cleared' || match.kind === 'summarized';
    const offset = ranged ? match.transcript_offset : match.offset;
    if (offset === undefined) {
      await get().goToIndex(match.index, { reductionId: match.reduction_id });
      get().pushAlert(
        `The match at byte ${match.offset} of message ${match.index} could not be placed in the transcript of ${match.reduction_id}.`,
        'The transcript is shown from its start; search inside it with the byte range inputs.',
      );
      return;
    }
    const range: ByteRange = [Math.max(0, offset - MATCH_CONTEXT_BYTES), offset + match.length + MATCH_CONTEXT_BYTES];
    await get().goToIndex(match.index, { reductionId: match.reduction_id, range, highlight: { offset, length: match.length } });
  },

  async goToFinding(finding) {
    if (finding.index !== undefined) {
      await get().goToIndex(finding.index, finding.reduction_id !== undefined ? { reductionId: finding.reduction_id } : {});
    } else if (finding.reduction_id !== undefined) {
      await get().goToReduction(finding.reduction_id);
    }
  },

  async stepStub(direction) {
    const epoch = get().epoch;
    await get().loadLog();
    if (get().epoch !== epoch) return;
    const { selectedRow, logEntries, session } = get();
    const messages = session?.messages ?? 0;
    const selected = selectedRow !== null ? rowAt(get(), selectedRow) : undefined;
    // The view range the selected row stands for; with nothing selected, before the first row.
    const [from, to] = selected ? [selected.index, selected.end] : [-1, direction > 0 ? 0 : messages];
    const indices = [...new Set(logEntries.map((e) => e.reduction.ptr.index))].filter((i) => i < messages).sort((a, b) => a - b);
    const target = direction > 0 ? indices.find((i) => i >= Math.max(to, from + 1)) : indices.reverse().find((i) => i < (selected ? from : to));
    if (target === undefined) return;
    const call = get().shownCall;
    const reply = await deps.api.rowOfIndex({ index: target, ...callParams(call) });
    if (get().epoch !== epoch || get().shownCall !== call || !reply.ok || reply.value.row < 0) return;
    get().selectRow(reply.value.row, 'center');
  },

  expandSelected() {
    const { selectedRow } = get();
    if (selectedRow === null) return;
    const row = rowAt(get(), selectedRow);
    const id = row?.applied ?? row?.reductions[0]?.id;
    if (id !== undefined && get().openReduction?.id !== id) get().expand(id);
  },
};
};
