/**
 * The what-if policy editor (the `What if` tab). A form with the policy's fields
 * (SPEC §3.4), validated by the contract's `reductionPolicySchema`, shows the session re-projected
 * under that policy against what the agent really did: the counts (`view --policy`'s diff), the
 * bytes the model would have been given, and the messages shown differently, each one a button to
 * its row in the projected view.
 */
import type { FormEvent } from 'react';
import { useState } from 'react';
import { reductionPolicySchema } from '../../../shared/format/schema';
import type { ReductionPolicy } from '../../../shared/format/types';
import { useApp } from '../../store/storeContext';
import { countOf, formatCount } from '../../text/format';
import './policyEditor.css';

/** The form's fields, in the order of §3.4; the labels are the policy's own field names. */
const NUMBER_FIELDS = ['protect_last_n_tool_results', 'max_tool_result_bytes', 'kept_prefix_bytes', 'clear_turns_before'] as const;
type NumberField = (typeof NUMBER_FIELDS)[number];

/** What a session without a policy starts from: the sample generator's policy, nothing cleared. */
const STARTING_POLICY: ReductionPolicy = { protect_last_n_tool_results: 2, max_tool_result_bytes: 4096, kept_prefix_bytes: 1024, dedupe: true, clear_turns_before: null };

const HINTS: Record<NumberField | 'dedupe', string> = {
  protect_last_n_tool_results: 'the newest tool results never reduced',
  max_tool_result_bytes: 'a tool result over this many bytes is reduced',
  kept_prefix_bytes: 'bytes a truncated result keeps',
  clear_turns_before: 'view index before which turns are cleared (empty: none)',
  dedupe: 'a later identical tool result becomes a duplicate of the first',
};

type Draft = Record<NumberField, string> & { dedupe: boolean };

function draftOf(policy: ReductionPolicy): Draft {
  return {
    protect_last_n_tool_results: String(policy.protect_last_n_tool_results),
    max_tool_result_bytes: String(policy.max_tool_result_bytes),
    kept_prefix_bytes: String(policy.kept_prefix_bytes),
    clear_turns_before: policy.clear_turns_before == null ? '' : String(policy.clear_turns_before),
    dedupe: policy.dedupe,
  };
}

/** The draft as a policy, or the message of each field the schema refuses. */
function parseDraft(draft: Draft): { ok: true; policy: ReductionPolicy } | { ok: false; errors: Partial<Record<NumberField, string>> } {
  const number = (text: string) => (text.trim() === '' ? Number.NaN : Number(text));
  const candidate = {
    protect_last_n_tool_results: number(draft.protect_last_n_tool_results),
    max_tool_result_bytes: number(draft.max_tool_result_bytes),
    kept_prefix_bytes: number(draft.kept_prefix_bytes),
    dedupe: draft.dedupe,
    clear_turns_before: draft.clear_turns_before.trim() === '' ? null : number(draft.clear_turns_before),
  };
  const parsed = reductionPolicySchema.safeParse(candidate);
  if (parsed.success) return { ok: true, policy: parsed.data };
  const errors: Partial<Record<NumberField, string>> = {};
  for (const issue of parsed.error.issues) {
    const field = issue.path[0];
    if (typeof field === 'string' && (NUMBER_FIELDS as readonly string[]).includes(field)) errors[field as NumberField] = 'must be a whole number, 0 or more';
  }
  return { ok: false, errors };
}

const bytes = (n: number | null) => (n === null ? '—' : `${formatCount(n)} B`);

