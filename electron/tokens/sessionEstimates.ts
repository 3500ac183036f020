/**
 * SPEC §15 estimates over one loaded session: per message of a call's input (cached per message
 * for the session's life), per hidden original, the context breakdown at a call, and the
 * calibration against the context the file records from call to call (docs/token-estimates.md).
 *
 * Cache key of a message: its view index and the ids of the reductions applied to it. Within one
 * loaded session the minted view's message at an index does not change (a followed file only
 * appends), and the text the model was shown there is fixed by the reductions applied: so a key
 * names one text, whichever call's input it appears in.
 */
import type { MessageList, Reduction } from '../../shared/format/types';
import type { ViewEntry } from '../../shared/calls/calls';
import { viewEntries } from '../../shared/calls/calls';
import { inSource } from '../../shared/calls/whatIf';
import { projectView } from '../../shared/resolver/project';
import { resolveOriginal } from '../../shared/resolver/original';
import type { ContextBreakdown } from '../../shared/tokens/breakdown';
import { contextBreakdown } from '../../shared/tokens/breakdown';
import type { Calibration, GrowthPair } from '../../shared/tokens/calibration';
import { CLAUDE_DEFAULT, calibrate, calibrated } from '../../shared/tokens/calibration';
import type { TokenEstimate } from '../../shared/tokens/estimate';
import { isClaudeModel, sumEstimates, tokenEstimate } from '../../shared/tokens/estimate';
import type { LoadedSession } from '../loader/session';
import { nodeSha256 } from '../loader/session';
import { countText, estimateSource, estimateText } from './counter';

/** The context the file records for call N (1-based), where it records one (SPEC §15 recorded usage). */
export type RecordedContext = (call: number) => number | undefined;

/** The context the file recorded at each call (SPEC §15, LoadedSession.callTokens): what calibration fits estimates to. */
export function recordedContextOf(session: Pick<LoadedSession, 'callTokens'>): RecordedContext {
  return (call) => session.callTokens(call)?.context;
}

export interface CallEstimate {
  /** Per entry of the call's input, in order: in the file's tokens where calibrated. */
  messages: TokenEstimate[];
  total: TokenEstimate;
}

/** What `hidden_tokens_est` says of a reduction: the original's estimate minus what replaced it, at least 0. */
export interface HiddenEstimate {
  id: string;
  hidden: TokenEstimate | null;
}

export class SessionEstimates {
  private readonly raw = new Map<string, TokenEstimate>();
  private calibrationMemo: Calibration | null | undefined;

  constructor(
    private readonly session: Pick<LoadedSession, 'model' | 'modelChanges' | 'calls' | 'callInput' | 'instructionsAt' | 'log' | 'minted' | 'recorded'>,
    private readonly recordedContext?: RecordedContext,
  ) {}

  /** A Claude model answered some call of the session: its estimates are approximate. */
  get approximate(): boolean {
    return isClaudeModel(this.session.model) || this.session.modelChanges.some((c) => isClaudeModel(c.from) || isClaudeModel(c.to));
  }

  /** The o200k estimate of one entry of an input (content and tool calls), cached per message. */
  entryRaw(entry: ViewEntry, view: MessageList): TokenEstimate {
    const key = `${entry.index}|${entry.reductions.join(',')}`;
    const known = this.raw.get(key);
    if (known) return known;
    const source = inSource(entry, view);
    const content = source ? estimateSource(source) : estimateText(entry.content);
    let calls = 0;
    for (const c of entry.tool_calls ?? []) calls += countText(c.name) + countText(c.arguments);
    const estimate = tokenEstimate(content.tokens + calls + this.thinkingOf(entry, view), { sampled: content.sampled === true });
    this.raw.set(key, estimate);
    return estimate;
  }

  /**
   * The thinking an assistant message's record keeps beside its content (an importer's
   * `metadata.thinking`): Claude models from Opus 4.5 on keep earlier turns' thinking in the
   * context, and counting it brings the estimate of the real files' growth from 20 % to 9 % median
   * error (docs/token-estimates.md). A reduced message shows its stub only.
   */
  private thinkingOf(entry: ViewEntry, view: MessageList): number {
    if (entry.reductions.length > 0 || entry.role !== 'assistant') return 0;
    const thinking = view.at(entry.index)?.metadata?.thinking;
    return typeof thinking === 'string' ? countText(thinking) : 0;
  }

  /** The estimate in the file's tokens: calibrated, and marked approximate for a Claude model. */
  private presented(raw: TokenEstimate): TokenEstimate {
    return tokenEstimate(calibrated(raw.tokens, this.calibration()), { approximate: this.approximate, sampled: raw.sampled === true });
  }

