/**
 * The live reduction log as a sortable table (virtualized rows of fixed height): id, kind, index,
 * hidden bytes, provenance (SPEC §10.1), and — from `verify`, for the rows on screen — source and
 * hash status ("hashed at import", "original not recorded").
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef } from 'react';
import type { ReductionStatus } from '../../../shared/contract';
import type { ReductionKind } from '../../../shared/format/types';
import { REDUCTION_KINDS, isRangeKind } from '../../../shared/format/types';
import type { LogColumn, LogEntry, LogSort } from '../../store/logSlice';
import { useApp } from '../../store/storeContext';
import { countOf, formatCount, kindLabel, verificationLabel } from '../../text/format';
import './reductionLog.css';
import { nameText } from '../../text/nameText';
import { tokensNote, tokensText } from '../../text/tokens';
import type { TokenFigures } from '../../store/tokensSlice';
import { figuresOf, viewKey } from '../../store/tokensSlice';

const ROW_HEIGHT = 32;
const NO_STATUSES: ReadonlyMap<string, ReductionStatus> = new Map();
const NO_FIGURES: ReadonlyMap<string, TokenFigures | null> = new Map();

const COLUMNS: { id: LogColumn; label: string; numeric?: boolean }[] = [
  { id: 'id', label: 'Id' },
  { id: 'kind', label: 'Kind' },
  { id: 'index', label: 'Index', numeric: true },
  { id: 'hidden', label: 'Hidden bytes', numeric: true },
  { id: 'tokens', label: 'Hidden tokens', numeric: true },
  { id: 'source', label: 'Source' },
  { id: 'status', label: 'Status' },
  { id: 'provenance', label: 'Provenance' },
];

/** §10.1: absent means a native reduction, which is recorded. */
function provenanceOf(entry: LogEntry): string {
  return entry.reduction.provenance ?? 'recorded';
}

function hiddenBytes(entry: LogEntry, status: ReductionStatus | undefined): number | undefined {
  return status?.hidden_bytes ?? entry.stated_hidden_bytes;
}

function sortKey(entry: LogEntry, column: LogColumn, status: ReductionStatus | undefined, figures: TokenFigures | null | undefined): string | number | undefined {
  switch (column) {
    case 'id':
      return entry.reduction.id;
    case 'kind':
      return entry.reduction.kind;
    case 'index':
      return entry.reduction.ptr.index;
    case 'hidden':
      return hiddenBytes(entry, status);
    case 'tokens':
      return figures?.hidden?.tokens;
    case 'source':
      return status?.source;
    case 'status':
      return status ? verificationLabel(status) : undefined;
    case 'provenance':
      return provenanceOf(entry);
  }
}

const collator = new Intl.Collator('en', { numeric: true });

/** `entries` in `sort` order (log order when null); unknown values last either way. */
export function sortLog(entries: readonly LogEntry[], sort: LogSort | null, statuses: ReadonlyMap<string, ReductionStatus>, figures: ReadonlyMap<string, TokenFigures | null> = NO_FIGURES): LogEntry[] {
  if (!sort) return [...entries];
  const sign = sort.direction === 'ascending' ? 1 : -1;
  const keyed = entries.map((entry, order) => ({ entry, order, key: sortKey(entry, sort.column, statuses.get(entry.reduction.id), figures.get(entry.reduction.id)) }));
  keyed.sort((a, b) => {
    if (a.key === undefined || b.key === undefined) return a.key === b.key ? a.order - b.order : a.key === undefined ? 1 : -1;
    const c = typeof a.key === 'number' && typeof b.key === 'number' ? a.key - b.key : collator.compare(String(a.key), String(b.key));
    return c !== 0 ? sign * c : a.order - b.order;
  });
  return keyed.map((k) => k.entry);
}

function LogRow({ entry }: { entry: LogEntry }) {
  const r = entry.reduction;
  const status = useApp((s) => s.statuses.get(r.id));
  const goToReduction = useApp((s) => s.goToReduction);
  const hidden = hiddenBytes(entry, status);
  const figures = useApp((s) => figuresOf(s, r.id));
  const bad = status !== undefined && status.status !== 'verified' && status.status !== 'original_unavailable';
  return (
    <tr className={bad ? 'is-bad' : undefined}>
      <td>
        <button type="button" className="log-go" aria-label={`Go to ${nameText(r.id)}`} onClick={() => void goToReduction(r.id)}>
          {nameText(r.id)}
        </button>
      </td>
      <td>
        <span className={`log-kind kind-${r.kind}`}>{kindLabel(r.kind)}</span>
      </td>
      <td className="is-numeric">{isRangeKind(r.kind) && r.end !== undefined ? `${r.ptr.index}–${r.end - 1}` : r.ptr.index}</td>
      <td className="is-numeric">{hidden !== undefined ? formatCount(hidden) : '…'}</td>
      {/* SPEC §16.1: the figure with its unit and `est.`; `—` where the file does not hold the original. */}
      <td className="is-numeric" title={figures?.hidden ? tokensNote(figures.hidden) : undefined}>
        {figures === undefined ? '…' : figures?.hidden ? tokensText(figures.hidden) : '—'}
      </td>
      <td>{status?.source ?? (status ? '—' : '…')}</td>
      <td className={bad ? 'is-error' : status?.status === 'verified' ? 'is-ok' : undefined} title={status?.message}>
        {status ? verificationLabel(status) : '…'}
      </td>
      <td>{provenanceOf(entry)}</td>
    </tr>
  );
}

