/**
 * `hiddenTokens` (docs/token-estimates.md "Asked lazily"): the tokens each reduction hid and the
 * tokens of its original, for the chips, log rows and search results the app shows. The renderer
 * asks after its rows are shown; the worker counts for at most HIDDEN_TOKENS_BUDGET_MS per request
 * (at least one reduction, so every ask makes progress) and answers the rest as `pending`, so rows
 * asked after it wait that long at most. Counts are cached per open: the tokenizer and the
 * estimates are made at the first ask, never for a session nobody asks about.
 */
import type { Reduction } from '../../../shared/index';
import { projectView, rowOfIndex } from '../../../shared/index';
import { SAMPLING } from '../../../shared/hiddenTokensContract';
import type { TokenEstimate } from '../../../shared/tokens/estimate';
import type { HiddenTokens, ReductionEstimate } from '../../tokens/sessionEstimates';
import { SessionEstimates, recordedContextOf } from '../../tokens/sessionEstimates';
import { ok } from '../replies';
import type { CallView, OpenSession } from '../state';
import { callView } from './calls';
import type { Handler } from './handler';
import { reductionsById } from './rows';

/** The most one request counts for before it answers the rest as pending (one large original may take longer). */
export const HIDDEN_TOKENS_BUDGET_MS = 100;

/** Rows this close together are projected in one window. */
const ROW_GAP = 32;


function hiddenTokensOf(open: OpenSession): HiddenTokens {
  return (open.hiddenTokens ??= { estimates: new SessionEstimates(open.session, recordedContextOf(open.session)), byView: new WeakMap() });
}

/**
 * The text the model was shown in place of each reduction of `wanted` (the row at its first index,
 * when the reduction is the one applied there; else nothing, as `log`'s hidden_tokens_est counts
 * it), projecting only windows of nearby rows.
 */
function shownTexts(view: CallView, wanted: readonly Reduction[]): Map<string, string> {
  const rowsOf = new Map<number, Reduction[]>();
  for (const r of wanted) {
    const row = rowOfIndex(view.layout, r.ptr.index);
    if (row < 0) continue;
    rowsOf.set(row, [...(rowsOf.get(row) ?? []), r]);
  }
  const rows = [...rowsOf.keys()].sort((a, b) => a - b);
  const shown = new Map<string, string>();
  for (let k = 0; k < rows.length; ) {
    const start = rows[k] as number;
    let end = start;
    while (k < rows.length && (rows[k] as number) - end <= ROW_GAP) end = rows[k++] as number;
    for (const p of projectView(view.minted, view.log, { start, end: end + 1 }, view.layout)) {
      for (const r of rowsOf.get(p.row) ?? []) if (p.applied === r.id) shown.set(r.id, p.text);
    }
  }
  return shown;
}

export const hiddenTokens: Handler<'hiddenTokens'> = (request, state) =>
  state.withSession('hiddenTokens', (open) => {
    const view = callView(open, request.call);
    if ('ok' in view) return view;
    const started = performance.now();
    const over = (): boolean => performance.now() - started > HIDDEN_TOKENS_BUDGET_MS;
    const { estimates, byView } = hiddenTokensOf(open);
    let known = byView.get(view.minted);
    if (!known) byView.set(view.minted, (known = new Map<string, ReductionEstimate>()));
    const byId = reductionsById(view.log);
    const unknown: string[] = [];
    const asked: Reduction[] = [];
    for (const id of new Set(request.ids)) {
      const r = byId.get(id);
      if (r) asked.push(r);
      else unknown.push(id);
    }
    // The calibration (fitted over every call the file records) is what the figures are scaled by:
    // it is fitted a budget at a time too, and nothing is counted before it is complete.
    const calibrated = estimates.advanceCalibration(over);
    const missing = asked.filter((r) => !known.has(r.id));
    const shown = calibrated && missing.length > 0 ? shownTexts(view, missing) : new Map<string, string>();
    const reductions: { id: string; hidden: TokenEstimate | null; original: TokenEstimate | null }[] = [];
    const pending: string[] = [];
    let counted = 0;
    for (const r of asked) {
      let figures = known.get(r.id);
      if (!figures && calibrated && (counted === 0 || !over())) {
        figures = estimates.reductionEstimate(r, shown.get(r.id) ?? '', view.minted);
        known.set(r.id, figures);
        counted++;
      }
      if (figures) reductions.push({ id: r.id, ...figures });
      else pending.push(r.id);
    }
    return ok({ reductions, pending, unknown, sampling: { ...SAMPLING } });
  });
