/**
 * SPEC §15 "Context breakdown": what filled the context at one call. The messages of the call's
 * input are sorted into the parts a user asks about, each part the sum of its messages'
 * estimates; what the agent sent and did not record (its system prompt, tool schemas) is the
 * recorded context minus that sum, `not_in_file`, known only where the file records the context.
 */
import type { Role } from '../format/types';

/** One message of a call's input with its estimate (in the file's tokens when calibrated). */
export interface BreakdownMessage {
  /** null: a cleared range's stub or a message whose record could not be read. */
  role: Role | null;
  /** The message is a compaction's summary (a `summarized` reduction's stub). */
  summary?: boolean;
  tokens: number;
}

export type BreakdownPart = 'system' | 'user' | 'assistant' | 'tool_results' | 'summaries' | 'other';

export interface ContextBreakdown {
  /** System and developer messages, and the instructions the file records outside the messages. */
  system: number;
  /** The user's prompts. */
  user: number;
  /** The assistant's text and tool calls. */
  assistant: number;
  tool_results: number;
  /** Compaction summaries standing for earlier messages. */
  summaries: number;
  /** Cleared ranges' stubs and unreadable records. */
  other: number;
  /** The sum of the parts above. */
  in_file: number;
  source: 'estimated';
  approximate?: true;
  /** The context the file records for this call, when it records one. */
  recorded?: number;
  /** `recorded − in_file`: what the agent sent and did not record; negative when the estimates overshoot. */
  not_in_file?: number;
}

export function breakdownPart(m: Pick<BreakdownMessage, 'role' | 'summary'>): BreakdownPart {
  if (m.summary) return 'summaries';
  switch (m.role) {
    case 'system':
      return 'system';
    case 'user':
      return 'user';
    case 'assistant':
      return 'assistant';
    case 'tool':
      return 'tool_results';
    default:
      return 'other';
  }
}

/**
 * The breakdown of one call's input. `instructions` are the tokens of what the file records as
 * given outside the messages (counted with system); `recorded` the call's recorded context.
 */
export function contextBreakdown(messages: readonly BreakdownMessage[], options: { instructions?: number; recorded?: number; approximate?: boolean } = {}): ContextBreakdown {
  const parts: Record<BreakdownPart, number> = { system: options.instructions ?? 0, user: 0, assistant: 0, tool_results: 0, summaries: 0, other: 0 };
  for (const m of messages) parts[breakdownPart(m)] += m.tokens;
  const inFile = parts.system + parts.user + parts.assistant + parts.tool_results + parts.summaries + parts.other;
  return {
    ...parts,
    in_file: inFile,
    source: 'estimated',
    ...(options.approximate ? { approximate: true as const } : {}),
    ...(options.recorded !== undefined ? { recorded: options.recorded, not_in_file: options.recorded - inFile } : {}),
  };
}
