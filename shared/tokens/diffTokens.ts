/**
 * SPEC §16 `diff`: the tokens of a diff each way, as plain data (the counting is the Node side's,
 * electron/tokens/diffTokens.ts). docs/diff.md "Tokens".
 */
import type { TokenEstimate } from './estimate';

/**
 * An end whose context the file does not record, beside one whose it does: that recorded context
 * and the estimated change between the two ends (docs/diff.md "Tokens"). An estimate of the
 * messages alone leaves out what the agent sends and does not record (its system prompt, its tool
 * schemas), and beside a recorded figure it would read as a fall.
 */
export type AnchoredEstimate = TokenEstimate & { from_recorded: { call: number; tokens: number } };

/** A call's context: as the file records it, else estimated (marked), from the other end's recorded context where only that one has it. */
export type ContextFigure = { tokens: number; source: 'recorded' } | TokenEstimate | AnchoredEstimate;

/** Tokens of the two ends of a diff and of what changed between them, each way. */
export interface DiffTokens {
  /** The context of each end: the file's recorded context of that call, else the estimate of its input. */
  from: ContextFigure;
  to: ContextFigure;
  /** Messages `to` holds past the end of `from`, as `to` was given them. */
  added: TokenEstimate;
  /** Messages `from` holds past the end of `to`, as `from` was given them. */
  dropped: TokenEstimate;
  /** The reduced runs as each end was given them: `from − to` is what the reductions hid. */
  reduced: { from: TokenEstimate; to: TokenEstimate };
  /** The restored runs as each end was given them: `to − from` is what came back. */
  restored: { from: TokenEstimate; to: TokenEstimate };
  /** Set when the runs totalled are the first `changed.length` of more (the app's reply lists at most MAX_DIFF_CHANGED). */
  runs_listed?: number;
}
