/**
 * The diff between two model calls (§11 `callDiff`), in the side panel's `Diff`
 * tab: the user picks `From call` and `To call` (empty: the latest view), and the `Context diff`
 * table lists what left the context (the reduction that took it and the bytes it hides), what came
 * back (inverted or rewound), and the messages added or dropped, each part with its totals. A tab
 * rather than a region over the view: the diff is read next to the view it explains, and the view
 * keeps its whole height. The host caps each list (MAX_DIFF_ENTRIES); the totals count all of it.
 */
import type { FormEvent } from 'react';
import { useEffect, useId, useRef, useState } from 'react';
import { useApp } from '../../store/storeContext';
import type { CallDiffResult } from '../../store/storySlice';
import { countOf, formatBytes, formatCount, kindLabel } from '../../text/format';
import { nameText } from '../../text/nameText';
import { TerminalText } from '../../widgets/terminalText';
import './diffPanel.css';

type Reduced = CallDiffResult['reduced'][number];
type Message = CallDiffResult['added'][number];
type Tokens = NonNullable<CallDiffResult['tokens']>;
type Figure = Tokens['from'];

/** `<n> tokens`, with `est.` where estimated (SPEC §16.1). */
const tokensText = (f: Figure): string => `${formatCount(f.tokens)} tokens${f.source === 'estimated' ? ' est.' : ''}`;
type Changed = CallDiffResult['changed'][number];

/** Most diff lines shown per changed run; the rest are counted (the CLI's `diff` prints them all). */
const SHOWN_DIFF_LINES = 400;

function callName(call: number | null): string {
  return call === null ? 'the latest view' : `call ${call}`;
}

function messages(index: number, end?: number): string {
  return end !== undefined && end - index > 1 ? `${index}–${end - 1}` : `${index}`;
}

function ReductionRow({ r, change }: { r: Reduced; change: string }) {
  const goToReduction = useApp((s) => s.goToReduction);
  return (
    <tr>
      <td>{change}</td>
      <td className="is-numeric">{messages(r.index, r.end)}</td>
      <td />
      <td>
        {/* A reduction taken out of the log (inverted, rewound) has nothing left to expand. */}
        {r.by === undefined ? (
          <button type="button" className="diff-go" onClick={() => void goToReduction(r.reduction_id)}>
            {nameText(r.reduction_id)}
          </button>
        ) : (
          nameText(r.reduction_id)
        )}
      </td>
      <td>{kindLabel(r.kind)}</td>
      <td className="is-numeric">{r.hidden_bytes === null ? 'not stated' : formatBytes(r.hidden_bytes)}</td>
    </tr>
  );
}

function MessageRow({ m, change, tokens }: { m: Message; change: string; tokens: number | undefined }) {
  return (
    <tr>
      <td>{change}</td>
      <td className="is-numeric">{m.index}</td>
      <td>{m.role ?? 'missing'}</td>
      <td />
      <td />
      {/* Bytes, then tokens: the cell breaks between the two (never inside a figure), so the table keeps to the panel. */}
      <td className="is-numeric diff-figures">
        <span>{m.bytes === null ? 'unreadable' : formatBytes(m.bytes)}</span>
        {tokens !== undefined && (
          <>
            {', '}
            <span>{`${formatCount(tokens)} tokens est.`}</span>
          </>
        )}
      </td>
    </tr>
  );
}

function TotalRow({ label, total, shown }: { label: string; total: { count: number; bytes: number }; shown: number }) {
  return (
    <tr className="diff-total">
      <th scope="row" colSpan={5}>
        {`${label}: ${formatCount(total.count)}`}
        {shown < total.count ? ` (first ${formatCount(shown)} listed)` : ''}
      </th>
      <td className="is-numeric">{formatBytes(total.bytes)}</td>
    </tr>
  );
}

function summaryOf(d: CallDiffResult): string {
  const t = d.totals;
  const parts = [
    `${countOf(t.reduced.count, 'reduction')} left the context (${formatBytes(t.reduced.bytes)} hidden)`,
    `${formatCount(t.restored.count)} came back`,
    `${countOf(t.added.count, 'message')} added`,
  ];
  if (t.removed.count > 0) parts.push(`${formatCount(t.removed.count)} dropped`);
  const tokens = d.tokens ? `, ${tokensText(d.tokens.from)} → ${tokensText(d.tokens.to)}` : '';
  const said = `From ${callName(d.from)} to ${callName(d.to)}: ${parts.join(', ')}; ${formatBytes(d.bytes.from)} given → ${formatBytes(d.bytes.to)}${tokens}`;
  // A sentence ending in `est.` takes no second full stop.
  return said.endsWith('.') ? said : `${said}.`;
}

