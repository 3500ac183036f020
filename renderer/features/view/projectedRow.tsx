/**
 * One row of the projected view: a message as the model saw it (role, text, tool calls), its
 * stub replaced by the reduction's chip, the open reduction's content under it, and `Show more`
 * for a text cut at ROW_TEXT_MAX_BYTES.
 */
import type { Ref } from 'react';
import { memo, useMemo } from 'react';
import type { ProjectedRowInfo } from '../../../shared/contract';
import { utf8Length } from '../../../shared/utf8';
import { ROW_PAGE_SIZE, rowAt } from '../../store/rowsSlice';
import { useApp } from '../../store/storeContext';
import { formatBytes } from '../../text/format';
import { splitAtStub } from '../../text/stubText';
import { TerminalText } from '../../widgets/terminalText';
import { ReductionRegion } from '../reduction/reductionRegion';
import { RowEvents } from '../events/sessionEvents';
import { OtherReductions } from './otherReductions';
import { StubChip } from './stubChip';
import { ToolCalls } from './toolCalls';
import './projectedRow.css';
import { nameText } from '../../text/nameText';

interface Props {
  row: number;
  measureRef: Ref<HTMLDivElement>;
}

/** What a row without a role stands for: a range cleared, or summarized (SPEC §10.1). */
function rangeLabel(info: ProjectedRowInfo): string {
  const applied = info.applied !== undefined ? info.reductions.find((r) => r.id === info.applied) : undefined;
  return applied?.kind === 'summarized' ? 'summarized' : 'turns cleared';
}

/** `Message 2 tool`, `Messages 3–16 turns cleared`, `Messages 0–5 summarized`: the start of the row's accessible name. */
export function rowLabel(info: ProjectedRowInfo): string {
  if (info.end - info.index > 1) return `Messages ${info.index}–${info.end - 1} ${info.role ?? rangeLabel(info)}`;
  if (info.missing) return `Message ${info.index} missing`;
  return `Message ${info.index} ${info.role ?? rangeLabel(info)}`;
}

/** A run of a compaction (§10.1): the first run's row holds the summary; the others say where it is. */
function CompactionNote({ compaction, applied }: { compaction: { group: string; summary: string }; applied: string | undefined }) {
  if (applied === compaction.summary) return <p className="row-compaction">Summary of compaction {nameText(compaction.group)}</p>;
  return (
    <p className="row-compaction">
      Part of compaction {nameText(compaction.group)}: the model saw its summary at reduction {nameText(compaction.summary)}; these messages were dropped.
    </p>
  );
}

function RowBody({ info, row }: { info: ProjectedRowInfo; row: number }) {
  const more = useApp((s) => s.rowMore.get(row));
  const showMore = useApp((s) => s.showMoreText);
  const openId = useApp((s) => s.openReduction?.id);
  const text = more ? info.text + more.text : info.text;
  const shownBytes = more?.shownBytes ?? (info.text_bytes > info.text.length ? utf8Length(info.text) : info.text_bytes);
  const applied = info.applied !== undefined ? info.reductions.find((r) => r.id === info.applied) : undefined;
  const split = useMemo(() => (info.applied !== undefined ? splitAtStub(text, info.applied) : null), [text, info.applied]);
  const visible = split ? split.before : text;
  // A row may carry 100,000 reductions: filtered once per row, not per render.
  const others = useMemo(() => info.reductions.filter((r) => r.id !== info.applied), [info.reductions, info.applied]);
  const mono = info.role === 'tool' || info.role === undefined;
  const openHere = openId !== undefined && info.reductions.some((r) => r.id === openId);

  return (
    <>
      {info.compaction && <CompactionNote compaction={info.compaction} applied={info.applied} />}
      {(visible !== '' || applied) && (
        <div className={mono ? 'row-text is-mono' : 'row-text'}>
          {visible !== '' && <TerminalText text={visible} />}
          {shownBytes < info.text_bytes && (
            <span className="row-cut">
              {visible.endsWith('\n') ? '' : '\n'}
              <span className="row-cut-note">
                showing {formatBytes(shownBytes)} of {formatBytes(info.text_bytes)}
              </span>{' '}
              <button type="button" className="row-show-more" disabled={more?.loading} onClick={() => void showMore(row)}>
                Show more
              </button>
              {more?.error && <span className="row-cut-error"> {more.error}</span>}
            </span>
          )}
          {/* The chip stands where the stub was; a stub past the cut (a prefix over 64 KiB) still gets its chip, after the cut. */}
          {applied && (
            <>
              {visible !== '' && !visible.endsWith('\n') ? ' ' : ''}
              <StubChip id={applied.id} kind={applied.kind} {...(split ? { stub: split.stub } : {})} />
            </>
          )}
        </div>
      )}
      {info.tool_calls && info.tool_calls.length > 0 && <ToolCalls calls={info.tool_calls} row={row} />}
      {others.length > 0 && <OtherReductions reductions={others} label={info.role === undefined ? 'Inside this range:' : 'Also reduced:'} rowName={rowLabel(info)} />}
      {openHere && openId !== undefined && <ReductionRegion id={openId} />}
    </>
  );
}

export const ProjectedRow = memo(function ProjectedRow({ row, measureRef }: Props) {
  const info = useApp((s) => rowAt(s, row));
  const pageStatus = useApp((s) => s.rowPages.get(Math.floor(row / ROW_PAGE_SIZE))?.status);
  const pageError = useApp((s) => s.rowPages.get(Math.floor(row / ROW_PAGE_SIZE))?.error?.message);
  const selected = useApp((s) => s.selectedRow === row);
  const selectRow = useApp((s) => s.selectRow);

  if (!info) {
    return (
      <div ref={measureRef} data-row={row} role="listitem" aria-label={`Row ${row} loading`} className="row is-placeholder">
        <div className="row-gutter" />
        <div className="row-main">
          <span className="row-placeholder-text">{pageStatus === 'error' ? `Could not load this row: ${pageError ?? 'unknown error'}` : 'Loading…'}</span>
        </div>
      </div>
    );
  }

  const roleClass = info.role ?? (rangeLabel(info) === 'summarized' ? 'summarized' : 'cleared');
  return (
    <div
      ref={measureRef}
      data-row={row}
      data-index={info.index}
      role="listitem"
      aria-label={rowLabel(info)}
      aria-current={selected ? 'true' : undefined}
      className={`row role-${roleClass}${selected ? ' is-selected' : ''}${info.missing ? ' is-missing' : ''}`}
      onClick={() => selectRow(row, false)}
    >
      <RowEvents index={info.index} end={info.end} place="start" />
      <div className="row-gutter" aria-hidden="true">
        {info.end - info.index > 1 ? `${info.index}–${info.end - 1}` : info.index}
      </div>
      <div className="row-main">
        <div className="row-head">
          <span className={`role-badge role-badge-${roleClass}`}>{info.role ?? rangeLabel(info)}</span>
          {info.name !== undefined && <span className="row-name">{nameText(info.name)}</span>}
          {info.tool_call_id !== undefined && <span className="row-call-id">{nameText(info.tool_call_id)}</span>}
          {info.end - info.index > 1 && <span className="row-range">{info.end - info.index} messages</span>}
        </div>
        {info.missing ? <p className="row-missing">This message's record could not be read (see Findings).</p> : <RowBody info={info} row={row} />}
      </div>
      <RowEvents index={info.index} end={info.end} place="end" />
    </div>
  );
});
