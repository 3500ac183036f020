/**
 * Claude Code `attachment` records as context the model is given (docs/formats/claude-code.md,
 * "Attachments"): which kinds Claude Code turns into a message for the model, and the text of
 * each as the record holds it.
 */

/** Kinds Claude Code keeps for its own UI and never sends (checked in 2.1.91's `normalizeAttachmentForAPI`). */
const NOT_GIVEN = new Set([
  'already_read_file',
  'command_permissions',
  'edited_image_file',
  'hook_cancelled',
  'hook_error_during_execution',
  'hook_non_blocking_error',
  'hook_system_message',
  'structured_output',
  'hook_permission_decision',
  'hook_deferred_tool',
  'autocheckpointing',
  'background_task_status',
  'todo',
  'task_progress',
  'ultramemory',
]);

/** Kinds 2.1.91 sends (some only when not empty, see `givenAttachment`); a kind in neither set is newer. */
const GIVEN = new Set([
  'directory',
  'edited_text_file',
  'file',
  'compact_file_reference',
  'pdf_reference',
  'selected_lines_in_ide',
  'opened_file_in_ide',
  'plan_file_reference',
  'invoked_skills',
  'todo_reminder',
  'task_reminder',
  'nested_memory',
  'relevant_memories',
  'dynamic_skill',
  'skill_listing',
  'queued_command',
  'output_style',
  'diagnostics',
  'plan_mode',
  'plan_mode_reentry',
  'plan_mode_exit',
  'auto_mode',
  'auto_mode_exit',
  'critical_system_reminder',
  'mcp_resource',
  'agent_mention',
  'task_status',
  'async_hook_response',
  'token_usage',
  'budget_usd',
  'output_token_usage',
  'hook_blocking_error',
  'hook_success',
  'hook_additional_context',
  'hook_stopped_continuation',
  'compaction_reminder',
  'context_efficiency',
  'date_change',
  'ultrathink_effort',
  'deferred_tools_delta',
  'agent_listing_delta',
  'mcp_instructions_delta',
  'companion_intro',
  'verify_plan_reminder',
  'teammate_mailbox',
  'team_context',
]);

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] | undefined => (Array.isArray(v) && v.every((x) => typeof x === 'string') ? v : undefined);
const emptyList = (v: unknown): boolean => Array.isArray(v) && v.length === 0;

/**
 * Whether the model is given attachment `a`: `true`, `false`, or `'unconfirmed'` for a kind newer
 * than the version checked. Claude Code sends nothing for an empty listing and, of the hook
 * successes, only a SessionStart or UserPromptSubmit hook's non-empty output.
 */
export function givenAttachment(a: Record<string, unknown>): boolean | 'unconfirmed' {
  const kind = typeof a.type === 'string' ? a.type : '';
  if (NOT_GIVEN.has(kind)) return false;
  if (!GIVEN.has(kind)) return 'unconfirmed';
  switch (kind) {
    case 'hook_success':
      return (a.hookEvent === 'SessionStart' || a.hookEvent === 'UserPromptSubmit') && typeof a.content === 'string' && a.content !== '';
    case 'hook_additional_context':
      return !emptyList(a.content);
    case 'skill_listing':
      return typeof a.content === 'string' && a.content !== '';
    case 'diagnostics':
      return !emptyList(a.files);
    case 'invoked_skills':
      return !emptyList(a.skills);
    default:
      return true;
  }
}

/**
 * The attachment's text as the record holds it: its one text field (`content`, `prompt`,
 * `snippet`, `addedBlocks`, `addedLines`), else the record's fields as JSON. Claude Code wraps it
 * in words of its own (a `<system-reminder>`, a preamble) that the file does not record.
 */
export function attachmentText(a: Record<string, unknown>): string {
  if (typeof a.content === 'string') return a.content;
  const content = strings(a.content);
  if (content && content.length > 0) return content.join('\n');
  if (typeof a.prompt === 'string') return a.prompt;
  if (typeof a.snippet === 'string') return a.snippet;
  const blocks = strings(a.addedBlocks);
  if (blocks && blocks.length > 0) return blocks.join('\n\n');
  const lines = strings(a.addedLines);
  if (lines && lines.length > 0) return lines.join('\n');
  const rest = Object.fromEntries(Object.entries(a).filter(([k]) => k !== 'type'));
  return JSON.stringify(rest, null, 2);
}

/** The attachment object of an `attachment` record, or undefined. */
export function attachmentOf(record: Record<string, unknown>): Record<string, unknown> | undefined {
  return record.type === 'attachment' && isObj(record.attachment) ? record.attachment : undefined;
}