function DiffTable({ d }: { d: CallDiffResult }) {
  return (
    <table className="diff-table" aria-label="Context diff">
      <thead>
        <tr>
          <th scope="col">Change</th>
          <th scope="col" className="is-numeric">
            Message
          </th>
          <th scope="col">Role</th>
          <th scope="col">Reduction</th>
          <th scope="col">Kind</th>
          <th scope="col" className="is-numeric">
            Bytes
          </th>
        </tr>
      </thead>
      <tbody>
        {d.reduced.map((r, k) => (
          <ReductionRow key={`l${k}`} r={r} change="Left the context" />
        ))}
        <TotalRow label="Left the context" total={d.totals.reduced} shown={d.reduced.length} />
        {d.restored.map((r, k) => (
          <ReductionRow key={`b${k}`} r={r} change={r.by === 'rewound' ? 'Came back (rewound)' : r.by === 'inverted' ? 'Came back (inverted)' : 'Came back'} />
        ))}
        <TotalRow label="Came back" total={d.totals.restored} shown={d.restored.length} />
        {d.added.map((m, k) => (
          <MessageRow key={`a${k}`} m={m} change="Added" tokens={d.tokens_est?.added[k]} />
        ))}
        <TotalRow label="Messages added" total={d.totals.added} shown={d.added.length} />
        {d.removed.length > 0 && d.removed.map((m, k) => <MessageRow key={`r${k}`} m={m} change="Dropped" tokens={d.tokens_est?.removed[k]} />)}
        {d.totals.removed.count > 0 && <TotalRow label="Messages dropped" total={d.totals.removed} shown={d.removed.length} />}
      </tbody>
    </table>
  );
}

function changeOf(c: Changed): string {
  const parts: string[] = [];
  if (c.reduced.length > 0) parts.push(`reduced by ${c.reduced.join(', ')}`);
  if (c.restored.length > 0) parts.push(`restored from ${c.restored.join(', ')}`);
  return parts.join('; ');
}

const bytesText = (n: number | null): string => (n === null ? 'unreadable' : formatBytes(n));

/** One changed run: what changed and its line diff, as text (session content is never markup). */
function ChangedRun({ c, tokens }: { c: Changed; tokens: { from: number; to: number } | undefined }) {
  const lines = (c.text.hunks ?? []).flatMap((h) => [`@@ -${h.from_start},${h.from_count} +${h.to_start},${h.to_count} @@`, ...h.lines]);
  const shown = lines.slice(0, SHOWN_DIFF_LINES);
  return (
    <li className="diff-run">
      <p className="diff-run-head">
        {`Message${c.end - c.index > 1 ? 's' : ''} ${messages(c.index, c.end)}${c.role ? ` (${c.role})` : ''}: ${nameText(changeOf(c))} — ${bytesText(c.bytes.from)} → ${bytesText(c.bytes.to)}${tokens ? `, ${formatCount(tokens.from)} → ${formatCount(tokens.to)} tokens est.` : ''}`}
      </p>
      {c.text.hunks === null ? (
        <p className="panel-note">{`Line diff ${c.text.note ?? 'not made'}.`}</p>
      ) : lines.length === 0 ? (
        <p className="panel-note">The text is the same at both calls.</p>
      ) : (
        <pre className="diff-lines" aria-label={`Line diff of message ${messages(c.index, c.end)}`} tabIndex={0}>
          {shown.map((l, k) => (
            <span key={k} className={`diff-line${l.startsWith('+') ? ' is-added' : l.startsWith('-') ? ' is-removed' : l.startsWith('@@') ? ' is-hunk' : ''}`}>
              <TerminalText text={l} ansi={false} />
              {'\n'}
            </span>
          ))}
        </pre>
      )}
      {lines.length > shown.length && <p className="panel-note">{`${formatCount(lines.length - shown.length)} more diff lines (the command line's diff prints them all).`}</p>}
    </li>
  );
}

/**
 * How the two contexts were had: recorded, estimated, or (docs/diff.md "Tokens") one end's
 * recorded context and the estimated change between the two.
 */
