/**
 * One row of the projected view: a message as the model saw it (role, text, tool calls), its
 * stub replaced by the reduction's chip, the open reduction's content under it, and `Show more`
 * for a text cut at ROW_TEXT_MAX_BYTES.
 */
import type { Ref } from 'react';
import { memo, useMemo } from 'react';
import type { ProjectedRowInfo } from '../../../shared/contract';
import { compactSummaryNote } from '../../../shared/format/types';
import { utf8Length } from '../../../shared/format/utf8';
import { ROW_PAGE_SIZE, rowAt } from '../../store/rowsSlice';
import { useApp } from '../../store/storeContext';
import { countOf, formatBytes } from '../../text/format';
import { byteOffsetToIndex } from '../../../shared/format/utf8Offsets';
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

/**
 * A run of a compaction (§10.1): the first run's row holds the summary, and says how the model was
 * given it where the file records it (a user message, for Claude Code and a local Codex
 * compaction: the view keeps the row a range, role null); the others say where it is; a message
 * the compaction moved says where the model was given it instead.
 */
function CompactionNote({ compaction, applied }: { compaction: NonNullable<ProjectedRowInfo['compaction']>; applied: string | undefined }) {
  if (applied === compaction.summary) {
    return (
      <p className="row-compaction">
        Summary of compaction {nameText(compaction.group)}
        {compaction.summary_role !== undefined && `, given to the model as a ${compaction.summary_role} message`}
      </p>
    );
  }
  if (compaction.moved_to !== undefined) {
    return (
      <p className="row-compaction">
        Moved by compaction {nameText(compaction.group)}: the model was given this message later, as message {compaction.moved_to}, after the context the compaction put before it; nothing was given here.
      </p>
    );
  }
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
  // The host says where the stub stands (bytes of the whole text); the text shown may end before it.
  const stub = info.stub;
  const split = useMemo(() => {
    if (!stub) return null;
    const at = byteOffsetToIndex(text, stub.start);
    return { before: text.slice(0, at), stub: stub.end <= shownBytes ? text.slice(at) : undefined };
  }, [text, stub, shownBytes]);
  const openHereId = openId !== undefined && info.reductions.some((r) => r.id === openId) ? openId : undefined;
  // An open truncation whose region shows its bytes from 0 shows the kept prefix there, marked as
  // seen: not twice. A region that failed, or shows a later slice, leaves the prefix in the row.
  const prefixInRegion = useApp((s) => {
    const open = s.openReduction;
    if (applied?.kind !== 'tool_output_truncated' || open?.id !== applied.id) return false;
    const first = open.chunks[0] !== undefined ? s.expansions.get(open.chunks[0]) : undefined;
    return first?.status === 'ready' && first.outcome.range[0] === 0;
  });
  const visible = prefixInRegion ? '' : split ? split.before : text;
  // A row may carry 100,000 reductions: filtered once per row, not per render.
  const others = useMemo(() => info.reductions.filter((r) => r.id !== info.applied), [info.reductions, info.applied]);
  const mono = info.role === 'tool' || info.role === undefined;

  return (
    <>
      {info.compaction && <CompactionNote compaction={info.compaction} applied={info.applied} />}
      {info.compact_summary && <p className="row-compaction">{compactSummaryNote(info.role)}</p>}
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
              <StubChip id={applied.id} kind={applied.kind} {...(split?.stub !== undefined ? { stub: split.stub } : {})} {...(stub?.hidden_bytes !== undefined ? { statedHidden: stub.hidden_bytes } : {})} />
            </>
          )}
        </div>
      )}
      {info.tool_calls && info.tool_calls.length > 0 && <ToolCalls calls={info.tool_calls} row={row} />}
      {others.length > 0 && <OtherReductions reductions={others} label={info.role === undefined ? 'Inside this range:' : 'Also reduced:'} rowName={rowLabel(info)} />}
      {openHereId !== undefined && <ReductionRegion id={openHereId} />}
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
          {info.end - info.index > 1 && <span className="row-range">{countOf(info.end - info.index, 'message')}</span>}
        </div>
        {info.missing ? <p className="row-missing">This message's record could not be read (see Findings).</p> : <RowBody info={info} row={row} />}
      </div>
      <RowEvents index={info.index} end={info.end} place="end" />
    </div>
  );
});
