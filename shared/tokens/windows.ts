/**
 * Context windows of model families, for files that do not record their own (SPEC §15 "Window";
 * docs/tokens.md "The window table"). A file's own figure (Codex `model_context_window`) always
 * wins; a model this table does not know has no window (no line is drawn, no gate applies).
 *
 * Each row names where its figure comes from and when it was read. Model ids carry no marker of a
 * larger window bought by a beta header (Claude's 1M context), so the table gives the window the
 * model has without one.
 */

export interface WindowRow {
  /** Matched against the model id without its provider prefix (`openai/gpt-4o` → `gpt-4o`), first row wins. */
  pattern: RegExp;
  /** Input tokens the model accepts. */
  window: number;
  source: string;
  /** When the source was read (YYYY-MM-DD). */
  read: string;
}

const ANTHROPIC_MODELS = 'https://platform.claude.com/docs/en/about-claude/models/overview';
const CODEX_MODEL_INFO = 'https://github.com/openai/codex/blob/15667625/codex-rs/core/src/openai_model_info.rs';

/** Most specific first. */
export const WINDOW_TABLE: readonly WindowRow[] = [
  // Anthropic: 1M for Opus 4.7 and Sonnet 4.6 by default; 200K for the other Claude 3.x/4/4.5 models.
  { pattern: /^claude-(opus-4-7|sonnet-4-6)\b/, window: 1_000_000, source: ANTHROPIC_MODELS, read: '2026-11-20' },
  { pattern: /^claude-/, window: 200_000, source: ANTHROPIC_MODELS, read: '2026-11-20' },
  // OpenAI, as Codex's own table gives them (input tokens).
  { pattern: /^(gpt-5|codex-)/, window: 272_000, source: CODEX_MODEL_INFO, read: '2026-11-20' },
  { pattern: /^gpt-4\.1/, window: 1_047_576, source: CODEX_MODEL_INFO, read: '2026-11-20' },
  { pattern: /^gpt-4o/, window: 128_000, source: CODEX_MODEL_INFO, read: '2026-11-20' },
  { pattern: /^(o3|o4-mini)/, window: 200_000, source: CODEX_MODEL_INFO, read: '2026-11-20' },
  { pattern: /^gpt-oss/, window: 96_000, source: CODEX_MODEL_INFO, read: '2026-11-20' },
  { pattern: /^gpt-3\.5-turbo/, window: 16_385, source: CODEX_MODEL_INFO, read: '2026-11-20' },
];

/** The table's window for `model` (a provider prefix ignored), or undefined when no row matches. */
export function tableWindow(model: string | null | undefined, table: readonly WindowRow[] = WINDOW_TABLE): number | undefined {
  if (!model) return undefined;
  const id = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  return table.find((row) => row.pattern.test(id))?.window;
}