function contextNote(t: Tokens): string {
  if (t.from.source === 'recorded' && t.to.source === 'recorded') return 'as the file records it';
  const anchored = 'from_recorded' in t.to ? t.to.from_recorded : 'from_recorded' in t.from ? t.from.from_recorded : undefined;
  if (anchored) return `est. as call ${formatCount(anchored.call)}'s recorded ${formatCount(anchored.tokens)} tokens and the estimated change between the calls`;
  return 'estimated where the file records none';
}

/** The changed runs, and the reductions and compactions between the two calls. */
/** SPEC §16: tokens each way — each call's context (recorded, else est.) and what was added, dropped, reduced, restored (est.). */
function TokensTable({ t, changed }: { t: Tokens; changed: number }) {
  const row = (label: string, from: Figure | null, to: Figure | null, each: string) => (
    <tr>
      <th scope="row">{label}</th>
      <td className="is-numeric">{from ? tokensText(from) : ''}</td>
      <td className="is-numeric">{to ? tokensText(to) : ''}</td>
      <td>{each}</td>
    </tr>
  );
  const hidden = t.reduced.from.tokens - t.reduced.to.tokens;
  const back = t.restored.to.tokens - t.restored.from.tokens;
  return (
    <table className="diff-table" aria-label="Tokens each way">
      <thead>
        <tr>
          <th scope="col">Tokens of</th>
          <th scope="col" className="is-numeric">
            From call
          </th>
          <th scope="col" className="is-numeric">
            To call
          </th>
          <th scope="col">Each way</th>
        </tr>
      </thead>
      <tbody>
        {row('Context', t.from, t.to, contextNote(t))}
        {row('Messages added', null, t.added, '')}
        {row('Messages dropped', t.dropped, null, '')}
        {row('Reduced', t.reduced.from, t.reduced.to, hidden > 0 ? `${formatCount(hidden)} tokens est. hidden` : '')}
        {row('Restored', t.restored.from, t.restored.to, back > 0 ? `${formatCount(back)} tokens est. back` : '')}
      </tbody>
      {t.runs_listed !== undefined && (
        <caption className="panel-note">{`Reduced and restored count the first ${formatCount(t.runs_listed)} of ${formatCount(changed)} runs.`}</caption>
      )}
    </table>
  );
}

function DiffDetails({ d }: { d: CallDiffResult }) {
  return (
    <>
      {d.tokens && (
        <>
          <h2 className="diff-heading">Tokens</h2>
          <TokensTable t={d.tokens} changed={d.changed_count} />
        </>
      )}
      <h2 className="diff-heading">Messages reduced or restored</h2>
      {d.changed.length === 0 ? (
        <p className="panel-note">None: every message both calls hold was given the same way.</p>
      ) : (
        <ul className="diff-runs" aria-label="Messages reduced or restored">
          {d.changed.map((c, k) => (
            <ChangedRun key={`${c.index}-${c.end}`} c={c} tokens={d.tokens_est?.changed[k]} />
          ))}
        </ul>
      )}
      {d.changed_count > d.changed.length && <p className="panel-note">{`First ${formatCount(d.changed.length)} of ${formatCount(d.changed_count)} listed.`}</p>}
      <h2 className="diff-heading">Between the two calls</h2>
      {d.between.length === 0 ? (
        <p className="panel-note">No reduction was logged or undone between them.</p>
      ) : (
        <ul className="diff-between" aria-label="Reductions between the calls">
          {d.between.map((e, k) => (
            <li key={k}>{`${e.change === 'applied' ? 'Logged' : `Undone${e.by ? ` (${e.by})` : ''}`}: ${nameText(e.reduction_id)}, ${kindLabel(e.kind)}, message ${messages(e.index, e.end)} — line ${formatCount(e.line)}, ${e.call === null ? 'seen only in the latest view' : `first seen at call ${formatCount(e.call)}`}`}</li>
          ))}
        </ul>
      )}
      {d.between_count > d.between.length && <p className="panel-note">{`First ${formatCount(d.between.length)} of ${formatCount(d.between_count)} listed.`}</p>}
      {d.compactions.map((c) => (
        <section key={c.group} className="diff-compaction" aria-label={`Compaction ${nameText(c.group)}`}>
          <h2 className="diff-heading">{`Compaction at ${c.call === null ? 'the latest view' : `call ${formatCount(c.call)}`}: ${countOf(c.dropped, 'message')} dropped (${c.ranges.map(([s, e]) => messages(s, e)).join(', ')})`}</h2>
          <pre className="diff-summary" tabIndex={0} aria-label="Summary given instead">
            <TerminalText text={c.summary} ansi={false} />
          </pre>
          {c.summary_truncated && <p className="panel-note">{`First ${formatBytes(utf8Bytes(c.summary))} of ${formatBytes(c.summary_bytes)} shown.`}</p>}
        </section>
      ))}
    </>
  );
}

