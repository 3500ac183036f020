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
import type { HiddenTokens, HiddenTokensOfView, ReductionEstimate } from '../../tokens/sessionEstimates';
import { sessionEstimates } from '../../tokens/sessionEstimates';
import { ok } from '../replies';
import type { CallView, OpenSession } from '../state';
import { callView } from './calls';
import type { Handler } from './handler';
import { reductionsById } from './rows';

/** The most one request counts for before it answers the rest as pending (one large original may take longer). */
export const HIDDEN_TOKENS_BUDGET_MS = 100;

/** Rows this close together are projected in one window. */
const ROW_GAP = 32;


/** The open's reductions' figures, on the session's one estimator (the map's too: electron/worker/tokenMap.ts tokenCache). */
function hiddenTokensOf(open: OpenSession): HiddenTokens {
  return (open.hiddenTokens ??= { estimates: sessionEstimates(open.session), byView: new WeakMap() });
}

/**
 * Projects the rows of `wanted` that `of` has not projected yet, in windows of nearby rows, and
 * keeps the text the model was shown in place of the reduction applied at each (a reduction that
 * is not the one applied at its first index was shown nothing, as `log`'s hidden_tokens_est counts it).
 */
function projectRowsOf(view: CallView, wanted: readonly Reduction[], of: HiddenTokensOfView): void {
  const todo = new Set<number>();
  for (const r of wanted) {
    const row = rowOfIndex(view.layout, r.ptr.index);
    if (row >= 0 && !of.projected.has(row)) todo.add(row);
  }
  const rows = [...todo].sort((a, b) => a - b);
  for (let k = 0; k < rows.length; ) {
    const start = rows[k] as number;
    let end = start;
    while (k < rows.length && (rows[k] as number) - end <= ROW_GAP) end = rows[k++] as number;
    for (const p of projectView(view.minted, view.log, { start, end: end + 1 }, view.layout)) {
      of.projected.add(p.row);
      if (p.applied !== undefined) of.shown.set(p.applied, p.text);
    }
  }
}

export const hiddenTokens: Handler<'hiddenTokens'> = (request, state) =>
  state.withSession('hiddenTokens', (open) => {
    const view = callView(open, request.call);
    if ('ok' in view) return view;
    const started = performance.now();
    const over = (): boolean => performance.now() - started > HIDDEN_TOKENS_BUDGET_MS;
    const { estimates, byView } = hiddenTokensOf(open);
    let of = byView.get(view.minted);
    if (!of) byView.set(view.minted, (of = { known: new Map<string, ReductionEstimate>(), shown: new Map<string, string>(), projected: new Set<number>() }));
    const { known } = of;
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
    if (calibrated && missing.length > 0) projectRowsOf(view, missing, of);
    const reductions: { id: string; hidden: TokenEstimate | null; original: TokenEstimate | null }[] = [];
    const pending: string[] = [];
    let counted = 0;
    for (const r of asked) {
      let figures = known.get(r.id);
      if (!figures && calibrated && (counted === 0 || !over())) {
        figures = estimates.reductionEstimate(r, of.shown.get(r.id) ?? '', view.minted);
        known.set(r.id, figures);
        counted++;
      }
      if (figures) reductions.push({ id: r.id, ...figures });
      else pending.push(r.id);
    }
    return ok({ reductions, pending, unknown, sampling: { ...SAMPLING } });
  });