  private rawTotal(call: number | null): { entries: ViewEntry[]; raw: TokenEstimate[]; input: NonNullable<ReturnType<LoadedSession['callInput']>> } | undefined {
    const input = this.session.callInput(call);
    if (!input) return undefined;
    const entries = viewEntries(input);
    return { entries, raw: entries.map((e) => this.entryRaw(e, input.minted)), input };
  }

  /** Per-message and total estimates of call N's input (null: the latest view). */
  callEstimate(call: number | null): CallEstimate | undefined {
    const input = this.session.callInput(call);
    return input ? this.entriesEstimate(viewEntries(input), input.minted) : undefined;
  }

  /** Per-entry and total estimates of the entries of an input whose minted view is `view`. */
  entriesEstimate(entries: readonly ViewEntry[], view: MessageList): CallEstimate {
    const messages = entries.map((e) => this.presented(this.entryRaw(e, view)));
    return { messages, total: sumEstimates(messages, { approximate: this.approximate }) };
  }

  /**
   * The call-to-call pairs of the file: recorded growth of the context from call N to N+1 and the
   * estimated growth (the raw o200k total of input N+1 minus that of input N). Only where the file
   * records both calls' context.
   */
  growthPairs(): GrowthPair[] {
    const recorded = this.recordedContext;
    if (!recorded) return [];
    const pairs: GrowthPair[] = [];
    let previous: { recorded: number; estimated: number } | undefined;
    for (const { call } of this.session.calls) {
      const ctx = recorded(call);
      const r = ctx === undefined ? undefined : this.rawTotal(call);
      const estimated = r ? r.raw.reduce((n, e) => n + e.tokens, 0) : undefined;
      if (ctx !== undefined && estimated !== undefined && previous) pairs.push({ recorded: ctx - previous.recorded, estimated: estimated - previous.estimated });
      previous = ctx !== undefined && estimated !== undefined ? { recorded: ctx, estimated } : undefined;
    }
    return pairs;
  }

  /**
   * The calibration the estimates use: the file's own fit where it records enough calls, else
   * for a Claude model the measured default, else none (o200k is the tokenizer of the OpenAI
   * models the other formats record).
   */
  calibration(): Calibration | undefined {
    if (this.calibrationMemo === undefined) this.calibrationMemo = calibrate(this.growthPairs(), this.approximate ? CLAUDE_DEFAULT : undefined) ?? null;
    return this.calibrationMemo ?? undefined;
  }

  /** SPEC §15 context breakdown at call N (null: the latest view). */
  breakdown(call: number | null): ContextBreakdown | undefined {
    const r = this.rawTotal(call);
    if (!r) return undefined;
    const kinds = new Map(r.input.log.map((x) => [x.id, x.kind]));
    const messages = r.entries.map((e, k) => ({ role: e.role, summary: e.reductions.some((id) => kinds.get(id) === 'summarized'), tokens: this.presented(r.raw[k] as TokenEstimate).tokens }));
    let instructions = 0;
    for (const i of this.session.instructionsAt(call) ?? []) instructions += this.presented(estimateText(i.text)).tokens;
    const recorded = call === null ? undefined : this.recordedContext?.(call);
    return contextBreakdown(messages, { instructions, approximate: this.approximate, ...(recorded !== undefined ? { recorded } : {}) });
  }

  /**
   * `hidden_tokens_est` of each reduction of the live log: the estimate of its original minus that
   * of what the model was shown in its place (the stub, a kept prefix, a summary), at least 0;
   * null when the file does not hold the original or it cannot be read.
   */
  hiddenEstimates(): HiddenEstimate[] {
    const { log, minted, recorded } = this.session;
    const shown = new Map<string, string>();
    for (const row of projectView(minted, log)) if (row.applied !== undefined && !shown.has(row.applied)) shown.set(row.applied, row.text);
    return log.map((r: Reduction) => {
      const original = resolveOriginal(r, minted, recorded, { sha256: nodeSha256 });
      if (!original.ok) return { id: r.id, hidden: null };
      let hidden: TokenEstimate;
      try {
        const whole = estimateSource(original.value.bytes);
        const replaced = countText(shown.get(r.id) ?? '');
        hidden = tokenEstimate(Math.max(0, whole.tokens - replaced), { sampled: whole.sampled === true });
      } catch {
        return { id: r.id, hidden: null };
      }
      return { id: r.id, hidden: this.presented(hidden) };
    });
  }
}
