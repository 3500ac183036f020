/**
 * Text an agent gives the model outside the messages of its view: Codex's `base_instructions`
 * (the Responses API's `instructions` of every request) and the Claude Code `attachment` records
 * that Claude Code turns into context for the model (docs/formats/codex.md,
 * docs/formats/claude-code.md). They are not rows of the view — SPEC §11's `messages` stay the
 * messages — but they are part of what a call was given, so each carries the interval of lines
 * over which it was given, as a reduction's span does (shared/calls/calls.ts).
 */

/** Where the agent's file keeps an instruction. */
export type InstructionSource = 'codex_base_instructions' | 'claude_code_attachment';

/**
 * How a provider's request carries it (what an export puts where): `instructions` — the request's
 * own instructions (the Responses API's `instructions`, a system prompt), before every message;
 * `user_message` — inside a user message, after the view's messages `[0, index)`.
 */
export type InstructionPlacement = 'instructions' | 'user_message';

export interface Instruction {
  source: InstructionSource;
  /** What the record calls it: a Claude Code attachment's `type` (`skill_listing`, `edited_text_file`…); absent for base instructions. */
  kind?: string;
  placement: InstructionPlacement;
  /** View index it is given before (0 for `instructions`): the view's messages `[0, index)` come before it. */
  index: number;
  /** 1-based line of its record: the calls after this line are given it. */
  line: number;
  /** Line from which it is no longer given (a compaction that summarized it away); absent: to the end. */
  to?: number;
  /** The text as the record holds it. */
  text: string;
  /** A kind newer than the agent's version whose handling was checked: shown, though that it reaches the model is not confirmed. */
  unconfirmed?: true;
}

/**
 * The instructions a call whose record is at line `line` was given (it follows their record and
 * precedes their end), or, for null, those still given after the last record (the latest view:
 * what a next call would be given). In file order.
 */
export function instructionsAt(all: readonly Instruction[], line: number | null): Instruction[] {
  return all.filter((i) => (line === null ? i.to === undefined : i.line < line && (i.to === undefined || line < i.to)));
}