function WhatIfResult() {
  const status = useApp((s) => s.whatIfStatus);
  const result = useApp((s) => s.whatIfResult);
  const error = useApp((s) => s.whatIfError);
  const goToIndex = useApp((s) => s.goToIndex);
  if (status === 'idle') return null;
  if (status === 'running') return <p className="panel-note" role="status">Re-projecting the session…</p>;
  if (status === 'error' || !result) return <p className="panel-note is-error" role="status">{`The what-if could not run: ${error?.message ?? 'unknown error'}`}</p>;
  if (result.note) return <p className="panel-note" role="status">{result.note}</p>;
  const { counts } = result;
  return (
    <div className="what-if-result">
      <ul className="what-if-counts" aria-label="What-if counts">
        <li>{`${countOf(counts.added, 'reduction')} added`}</li>
        <li>{`${countOf(counts.removed, 'reduction')} removed`}</li>
        <li>{`${countOf(counts.changed, 'reduction')} changed`}</li>
        <li>{`${countOf(counts.messages, 'message')} shown differently`}</li>
        <li>{`bytes given: ${bytes(result.bytes.recorded)} recorded, ${bytes(result.bytes.policy)} under this policy`}</li>
      </ul>
      {result.messages.length > 0 && (
        <ol className="what-if-messages" aria-label="Messages shown differently">
          {result.messages.map((m) => (
            <li key={m.index}>
              <button type="button" onClick={() => void goToIndex(m.index)}>{`Go to message ${m.index}`}</button>
              <span className="what-if-sizes">{`${m.role ?? 'range'}: ${bytes(m.recorded_bytes)} recorded → ${bytes(m.policy_bytes)}`}</span>
            </li>
          ))}
        </ol>
      )}
      {counts.messages > result.messages.length && <p className="panel-note">{`…and ${formatCount(counts.messages - result.messages.length)} more (view --policy on the command line lists all of them).`}</p>}
    </div>
  );
}

export function PolicyEditor() {
  const sessionPolicy = useApp((s) => s.session?.policy ?? null);
  const hasSession = useApp((s) => s.session !== null);
  const runWhatIf = useApp((s) => s.runWhatIf);
  const [draft, setDraft] = useState<Draft>(() => draftOf(sessionPolicy ?? STARTING_POLICY));
  const [errors, setErrors] = useState<Partial<Record<NumberField, string>>>({});

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = parseDraft(draft);
    if (!parsed.ok) {
      setErrors(parsed.errors);
      return;
    }
    setErrors({});
    void runWhatIf(parsed.policy);
  };

  return (
    <section className="policy-editor" role="region" aria-label="Policy editor">
      <p className="panel-note">
        {sessionPolicy ? 'Change the session’s reduction policy and see what the model would have been given instead.' : 'This session names no policy: try one and see what it would reduce.'}
      </p>
      <form className="policy-form" aria-label="Reduction policy" onSubmit={onSubmit} noValidate>
        {NUMBER_FIELDS.map((field) => (
          <div key={field} className="policy-field">
            <label htmlFor={`policy-${field}`}>
              <code>{field}</code>
            </label>
            <input
              id={`policy-${field}`}
              type="number"
              min={0}
              step={1}
              inputMode="numeric"
              value={draft[field]}
              aria-invalid={errors[field] ? true : undefined}
              aria-describedby={`policy-${field}-hint`}
              onChange={(e) => setDraft({ ...draft, [field]: e.target.value })}
            />
            <span id={`policy-${field}-hint`} className={`policy-hint${errors[field] ? ' is-error' : ''}`}>
              {errors[field] ?? HINTS[field]}
            </span>
          </div>
        ))}
        <div className="policy-field policy-check">
          <input id="policy-dedupe" type="checkbox" checked={draft.dedupe} aria-describedby="policy-dedupe-hint" onChange={(e) => setDraft({ ...draft, dedupe: e.target.checked })} />
          <label htmlFor="policy-dedupe">
            <code>dedupe</code>
          </label>
          <span id="policy-dedupe-hint" className="policy-hint">
            {HINTS.dedupe}
          </span>
        </div>
        <div className="policy-actions">
          <button type="submit" disabled={!hasSession}>
            Show what if
          </button>
          {sessionPolicy && (
            <button type="button" onClick={() => setDraft(draftOf(sessionPolicy))}>
              Reset to the session’s policy
            </button>
          )}
        </div>
      </form>
      <WhatIfResult />
    </section>
  );
}