/** How many entries of each kind the log holds, in REDUCTION_KINDS order, kinds absent left out. */
export function kindCounts(entries: readonly LogEntry[]): { kind: ReductionKind; count: number }[] {
  const counts = new Map<ReductionKind, number>();
  for (const e of entries) counts.set(e.reduction.kind, (counts.get(e.reduction.kind) ?? 0) + 1);
  return REDUCTION_KINDS.flatMap((kind) => (counts.has(kind) ? [{ kind, count: counts.get(kind) as number }] : []));
}

/** A `select` named `Kind` narrowing the log to one kind; each option says how many it has. */
function KindFilter({ entries }: { entries: readonly LogEntry[] }) {
  const kind = useApp((s) => s.logKind);
  const setKind = useApp((s) => s.setLogKind);
  const counts = useMemo(() => kindCounts(entries), [entries]);
  return (
    <span className="log-kind-filter">
      {/* Labelled by `for`, not by wrapping: a wrapped select would add its option to the name. */}
      <label htmlFor="log-kind-filter">Kind</label>
      <select id="log-kind-filter" value={kind ?? ''} onChange={(e) => setKind(e.target.value === '' ? null : (e.target.value as ReductionKind))}>
        <option value="">{`All kinds (${formatCount(entries.length)})`}</option>
        {counts.map((c) => (
          <option key={c.kind} value={c.kind}>{`${kindLabel(c.kind)} (${formatCount(c.count)})`}</option>
        ))}
        {/* A kind chosen before the log changed stays choosable, with none. */}
        {kind !== null && !counts.some((c) => c.kind === kind) && <option value={kind}>{`${kindLabel(kind)} (0)`}</option>}
      </select>
    </span>
  );
}

export function ReductionLog() {
  const status = useApp((s) => s.logStatus);
  const entries = useApp((s) => s.logEntries);
  const error = useApp((s) => s.logError);
  const sort = useApp((s) => s.logSort);
  const loadLog = useApp((s) => s.loadLog);
  const setSort = useApp((s) => s.setLogSort);
  const requestStatuses = useApp((s) => s.requestStatuses);
  const requestHiddenTokens = useApp((s) => s.requestHiddenTokens);
  const hasSession = useApp((s) => s.session !== null);
  // Sorting by what `verify` says needs every status (asked once); otherwise only the rows on screen ask.
  const byStatus = sort?.column === 'source' || sort?.column === 'status' || sort?.column === 'hidden';
  const byTokens = sort?.column === 'tokens';
  const statuses = useApp((s) => (byStatus ? s.statuses : NO_STATUSES));
  const figures = useApp((s) => (byTokens && s.hiddenTokensKey === viewKey(s) ? s.hiddenTokens : NO_FIGURES));
  const kind = useApp((s) => s.logKind);
  const shown = useMemo(() => (kind === null ? entries : entries.filter((e) => e.reduction.kind === kind)), [entries, kind]);
  const sorted = useMemo(() => sortLog(shown, sort, statuses, figures), [shown, sort, statuses, figures]);
  const scrollerRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (hasSession) void loadLog();
  }, [hasSession, loadLog]);

  useEffect(() => {
    if (byStatus) requestStatuses(entries.map((e) => e.reduction.id));
  }, [byStatus, entries, requestStatuses]);

  // Sorting by tokens needs every figure (asked once, counted a budget at a time by the worker).
  useEffect(() => {
    if (byTokens) requestHiddenTokens(entries.map((e) => e.reduction.id));
  }, [byTokens, entries, requestHiddenTokens]);

  const virtualizer = useVirtualizer({
    count: sorted.length,
    getScrollElement: () => scrollerRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? -1;

  useEffect(() => {
    const onScreen = sorted.slice(first, last + 1).map((e) => e.reduction.id);
    requestStatuses(onScreen);
    requestHiddenTokens(onScreen);
  }, [sorted, first, last, requestStatuses, requestHiddenTokens]);

  if (!hasSession) return <p className="panel-note">No session open.</p>;
  if (status === 'error') return <p className="panel-note is-error">{`The log could not be read: ${error?.message ?? 'unknown error'}`}</p>;

  const before = items[0]?.start ?? 0;
  const after = virtualizer.getTotalSize() - (items[items.length - 1]?.end ?? 0);
  return (
    <div className="reduction-log">
      <div className="reduction-log-bar">
        <p className="panel-note">
          {status !== 'ready' ? 'Loading the log…' : kind === null ? countOf(entries.length, 'live reduction') : `${formatCount(shown.length)} of ${countOf(entries.length, 'live reduction')}`}
        </p>
        <KindFilter entries={entries} />
      </div>
      <div ref={scrollerRef} className="reduction-log-scroller">
        <table className="reduction-log-table" aria-label="Reduction log" aria-rowcount={sorted.length + 1}>
          <thead>
            <tr>
              {COLUMNS.map((c) => (
                <th
                  key={c.id}
                  scope="col"
                  className={c.numeric ? 'is-numeric' : undefined}
                  aria-sort={sort?.column === c.id ? sort.direction : 'none'}
                >
                  <button type="button" className="log-sort" onClick={() => setSort(c.id)}>
                    {c.label}
                    <span className="log-sort-arrow" aria-hidden="true">
                      {sort?.column === c.id ? (sort.direction === 'ascending' ? ' ▲' : ' ▼') : ''}
                    </span>
                  </button>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {before > 0 && <tr aria-hidden="true" className="log-spacer" style={{ height: before }} />}
            {items.map((item) => {
              const entry = sorted[item.index];
              return entry && <LogRow key={`${entry.reduction.id}-${item.index}`} entry={entry} />;
            })}
            {after > 0 && <tr aria-hidden="true" className="log-spacer" style={{ height: after }} />}
          </tbody>
        </table>
      </div>
    </div>
  );
}
