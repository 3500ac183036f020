/**
 * SPEC §15 "Gates for CI", `check --must-see Q`: an error finding `required_hidden` when a match of
 * Q lies in content hidden from the model at the latest view (or at call N), naming the reduction
 * that hides it there, the call that hid it (trace's `hidings`, shared/calls/trace.ts) and a link
 * (§12) that opens the session at that place with the reduction expanded over the match. One
 * finding per query and hiding reduction (its first match named, the rest counted); a query that
 * matches nothing in the session is a warning `required_not_found`: a gate on text the session
 * never held passes vacuously, most likely a typo. docs/trace.md describes the gate.
 */
import { formatLink } from '../links/link';
import type { Result } from '../format/types';
import { ok } from '../format/types';
import type { TraceHiding, TraceOccurrence, TraceOptions, TraceResult, TraceSession } from './trace';
import { trace } from './trace';

/** Matches a gate follows per query (all are counted; past this the summary says `truncated`). */
export const MUST_SEE_MAX_OCCURRENCES = 10_000;

export interface GateFinding {
  code: 'required_hidden' | 'required_not_found';
  severity: 'error' | 'warning';
  message: string;
  query: string;
  reduction_id?: string;
  kind?: string;
  /** The view index of the first match hidden by this reduction. */
  index?: number;
  /** The first call that no longer saw that match (C+1: only the latest view hides it). */
  hidden_at_call?: number;
  /** How many matches of the query this reduction hides there. */
  matches?: number;
  /** A §12 fragment: the call (absent: the latest view), the reduction, the match's range in its original, the query. */
  link?: string;
}

/** Per query: what the gate saw. */
export interface MustSeeSummary {
  query: string;
  matches: number;
  hidden: number;
  /** More matches than the gate followed (MUST_SEE_MAX_OCCURRENCES): only those were checked. */
  truncated: boolean;
}

export interface MustSeeOptions extends Omit<TraceOptions, 'max_occurrences'> {
  /** The call checked (1…C); absent or null: the latest view. */
  at?: number | null;
}

/** The hiding that began the stretch the occurrence is hidden in at `at` (the latest view for null). */
function hidingThere(o: TraceOccurrence, at: number | null): TraceHiding | undefined {
  if (at === null) return o.hidden_by ?? undefined;
  let found: TraceHiding | undefined;
  for (const h of o.hidings) if (h.call <= at) found = h;
  return found;
}

const plural = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 'es'}`;

function findingsOf(result: TraceResult, options: MustSeeOptions): GateFinding[] {
  const at = options.at ?? null;
  const where = at === null ? 'the latest view' : `call ${at}`;
  const q = JSON.stringify(result.query);
  if (result.total_matches === 0) {
    return [{ code: 'required_not_found', severity: 'warning', message: `--must-see ${q} matches nothing in the session: the gate checks nothing`, query: result.query }];
  }
  const byReduction = new Map<string, TraceOccurrence[]>();
  for (const o of result.occurrences) {
    if (!o.at.in_input || o.at.visible || !o.bytes_at) continue;
    byReduction.set(o.bytes_at.reduction, [...(byReduction.get(o.bytes_at.reduction) ?? []), o]);
  }
  const findings: GateFinding[] = [];
  for (const [reduction, occurrences] of byReduction) {
    const first = occurrences[0] as TraceOccurrence;
    const bytes = first.bytes_at as NonNullable<TraceOccurrence['bytes_at']>;
    const hiding = hidingThere(first, at);
    const link = formatLink({
      ...(at !== null ? { call: at } : {}),
      reduction,
      ...(bytes.range ? { range: bytes.range } : {}),
      q: result.query,
      ...(result.mode === 'regex' ? { regex: true } : {}),
      ...(!result.case_sensitive ? { caseSensitive: false } : {}),
    });
    const since = hiding ? (hiding.call > result.calls ? ', since after the last call' : `, since call ${hiding.call}`) : '';
    findings.push({
      code: 'required_hidden',
      severity: 'error',
      message: `--must-see ${q}: ${plural(occurrences.length, 'match')} hidden from the model at ${where} by ${bytes.kind} ${reduction}${since} (first in message ${first.message_index})`,
      query: result.query,
      reduction_id: reduction,
      kind: bytes.kind,
      index: first.message_index,
      ...(hiding ? { hidden_at_call: hiding.call } : {}),
      matches: occurrences.length,
      link,
    });
  }
  return findings;
}

/** The gate over each query: its findings and a summary per query; an invalid pattern is an error. */
export function mustSee(session: TraceSession, queries: readonly string[], options: MustSeeOptions = {}): Result<{ findings: GateFinding[]; summary: MustSeeSummary[] }> {
  const findings: GateFinding[] = [];
  const summary: MustSeeSummary[] = [];
  for (const query of queries) {
    const result = trace(session, query, { ...options, max_occurrences: MUST_SEE_MAX_OCCURRENCES });
    if (!result.ok) return result;
    const found = findingsOf(result.value, options);
    findings.push(...found);
    summary.push({ query, matches: result.value.total_matches, hidden: found.reduce((n, f) => n + (f.matches ?? 0), 0), truncated: result.value.truncated });
  }
  return ok({ findings, summary });
}