const utf8Bytes = (text: string): number => new TextEncoder().encode(text).length;

/** A call number typed by the user: empty is null (the latest view); anything else must be a whole number from 1. */
function parseCall(text: string): number | null | undefined {
  if (text.trim() === '') return null;
  const n = Number(text);
  return Number.isInteger(n) && n >= 1 ? n : undefined;
}

export function DiffPanel() {
  const hasSession = useApp((s) => s.session !== null && !s.session.stopped);
  const diff = useApp((s) => s.diff);
  const selectedCall = useApp((s) => s.selectedCall);
  const loadDiff = useApp((s) => s.loadDiff);
  const loadDefaultDiff = useApp((s) => s.loadDefaultDiff);
  const [fromText, setFromText] = useState('');
  const [toText, setToText] = useState('');
  const [invalid, setInvalid] = useState<string | null>(null);
  const hintId = useId();

  // The fields follow what was asked (the default included), except one the user typed in since
  // the last ask they made: a default landing after the tab opened does not replace what is typed;
  // Compare, or choosing another call, does.
  const edited = useRef({ from: false, to: false });

  // Opening the tab, or choosing another call, shows the default diff (loadDefaultDiff).
  const askedFor = useRef<number | null | undefined>(undefined);
  useEffect(() => {
    if (!hasSession) return;
    if (diff.status !== 'idle' && askedFor.current === selectedCall) return;
    // Not the tab's first default: another call was chosen (or the session opened again).
    if (askedFor.current !== undefined) edited.current = { from: false, to: false };
    askedFor.current = selectedCall;
    void loadDefaultDiff(selectedCall);
  }, [hasSession, diff.status, selectedCall, loadDefaultDiff]);

  useEffect(() => {
    if (!edited.current.from) setFromText(diff.from === null ? '' : String(diff.from));
    if (!edited.current.to) setToText(diff.to === null ? '' : String(diff.to));
  }, [diff.from, diff.to]);

  const onSubmit = (e: FormEvent): void => {
    e.preventDefault();
    const from = parseCall(fromText);
    const to = parseCall(toText);
    if (from === undefined || to === undefined) {
      setInvalid('A call is a whole number from 1; leave a field empty for the latest view.');
      return;
    }
    setInvalid(null);
    edited.current = { from: false, to: false };
    void loadDiff(from, to);
  };

  if (!hasSession) return <p className="panel-note">No session open.</p>;
  const calls = diff.result?.calls;
  const texts = { from: [fromText, setFromText], to: [toText, setToText] } as const;
  const callField = (field: 'from' | 'to') => {
    const [text, setText] = texts[field];
    const typed = (value: string): void => {
      edited.current[field] = true;
      setText(value);
    };
    return <input type="number" min={1} {...(calls ? { max: calls } : {})} value={text} placeholder="latest" aria-describedby={hintId} onChange={(e) => typed(e.target.value)} />;
  };
  return (
    <section className="diff-panel" role="region" aria-label="Diff between calls" aria-busy={diff.status === 'loading' || undefined}>
      <form className="diff-form" onSubmit={onSubmit} noValidate>
        <label>
          From call
          {callField('from')}
        </label>
        <label>
          To call
          {callField('to')}
        </label>
        <button type="submit">Compare</button>
        <p id={hintId} className="panel-note diff-hint">
          {`Empty: the latest view (what a next call would be given).${calls !== undefined ? ` This session has ${countOf(calls, 'model call')}.` : ''}`}
        </p>
      </form>
      <p className={`panel-note${invalid || diff.status === 'error' ? ' is-error' : ''}`} aria-live="polite">
        {invalid ?? (diff.status === 'error' ? `The diff could not be made: ${diff.error?.message ?? 'unknown error'}` : diff.status === 'done' && diff.result ? summaryOf(diff.result) : 'Comparing…')}
      </p>
      {diff.status === 'done' && diff.result && <DiffTable d={diff.result} />}
      {diff.status === 'done' && diff.result && <DiffDetails d={diff.result} />}
    </section>
  );
}
