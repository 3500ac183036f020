/**
 * What an Inspect `.eval` log says of each sample without the sample: its summaries
 * (`summaries.json`, else `_journal/summaries/*.json`: one EvalSampleSummary per sample and epoch;
 * docs/formats/inspect.md). Read at the open, so `check` and the session picker list every
 * sample's title, recorded message count, scores, models and tokens before any sample is inflated.
 */
import type { RecordedSample } from '../../../shared/resolver/session';
import { MAX_RECORDED_SCORES, MAX_RECORDED_TEXT } from '../../../shared/resolver/session';
import { isPlainObject } from '../common/json';

type Obj = Record<string, unknown>;

const cut = (text: string): string => {
  const chars = [...text];
  return chars.length > MAX_RECORDED_TEXT ? `${chars.slice(0, MAX_RECORDED_TEXT).join('')}…` : text;
};

const count = (v: unknown): number | undefined => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined);

/** A score's value as text: a number, a letter, true/false, or a list or mapping of them as JSON. */
function scoreText(v: unknown): string | undefined {
  if (typeof v === 'string') return cut(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v === null) return 'null';
  if (Array.isArray(v) || isPlainObject(v)) {
    try {
      return cut(JSON.stringify(v));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** What one summary records, or undefined when it records none of it. */
export function recordedOf(summary: Obj): RecordedSample | undefined {
  const out: RecordedSample = {};
  const messages = count(summary.message_count);
  if (messages !== undefined) out.messages = messages;
  if (isPlainObject(summary.scores)) {
    const scores: Record<string, string> = {};
    for (const [name, score] of Object.entries(summary.scores).slice(0, MAX_RECORDED_SCORES)) {
      const text = isPlainObject(score) ? scoreText(score.value) : undefined;
      if (text !== undefined) scores[cut(name)] = text;
    }
    if (Object.keys(scores).length > 0) out.scores = scores;
  }
  if (isPlainObject(summary.model_usage)) {
    const models = Object.keys(summary.model_usage);
    if (models.length > 0) out.models = models.slice(0, MAX_RECORDED_SCORES).map(cut);
    let tokens = 0;
    let any = false;
    for (const usage of Object.values(summary.model_usage)) {
      const t = isPlainObject(usage) ? count(usage.total_tokens) : undefined;
      if (t !== undefined) {
        tokens += t;
        any = true;
      }
    }
    if (any && Number.isSafeInteger(tokens)) out.tokens = tokens;
  }
  const error = isPlainObject(summary.error) ? summary.error.message : summary.error;
  if (typeof error === 'string' && error.length > 0) out.error = cut(error.split('\n', 1)[0] ?? error);
  const limit = isPlainObject(summary.limit) ? summary.limit.type : summary.limit;
  if (typeof limit === 'string' && limit.length > 0) out.limit = cut(limit);
  return Object.keys(out).length > 0 ? out : undefined;
}
